# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.3, -0.5, 1.2]]}
# found: python -m adcompiler.fuzz --numpy --seed 104 (program 193: A = np.arange(4.0).reshape(2, 2) in a loop, then np.vstack([A, A[1:]])); minimised with --minimise, then by hand
import numpy as np


def f(x):
    for i in range(2):
        x = np.ones(3)
    return x[1:]
