# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.3, -0.5, 1.2]]}
# found: python -m adcompiler.fuzz --numpy --seed 105 on edf6250 (program 136: u0 filled in a loop, then u3[:, i4] = u0); minimised by hand
import numpy as np


def f(x):
    u = np.zeros(3)
    u[0] = x[0]
    V = np.zeros((3, 2))
    V[:, 0] = u
    return np.sum(V * V)
