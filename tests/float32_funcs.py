"""float32 programs under both targets (tests/test_float32_numba.py)."""

import numpy as np


def softmax_rows(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(axis=1, keepdims=True)


def tanh_loss(w, X):
    return np.mean(np.tanh(X @ w) ** 2)


def logistic(w, X):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return np.sum(p)


def mlp(W1, b1, w2, X, t):
    h = np.tanh(X @ W1 + b1)
    pred = h @ w2
    return 0.5 * np.sum((pred - t) ** 2) / len(t)


def cast_up(x):
    """Casts of an array and of a number, by astype and by np.array/np.asarray with a dtype."""
    y = x.astype(np.float64)
    z = np.asarray(x * 2.0, dtype=np.float32)
    return np.sum(y * y) + np.sum(z * x) + np.sum(np.array(x[0] * 3.0, dtype=np.float64) * x)


def solved(A, b):
    return np.sum(np.linalg.solve(A, b))


def scaled_in_a_loop(u):
    for _ in range(3):
        u = u + 0.2 * u
    return np.sum(u)
