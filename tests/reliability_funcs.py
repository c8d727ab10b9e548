"""Programs from the reliability campaign of issue 22 (test_reliability.py)."""

import math

import numpy as np


def pow_then_scale_in_place(b, w):
    """b ** w of arrays, then written into: forward mode took the number rule of ** (an array test)."""
    u = b**w
    u[0] *= 0.5
    return np.sum(u)


def float_kept_before_in_place_change(p, y):
    """A float copied, then changed with -=: the copy was taken for an array and refused."""
    t0 = p
    p -= math.tanh(p)
    t1 = y if p > 100 else t0
    return t1 * p


def numpy_scalar_in_a_list(y):
    """y.dot(y) is a NumPy scalar: held in a list beside an array, it was taken for an array."""
    s = y.dot(y)
    xs = [s, y]
    return xs[0] * 2.0 + np.sum(xs[1])


def numpy_scalar_beside_an_alias(a):
    a2 = a
    s = a.dot(a)
    return s * 3.0 + np.sum(a2)


def pend(theta, n=200):
    """n is read only by range(): left out of the default wrt."""
    for i in range(n):
        theta = theta - 0.01 * math.sin(theta)
    return theta


def scaled_rows(xs, k, m):
    """k indexes, m repeats a list: both integers; xs is differentiated."""
    ys = [0.0] * m
    for i in range(m):
        ys[i] = xs[k] * (i + 1.0)
    return sum(ys)


def product(x, y):
    return x * y


def make_closure():
    k = 3.0

    def inner(x):
        return k * x

    return inner


def make_unset_closure():
    def inner(x):
        return k * x

    return inner
    k = 3.0  # never run: the cell inner reads is empty


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def records_of_one_number(p0):
    """A list of (x,) records read through a slice: each record's cotangent is a tuple, as it is."""
    acc = 0.0
    for e in p0[:2]:
        acc = acc + np.maximum(e[0], e[0]) * -(e[0])
    return p0[0][0] + acc


def star_args(*args):
    return args[0] * args[1]


def star_kwargs(x, **options):
    return x * 2.0


def indexed_copy_written(p):
    k = np.array([0.5, 0.25, 0.125])
    u = k[np.array([1, 2, 2])]
    u[1] -= p * p
    return u
