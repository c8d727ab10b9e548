# fuzz: {'params': [('float', 'x'), ('list', 'xs', 3)], 'outputs': 1, 'point': [0.7, [1.1, -0.5, 0.3]]}
# xfail: reverse mode returns the scalar 0.0 as the cotangent of a list parameter the output does not depend on, instead of a list of zeros shaped like the parameter (README: cotangents have the parameter's structure)
# found: python -m adcompiler.fuzz --seed 11 (programs 39 and 81); minimised with --minimise


def f(x, xs):
    return x * x
