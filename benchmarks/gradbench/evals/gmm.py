"""Gaussian mixture model log posterior (GradBench eval ``gmm``), as its README derives it.

Parameters: ``alpha`` (k,) weights before the softmax, ``mu`` (k, d) means, ``q`` (k, d) logs of
the diagonals and ``l`` (k, d(d-1)/2) strictly lower parts (column by column) of the factors Q_k
of the precision matrices Q_k^T Q_k.  Data: ``x`` (n, d); the Wishart prior has ``gamma`` and ``m``.
"""

import math

import numpy as np
from scipy.special import multigammaln


def logsumexp(v):
    """log(sum(exp(v))), shifted by the largest entry."""
    a = np.max(v)
    return a + np.log(np.sum(np.exp(v - a)))


def lower_triangular(qk, lk):
    """Q(q_k, l_k): exp(q_k) on the diagonal, l_k below it filled column by column."""
    d = len(qk)
    Q = np.diag(np.exp(qk))
    cols, rows = np.triu_indices(d, 1)  # (column, row) of each strictly lower entry, column by column
    Q[rows, cols] = lk
    return Q


def log_wishart_prior(q, l, gamma, m):
    """log p(theta): the Wishart prior on every precision matrix."""
    k, d = q.shape
    n = d + m + 1
    C = n * d * math.log(gamma / math.sqrt(2.0)) - multigammaln(0.5 * n, d)
    frobenius = np.sum(np.exp(q) ** 2) + np.sum(l**2)
    return k * C - 0.5 * gamma**2 * frobenius + m * np.sum(q)


def log_posterior(alpha, mu, q, l, x, gamma, m):
    """log(p(X | theta, phi) p(theta))."""
    n, d = x.shape
    k = len(alpha)
    beta = []  # beta[j][i] = alpha_j - |Q_j (x_i - mu_j)|^2 / 2 + sum(q_j)
    for j in range(k):
        Q = lower_triangular(q[j], l[j])
        z = (x - mu[j]) @ Q.T
        beta.append(alpha[j] + np.sum(q[j]) - 0.5 * np.sum(z * z, axis=1))
    beta = np.stack(beta, axis=1)  # (n, k)
    top = np.max(beta, axis=1)
    slse = np.sum(top + np.log(np.sum(np.exp(beta - top[:, None]), axis=1)))
    log_likelihood = slse - n * (0.5 * d * math.log(2.0 * math.pi) + logsumexp(alpha))
    return log_likelihood + log_wishart_prior(q, l, gamma, m)
