"""Programs whose derivative code (and its runtime helpers) names many builtins: tests/test_builtins_shadowed.py
copies this file into modules that bind one builtin's name to something else, and checks every derivative
is the same.  Each function reads only the builtins it calls itself (none of the others)."""

import math

import numpy as np


def list_loop(xs):
    s = 0.0
    for x in xs:
        s = s + x * x * s + x
    return s


def nested_lists(rows):
    s = 0.0
    for row in rows:
        for v in row:
            s = s + v * v
    return s


def slices(x):
    return np.sum(np.tanh(x[1:3]) * x[0:2])


def fancy_index(x):
    y = x[[0, 2, 2]]
    return np.sum(y * y)


def repeated_writes(x):
    y = np.zeros(3)
    y[[0, 0, 1]] = x[0:3]
    return np.sum(y * x)


def axis_sum(X):
    return np.sum(np.sum(X, axis=0) ** 2)


def unpacked(xs):
    a, b = xs
    return a * b


def fmod(x, y):
    return math.fmod(x, y) * x


def split_halves(x):
    a, b = np.split(x, 2)
    return np.sum(a * b)


def products(A, B):
    return np.sum(np.tensordot(A, B, axes=1) ** 2)


def einsum(A, B):
    return np.sum(np.einsum("ij,jk->ik", A, B) ** 2)


def running_product(x):
    return np.sum(np.cumprod(x))


def largest(x):
    return np.max(x) * np.sum(x)


def traced(A):
    return np.trace(A @ A)


def padded(x):
    return np.sum(np.pad(x, 1) ** 2)


def asserting(x):
    assert x > 0.0, "x must be positive"
    return x * x


def repeated_list(x):
    ys = [x * x] * 3
    s = 0.0
    for y in ys:
        s = s + y * y
    return s


def inserted(xs, v):
    ys = [x for x in xs]
    ys.insert(1, v)
    s = 0.0
    for y in ys:
        s = s + y * y * s
    return s


def with_constant_rows(x, rows):
    s = x
    for row in rows:
        s = s * row[0] + row[1]
    return s


def rows_out(x, rows):
    return rows, x * x
