"""Small user functions whose printed stages the stage tests read."""

import math


def recipe(x, y):
    """The worked example of the core recipe (002 in shared/reading)."""
    p = 7 * x
    r = 1 / y
    q = p * x * 5
    v = 2 * p * q + 3 * r
    return v


def reassign(x, y):
    x = x * y
    x += math.sin(x)
    return x * x


def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def uses_polar(a, b):
    u, v = polar(a, b)
    return math.hypot(u, v) + u


def clashing(dx, d_x, dup, ct):
    t1 = dx * d_x
    _t0 = t1 + dup
    return _t0 * ct


def swap(a, b):
    a, b = b, a
    return a - 2.0 * b
