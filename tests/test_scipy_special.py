"""Rules for scipy.special (adcompiler/rules/scipy_special.py, issue 37 item 5): gradients against
autograd's scipy.special and central differences, jvp against vjp, Hessians of the elementwise ones
against autograd's, a keyword argument refused at the user's line."""

import autograd
import autograd.numpy as anp
import autograd.scipy.special as asp
import numpy as np
import pytest

import adcompiler
import scipy_special_funcs as S

RNG = np.random.default_rng(11)


def central(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def a_specials(x):
    return anp.sum(
        asp.erf(x) * asp.erfc(0.5 * x)
        + asp.gammaln(x + 3.0)
        + asp.digamma(x + 2.0)
        + asp.logit(asp.expit(x) * 0.5 + 0.25)
    )


def a_lse(x):
    return asp.logsumexp(x) + anp.sum(anp.exp(x - asp.logsumexp(x)) * x) + anp.sum(2.0 * x - asp.logsumexp(2.0 * x))


def a_inverse_and_bessel(x):
    return anp.sum(asp.erfinv(0.5 * anp.tanh(x)) * asp.i0(x))


@pytest.mark.parametrize(
    "fn, oracle", [(S.specials, a_specials), (S.lse, a_lse), (S.inverse_and_bessel, a_inverse_and_bessel)]
)
def test_gradients_are_autograds_and_jvp_agrees(fn, oracle):
    x = RNG.random(5) + 0.2
    d = adcompiler.differentiate(fn)
    g = d.grad(x)
    np.testing.assert_allclose(g, autograd.grad(oracle)(x), rtol=1e-9, atol=1e-12)
    assert g.shape == x.shape and g.dtype == x.dtype
    v = RNG.normal(size=5)
    _, tangent = d.jvp((x,), (v,))
    np.testing.assert_allclose(tangent, g @ v, rtol=1e-10)


def test_the_hessian_of_elementwise_special_functions_is_autograds():
    x = RNG.random(4) + 0.2
    np.testing.assert_allclose(adcompiler.hessian(S.specials)(x), autograd.hessian(a_specials)(x), rtol=1e-7, atol=1e-9)


def test_logistic_regression_with_xlogy_against_central_differences():
    w, X = RNG.normal(size=3), RNG.normal(size=(6, 3))
    y = (RNG.random(6) < 0.5).astype(float)
    g = adcompiler.grad(S.logistic_loss)(w, X, y)
    np.testing.assert_allclose(g, central(lambda w: S.logistic_loss(w, X, y), w), rtol=1e-6)


def test_axis_by_position_and_scalars():
    A = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(adcompiler.grad(S.lse_axis)(A), central(S.lse_axis, A), rtol=1e-6, atol=1e-8)
    d = adcompiler.differentiate(S.scalar)
    g = d.grad(0.3)
    # (a float; np.float64 seen once under pytest-xdist, in an order not reproduced: left for a later stop)
    assert isinstance(g, float) and g == pytest.approx((S.scalar(0.3 + 1e-6) - S.scalar(0.3 - 1e-6)) / 2e-6, rel=1e-6)


def test_keyword_arguments_are_put_in_their_places():
    """logsumexp(A, axis=1), logsumexp(a, b=B), softmax(B, axis=-1): refused before ("pass the arguments
    positionally"), the usual way to write them."""
    A, a, B = RNG.normal(size=(2, 3)), RNG.normal(size=4), RNG.uniform(0.5, 2.0, (3, 4))
    np.testing.assert_allclose(adcompiler.grad(S.keyword_axis)(A), central(S.keyword_axis, A), rtol=1e-6, atol=1e-8)
    ga, gB = adcompiler.grad(S.keyword_b, argnums=(0, 1))(a, B)
    np.testing.assert_allclose(ga, central(lambda a: S.keyword_b(a, B), a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gB, central(lambda B: S.keyword_b(a, B), B), rtol=1e-6, atol=1e-8)
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match=r"scipy_special_funcs\.py:\d+.*\*\*kwargs"):
        adcompiler.grad(S.starred_keywords)(A, {"axis": 1})


def test_logsumexp_of_a_b_that_broadcasts_a_up():
    """b with more entries than a: a's cotangent was of b's shape, never summed back to a's, and b's of a's."""
    a, B = RNG.normal(size=4), RNG.uniform(0.5, 2.0, (3, 4))
    d = adcompiler.differentiate(S.b_broadcasting_a)
    ga, gB = d.grad(a, B)
    assert ga.shape == a.shape and gB.shape == B.shape
    np.testing.assert_allclose(ga, central(lambda a: S.b_broadcasting_a(a, B), a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gB, central(lambda B: S.b_broadcasting_a(a, B), B), rtol=1e-6, atol=1e-8)
    va, vB = RNG.normal(size=4), RNG.normal(size=(3, 4))
    np.testing.assert_allclose(d.jvp((a, B), (va, vB))[1], ga @ va + np.sum(gB * vB), rtol=1e-10)


@pytest.mark.parametrize("name", ["erf", "erfc", "ndtr", "log_ndtr", "expit", "xlogy", "logsumexp"])
def test_float32_arguments_get_float32_tangents_and_cotangents(name):
    """A NumPy float64 constant in a rule's partial derivative (np.sqrt(np.pi)) made a float32 argument's
    tangent float64 (NumPy 2 promotes a float32 array times a float64 scalar)."""
    x = np.array([0.1, -0.2, 0.3], np.float32)
    d = adcompiler.differentiate(getattr(S, "float32_" + name))
    value, tangent = d.jvp((x,), (np.ones(3, np.float32),))
    assert np.asarray(value).dtype == np.float32 and np.asarray(tangent).dtype == np.float32
    assert d.grad(x).dtype == np.float32


def test_scipy_linalg_solve_inv_det_are_numpys_primitives():
    """scipy.linalg.solve, inv and det compute what numpy.linalg's do: their rules (a GP likelihood)."""
    B = RNG.normal(size=(4, 4))
    K, y = B @ B.T + 4.0 * np.eye(4), RNG.normal(size=4)
    d = adcompiler.differentiate(S.gp_like)
    gK, gy = d.grad(K, y)
    np.testing.assert_allclose(gK, central(lambda K: S.gp_like(K, y), K), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gy, central(lambda y: S.gp_like(K, y), y), rtol=1e-6, atol=1e-8)
    _, tangent = d.jvp((K, y), (np.eye(4), np.ones(4)))
    np.testing.assert_allclose(tangent, np.sum(gK * np.eye(4)) + np.sum(gy), rtol=1e-9)


def test_linear_algebra_of_a_special_functions_result():
    """expit(x) is elementwise, of x's ndim: np.linalg.solve and norm(ord=1) of it were refused ("arrays whose
    ndim is not known here"), the result of a function with rules being of no known kind."""
    A, x = RNG.normal(size=(3, 3)) + 3.0 * np.eye(3), RNG.normal(size=3)
    gA, gx = adcompiler.grad(S.solve_of_a_special, argnums=(0, 1))(A, x)
    np.testing.assert_allclose(gA, central(lambda A: S.solve_of_a_special(A, x), A), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gx, central(lambda x: S.solve_of_a_special(A, x), x), rtol=1e-6, atol=1e-8)


def test_gamma_entr_log_expit_betaln_rel_entr():
    """Functions users reach for that had no rule (betaln, log_expit: MissingRuleError), against central
    differences, forward mode against reverse."""
    x, y = RNG.random(4) + 0.5, RNG.random(4) + 0.5
    d = adcompiler.differentiate(S.more_specials)
    gx, gy = d.grad(x, y)
    np.testing.assert_allclose(gx, central(lambda x: S.more_specials(x, y), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gy, central(lambda y: S.more_specials(x, y), y), rtol=1e-6, atol=1e-8)
    u, v = RNG.normal(size=4), RNG.normal(size=4)
    np.testing.assert_allclose(d.jvp((x, y), (u, v))[1], gx @ u + gy @ v, rtol=1e-10)


@pytest.mark.parametrize("fn", [S.lse, S.lse_axis])
def test_a_hessian_through_logsumexp_or_softmax_is_refused_at_the_users_line(fn):
    """Their rules take ``*rest`` and branch on its length, which adcompiler does not differentiate again: the
    refusal was located in adcompiler's rules/scipy_special.py ("raise is not supported"), not at the user's line."""
    x = RNG.normal(size=(3, 4)) if fn is S.lse_axis else RNG.normal(size=4)
    with pytest.raises(
        adcompiler.UnsupportedSyntaxError,
        match=r"scipy_special_funcs\.py:\d+:\d+: a second derivative .*the rules of scipy",
    ):
        adcompiler.hessian(fn)(x)
