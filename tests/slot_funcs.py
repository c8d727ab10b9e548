"""Called functions whose branches run at most once a call (issue 35, GradBench ba's rodrigues): what such
a branch keeps for the adjoint is a variable (a slot), not a list; and their neighbours that keep lists
(a branch in a loop, a function that calls itself)."""

import numpy as np
from small_array_funcs import rotate  # (ba's rodrigues)


def rotated(rot, X):
    return np.sum(rotate(rot, X) * np.array([1.0, 2.0, 3.0]))


def nested(x, y):
    """A branch inside a branch: the inner one's slots are left unset where the outer one goes the other way."""
    a = x * y
    if x > 0.0:
        b = np.sin(a)
        if y > 0.0:
            c = b * np.exp(y)
        else:
            c = b * b
        d = c + a
    else:
        d = np.cos(a) * x
    return d * y


def calls_nested(x, y):
    return nested(x, y) + nested(y, x) * 2.0


def counted(x, n):
    """A while loop in a branch: its trip count is kept after it, once a call."""
    if n > 0:
        k = 0
        s = x
        while k < n:
            s = s * 0.5 + np.sin(s)
            k += 1
        return s
    return x * x


def calls_counted(x, n):
    return counted(x, n) * counted(x * 0.5, n - 2)


def looped(x, n):
    """The same callee called in a loop: each call its own slots; a branch in the callee's loop keeps a list."""
    s = 0.0
    for i in range(n):
        s = s + branch_in_loop(x * (i + 1.0), 3)
    return s


def branch_in_loop(x, n):
    s = x
    for i in range(n):
        if s > 1.0:
            s = np.sqrt(s)
        else:
            s = s * s + x
    return s


def power(x, n):
    """A function that calls itself: the levels share one set of tapes under Numba (lists)."""
    if n == 0:
        return 1.0
    if n % 2 == 1:
        return x * power(x, n - 1)
    h = power(x, n // 2)
    return h * h


def calls_power(x):
    return power(np.sin(x), 5)


def squares(x, y):
    return x[0] * x[0] - y[0] * y[0] + x[1] * y[1]


def listed_or_called(x, y, listed):
    """A branch outside every loop that keeps a list of numbers (``np.array([d0, d1])``) and the residuals
    of calls (GradBench saddle's ``grad_y``): under Numba it keeps tapes (a slot holding a list failed in
    Numba's lowering)."""
    if listed:
        d0 = squares(x, y) * x[0]
        d1 = squares(y, x) * y[1]
        return np.array([d0, d1])
    return squares(x, y) * y


def calls_listed(x, y, listed):
    return np.sum(listed_or_called(x, y, listed) * x)
