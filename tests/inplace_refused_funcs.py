"""In-place changes the derivative would miss, each refused with its location (tests/test_inplace.py)."""

import numpy as np


def same_object_then_written(xs):
    """np.asarray(u0) is u0 itself: the write into u0 reaches u2, which is used after it (refused)."""
    u0 = 0.1 * np.arange(6.0).reshape(2, 3)
    u2 = np.asarray(u0)
    u0[0, 1] += xs[0]
    return u2 * xs[1]


def row_view_then_written(xs):
    """u0[0] is a row view of u0: the write into u0 reaches it, used after the write (refused)."""
    u0 = 0.1 * np.arange(6.0).reshape(2, 3)
    u2 = u0[0]
    u0[0, 1] += xs[0]
    return u2 * xs[1]


def rebound_in_a_loop_then_written(xs):
    """v holds u's array; u is bound anew in the loop; the write into v lost a gradient entry (refused)."""
    x = np.asarray(xs)
    u = x * 1.0
    v = u
    for _ in range(2):
        u = u * 2.0
    v[1] = 3.0
    return np.sum(u * u)


def rebound_in_a_branch_then_written(xs):
    """The same with a branch: [4, 0] for [4, 16] before (refused)."""
    x = np.asarray(xs)
    u = x * 1.0
    v = u
    if xs[0] > 0:
        u = u * 2.0
    v[1] = 3.0
    return np.sum(u * u)
