"""One-line NumPy functions of the kinds autograd's and Tangent's test suites differentiate, where
adcompiler was found wrong or crashing (test_peer_findings.py)."""

import numpy as np


def max_keepdims(x):
    return np.max(x, keepdims=True)


def min_keepdims(x):
    return np.min(x, keepdims=True)


def dot_numbers(x, y):
    return np.dot(x, y)


def inner_numbers(x, y):
    return np.inner(x, y)


def sum_of_number(x):
    return np.sum(x)


def prod_of_number(x):
    return np.prod(x)


def norm_of_list(x):
    return np.linalg.norm([x, x + 2.0])


def norm_of_tuple(x, y):
    return np.linalg.norm((x * y, y))


def tuple_parameter(t):
    a, b, c = t
    return a * b + c * c * a


def fill_in_a_loop(x):
    y = np.zeros_like(x)
    for i in range(len(x)):
        y[i] = x[i] * x[(i + 1) % len(x)]
    return np.sum(np.sin(y))


def mean_of_a_tuple(x):
    return np.mean((x * x, x + 2.0))


def newaxis_and_ellipsis(x, y):
    a = x[..., 0] * y[np.newaxis, :]
    b = x[:, np.newaxis, :] * x[np.newaxis]
    c = x[..., 1:][0]
    return np.sum(a * a) + np.sum(np.sin(b)) + np.sum(c**3)


def std_of(x):
    return np.std(x)


def std_rows(x):
    return np.sum(np.std(x, axis=0, keepdims=True) * np.array([1.0, 2.0, 3.0]))


def number_and_rows(c, A):
    """Python's sum of a list holding a number and arrays: c's cotangent sums over the broadcast."""
    return np.sum(sum([c] + [A[0], A[1]]) * np.array([1.0, -2.0]))


def rows_as_a_list(A):
    rows = list(A)
    return np.sum(rows[0] * rows[1])


def tuple_of_a_tuple(x, y):
    """autograd's linalg tests return tuple((w, v))."""
    t = tuple((x * y, np.sin(x) + y))
    return t[0] * t[1]
