# fuzz: {'params': [('array', 'x', (2,))], 'outputs': 1, 'point': [[0.4, -0.2]]}
# found: python -m adcompiler.fuzz --numpy --seed 2 (program 32: u0 = np.zeros(3) filled in a loop, then u0 = 4.0 * np.tanh(u0) in a while loop); minimised by hand
import numpy as np


def f(x):
    u0 = np.zeros(3)
    u0[0] = x[0]
    if np.sum(x) < -0.7:
        u0 = 2.0 * u0
    return np.sum(u0)
