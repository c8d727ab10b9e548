"""In-place array programs that adcompiler must accept and get right (tests/test_inplace.py): the
in-place rules of adcompiler/inplace.py must not refuse them."""

import numpy as np


def accumulate_in_loop(x, a):
    """acc += ... in a loop: nothing else refers to acc."""
    acc = np.zeros(3)
    for k in range(3):
        acc += a * x + k
    return np.sum(acc * acc)


def prefix_sums_read_before_write(x, a):
    """A view y[:i] used before the write y[i] = ...: it never sees the write."""
    y = a * x
    for i in range(1, 3):
        y[i] = np.sum(y[:i]) * 0.5 + y[i]
    return np.sum(y * y)


def chosen_array_then_written(x, a, c):
    """A conditional expression holding a parameter or a local; the local is written before."""
    u = np.ones(3)
    for i in range(3):
        u[i] = x * (i + 1)
    t = a if c > 0.0 else u
    return np.sum(t * u)


def slice_copy_written(x, a):
    """A copied slice may be written freely."""
    v = a[1:].copy()
    v[0] = x * x
    return np.sum(v) + np.sum(a)


def rebound_after_view(x, a):
    """c = c + x makes a new array, so the earlier view keeps its values, as in NumPy."""
    c = a * 1.0
    v = c[:2]
    c = c + x
    return np.sum(v * c[:2])
