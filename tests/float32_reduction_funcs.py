"""Functions of a float32 matrix whose derivatives must stay float32 (tests/test_float32_modes.py)."""

import math

import numpy as np


def max_rows(X):
    return np.max(X, axis=1)


def min_columns(X):
    return np.min(X, axis=0)


def median_rows(X):
    return np.median(X, axis=1)


def quantile_rows(X):
    return np.quantile(X, 0.3, axis=1)


def ptp_rows(X):
    return np.ptp(X, axis=1)


def prod_rows(X):
    return np.prod(X, axis=1)


def nanmean_rows(X):
    return np.nanmean(X, axis=1)


def nanmax_rows(X):
    return np.nanmax(X, axis=1)


def nanmin_all(X):
    return np.nanmin(X)


def clipped(X):
    return np.clip(X, 1.0, 2.5)


def clipped_above(X):
    return np.clip(X, None, 2.0) * X


def mean_times_max(X):
    return np.mean(X, axis=0) * np.max(X, axis=1).sum()


def written_in_a_loop(X):
    out = np.zeros_like(X[0])
    for i in range(X.shape[1]):
        out[i] = math.sin(X[0, i]) * 2.0
    return out
