# fuzz: {'params': [('array', 'y', (4,))], 'outputs': 2, 'point': [[0.3, 0.1, -0.2, 0.5]]}
# found: python -m adcompiler.fuzz --numpy --seed 4 (program 10: return (np.full(4, -0.75) + ..., ...) inside a for loop); minimised with --minimise, then by hand
import numpy as np


def f(y):
    if y[0] > 0.0:
        return np.full(4, 0.5), np.sum(y)
    return y, 0.5
