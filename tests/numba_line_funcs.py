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


def joined_then_used(x, y, h):
    """A join of elementwise pieces, then a line that reads it with vectors of the join's length: that line's
    elements computed in the join's loops, where the join's are stored."""
    z = np.concatenate((x[:1], x[1:] * y[:-1]))
    w = y + h * (z - x) * z
    return np.sum(w * w) + np.sum(z)


def joined_then_rebound(x, y):
    """The line after the join binds a name the join's pieces read (y): its own line, after the join's loops."""
    z = np.concatenate((x[:1], x[1:] * y[:-1]))
    y = y + 2.0 * z * x
    return np.sum(y * y)


def joined_then_other_length(x, y, c):
    """The line after the join reads a vector c of another length than the join's (NumPy's broadcasting of one
    element, or its error): the join's loops where the lengths agree, the two lines as they were elsewhere."""
    z = np.concatenate((x[:1], x[1:] * y[:-1]))
    w = (z - c) * 0.5
    return np.sum(w * w)
