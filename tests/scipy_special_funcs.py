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


# ---- one function per rule of scipy.special added on 2026-12-03 (tests/test_scipy_special.py's table) ----


def expm1_(x):
    return np.sum(sp.expm1(x))


def log1p_(x):
    return np.sum(sp.log1p(x))


def cbrt_(x):
    return np.sum(sp.cbrt(x))


def exprel_(x):
    return np.sum(sp.exprel(x))


def erfcinv_(x):
    return np.sum(sp.erfcinv(x))


def erfi_(x):
    return np.sum(sp.erfi(x))


def erfcx_(x):
    return np.sum(sp.erfcx(x))


def dawsn_(x):
    return np.sum(sp.dawsn(x))


def rgamma_(x):
    return np.sum(sp.rgamma(x))


def loggamma_(x):
    return np.sum(sp.loggamma(x))


def exp1_(x):
    return np.sum(sp.exp1(x))


def expi_(x):
    return np.sum(sp.expi(x))


def spence_(x):
    return np.sum(sp.spence(x))


def ellipk_(x):
    return np.sum(sp.ellipk(x))


def ellipe_(x):
    return np.sum(sp.ellipe(x))


def beta_(x):
    return np.sum(sp.beta(x, 2.5) + sp.beta(1.5, x))


def binom_(x):
    return np.sum(sp.binom(x + 4.0, 2.5) + sp.binom(6.5, x))


def kl_div_(x):
    return np.sum(sp.kl_div(x, 1.5) + sp.kl_div(0.7, x))


def huber_(x):
    return np.sum(sp.huber(0.5, x) + sp.huber(x, 0.8))


def pseudo_huber_(x):
    return np.sum(sp.pseudo_huber(0.5, x) + sp.pseudo_huber(x, 0.8))


def boxcox_(x):
    return np.sum(sp.boxcox(x, 0.5) + sp.boxcox(1.5, x) + sp.boxcox1p(x, 0.3) + sp.boxcox1p(0.4, x))


def inv_boxcox_(x):
    return np.sum(sp.inv_boxcox(x, 0.5) + sp.inv_boxcox(1.5, x) + sp.inv_boxcox1p(x, 0.3) + sp.inv_boxcox1p(0.4, x))


def i1_(x):
    return np.sum(sp.i1(x))


def i0e_(x):
    return np.sum(sp.i0e(x))


def i1e_(x):
    return np.sum(sp.i1e(x))


def j0_(x):
    return np.sum(sp.j0(x))


def j1_(x):
    return np.sum(sp.j1(x))


def y0_(x):
    return np.sum(sp.y0(x))


def y1_(x):
    return np.sum(sp.y1(x))


def k0_(x):
    return np.sum(sp.k0(x))


def k1_(x):
    return np.sum(sp.k1(x))


def k0e_(x):
    return np.sum(sp.k0e(x))


def k1e_(x):
    return np.sum(sp.k1e(x))


def bessel_of_order_(x):
    return np.sum(sp.iv(1.5, x) + sp.jv(2.0, x) + sp.yv(0.5, x) + sp.kv(1.0, x) + sp.ive(2.5, x) + sp.kve(0.5, x))


def incomplete_(x):
    return np.sum(sp.gammainc(2.5, x) + sp.gammaincc(1.5, x) + sp.zeta(3.0, x))


def incomplete_in_a(a, x):
    """gammainc's derivative in a has no closed form: refused where a varies."""
    return np.sum(sp.gammainc(a, x))


def riemann_zeta(s):
    """zeta(s) of one argument: its derivative in s has no rule."""
    return sp.zeta(s) * 2.0


def boxcox_lambda(lam):
    """boxcox and its inverse as functions of lambda (0 among the points: the rules' limits there)."""
    return np.sum(sp.boxcox(1.5, lam) + sp.boxcox1p(0.4, lam) + sp.inv_boxcox(0.7, lam) + sp.inv_boxcox1p(0.4, lam))
