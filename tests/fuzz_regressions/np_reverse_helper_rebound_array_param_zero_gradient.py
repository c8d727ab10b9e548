# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.4, -0.2, 0.3]]}
# xfail: reverse mode is silently wrong: a helper that rebinds its array parameter (b = b * 1.0) and then indexes it (b[0]) returns the gradient [0, 0, 0], not [2, 0, 0] (forward mode is right); the parameter is taken for a list, as in np_reverse_helper_indexes_array_param
# found: by hand, narrowing python -m adcompiler.fuzz --numpy --seed 3 (program 11); generated helpers reassign their parameters
import numpy as np


def h(b):
    b = b * 1.0
    return b[0] * 2.0


def f(x):
    return h(x)
