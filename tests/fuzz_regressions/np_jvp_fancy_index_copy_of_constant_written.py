# fuzz: {'params': [('float', 'p')], 'outputs': 1, 'point': [-0.614891]}
# found: python -m adcompiler.testing.fuzz --mode numpy --seed 151 (program 148: u11 = K0[np.array([1, 2, 2])], then u11[-1] -= ...); forward mode gave a zero tangent to an array read out of a constant by an index and written into later; minimised with --minimise
import numpy as np

K0 = np.array([0.5, 0.5, 0.5])


def f(p):
    u11 = K0[np.array([1, 2, 2])]
    u11[1] -= p
    return u11
