# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.3, -0.4, 1.1]]}
# found: python -m adcompiler.testing.fuzz --mode numpy --seed 131 (programs 48 and 237), once the generator declared module arrays: forward code assigned K0 = K0 in a while test, making the module's K0 a local (UnboundLocalError); minimised by hand
import numpy as np

K0 = np.array([0.87, 0.01, -0.68])


def f(x):
    j = 0
    while j < 1 and np.sum(K0) <= 0.8:
        j += 1
        x = x * 2.0
    return np.sum(x * K0)
