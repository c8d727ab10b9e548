# fuzz: {'params': [('float', 'x'), ('list', 'xs', 3)], 'outputs': 1, 'point': [0.232545, [0.471745, -0.489498, 1.173993]]}
# found: python -m adcompiler.testing.fuzz --seed 1 (program 290) on the code before a2843b2: the cotangent of xs came back 4 numbers long; minimised by hand
import math


def f(x, xs):
    if x < 0.62:
        xs = xs + [xs[0] * x]
    return x * xs[-1] + math.sin(sum(xs))
