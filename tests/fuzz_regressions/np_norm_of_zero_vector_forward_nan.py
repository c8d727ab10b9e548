# fuzz: {'params': [('float', 'p')], 'outputs': 1, 'point': [-0.5]}
# found: python -m adcompiler.fuzz --numpy --seed 2 (program 4: u0[i1] = max(np.linalg.norm(u0), p) on u0 = np.zeros(2)); minimised with --minimise, then by hand
import numpy as np


def f(p):
    u = np.zeros(2)
    u[0] = max(0.0, p)
    return np.linalg.norm(u) + p
