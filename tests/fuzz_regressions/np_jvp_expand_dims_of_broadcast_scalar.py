# fuzz: {'params': [('float', 'p')], 'outputs': 1, 'point': [0.3]}
# found: python -m adcompiler.fuzz --numpy --seed 1 (program 29: np.expand_dims(np.array([...]) - math.tanh(np.sum(A[A > 0.1])), 1) - A); minimised by hand
import numpy as np


def f(p):
    return np.expand_dims(np.ones(3) + p, 1)
