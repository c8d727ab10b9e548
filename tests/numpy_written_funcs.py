"""Functions calling the NumPy functions of issue 37's held-out set (tests/test_numpy_written.py)."""

import numpy as np


def correlations(x):
    return np.sum(np.corrcoef(x) * np.arange(9.0).reshape(3, 3))


def correlations_of_two(x, y):
    return np.sum(np.corrcoef(x, y, rowvar=False) ** 3)


def nan_reductions(x):
    return np.nanmean(x) + np.sum(np.nansum(x, axis=0) ** 2) + np.nanmax(x) * np.sum(np.nanmin(x, axis=1))


def nan_means_by_row(x):
    return np.sum(np.nanmean(x, axis=1, keepdims=True) * x)


def grid(x, y):
    X, Y = np.meshgrid(x, y)
    return np.sum(np.sin(X) * Y**2)


def grid_ij(x, y, z):
    X, Y, Z = np.meshgrid(x, y, z, indexing="ij")
    return np.sum(X * Y + Z**2 * X)


def deleted(x):
    return np.sum(np.delete(x, 1) ** 2) + np.sum(np.delete(x, [0, 2]) * 3.0)


def deleted_rows(A):
    return np.sum(np.delete(A, 1, axis=0) ** 2)


def outers(a, b):
    return (
        np.sum(np.multiply.outer(a, b) ** 2)
        + np.sum(np.subtract.outer(a, b) ** 3)
        + np.sum(np.add.outer(a, b) * np.maximum.outer(a, b))
    )


def eigenvalues(A):
    return np.sum(np.linalg.eigvalsh(A) ** 3) + np.sum(np.linalg.eigvalsh(A, UPLO="U") ** 2)


def cubed_eigenvalues(A):
    return np.sum(np.linalg.eigvalsh(A) ** 3)


def floats(x):
    return np.float64(x) * np.float64(x) + np.float64(2.0 * x)


def float32_array(x):
    return np.sum(np.float32(x) * 2.0)


def einsum_optimized(a, b):
    return np.sum(np.einsum("ij,jk->ik", a, b, optimize=True) ** 2)


def reshaped_fortran(x):
    y = x.reshape((3, 2), order="F")
    z = np.reshape(x, (6,), order="F")
    w = x.reshape(3, 2, order="C")
    return np.sum(y * np.arange(6.0).reshape(3, 2)) + np.sum(z**2 * np.arange(6.0)) + np.sum(w**3)


def summed_where(x):
    return np.sum(x**2, where=x > 0) + np.sum(x.reshape(2, 3), axis=0, where=np.array([True, False, True])) @ x[:3]


def reshape_order_a(x):
    return np.sum(x.reshape((3, 2), order="A"))


def outer_of_arctan2(a):
    return np.sum(np.arctan2.outer(a, a))


def meshgrid_of_four(a):
    return np.sum(np.meshgrid(a, a, a, a)[0])


def stacked_solve(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2 * np.arange(1.0, 7.0).reshape(2, 3))


def interpolated(x, xp, fp):
    return np.sum(np.interp(x, xp, fp) ** 2) + np.interp(x[1] * 0.5, xp, fp)


def polyval_of_squares(y):
    return np.polyval(y**2, 0.5)


def polyval_at_a_keyword(h):
    return np.polyval(np.ones(3), x=h * 2.0)
