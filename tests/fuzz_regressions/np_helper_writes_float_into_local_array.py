# fuzz: {'params': [('float', 'p')], 'outputs': 1, 'point': [0.3]}
# found: python -m adcompiler.fuzz --numpy --seed 4 (program 17: h1 fills u3 = onp.zeros_like(u2) with s in a loop); minimised with --minimise, then by hand
import numpy as np


def h(s):
    u = np.zeros(2)
    u[0] = s
    return u


def f(p):
    return h(p)
