# fuzz: {'params': [('float', 'q')], 'outputs': 1, 'point': [1.262469]}
# found: python -m adcompiler.fuzz --numpy --seed 104 (program 64: y = np.copy(u0) after u0 was filled in a loop, then u0[3] = ...); minimised with --minimise, then by hand
import numpy as np


def f(q):
    u = np.zeros(2)
    u[0] = q
    y = np.copy(u)
    u[0] = 0.5
    return y
