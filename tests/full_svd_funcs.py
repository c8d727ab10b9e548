"""np.linalg.svd with full_matrices=True (the default) of matrices that are not square (tests/test_full_svd.py)."""

import numpy as np


def singular_values(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(s * s * s)


def left_vectors(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(s) + np.sum(u[:, 0] ** 2 * a[:, 0])


def right_vectors(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(s) + np.sum(vh[0, :] ** 2 * a[0, :])
