"""Helpers of numbers that call NumPy (tests/test_number_cotangents.py): NumPy of a number may make a 0-d array."""

import numpy as np


def clipped(x):
    return np.clip(x, -1.0, 2.0) * x


def chosen(x):
    return np.where(x > 0.5, x * x, np.sin(x))


def logged(x):
    z = np.where(x > 0, x, 1.0)
    return np.where(x > 0, 2.0 * np.log(z) - z, -np.inf)


def largest(x):
    return np.maximum(x, 0.3) * np.abs(x)


def hyperbolic(x):
    return np.tanh(x) + np.arctan2(x, 2.0)


def twice(helper, x, y):
    """A helper called twice (a split sweep each time), then added up."""
    return helper(x) + 2.0 * helper(y)


def twice_clipped(x, y):
    return twice(clipped, x, y)


def twice_chosen(x, y):
    return twice(chosen, x, y)


def twice_logged(x, y):
    return twice(logged, x, y)


def twice_largest(x, y):
    return twice(largest, x, y)


def twice_hyperbolic(x, y):
    return twice(hyperbolic, x, y)
