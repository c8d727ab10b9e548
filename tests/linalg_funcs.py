"""Functions of np.linalg for test_linalg.py (adcompiler reads their source)."""

import numpy as np


def logdet(a):
    return np.linalg.slogdet(a)[1]


def eigenvalues(a):
    w, v = np.linalg.eigh(a)
    return w


def eigenvectors_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return v


def singular_values(a):
    return np.linalg.svd(a, compute_uv=False)


def cholesky(a):
    return np.linalg.cholesky(a)


def qr(a):
    q, r = np.linalg.qr(a)
    return q, r


def svd_all(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u, s, vh


def svd_default(a):
    u, s, vh = np.linalg.svd(a)
    return u


def pinv(a):
    return np.linalg.pinv(a)


def inv(a):
    return np.linalg.inv(a)


def power(a):
    return np.linalg.matrix_power(a, 4) + np.linalg.matrix_power(a, -3)


def qr_hessian(a):
    q, r = np.linalg.qr(a)
    return np.sum(q[0] * r[0]) + np.sum(r**3)


def svd_hessian(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(u**2 * s) + np.sum(vh[0] ** 4)


def eigh_hessian(a):
    w, v = np.linalg.eigh(a, "U")
    return np.sum(v**4) + np.sum(w**3)


def cholesky_hessian(a):
    return np.sum(np.linalg.cholesky(a) ** 3)


def power_hessian(a):
    return np.sum(np.linalg.matrix_power(a, 3) ** 2) + np.sum(np.linalg.matrix_power(a, -2))


def norms_hessian(a):
    vector = np.linalg.norm(a, 1, 1) * np.linalg.norm(a, -np.inf, 1) + np.linalg.norm(a, np.inf, 0)[0]
    matrix = np.linalg.norm(a, 1) * np.linalg.norm(a, -np.inf) + np.linalg.norm(a, 2) * np.linalg.norm(a, -2)
    return np.sum(vector[0] ** 2) + matrix + np.linalg.norm(a, np.inf) ** 2 + np.linalg.norm(a, -1)


def eigh_in_loop(a, n):
    total = 0.0
    for k in range(n):
        w, v = np.linalg.eigh(a + k * np.eye(4))
        total = total + np.sum(w * v[0] ** 2)
    return total


def norm_with_variable_ord(a, p):
    return np.linalg.norm(a, p)


def qr_complete(a):
    return np.linalg.qr(a, mode="complete")[0]


def multi_dot(a, b):
    return np.linalg.multi_dot([a, b, a.T])
