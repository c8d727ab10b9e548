# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 2, 'point': [[0.3, -0.5, 1.2]]}
# found: python -m adcompiler.fuzz --numpy --seed 1 (programs 0 and 21); minimised with --minimise, then by hand
import numpy as np


def f(x):
    return np.sum(x), np.linspace(0.5, 1.0, 3)
