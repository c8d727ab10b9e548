# fuzz: {'params': [('list', 'xs', 4)], 'outputs': 1, 'point': [[-0.841905, -1.398269, 0.277548, -0.340477]]}
# found: python -m adcompiler.testing.fuzz --mode numpy --programs 300 --seed 777 (program 97); minimised with --minimise
# np.array(u0) copies u0: its tangent must be a copy too, or the write into u0 reached u2's tangent
import numpy as np


def f(xs):
    u0 = 0.1 * np.arange(6.0).reshape(2, 3)
    u2 = np.array(u0)
    u0[0, 1] += xs[0]
    return u2 + u0 * xs[1]
