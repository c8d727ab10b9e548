"""NumPy programs where a smaller operand meets a constant array (tests/test_numpy_broadcast.py): the tangent
of ``np.ones(3) + p`` must have the shape of the sum, not of p, or ``np.sum`` of it is wrong by a factor."""

import numpy as np


def f_add(p):
    return np.sum(np.ones(3) + p)


def f_sub(p):
    return np.sum(np.ones(3) - p)


def f_rsub(p):
    return np.sum(p - np.ones(3))


def f_mul(p):
    return np.sum(np.ones(3) * p)


def f_div(p):
    return np.sum(np.ones(3) / (p + 2.0))


def f_rdiv(p):
    return np.sum(p / np.full(3, 2.0))


def f_pow(p):
    return np.sum(np.full(3, 2.0) ** p)


def f_max(p):
    return np.sum(np.maximum(np.zeros(3), p))


def f_min(p):
    return np.sum(np.minimum(np.full(3, 9.0), p))


def f_where(p):
    return np.sum(np.where(np.array([True, False, True]), p, 0.0))


def f_where2(p):
    return np.sum(np.where(np.array([True, False, True]), np.ones(3), p))


def f_clip(p):
    return np.sum(np.clip(p + np.zeros(3), -5.0, 5.0))


def f_hypot(p):
    return np.sum(np.hypot(np.ones(3), p))


def f_arctan2(p):
    return np.sum(np.arctan2(np.ones(3), p))


def f_logaddexp(p):
    return np.sum(np.logaddexp(np.ones(3), p))


def f_power(p):
    return np.sum(np.power(np.full(3, 2.0), p))


def f_neg_idx(p):
    y = np.zeros(3) + p
    return y[0] * 2.0 + np.sum(y)


def f_mat(p):
    return np.sum(np.ones((2, 3)) @ (np.zeros(3) + p))


def f_2d(w):
    return np.sum(np.ones((2, 3)) + w)


def f_out(p):
    return np.ones(3) + p


def f_const(p):
    return np.ones(3), p * 2.0
