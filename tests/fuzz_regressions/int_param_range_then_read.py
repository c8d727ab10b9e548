# fuzz: {'params': [('float', 'x'), ('int', 'n')], 'outputs': 1, 'point': [-0.5, 4]}
# found: python -m adcompiler.fuzz --seed 3 (program 17): reverse mode read n_1 (a dup copy of n) in the for header; fixed in 3ab1c07


def f(x, n):
    for i in range(n):
        pass
    return x * n
