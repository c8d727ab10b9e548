# fuzz: {'params': [('array', 'A', (2, 3))], 'outputs': 1, 'point': [[[0.3, -0.7, 1.1], [0.5, 0.2, -1.3]]]}
# found: python -m adcompiler.fuzz --numpy --seed 1 (program 12: np.full((2, 3), -0.72).T); minimised by hand
import numpy as np


def f(A):
    return np.sum(np.sin(A).T * np.arange(2.0))
