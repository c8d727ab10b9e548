# fuzz: {'params': [('array', 'w', (2,))], 'outputs': 1, 'point': [[-0.652852, -0.598356]]}
# found: python -m adcompiler.fuzz --numpy --seed 101 (program 82), while narrowing a nan; minimised by hand
import numpy as np


def f(w):
    u = np.zeros(2)
    u[1] = np.sum(w)
    return u
