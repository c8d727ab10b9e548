# fuzz: {'params': [('array', 'y', (3,)), ('float', 'p')], 'outputs': 1, 'point': [[1.43147, 0.869526, -0.297908], 0.5]}
# found: python -m adcompiler.fuzz --numpy --seed 101 (program 86: (np.log10(...y...) if c else const[0, :]) + 0.48 * math.atan(p)); minimised by hand
import numpy as np


def f(y, p):
    if p > 0.0:
        u = np.ones(3)
    else:
        u = y
    return np.sum(u + p)
