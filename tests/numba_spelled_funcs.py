"""Functions whose derivatives call NumPy functions the Numba target spells otherwise: np.var and np.std
(their rules' helpers), np.linalg.slogdet (its rules' expand_dims of a number and numpy.trace over the last
two axes), expand_dims of a tuple of axes, np.sort (argsort and take_along_axis along a vector's axis)
(tests/test_numba_spellings.py)."""

import numpy as np


def spread(x, w):
    return np.var(x * w) + np.var(x) * np.std(w)


def scaled_std(x):
    c = np.cumsum(x)
    return np.sum(c * c) + np.std(x) * np.mean(x)


def logdet(A):
    s, ld = np.linalg.slogdet(A @ A.T + np.eye(A.shape[0]))
    return ld + np.sum(np.linalg.solve(A @ A.T + np.eye(A.shape[0]), A[:, 0]))


def gp_nll(A, y):
    K = A @ A.T + np.eye(A.shape[0])
    s, ld = np.linalg.slogdet(K)
    return 0.5 * ld + 0.5 * y @ np.linalg.solve(K, y)


def expanded(x):
    return np.sum(np.expand_dims(x, (0, 2)) * np.expand_dims(x, -1))


def traces(A):
    return np.trace(A, 1, -1, -2) * np.trace(A) + np.sum(np.trace(np.stack([A, A * A]), 0, -2, -1))


def ranked(x):
    y = np.sort(x)
    return np.sum(y * np.arange(1.0, len(x) + 1.0))


def sorted_parts(x):
    y = np.sort(x * 2.0)
    return np.sum(y[:2] ** 2) + y[-1] * np.sum(np.sort(x))


def transposed(x):
    M = x.reshape(2, 3, 2)
    N = np.transpose(M, (1, 0, -1)).reshape(6, 2)  # the adjoint transposes back by inverse_axes
    return np.sum(N[::2] * N[1::2]) + np.sum(M.transpose(2, -3, 1) ** 2 * np.arange(12.0).reshape(2, 2, 3))


def joined_with_lists(x, y):
    t = [x[1], 3.0]
    a = np.concatenate((x, [1.0, 2.0], y)) ** 2
    b = np.sin(np.concatenate((x, [x[0] * 2.0, y[1]], y)))
    return np.sum(a * b) + np.sum(np.concatenate([y, t]) * np.arange(4.0)) + np.sum(np.hstack((x, [1.0])) ** 3)


def sorted_matrix(A):
    return np.sum(np.sort(A, axis=1) * np.arange(3.0)) + np.sum(np.sort(A, axis=0)[0] ** 2)


def scaled_by_powers(x, k):
    return x * 2**k + x**k * 3**k


def _joined_rows(a):  # (called with no derivative: its generated code runs, whose join is of a tuple)
    return np.sum(np.concatenate([np.ones(2)[:1], a[1:]]) * a)


def helper_with_a_join(y, w):
    return _joined_rows(np.cosh(np.tanh(y))) * np.sum(w**2)


def zero_adjoint_broadcast(B, v, p):
    u = v
    if p > 10.0:
        u = u * B
        w = np.max(u, axis=1)
        return np.sum(w)
    elif p < 0.5:
        u = u * B  # (u's adjoint here is zero, of v's shape: the product's is B's)
    return np.sum(B) * p


def nan_mean_and_average(x):
    return np.nanmean(x * x) + np.average(x, weights=x * x)
