# fuzz: {'params': [('float', 'p')], 'outputs': 2, 'point': [0.686363]}
# found: python -m adcompiler.fuzz --numpy --seed 103 (program 190, a duality miss of 3e-8); minimised with --minimise
import numpy as np


def f(p):
    u0 = np.ones(3)
    for i1 in range(u0.size):
        return (1.0 + p, 0.5)
    return (u0, 0.5)
