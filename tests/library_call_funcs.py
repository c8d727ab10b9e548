"""Functions for tests/test_library_calls.py: library functions with no derivative rule called on values
with no derivative (constants, integers, data not differentiated), as gmm and llsq of GradBench do."""

import math

import numpy as np
import scipy.linalg as sl
import scipy.special
from scipy.special import multigammaln


def lower_factor(q, l):
    """Q with exp(q) on its diagonal and l below it, column by column (np.triu_indices of an int)."""
    d = len(q)
    Q = np.diag(np.exp(q))
    cols, rows = np.triu_indices(d, 1)
    Q[rows, cols] = l
    return np.sum(Q @ Q.T)


def poly_fit(x, n):
    """A least-squares objective whose powers of t come from np.vander (t data, a keyword argument)."""
    t = -1.0 + np.arange(n) * 2.0 / (n - 1)
    powers = np.vander(t, len(x), increasing=True)
    r = np.sign(t) - powers @ x
    return 0.5 * np.sum(r * r)


def wishart_constant(q, m):
    """SciPy and math functions of integers and constants (imported by name and by module path)."""
    d = q.shape[0]
    n = d + m + 1
    C = n * d * math.log(2.0) - multigammaln(0.5 * n, d) + scipy.special.multigammaln(2.5, 3)
    return C * np.sum(q**2) + math.comb(d, 2) * np.sum(q)


def active_unwrap(t):
    return np.sum(np.unwrap(t))  # ERR:unwrap


def unwrapped(t):
    return np.unwrap(t)  # ERR:helper


def through_helper(t):
    return np.sum(unwrapped(t))


def chained(a, b):
    c = sl.polar(a)  # ERR:chained
    return np.sum(sl.sqrtm(c[1]) @ b)


def seeded(x):
    np.random.seed(0)  # ERR:seed
    return x * 2.0


def zero_diagonal(A):
    np.fill_diagonal(A, 0.0)  # ERR:inplace
    return np.sum(A * A)


def halves(x, n):
    """divmod of ints: a builtin with no rule, on values with no derivative."""
    q, r = divmod(n, 2)
    return x * q + r * x * x
