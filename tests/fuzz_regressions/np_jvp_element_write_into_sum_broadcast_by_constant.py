# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[-0.6, -1.1, 1.0]]}
# found: python -m adcompiler.fuzz --numpy --seed 311 --jobs 1 (program 107: u5 = (linspace(...)[:, None] * np.full(2, 0.84)[None, :] - np.abs(np.sinh(x)).reshape(3, 1)); u5[:, 1] *= ...; jvp IndexError); minimised with --minimise, then by hand
import numpy as np


def f(x):
    u = np.ones((3, 2)) + x[:, None]
    u[0, 1] = 0.5
    return u
