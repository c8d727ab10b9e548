"""Functions for test_pad_select.py (in a file of their own: adcompiler reads their source)."""

import numpy as np


def to_single(x):
    return x.astype("float32") * 2.0


def to_single_asarray(x):
    return np.asarray(x, dtype=np.float32) ** 2


def to_int(x):
    return np.sum(x.astype(int) * x)


def to_int_asarray(x):
    return np.sum(np.asarray(x, dtype="int64"))


def to_complex(x):
    return np.sum(x.astype(complex))


def computed_dtype(x, y):
    return np.sum(x.astype(y.dtype))


def edge_with_values(x):
    return np.sum(np.pad(x, 1, mode="edge", constant_values=2.0))


def pad_computed_width(x):
    return np.sum(np.pad(x, x.shape[0]))


def pad_wrap(x):
    return np.sum(np.pad(x, 1, mode="wrap"))


def select_computed(x):
    conds = [x > 0, x < 0]
    return np.sum(np.select(conds, [x, -x]))


def select_uneven(x):
    return np.sum(np.select([x > 0, x < 0], [x]))


def pad_loss(x, c):
    y = np.pad(x, ((1, 2), (2, 0)), mode="reflect") + np.pad(x, ((2, 1), (1, 1)), mode="edge")
    return np.sum(y**2) + np.sum(np.pad(x, 1, constant_values=c) ** 3)


def select_loss(x):
    y = np.select([x > 0.5, x > -0.2, x < -0.8], [x**2, np.sin(x), 3 * x], default=x**3)
    return np.sum(y * x)
