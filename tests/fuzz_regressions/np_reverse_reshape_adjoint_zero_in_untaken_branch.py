# fuzz: {'params': [('array', 'x', (3,)), ('float', 'p')], 'outputs': 1, 'point': [[0.3, -0.5, 1.2], 0.7]}
# found: python -m adcompiler.fuzz --numpy --seed 1 (program 9: (u8 if c else u7) with u7 = np.copy(np.squeeze(u5[None, :]))); minimised with --minimise, then by hand
import numpy as np


def f(x, p):
    u = np.squeeze(x[None, :])
    if p > 0.0:
        r = x * 2.0
    else:
        r = u
    return np.sum(r)
