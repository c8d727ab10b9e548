# fuzz: {'params': [('float', 'x'), ('int', 'n')], 'outputs': 1, 'point': [-0.5, 4]}
# xfail: reverse mode: an inactive int parameter read in a for-range header and again later: the header reads n_1 (its dup copy) but the dup line is dropped -> NameError
# found: python -m adcompiler.fuzz --seed 3 (program 17), also seed 11 (program 6); minimised by hand from the fuzzer's output


def f(x, n):
    for i in range(n):
        pass
    return x * n
