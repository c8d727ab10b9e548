"""Functions whose fast entries (adcompiler.api.entries) are tested: names that clash with an entry's
own, defaults, tuple outputs, loops (not inlined) and errors raised inside an inlined body."""

import math

import numpy as np

method_ = 3.0  # globals and parameters named like an entry's internals
float_ = 0.5


def clash(primals_, type_):
    isinstance_ = primals_ * type_
    return isinstance_ * method_ + float_ * math.sin(type_)


def scaled(x, k=2.0):
    return k * x * x


def pair(x, y):
    z = x * y
    return z, z + math.exp(x)


def looped(x, y):
    s = 0.0
    for i in range(4):
        s = s + x * y + i
    return s


def log_of(x):
    return math.log(x)


def weighted(xs, p):
    """Straight-line code over two flat sequences of numbers, a number output."""
    return xs[0] * p[0] + xs[1] * xs[2] * p[1]


def mixed(xs, p):
    """Straight-line code over two flat sequences of numbers, a list output."""
    return [xs[0] * p[0] + xs[1] * xs[2] * p[1], p[1] - xs[2]]


def row_sums(M, v):
    s = 0.0
    for i in range(len(M)):
        row = M[i]
        for j in range(len(v)):
            s = s + row[j] * v[j]
    return s


def wave(x, y):
    """An array output: its cotangent is an array of its shape."""
    return np.sin(x) * y


def wave_and_total(x, y):
    """A tuple output of an array and a number."""
    return np.sin(x) * y, np.sum(x * x)


def power(x, n):
    """x ** (n + 1) by a loop of ``n`` products: an int argument, a constant by default."""
    p = x
    for _ in range(n):
        p = p * x
    return p


def weighted_sum(a, x):
    """A number parameter first: called with an int, a constant; its tangent left out."""
    return a * np.sum(x * x)
