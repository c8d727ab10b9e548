"""Copies of lists of arrays and numbers, and lists repeated, whose shadows must not share zeros:
tests/test_copied_list_shadows.py."""

import numpy as np


def copied(x):
    """An element of a copy read: its adjoint added into the copy's zero, then into the list's."""
    xs = []
    xs.append(x * 2.0)
    ys = list(xs)
    return np.sum(ys[0] * 3.0)


def copied_and_stacked(x):
    """A copy read, stacked and the list read again after it."""
    xs = []
    xs.append(x * 2.0)
    xs.append(np.sin(x))
    ys = list(xs)
    return np.sum(ys[0] * 3.0) + np.sum(np.stack(ys) ** 2) + np.sum(xs[1])


def repeated(x):
    """[r] * n: n elements, one array r; each element's adjoint its own."""
    ys = [x * 2.0] * 3
    return np.sum(ys[0] * 3.0) + np.sum(ys[2] * ys[1])


def copied_in_a_loop(x):
    """A list copied in each pass of a loop, read after the loop too (checkpointed: the copy is made
    again in the adjoint sweep, when the list's shadow already holds the read's adjoint)."""
    xs = [x * 2.0]
    s = 0.0
    for i in range(4):
        ys = list(xs)
        s = s + np.sum(ys[0] * 3.0 * x)
    return s + np.sum(xs[0] * xs[0])


def numbers_copied_in_a_loop(x):
    xs = [x * 2.0, x]
    s = 0.0
    for i in range(4):
        ys = list(xs)
        s = s + ys[0] * 3.0 * ys[1]
    return s + xs[0] * xs[0]


def rows_copied(x):
    """A copy of a list of lists shares its lists: an append to one seen through both."""
    rows = [[x * 2.0, x], [x * 3.0]]
    cp = list(rows)
    cp[0].append(x * 5.0)
    return rows[0][2] * cp[0][0] + cp[1][0] * rows[1][0]
