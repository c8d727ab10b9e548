"""Functions pickled with their derivatives (tests/test_pickling.py): decorated at module level, and
plain ones differentiated by the caller."""

import math

import adcompiler


@adcompiler.differentiate
def energy(x, y):
    return x * x * y + math.sin(y)


@adcompiler.differentiate(wrt=("xs",))
def weighted(xs, w):
    s = 0.0
    for i in range(len(xs)):
        s = s + w * xs[i] * xs[i]
    return s


def plain(x):
    return math.exp(x) * x
