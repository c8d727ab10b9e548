"""Functions for test_check.py (check_grad reads their source)."""

import math

import numpy as np


def x_abs_x(x):
    return x * abs(x)


def hinge(x, y):
    return max(x * y, 0.0) + x


def branch_on_sign(x):
    if x < 0.0:
        return -x * x
    return x * x


def sum_of_squares(W):
    return np.sum(W * W)


def weighted(W, b):
    return np.sum(np.tanh(W @ b)) + np.sum(b**3)


def abs_array(W):
    return np.sum(np.abs(W) * W)


def nested(params):
    W, b = params
    return np.sum(W * W) + b * b


def vector_out(x, y):
    return x * y, math.sin(x) + y


def wrong_jvp(a, t):
    return 3.0 * t


def cube(a):
    return a * a * a


def uses_cube(x):
    return cube(x) + x


def cube_vjp(a, g):
    return (3.0 * a * a * g,)


def steep(x):
    """Its fifth derivative is of order 40**5: a step of 1e-3 misjudges its slope by about 1e-4."""
    return math.tanh(40.0 * (x - 0.3)) + x


def scaled_keyword(x, *, scale=2.0):
    return scale * x * x


def _kernel_py(q):
    if q < 1.0:
        return (1.0 - q) ** 3
    return 0.0


try:  # a @numba.njit helper with a comparison (the complex step cannot pass it a complex number)
    import numba

    kernel = numba.njit(_kernel_py)
except ImportError:  # (the tests that need it skip)
    kernel = _kernel_py


def through_njit_kernel(x):
    return kernel(x) * x
