"""Functions written with ``np.`` that tests/test_arrays_any.py differentiates under arrays="any" and
runs on Dask, array-api-strict (and CuPy) arrays."""

import numpy as np


def least_squares(w, X, y):
    r = X @ w - y
    return np.sum(r * r) / y.shape[0]


def elementwise(x):
    return np.sum(np.tanh(x) * np.exp(-x * x) + np.arctan(x) ** 2 + np.sqrt(1.0 + x * x))


def broadcast_reduce(x, b):
    m = np.mean(x * b, axis=0)
    return np.sum(m**2) + np.max(x) + np.sum(np.maximum(x, 0.5), axis=None)


def matrix_vector(A, v):
    u = np.sin(A @ v)
    return np.sum(u * u) + np.sum(np.transpose(A) @ u) + np.dot(v, v)


def gather(x, idx):
    picked = x[idx]
    return np.sum(np.sin(picked) * picked)


def gather_rows(x, idx):
    """Rows picked by an integer array (array-api-strict allows an integer array only with integers)."""
    return np.sum(x[idx] ** 3)


def slices(x):
    """Every axis indexed (x[1:3, :], not x[1:3]): the array API standard has no partial index."""
    return np.sum(x[1:3, :] * x[0, :]) + np.sum(np.cos(x[:, 1])) + x[2, 0] * x[0, 1]


def written(x):
    y = x * 1.0
    y[1:3] = np.sin(x[0:2])
    return np.sum(y * y)


def tensordot_of(a, b):
    """np.tensordot is in the standard; the helper its adjoint needs has no array-API version here."""
    return np.sum(np.tensordot(a, b, axes=1))


def _written_gradient(x):
    """The analytic gradient of written (autograd has no item assignment)."""
    s, c = np.sin(x[:2]), np.cos(x[:2])
    return np.array([2 * x[0] + 2 * s[0] * c[0], 2 * s[1] * c[1], 0.0, 2 * x[3]])


written.gradient = _written_gradient


def spread(x):
    return np.var(x, axis=0, ddof=1).sum() + np.std(x) + np.prod(np.cos(x), axis=1).sum() + np.prod(x)


def joined(x, y):
    s = np.stack([x, y * 2.0], axis=1)
    c = np.concatenate([x, np.sin(y)], axis=0)
    return np.sum(s**2) + np.sum(np.exp(c))


def taken(x, idx):
    return np.sum(np.take(x, idx, axis=1) ** 2)


def _taken_gradient(x, idx):
    """The analytic gradient of taken: 2 x times how often each column is taken."""
    return 2 * x * np.bincount(idx, minlength=x.shape[1])


taken.gradient = _taken_gradient


def _layer(W, h):
    return np.tanh(W @ h)


def looped(W, h):
    """A loop and a call of another function: the tape and the callee's sweeps in array-API form."""
    for _ in range(3):
        h = _layer(W, h)
    if np.sum(h) > 0.0:
        h = h * 2.0
    return np.sum(h * h)


def outer_by_new_axis(x, y):
    return np.sum(x[:, None] * y)


def dead_broadcast_product(x, y):
    z = y * 1.0
    u = z
    if x[0] < 5.0:
        z = z * x[:, None]  # unread: its adjoint is the number 0.0, times x[:, None] of shape (2, 1)
    return u


def cast(x, w):
    """np.array(x * w, dtype=...) and x.astype(...): a cast, its cotangent cast back (copy_of with a dtype; of
    float64, so that the checks' tolerances are float64's)."""
    y = np.array(x * w, dtype="float64")
    return np.sum(y * y) + np.sum(x.astype(np.float64) * w)
