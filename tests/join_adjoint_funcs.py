"""Joins whose cotangents are cut back into pieces (tests/test_join_adjoints.py): written-out tuples
(``unjoin``) and run-time lists (``unjoin_all``), along first, inner and negative axes."""

import numpy as np


def concat_rows(a, b, w):
    return np.sum(w * np.concatenate((a, b, a)) ** 2)


def concat_columns(a, b, w):
    return np.sum(w * np.sin(np.concatenate((a, b), axis=1)))


def concat_last(a, b, w):
    return np.sum(w * np.concatenate((b, a), axis=-1) ** 3)


def stack_inner(a, b, w):
    return np.sum(w * np.tanh(np.stack((a, b, a), axis=1)))


def stack_last(a, b, w):
    return np.sum(w * np.stack((a, b), axis=-1) ** 2)


def others(a, b, w):
    v = np.vstack((a, b))
    h = np.hstack((a, b))
    c = np.column_stack((a[0], b[0]))
    return np.sum(v * v) + np.sum(w * h) + np.sum(c**3) + np.sum(np.dstack((a, b)) ** 2)


def stacked_list(a, b, w):
    rows = []
    for k in range(2):
        rows.append(a * (k + 1.0))
        rows.append(b)
    return np.sum(w * np.stack(rows, axis=1) ** 2)


def joined_list(a, b, w):
    parts = [a, b]
    parts.append(a * b)
    return np.sum(w * np.concatenate(parts, axis=1) ** 2)


def lstm_like(weight, bias, hidden, x):
    """GradBench lstm's gates: one joined vector read back in slices."""
    h = len(hidden)
    gates = np.concatenate((x, hidden, x, hidden)) * weight + bias
    forget = 1.0 / (1.0 + np.exp(-gates[0:h]))
    change = np.tanh(gates[3 * h : 4 * h])
    return np.sum(forget * change + gates[h : 2 * h] * gates[2 * h : 3 * h])
