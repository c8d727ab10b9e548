"""Gradients whose adjoint loops the store and index-check passes rewrite, or must not
(tests/test_stores.py): each element's one contribution stored, the primal's index checks kept."""

import math

import numpy as np


def dot(xs, ys):
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * ys[i]
    return s


def square_sum(xs):
    """Two contributions per element in one iteration: must stay added."""
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * xs[i]
    return s


def twice_over(xs):
    """The same loop run twice (an outer loop around it): must stay added."""
    s = 0.0
    for k in range(2):
        for i in range(len(xs)):
            s = s + math.sin(xs[i]) * (k + 1.0)
    return s


def two_loops(xs):
    """Two loops each reading every element: must stay added."""
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * 2.0
    for i in range(len(xs)):
        s = s + xs[i] * xs[i]
    return s


def neighbours(xs):
    """xs[i] and xs[i + 1]: an element gets contributions from two iterations."""
    s = 0.0
    for i in range(len(xs) - 1):
        s = s + xs[i] * xs[i + 1]
    return s


def mat_vec(M, v):
    s = 0.0
    for i in range(len(M)):
        row = M[i]
        r = 0.0
        for j in range(len(v)):
            r = r + row[j] * v[j]
        s = s + math.tanh(r)
    return s


def scaled_by_ints(xs, ks):
    """ks holds ints: a stored cotangent must still be a float."""
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * ks[i]
    return s


def strided(xs):
    s = 0.0
    for i in range(1, len(xs), 2):
        s = s + xs[i] * xs[i - 1]
    return s


def branchy(xs, ys):
    s = 0.0
    for i in range(len(xs)):
        if xs[i] > 0.0:
            s = s + xs[i] * ys[i]
        else:
            s = s - ys[i]
    return s


def while_rows(M, v):
    s = 0.0
    i = 0
    while i < len(M):
        row = M[i]
        for j in range(len(v)):
            s = s + row[j] * v[j] * v[j]
        i = i + 1
    return s


def dot_rows(M, v):
    """sum of M v, as the reference's sum_mat_vec writes it."""
    s = 0.0
    for i in range(len(M)):
        row = M[i]
        r = 0.0
        for j in range(len(v)):
            r = r + row[j] * v[j]
        s = s + r
    return s


def growing_seed(xs):
    """r is never reset: its adjoint grows with each iteration of the adjoint loop."""
    s = 0.0
    r = 0.0
    for i in range(len(xs)):
        r = r + xs[i]
        s = s + r
    return s


def breaks_with_a_constant(xs):
    """w is 1.0 where the loop breaks and 0.0 where it runs to its end: no constant after it."""
    s = 0.0
    w = 0.0
    for i in range(len(xs)):
        w = 1.0
        if xs[i] > 0.5:
            break
        w = 0.0
        s = s + xs[i] * xs[i]
    return s + w * xs[0] * 3.0


def while_with_a_constant(xs):
    """The same with a while loop whose header sets the constant."""
    s = 0.0
    w = 0.0
    i = 0
    while i < len(xs):
        w = 2.0
        if xs[i] > 0.5:
            break
        w = 0.0
        s = s + xs[i] * xs[i]
        i = i + 1
    return s + w * xs[0] * 3.0


def overwritten_then_read(xs, ws):
    """The adjoint loop restores ys[i] from the tape before reading it: no copy may be hoisted."""
    ys = list(ws)
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * ys[i]
        ys[i] = ys[i] * 2.0
    return s


def copy_and_accumulate(M, v):
    """d_row[j] = v[j] and d_v[j] += row[j] in one adjoint loop, with a shared offset row."""
    s = 0.0
    for i in range(len(M)):
        row = M[i]
        for j in range(1, len(v)):
            s = s + row[j] * v[j] + row[j - 1]
    return s


def copies_from_an_offset(xs, ys):
    """Reads at i and i + 1: d_ys gets two contributions, d_xs one copy."""
    s = 0.0
    for i in range(len(xs) - 1):
        s = s + xs[i] * ys[i + 1] + ys[i] * 0.5
    return s


def dot_np(xs, ys):
    return np.dot(xs, ys)
