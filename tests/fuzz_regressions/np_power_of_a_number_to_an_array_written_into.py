# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.344665, 1.41411, 1.086053]]}
# found: python -m adcompiler.fuzz --mode mixed --seed 41 (program 1548): a number ** an array, written into later, took the number rule of ** in forward mode; minimised by hand
import math

import numpy as np


def f(x):
    u = (1.2 + math.sin(x[0])) ** x
    u[0] -= 0.5
    return np.sum(u * u)
