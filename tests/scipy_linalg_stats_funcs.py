"""Functions calling scipy.linalg and scipy.stats as scientists write them (tests/test_scipy_linalg_stats.py)."""

import numpy as np
import scipy.linalg
import scipy.stats
from scipy.linalg import cho_factor, cho_solve, solve_triangular, expm
from scipy.stats import norm
from scipy.special import multigammaln


def gp_nll(log_ell, log_sf, log_sn, X, y):
    """A Gaussian process's negative log marginal likelihood (squared-exponential kernel), by Cholesky."""
    n = y.shape[0]
    d = X[:, None, :] - X[None, :, :]
    r2 = np.sum(d**2, axis=-1)
    K = np.exp(2.0 * log_sf) * np.exp(-0.5 * r2 / np.exp(2.0 * log_ell)) + np.exp(2.0 * log_sn) * np.eye(n)
    L, lower = cho_factor(K, lower=True)
    alpha = cho_solve((L, lower), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * n * np.log(2.0 * np.pi)


def gp_nll_of_k(K, y):
    """The same likelihood of the covariance itself, SciPy's default (upper) factor passed on whole."""
    factor = cho_factor(K)
    alpha = cho_solve(factor, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(factor[0])))


def chol_upper(K):
    U = scipy.linalg.cholesky(K)
    return U * np.arange(1.0, 1.0 + K.size).reshape(K.shape)


def chol_lower(K):
    return np.tanh(scipy.linalg.cholesky(K, lower=True))


def triangular(A, B):
    x = solve_triangular(A, B, lower=True)
    y = solve_triangular(A, B[:, 0], trans="T", lower=True, unit_diagonal=True)
    z = solve_triangular(A.T, B, 1)
    return np.sum(x**2) + np.sum(np.sin(y)) + np.sum(z * B)


def triangular_plain(A, B):
    return np.sum(solve_triangular(A, B, lower=True) ** 2) + np.sum(solve_triangular(A.T, B, 1) * B)


def exp_of_matrix(A):
    return np.sum(expm(A) * np.arange(9.0).reshape(3, 3))


def cho_solve_of_a_computed_flag(K, y, lower):
    c = cho_factor(K, lower=True)[0]
    return np.sum(cho_solve((c, lower), y))


def overwriting(K):
    return np.sum(scipy.linalg.cholesky(K, overwrite_a=True))


def norm_densities(x, mu, sigma):
    a = norm.logpdf(x, loc=mu, scale=sigma)
    b = norm.pdf(x, mu, sigma)
    c = scipy.stats.norm.cdf(x, mu, scale=sigma)
    d = norm.logcdf(x, loc=mu)
    return np.sum(a + b + c + d + norm.logpdf(x))


def norm_tails(x, sigma):
    return np.sum(norm.sf(x, 0.5, sigma) + norm.logsf(x, scale=sigma))


def norm_quantile(p):
    return np.sum(norm.ppf(p))


def multigamma(a):
    return multigammaln(a, 3) + multigammaln(2.0 * a, 1)


def norm_quantiles(p, sigma):
    return np.sum(norm.ppf(p, 1.0, sigma) ** 2)


def norm_isf(q):
    return np.sum(norm.isf(q))
