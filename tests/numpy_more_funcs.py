"""Functions of test_numpy_more.py (adcompiler reads source, so they live in a file)."""

import numpy as np


def lstsq_residuals(a, b):
    x, res, rank, sv = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x) + np.sum(res)


def lstsq_solution(a, b):
    x, res, rank, sv = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x * x)


def average_returned(a, w):
    avg, total = np.average(a, weights=w, returned=True)
    return avg * total


def split_computed(x):
    k = x.shape[0] // 2
    a, b = np.split(x, k)
    return np.sum(a * b)


def cumprod_sum(x):
    return np.sum(np.cumprod(x))


def pieces(x):
    a, b, c = np.split(x, [1, 3])
    total = 0.0
    for p in np.array_split(x, 2):
        total = total + np.sum(p**2)
    return np.sum(a) * np.sum(c) + np.sum(b**3) + total


def transposed_by_method(T):
    """``x.transpose(1, 0, 2)``: the axes as separate arguments of the method (issue 37's held-out set)."""
    return np.sum(T.transpose(1, 0, 2) * np.arange(24.0).reshape(3, 2, 4)) + np.sum(np.tanh(T.transpose(2, 0, 1)))


def positive_part_by_indices(x):
    """``np.where(cond)`` with one argument: the indices where cond holds (integers, no derivative)."""
    (idx,) = np.where(x > 0.0)
    return np.sum(x[idx] ** 2) + np.sum(np.where(x > 0.0, x, 0.0))
