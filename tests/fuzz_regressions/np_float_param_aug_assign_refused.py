# fuzz: {'params': [('array', 'A', (2, 3)), ('float', 'p')], 'outputs': 1, 'point': [[[-1.2, -1.3, 0.8], [-1.3, 1.4, 1.1]], 0.75]}
# found: python -m adcompiler.fuzz --numpy --seed 102 (program 135: p = 1.0 + p; p += A[1][-3] in a loop), re-checked on bfca6fc; minimised with --minimise, then by hand
import numpy as np


def f(A, p):
    p += A[1, 0]
    return p
