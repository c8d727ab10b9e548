"""Masks combined with NumPy's bitwise operators, and bits of integers (tests/test_masks.py)."""

import numpy as np


def masked_pieces(x):
    m = (x > 0.2) & (x < 1.5)
    n = (x < 0.0) | ~m
    return np.sum(np.where(m, x * x, 0.0)) + np.sum(np.where(n ^ (x > 3.0), np.sin(x), 0.0))


def masked_read(x, y):
    keep = (x > 0.0) & ~(y > 1.0)
    keep &= x < 3.0
    return np.sum(x[keep] * y[keep]) + np.sum(y[~keep])


def flags_choose(x, k):
    if k & 1:
        return x * x
    return x * 3.0
