# fuzz: {'params': [('float', 'q')], 'outputs': 1, 'point': [1.262469]}
# xfail: forward mode silently wrong: y = np.copy(u) shares u's tangent array instead of copying it, so the later write u[0] = 0.5 also clears y's tangent: jvp gives [0, 0], not [1, 0] (the values are right; reverse mode is right); the method u.copy() does the same (seed 105 on edf6250, program 44)
# found: python -m adcompiler.fuzz --numpy --seed 104 (program 64: y = np.copy(u0) after u0 was filled in a loop, then u0[3] = ...); minimised with --minimise, then by hand
import numpy as np


def f(q):
    u = np.zeros(2)
    u[0] = q
    y = np.copy(u)
    u[0] = 0.5
    return y
