"""End-to-end checks for calls to user helpers and vector-valued functions."""

import inspect
import functools
import math

import pytest

import adcompiler
import e2e_funcs as F
from oracle import assert_allclose, check_grads, complex_step


@functools.cache
def D(func, wrt=None):
    """adcompiler.differentiate, built once per (function, wrt) for speed."""
    if wrt is None:
        return adcompiler.differentiate(func)
    return adcompiler.differentiate(func, wrt=wrt)


CASES = [
    (F.call_simple, (0.8,)),
    (F.call_nested, (0.8, -1.3)),
    (F.call_twice, (0.8, -1.3)),
    (F.call_tuple, (1.7, 0.6)),
    (F.call_tuple_out, (1.7, 0.6)),
    (F.call_default, (0.8,)),
    (F.call_const, (0.8, -1.3)),
    (F.call_in_expr, (0.8,)),
    (F.call_deep, (0.8, -1.3)),
    (F.call_mutate, (0.8,)),
    (F.call_clash, (0.8, -1.3)),
    (F.call_const_args, (0.8,)),
    (F.call_same_var, (0.8,)),
    (F.h_polar, (1.7, 0.6)),
    (F.h_cross, (0.1, 0.2, 0.3, -0.4, 0.5, 0.6)),
    (F.h_nested, (0.8, -1.3)),
    (F.spherical, (1.5, 0.7, -0.4)),
    (F.rotate_vec_by_quat, (0.9, 0.1, -0.3, 0.2, 1.0, 2.0, -0.5)),
    (F.bs_call, (100.0, 95.0, 0.5, 0.03, 0.25)),
    (F.bs_call, (80.0, 100.0, 2.0, 0.01, 0.4)),
]


def case_id(case):
    return f"{case[0].__name__}{case[1]}"


@pytest.mark.parametrize("func,args", CASES, ids=[case_id(c) for c in CASES])
def test_check_grads(func, args):
    check_grads(D(func), args, original=func)


@pytest.mark.parametrize("func,args", CASES, ids=[case_id(c) for c in CASES])
def test_complex_step(func, args):
    df = D(func)
    n = len(args)
    for i in range(n):
        unit = tuple(float(k == i) for k in range(n))
        _, tan = df.jvp(args, unit)
        exact = complex_step(func, args, i)
        assert_allclose(tan, exact, rtol=1e-10, atol=1e-12, what=f"jvp e{i}")


def test_helper_returned_tuple_passed_through():
    """`return helper(...)` where the helper returns a tuple."""
    df = D(F.call_tuple_passthrough)
    check_grads(df, (1.7, 0.6), original=F.call_tuple_passthrough)


def test_helper_chain_analytic():
    # call_simple(x) = x*x + x
    assert D(F.call_simple).grad(0.8) == pytest.approx(2.6)


def test_helper_with_default_analytic():
    # 3x + 0.5x + 2x
    assert D(F.call_default).grad(0.8) == pytest.approx(5.5)


def test_constant_helper_gives_exact_zero():
    g = D(F.call_const).grad(0.8, -1.3)
    assert g == (0.0, 5.0)


def test_callee_used_directly_and_from_caller_agree():
    polar = D(F.h_polar)
    caller = D(F.call_tuple_out)
    _, (cr1, ct1) = polar.vjp((1.7, 0.6), (0.3, -0.2))
    _, (cr2, ct2) = caller.vjp((1.7, 0.6), (-0.2, 0.3))
    assert_allclose((cr1, ct1), (cr2, ct2), rtol=1e-13, what="same vjp both ways")


# ----------------------------------------------------------- quaternion

QUAT = (0.9, 0.1, -0.3, 0.2)


def test_rotation_identity_quaternion_jacobian_is_identity():
    df = D(F.rotate_vec_by_quat)
    args = (1.0, 0.0, 0.0, 0.0, 0.3, -1.2, 2.0)
    cols = [df.jvp(args, tuple(float(k == i) for k in range(7)))[1] for i in range(4, 7)]
    assert cols == [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]


def test_rotation_invariant_to_quaternion_scale():
    # the quaternion is normalised: moving along q itself changes nothing
    df = D(F.rotate_vec_by_quat)
    _, tan = df.jvp(QUAT + (1.0, 2.0, -0.5), QUAT + (0.0, 0.0, 0.0))
    assert_allclose(tan, (0.0, 0.0, 0.0), atol=1e-13, what="radial tangent")


def test_rotation_preserves_norm_gradient():
    # |R v|^2 = |v|^2, so the vjp with ct = R v gives (0,0,0,0, v)
    df = D(F.rotate_vec_by_quat)
    v = (1.0, 2.0, -0.5)
    out, cts = df.vjp(QUAT + v, F.rotate_vec_by_quat(*QUAT, *v))
    assert_allclose(cts, (0.0,) * 4 + v, atol=1e-13, what="d|Rv|^2/2")


# -------------------------------------------------------- Black-Scholes


def _phi(z):
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def _bs_greeks(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return {
        "delta": F.norm_cdf(d1),
        "vega": S * _phi(d1) * math.sqrt(T),
        "rho": K * T * math.exp(-r * T) * F.norm_cdf(d2),
        "dK": -math.exp(-r * T) * F.norm_cdf(d2),
    }


@pytest.mark.parametrize("args", [(100.0, 95.0, 0.5, 0.03, 0.25), (80.0, 100.0, 2.0, 0.01, 0.4)])
def test_black_scholes_greeks(args):
    dS, dK, _, dr, dsigma = D(F.bs_call).grad(*args)
    g = _bs_greeks(*args)
    assert_allclose(
        (dS, dK, dr, dsigma),
        (g["delta"], g["dK"], g["rho"], g["vega"]),
        rtol=1e-10,
        what="delta, dC/dK, rho, vega",
    )


def test_black_scholes_delta_only():
    df = D(F.bs_call, wrt=("S",))
    args = (100.0, 95.0, 0.5, 0.03, 0.25)
    assert_allclose(df.grad(*args), _bs_greeks(*args)["delta"], rtol=1e-12)


# ------------------------------------------------ unsupported in a callee


def helper_with_lambda(u):
    sq, cube = lambda t: t * t, lambda t: t**3  # lambdas in a tuple (a named lambda is a local function)
    return sq(u) + cube(u)


def caller_of_bad_helper(x):
    return helper_with_lambda(x) + x


def test_unsupported_syntax_in_callee_is_located_in_callee():
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        df = adcompiler.differentiate(caller_of_bad_helper)
        df.grad(1.0)
    lines, start = inspect.getsourcelines(helper_with_lambda)
    assert (info.value.filename.endswith("test_e2e_calls.py"), info.value.lineno) == (
        True,
        start + 1,
    )
