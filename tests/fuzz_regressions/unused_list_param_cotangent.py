# fuzz: {'params': [('float', 'x'), ('list', 'xs', 3)], 'outputs': 1, 'point': [0.7, [1.1, -0.5, 0.3]]}
# found: python -m adcompiler.fuzz --seed 11 (programs 39 and 81); minimised with --minimise


def f(x, xs):
    return x * x
