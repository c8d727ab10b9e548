# fuzz: {'params': [('float', 'p')], 'outputs': 1, 'point': [0.3]}
# found: python -m adcompiler.fuzz --numpy --seed 1 (program 21: onp.squeeze(...linspace...) + c * math.tanh(p)); minimised with --minimise, then by hand
import numpy as np


def f(p):
    return np.ones(3) + p
