# fuzz: {'params': [('float', 'p')], 'outputs': 1, 'point': [-1.33]}
# found: python -m adcompiler.fuzz --numpy --seed 102 (program 174), re-checked on bfca6fc; minimised with --minimise, then by hand
import numpy as np


def f(p):
    u = np.ones(3)
    for i in range(3):
        u[i] = p if p > 0.0 else u[0]
    return np.sum(u * u)
