"""Functions calling scipy.special (tests/test_scipy_special.py)."""

import numpy as np
import scipy.linalg
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
