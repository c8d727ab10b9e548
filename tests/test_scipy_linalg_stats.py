"""scipy.linalg's Cholesky family and triangular solves, expm, scipy.stats.norm's methods and
scipy.special.multigammaln (issue 37 item 5): both modes against central differences and the dot test
(``check_both_modes``), gradients against autograd's scipy rules and an analytic Gaussian-process
gradient, second order against differences of the gradient, and the located refusals."""

import autograd
import autograd.numpy as anp
import autograd.scipy.linalg as asl
import autograd.scipy.special as asp
import autograd.scipy.stats.norm as anorm
import numpy as np
import pytest
import scipy.linalg

import adcompiler
import scipy_linalg_stats_funcs as F
from adcompiler.errors import MissingRuleError, UnsupportedSyntaxError
from adcompiler.testing.oracle import check_both_modes, check_second_order

RNG = np.random.default_rng(37)
X, Y = RNG.normal(size=(5, 2)), RNG.normal(size=5)


def spd(n):
    B = RNG.normal(size=(n, n))
    return B @ B.T + n * np.eye(n)


def test_gp_likelihood_by_cho_factor_both_modes_against_differences():
    check_both_modes(F.gp_nll, (0.3, 0.1, -1.0, X, Y), wrt=("log_ell", "log_sf", "log_sn"))


def test_gp_likelihood_gradient_is_the_analytic_one():
    """dNLL/dtheta = tr((K^-1 - alpha alpha^T) dK/dtheta) / 2 (Rasmussen and Williams, eq. 5.9)."""
    log_ell, log_sf, log_sn = 0.3, 0.1, -1.0
    r2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    se = np.exp(2 * log_sf) * np.exp(-0.5 * r2 / np.exp(2 * log_ell))
    K = se + np.exp(2 * log_sn) * np.eye(5)
    alpha = np.linalg.solve(K, Y)
    inner = np.linalg.inv(K) - np.outer(alpha, alpha)
    dK = [se * r2 / np.exp(2 * log_ell), 2 * se, 2 * np.exp(2 * log_sn) * np.eye(5)]
    expected = [0.5 * np.sum(inner * d) for d in dK]
    g = adcompiler.differentiate(F.gp_nll, wrt=("log_ell", "log_sf", "log_sn")).grad(log_ell, log_sf, log_sn, X, Y)
    np.testing.assert_allclose(g, expected, rtol=1e-9)
    assert all(type(x) is float for x in g)


def test_gp_likelihood_of_the_covariance_with_the_default_upper_factor():
    """Of K itself: only the upper triangle SciPy reads has a derivative (the analytic one, doubled off
    the diagonal), as central differences of SciPy's own function say."""
    K, y = spd(4), Y[:4]
    check_both_modes(F.gp_nll_of_k, (K, y))
    alpha = np.linalg.solve(K, y)
    m = 0.5 * (np.linalg.inv(K) - np.outer(alpha, alpha))
    np.testing.assert_allclose(adcompiler.grad(F.gp_nll_of_k)(K, y), np.triu(2 * m) - np.diag(np.diag(m)), rtol=1e-9)


def test_gp_likelihood_second_order():
    check_second_order(F.gp_nll_of_k, (spd(3), Y[:3]))


@pytest.mark.parametrize("fn", [F.chol_upper, F.chol_lower])
def test_cholesky_reads_the_triangle_scipy_reads(fn):
    K = spd(4)
    K[0, 3] += 0.3  # not symmetric: which triangle is read shows
    check_both_modes(fn, (K,))


def test_solve_triangular_with_lower_trans_and_unit_diagonal():
    A = np.tril(RNG.normal(size=(4, 4))) + 3 * np.eye(4)
    B = RNG.normal(size=(4, 2))
    check_both_modes(F.triangular, (A, B))


def test_solve_triangular_against_autograds_rule():
    """(autograd's rule ignores unit_diagonal: that case is checked against differences above.)"""
    A = np.tril(RNG.normal(size=(4, 4))) + 3 * np.eye(4)
    B = RNG.normal(size=(4, 2))

    def oracle(A, B):
        return anp.sum(asl.solve_triangular(A, B, lower=True) ** 2) + anp.sum(asl.solve_triangular(A.T, B, 1) * B)

    got = adcompiler.differentiate(F.triangular_plain).grad(A, B)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], autograd.grad(oracle, k)(A, B), rtol=1e-9, atol=1e-12)


def test_values_are_scipys():
    K, y = spd(4), Y[:4]
    value, _ = adcompiler.differentiate(F.gp_nll_of_k).vjp((K, y), 1.0)
    c, low = scipy.linalg.cho_factor(K)
    assert value == pytest.approx(0.5 * y @ scipy.linalg.cho_solve((c, low), y) + np.sum(np.log(np.diag(c))), rel=1e-13)


def test_expm_by_its_frechet_derivative():
    check_both_modes(F.exp_of_matrix, (0.5 * RNG.normal(size=(3, 3)),))


@pytest.mark.parametrize("second", [adcompiler.hessian_matrix, adcompiler.hessian])
def test_expm_second_order_is_refused_naming_the_frechet_derivative(second):
    """At the user's line, naming scipy.linalg.expm, whose rules call expm_frechet (it was located in
    adcompiler's own rules/scipy_linalg.py)."""
    with pytest.raises(MissingRuleError, match="expm_frechet, which has no derivative rule") as caught:
        second(F.exp_of_matrix)(0.3 * RNG.normal(size=(3, 3)))
    assert caught.value.filename.endswith("scipy_linalg_stats_funcs.py"), str(caught.value)
    assert "the rules of scipy.linalg.expm" in caught.value.msg and "expm(A)" in caught.value.text


def test_cho_solve_of_a_flag_not_constant_is_refused_at_the_users_line():
    with pytest.raises(UnsupportedSyntaxError, match=r"scipy_linalg_stats_funcs\.py:\d+.*lower flag is not a constant"):
        adcompiler.differentiate(F.cho_solve_of_a_computed_flag, wrt=("K",)).grad(spd(3), Y[:3], True)


def test_overwrite_a_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="overwrite_a not one of the constants False"):
        adcompiler.grad(F.overwriting)(spd(3))


def test_norm_methods_both_modes_and_against_autograd():
    x = RNG.normal(size=4)
    check_both_modes(F.norm_densities, (x, 0.3, 1.7))
    check_both_modes(F.norm_tails, (x, 1.3))

    def oracle(x, mu, sigma):  # (autograd differentiates positional arguments only)
        a = anorm.logpdf(x, mu, sigma)
        b = anorm.pdf(x, mu, sigma)
        c = anorm.cdf(x, mu, sigma)
        d = anorm.logcdf(x, mu)
        return anp.sum(a + b + c + d + anorm.logpdf(x))

    got = adcompiler.differentiate(F.norm_densities).grad(x, 0.3, 1.7)
    for k in range(3):
        np.testing.assert_allclose(got[k], autograd.grad(oracle, k)(x, 0.3, 1.7), rtol=1e-10)

    def tails(x, sigma):
        return anp.sum(anorm.sf(x, 0.5, sigma) + anorm.logsf(x, 0.0, sigma))

    np.testing.assert_allclose(adcompiler.grad(F.norm_tails)(x, 1.3), autograd.grad(tails)(x, 1.3), rtol=1e-10)


def test_norm_second_order_and_quantiles():
    check_second_order(F.norm_densities, (RNG.normal(size=3), 0.3, 1.7))
    check_both_modes(F.norm_quantiles, (np.array([0.2, 0.6, 0.9]), 1.3))


def test_other_norm_methods_are_refused_at_the_users_line():
    with pytest.raises(MissingRuleError, match=r"scipy_linalg_stats_funcs\.py:\d+.*norm\.isf, which has no derivative"):
        adcompiler.grad(F.norm_isf)(np.array([0.3]))


def test_multigammaln_of_an_active_argument():
    check_both_modes(F.multigamma, (3.5,))
    check_both_modes(F.multigamma, (np.array([3.5, 4.2]),))
    g = adcompiler.grad(F.multigamma)(3.5)
    assert type(g) is float
    assert g == pytest.approx(autograd.grad(lambda a: asp.multigammaln(a, 3) + asp.multigammaln(2.0 * a, 1))(3.5))
    check_second_order(F.multigamma, (3.5,))
