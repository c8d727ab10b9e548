"""Programs for tests/test_known_arrays.py: NumPy products whose gradient code the rewrites of
optimize/known_arrays.py make cheaper (unread products, new cotangents, adjoints of ones)."""

import numpy as np


def dot(a, b):
    return np.dot(a, b)


def matmul_vectors(a, b):
    return a @ b


def unread_product(M, v):
    np.dot(M, v)  # only its error matters
    return np.sum(v * v)


def unread_matmul(M, v):
    unused = M @ v  # noqa: F841
    return np.sum(v * v)


def sum_dot(M, v):
    return np.sum(np.dot(M, v))


def sum_matmul(M, v):
    return np.sum(M @ v)


def scaled_sum_dot(M, v):
    return 2.0 * np.sum(np.dot(M, v))


def sum_dot_read_twice(M, v):
    t = np.dot(M, v)
    return np.sum(t) + np.sum(t * t)


def sum_vec_mat(v, M):
    return np.sum(np.dot(v, M))


def reductions(x, y):
    """np.sum, np.max and np.min of arrays (written as the arrays' methods in the gradient), in a loop."""
    s = np.sum(x * y) + np.max(x) - np.min(y)
    for i in range(2):
        s = s + np.max(x * s) + np.sum(y)
    return s
