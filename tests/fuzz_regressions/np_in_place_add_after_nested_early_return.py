# fuzz: {'params': [('array', 'w', (2,))], 'outputs': 1, 'point': [[-1.35579, -1.334756]]}
# found: python -m adcompiler.testing.fuzz --mode numpy --seed 96 (program 105): the code after an early return is written into both branches, and u0 += 0.5 in one branch took the copy in the other for an alias used afterwards; minimised with --minimise, then by hand
import numpy as np


def f(w):
    u0 = np.zeros_like(w)
    if w[0] > 5.0:
        if w[1] > 5.0:
            return 0.5
    u0 += 0.5 * w
    return np.sum(u0 * w)
