"""Reads of an array by several advanced indices, which NumPy broadcasts together (tests/test_fancy_index.py)."""

import numpy as np


def pick(A, rows, cols):
    return A[rows, cols]


def picked_listed(A):
    return np.sin(A[[0, 2, 4], [1, 1, 3]]) * 2.0


def picked_rows_and_a_slice(A, rows):
    return A[rows, 1:3] ** 2


def picked_grid(A, rows, cols):
    return A[rows[:, None], cols] * A[rows[:, None], cols]
