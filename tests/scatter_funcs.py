"""Functions reading one array at several indices and slices (tests/test_scatter_chain.py)."""

import numpy as np


def slices(w, x):
    a = w[0:3] * x
    b = w[3:6] * x
    c = w[1] * np.sum(a * b)
    return np.sum(np.tanh(a) + b) + c


def gates(w):
    h = len(w) // 4
    f = 1.0 / (1.0 + np.exp(-w[0:h]))
    i = 1.0 / (1.0 + np.exp(-w[h : 2 * h]))
    o = np.tanh(w[2 * h : 3 * h])
    c = np.tanh(w[3 * h : 4 * h])
    return np.sum(f * c + i * o)


def in_a_loop(w, n):
    total = 0.0
    for k in range(n):
        total = total + w[k] * w[k + 1] + np.sum(w[k : k + 2] ** 2)
    return total


def in_a_branch(w, flag):
    if flag > 0.0:
        return w[0] * w[1] + w[2]
    return np.sum(w[1:3] * w[0:2])


def entries_of_a_matrix(A):
    return A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0] + np.sum(A[1] * A[0])


def read_after(w):
    d = w[0] * 2.0
    e = w[1] * d
    return e + w[0] * w[2]


def reads_and_a_product(c, x):
    """The particles' inner step: a vector d read entry by entry and used whole (d's adjoint: a product
    plus four scattered entries, which add into the product's new array)."""
    d = c - x
    r2 = d[0] * d[0] + d[1] * d[1] + 0.1
    return np.sum(2.0 * d / r2)
