"""custom_jvp / custom_vjp (JAX's spellings of defrule) against analytic derivatives, in both modes,
through a differentiated caller and differentiated directly, with arrays; second order refused with
what to write instead (see adcompiler/api/custom_rules.py).  Functions: tests/custom_rules_funcs.py."""

import importlib.util
import math
import pathlib

import numpy as np
import pytest

import adcompiler
import custom_rules_funcs as C
from oracle import imported_modules
from shared import adc

HERE = pathlib.Path(__file__).resolve().parent


def _safe_norm_caller_grad(x, y):
    """d/dx, d/dy of sqrt((xy)^2 + y^2) + sin x, by hand (0 at the origin of the norm, as the rule says)."""
    u = x * y
    r = math.hypot(u, y)
    if r == 0.0:
        return math.cos(x), 0.0
    return y * u / r + math.cos(x), (x * u + y) / r


@pytest.mark.parametrize("x, y", [(0.5, 2.0), (-1.5, 0.3), (2.0, 0.0), (0.0, -1.0)])
def test_custom_jvp_in_a_caller_both_modes(x, y):
    d = adcompiler.differentiate(C.uses_safe_norm)
    expected = _safe_norm_caller_grad(x, y)
    assert [float(g) for g in d.grad(x, y)] == pytest.approx(expected, rel=1e-13, abs=1e-15)
    for k, direction in enumerate([(1.0, 0.0), (0.0, 1.0)]):
        value, tangent = d.jvp((x, y), direction)
        assert value == C.uses_safe_norm(x, y)
        assert tangent == pytest.approx(expected[k], rel=1e-13, abs=1e-15)
    u, v = (0.3, -1.7), 0.9  # <u, J v> == <J^T u, v> for the 1 x 2 Jacobian
    _, jv = d.jvp((x, y), u)
    _, (gx, gy) = d.vjp((x, y), v)
    assert v * jv == pytest.approx(u[0] * gx + u[1] * gy, rel=1e-13, abs=1e-15)


def test_custom_jvp_calls_the_rule_where_the_body_divides_by_zero():
    grad = adcompiler.grad(C.safe_norm, argnums=(0, 1))
    assert grad(0.0, 0.0) == (0.0, 0.0)  # the body's derivative is 0/0 here: the rule says 0
    assert grad(3.0, 4.0) == pytest.approx((0.6, 0.8), rel=1e-15)
    assert adcompiler.jvp(C.safe_norm, (3.0, 4.0), (1.0, 2.0)) == pytest.approx((5.0, 2.2), rel=1e-15)
    assert "safe_norm_jvp_rule" in adcompiler.differentiate(C.uses_safe_norm).source("forward")


@pytest.mark.parametrize("x, y", [(0.7, 1.3), (-2.0, 0.5), (0.0, 3.0)])
def test_custom_vjp_in_a_caller(x, y):
    # uses_scaled_sin(x, y) = y * (y * sin(x^2))
    expected = (y * y * math.cos(x * x) * 2 * x, 2 * y * math.sin(x * x))
    d = adcompiler.differentiate(C.uses_scaled_sin)
    assert [float(g) for g in d.grad(x, y)] == pytest.approx(expected, rel=1e-14, abs=1e-15)
    out, pullback = adcompiler.vjp(C.uses_scaled_sin, x, y)
    assert out == C.uses_scaled_sin(x, y)
    assert [float(g) for g in pullback(2.0)] == pytest.approx([2 * e for e in expected], rel=1e-14, abs=1e-15)
    direct = adcompiler.grad(C.scaled_sin, argnums=(0, 1))(x, y)
    assert direct == pytest.approx((y * math.cos(x), math.sin(x)), rel=1e-15, abs=1e-15)
    assert "scaled_sin_vjp_rule(" in d.source("reverse")


def test_custom_vjp_has_no_forward_mode():
    with pytest.raises(adcompiler.MissingRuleError, match=r"custom_rules_funcs.py:\d+:1: forward mode .* custom_jvp"):
        adcompiler.differentiate(C.uses_scaled_sin).jvp((0.7, 1.3), (1.0, 0.0))
    with pytest.raises(adcompiler.MissingRuleError, match="vjp rule only"):
        adcompiler.hessian_matrix(C.uses_scaled_sin)(0.7, 1.3)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 2)])
def test_custom_rules_on_arrays(shape):
    rng = np.random.default_rng(len(shape))
    w, x = rng.normal(size=shape), rng.normal(size=shape)
    # uses_softplus = sum(softplus(w x)^2): d/dw = 2 softplus(wx) sigmoid(wx) x
    sp, sig = np.logaddexp(0.0, w * x), 1.0 / (1.0 + np.exp(-w * x))
    gw, gx = adcompiler.differentiate(C.uses_softplus).grad(w, x)
    np.testing.assert_allclose(gw, 2 * sp * sig * x, rtol=1e-13)
    np.testing.assert_allclose(gx, 2 * sp * sig * w, rtol=1e-13)
    assert np.shape(gw) == shape and np.shape(gx) == shape
    _, tangent = adcompiler.differentiate(C.uses_softplus).jvp((w, x), (x, np.zeros(shape)))
    assert tangent == pytest.approx(np.sum(2 * sp * sig * x * x), rel=1e-13)
    # uses_cube = sum((a b)^3 + a): d/da = 3 (ab)^2 b + 1
    ga, gb = adcompiler.differentiate(C.uses_cube).grad(w, x)
    np.testing.assert_allclose(ga, 3 * (w * x) ** 2 * x + 1, rtol=1e-13)
    np.testing.assert_allclose(gb, 3 * (w * x) ** 2 * w, rtol=1e-13)


def test_custom_jvp_float32_cotangents_keep_their_dtype():
    w = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    x = np.array([1.0, 2.0, -0.5], dtype=np.float32)
    gw, gx = adcompiler.differentiate(C.uses_softplus).grad(w, x)
    assert gw.dtype == np.float32 and gx.dtype == np.float32


def test_second_derivative_through_a_transposed_jvp_rule_is_refused():
    with pytest.raises(TypeError, match=r"custom_rules_funcs.py:\d+: a second derivative through safe_norm"):
        adcompiler.hessian_matrix(C.uses_safe_norm)(0.5, 2.0)


def test_decorators_refuse_what_rules_cannot_receive():
    def with_default(x, n=2):
        return x**n

    with pytest.raises(TypeError, match="parameter n has a default"):
        adcompiler.custom_jvp(with_default)
    with pytest.raises(TypeError, match="plain Python function"):
        adcompiler.custom_vjp(math.sin)


def test_adc_compile_writes_custom_vjp_rules_and_refuses_a_transposed_jvp(tmp_path):
    out = tmp_path / "rules_ad.py"
    source = str(HERE / "custom_rules_funcs.py")
    run = adc("compile", source, "--mode", "reverse", "--function", "uses_scaled_sin", "-o", out)
    assert run.returncode == 0, run.stderr
    assert imported_modules(out.read_text()) <= {"math", "numpy"}  # it stands alone: the rules are written into it
    spec = importlib.util.spec_from_file_location("rules_ad", out)
    written = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(written)
    x, y = 0.7, 1.3
    assert [float(v) for v in written.uses_scaled_sin_reverse(x, y)[1]] == (
        pytest.approx([y * y * math.cos(x * x) * 2 * x, 2 * y * math.sin(x * x)], rel=1e-14)
    )
    refused = adc("compile", source, "--function", "uses_safe_norm")
    assert refused.returncode != 0
    assert "custom_rules_funcs.py:" in refused.stderr and "a written module cannot hold it" in refused.stderr


def test_differentiating_a_function_with_rules_calls_them_defaults_included():
    d = adcompiler.differentiate(C.power, wrt=("x",))
    assert d.grad(2.0) == pytest.approx(12.0, rel=1e-15)  # n = 3 by default: 3 x^2
    assert d.grad(2.0, 4) == pytest.approx(32.0, rel=1e-15)
    assert d.jvp((2.0, 3), (1.0,))[1] == pytest.approx(12.0, rel=1e-15)
    assert "power_vjp(" in d.source("reverse") and "power_jvp(" in d.source("forward")
    assert adcompiler.hessian_matrix(C.power, wrt=("x",))(2.0)[0][0] == pytest.approx(
        12.0, rel=1e-14
    )  # the vjp rule differentiated


def test_erf_of_scipy_by_defrule_in_both_modes_and_at_second_order():
    """The issue's example of a NumPy function without a rule: scipy.special.erf given rules by the user,
    on arrays, checked against differences, forward against reverse, and its Hessian against autograd's
    (autograd has erf's derivative)."""
    from adcompiler.testing.oracle import check_both_modes

    from adcompiler.rules.custom import CUSTOM

    special = pytest.importorskip("scipy.special")
    given = CUSTOM.get(special.erf)  # (scipy_special's, where a test before registered them: put back after)
    adcompiler.defrule(special.erf, jvp=C.erf_jvp, vjp=C.erf_vjp)
    try:
        x = np.array([0.1, -0.4, 1.2])
        check_both_modes(C.erf_loss, (0.5, x))
        ag = pytest.importorskip("autograd")
        agspecial = pytest.importorskip("autograd.scipy.special")
        anp = pytest.importorskip("autograd.numpy")
        expected = ag.hessian(lambda w: anp.sum(agspecial.erf(w * x) ** 2))(0.5)
        got = adcompiler.hessian_matrix(C.erf_loss, wrt="w")(0.5, x)
        np.testing.assert_allclose(np.ravel(got), np.ravel(expected), rtol=1e-8)
    finally:
        if given is not None:
            adcompiler.defrule(special.erf, jvp=given[0], vjp=given[1])
        else:
            CUSTOM.pop(special.erf, None)
