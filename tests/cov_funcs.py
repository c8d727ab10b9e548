"""Functions of np.cov (tests/test_cov.py): rows or columns as variables, with a second argument, bias
and ddof; each also written as its definition, which autograd differentiates (autograd has no rule for
np.cov itself), as the oracle."""

import numpy as np


def rows(x):
    return np.sum(np.cov(x) ** 2)


def columns(x):
    return np.sum(np.sin(np.cov(x, rowvar=False, ddof=0)))


def pair(x, y):
    return np.sum(np.cov(x, y, bias=True) * np.arange(16.0).reshape(4, 4))


def vectors(x):
    return np.cov(x[0, :], x[1, :] * 2.0)[0, 1] + np.cov(x[2, :])


def definition(np_):
    """np.cov's definition (m, y, rowvar, bias, ddof) written with np_ (autograd.numpy): the oracle."""

    def cov(m, y=None, rowvar=True, bias=False, ddof=None):
        x = np_.atleast_2d(m)
        x = x.T if not rowvar and x.shape[0] != 1 else x
        if y is not None:
            other = np_.atleast_2d(y)
            x = np_.concatenate([x, other.T if not rowvar and other.shape[0] != 1 else other], axis=0)
        ddof = (0 if bias else 1) if ddof is None else ddof
        centred = x - np_.mean(x, axis=1, keepdims=True)
        c = np_.dot(centred, centred.T) / (x.shape[1] - ddof)
        return c[0, 0] if c.shape[0] == 1 else c

    return cov
