"""Programs with elementwise lines of float64 vectors (tests/test_numba_line_loops.py): the Numba target writes
a line of two operations or more as a loop storing into its array (targets/numba/joined_loops.py), and a
cotangent line of a run of adjoint lines so too (targets/numba/element_runs.py)."""

import numpy as np


def chain(x, y, h):
    """A chain of lines: t read twice (a line of its own, kept for the adjoint), u read once (folded into the
    sum), a number h broadcast."""
    t = y + h * x
    u = t * t - x / y
    return np.sum(u * t)


def sliced(x, y, h):
    """A line of slices of the arguments (views: the loop reads them at an offset)."""
    t = y[1:] + h * x[:-1] * x[1:]
    return np.sum(t * y[:-1])


def stepped(x, y, s):
    """Lines in a loop, each step's value read by the next and kept for the adjoint."""
    for _ in range(s):
        y = y + 0.25 * (x * y - y / (1.0 + x * x))
    return np.sum(y * y)


def returned(x, y, h):
    """A vector returned: the line the function's value."""
    return y + h * (x - y) * x


def unary(x, y):
    """A negation among the operations, and a division by a vector."""
    t = -x * y + y / x
    return np.sum(t * x)
