# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.358318, 0.60374, 0.438446]]}
# found: python -m adcompiler.fuzz --numpy --seed 102 (program 82); minimised with --minimise, then by hand
import numpy as np


def f(x):
    u = 0.5 * np.concatenate([x, x])
    return x if x[0] > 0.0 else u
