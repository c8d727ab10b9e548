# fuzz: {'params': [('float', 'x')], 'outputs': 1, 'point': [-0.5]}
# xfail: math.hypot at (0, 0), reached with zero tangents: the partials x / z and y / z are 0 / 0, so forward mode raises ZeroDivisionError (nan with NumPy floats, as np.hypot) though the derivative here is 1.0; np.linalg.norm at the zero vector now has derivative 0 (README), hypot has no such convention
# found: python -m adcompiler.fuzz --numpy --seed 101 (program 82: math.hypot(np.min(u4), -(np.sum(w[w > -0.24]) / ...)) with an empty mask, jvp nan); minimised by hand
import math


def f(x):
    a = max(0.0, x)
    return math.hypot(a, 0.0) + x
