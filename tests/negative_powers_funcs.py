"""Powers at negative bases (tests/test_negative_powers.py)."""

import math

import numpy as np


def power(x, y):
    return x**y


def math_power(x, y):
    return math.pow(x, y) * x


def numpy_power(x, y):
    return np.sum(np.power(x, y))


def constant_exponent(x):
    return x**3.0 + math.pow(x, 2.0)
