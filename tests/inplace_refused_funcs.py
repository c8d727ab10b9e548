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
