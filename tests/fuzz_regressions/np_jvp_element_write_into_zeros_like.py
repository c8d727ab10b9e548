# fuzz: {'params': [('array', 'x', (2,))], 'outputs': 1, 'point': [[0.4, -0.2]]}
# found: python -m adcompiler.fuzz --numpy --seed 2 (programs 8, 14, 30: u6 = np.zeros_like(x) filled in a loop); minimised by hand
import numpy as np


def f(x):
    u = np.zeros_like(x)
    u[0] = x[0]
    return np.sum(u)
