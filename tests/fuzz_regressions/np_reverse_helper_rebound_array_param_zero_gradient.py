# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.4, -0.2, 0.3]]}
# found: by hand, narrowing python -m adcompiler.fuzz --numpy --seed 3 (program 11); generated helpers reassign their parameters
import numpy as np


def h(b):
    b = b * 1.0
    return b[0] * 2.0


def f(x):
    return h(x)
