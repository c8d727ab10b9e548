# fuzz: {'params': [('array', 'x', (3,)), ('array', 'v', ())], 'outputs': 1, 'point': [[0.979011, -0.057895, 1.286354], -0.318022]}
# found: python -m adcompiler.testing.fuzz --mode numpy --seed 3 (program 0, a crash) on the code before a2843b2: a helper's () parameter a, made (3,) in a loop, got a (3,) cotangent; minimised by hand
import numpy as np


def h0(a, b):
    for i0 in range(2):
        a = a * b + 0.5
    return a


def f(x, v):
    return np.sum(h0(v, x) ** 2)
