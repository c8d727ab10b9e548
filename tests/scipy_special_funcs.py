"""Functions calling scipy.special (tests/test_scipy_special.py)."""

import numpy as np
import scipy.linalg
import scipy.special as sp
from scipy.special import erfinv, i0
from scipy.special import (
    expit,
    logit,
    erf,
    erfc,
    gammaln,
    digamma,
    xlogy,
    logsumexp,
    softmax,
    log_softmax,
    ndtr,
    log_ndtr,
)


def logistic_loss(w, X, y):
    p = expit(X @ w)
    return -np.sum(xlogy(y, p) + xlogy(1.0 - y, 1.0 - p))


def specials(x):
    return np.sum(erf(x) * erfc(0.5 * x) + gammaln(x + 3.0) + digamma(x + 2.0) + logit(expit(x) * 0.5 + 0.25))


def lse(x):
    return logsumexp(x) + np.sum(softmax(x) * x) + np.sum(log_softmax(2.0 * x))


def lse_axis(A):
    return np.sum(logsumexp(A, 1) ** 2) + np.sum(softmax(A, 0) * A)


def scalar(x):
    return expit(x) * erf(x) + ndtr(x) + log_ndtr(x)


def keyword_axis(A):
    return np.sum(logsumexp(A, axis=1))


def inverse_and_bessel(x):
    return np.sum(erfinv(0.5 * np.tanh(x)) * i0(x))


def gp_like(K, y):
    from_solve = scipy.linalg.solve(K, y)
    return 0.5 * y @ from_solve + 0.5 * np.log(scipy.linalg.det(K)) + np.sum(scipy.linalg.inv(K))


def keyword_b(a, B):
    return logsumexp(a, b=B) + np.sum(logsumexp(B, axis=1, keepdims=True)) + np.sum(softmax(B, axis=-1) * B)


def b_broadcasting_a(a, B):  # a (4,), B (3, 4): b has more entries than a
    return logsumexp(a, None, B) + np.sum(logsumexp(a[None, :] * 0.5, 1, B))


def starred_keywords(A, options):
    return np.sum(logsumexp(A, **options))


def float32_erf(x):
    return np.sum(erf(x))


def float32_erfc(x):
    return np.sum(erfc(x))


def float32_ndtr(x):
    return np.sum(ndtr(x))


def float32_log_ndtr(x):
    return np.sum(log_ndtr(x))


def float32_expit(x):
    return np.sum(expit(x))


def float32_xlogy(x):
    return np.sum(xlogy(x, 2.0 + x * x))


def float32_logsumexp(x):
    return logsumexp(x)


def solve_of_a_special(A, x):
    return np.sum(np.linalg.solve(A, expit(x))) + np.linalg.norm(erf(x), 1)


def more_specials(x, y):
    return np.sum(sp.gamma(x) + sp.entr(x) + sp.log_expit(x - 1.0) + sp.betaln(x, y) + sp.rel_entr(x, y))
