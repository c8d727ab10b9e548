# fuzz: {'params': [('float', 'x')], 'outputs': 1, 'point': [-0.5]}
# found: python -m adcompiler.fuzz --numpy --seed 101 (program 82: math.hypot(np.min(u4), -(np.sum(w[w > -0.24]) / ...)) with an empty mask, jvp nan); minimised by hand
import math


def f(x):
    a = max(0.0, x)
    return math.hypot(a, 0.0) + x
