# fuzz: {'params': [('array', 'w', (2,))], 'outputs': 1, 'point': [[-0.652852, -0.598356]]}
# xfail: reverse mode returns a wrong value, silently: vjp of u = np.zeros(2); u[1] = np.sum(w); return u gives the value [0, 0], not [0, -1.25]: the adjoint sweep undoes the element write in place (u[1] = tape.pop()) on the very array it then returns (the cotangents are right)
# found: python -m adcompiler.fuzz --numpy --seed 101 (program 82), while narrowing a nan; minimised by hand
import numpy as np


def f(w):
    u = np.zeros(2)
    u[1] = np.sum(w)
    return u
