"""Functions for test_functional.py."""

import math

import numpy as np


def loss(w, x, n):
    """n is an integer (a loop bound), w the weights, x the data."""
    total = 0.0
    for i in range(n):
        total = total + np.sum(np.tanh(x * w) ** 2) * (i + 1.0)
    return total


def with_aux(w, x):
    z = np.sum(w * x)
    return z * z, (z, 3)


def vector_field(x, y):
    return np.sin(x) * y, x * x


def scalar_pair(a, b):
    return math.sin(a) * b + a * a


def mixed_hessian(x, y):
    """A scalar of a 2-vector and a 3-vector with every block of its Hessian nonzero."""
    return np.sum(x**2 * y[:2]) + np.sin(y[0]) * x[1] + np.prod(y) * x[0]


def scaled_first(a, x):
    return a * x[0] + a * a * x[1]


def two_outputs_list(x, y):
    return [x * y, x**3]


def cubed_times_first(x):
    return x**2 * x[0]


def doubles_its_first(xs):
    """Changes the list it is handed (a pullback taken of it must be at the list as it was handed)."""
    xs[0] = xs[0] * 2.0
    return xs[0] * xs[1]


def scaled_square(x, *, k=2.0):
    return k * x * x
