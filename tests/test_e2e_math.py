"""End-to-end derivative checks for operators, math functions and builtins."""

import functools
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import adcompiler
import e2e_funcs as F
from oracle import assert_allclose, check_grads, complex_step, flatten


@functools.cache
def D(func, wrt=None):
    """adcompiler.differentiate, built once per (function, wrt) for speed."""
    if wrt is None:
        return adcompiler.differentiate(func)
    return adcompiler.differentiate(func, wrt=wrt)


SQRT_PI = math.sqrt(math.pi)

# (function, args): every case goes through check_grads and the complex step.
CASES = [
    (F.op_add, (1.3, -0.7)),
    (F.op_sub, (1.3, -0.7)),
    (F.op_mul, (1.3, -0.7)),
    (F.op_div, (1.3, -0.7)),
    (F.op_neg, (1.3,)),
    (F.op_pos, (-0.4,)),
    (F.op_unary_mix, (0.8, 1.9)),
    (F.identity, (2.5,)),
    (F.poly, (0.9, 1.7)),
    (F.rational, (0.5, -1.2, 0.8)),
    (F.int_literals, (1.7,)),
    (F.sci_literals, (1.7,)),
    (F.pow_sq, (1.7,)),
    (F.pow_sq, (-0.6,)),
    (F.pow_cube, (-1.3,)),
    (F.pow_neg_int, (-0.8,)),
    (F.pow_zero, (1.5,)),
    (F.pow_one, (1.5,)),
    (F.pow_half, (2.3,)),
    (F.pow_float, (1.4,)),
    (F.pow_const_base, (0.7,)),
    (F.pow_int_base, (0.7,)),
    (F.pow_active, (1.6, 2.3)),
    (F.pow_active, (0.4, -1.1)),
    (F.pow_nested, (0.9, 1.3)),
    (F.m_sin, (0.7,)),
    (F.m_cos, (0.7,)),
    (F.m_tan, (0.7,)),
    (F.m_asin, (0.3,)),
    (F.m_acos, (-0.6,)),
    (F.m_atan, (2.0,)),
    (F.m_sinh, (0.7,)),
    (F.m_cosh, (-0.9,)),
    (F.m_tanh, (0.4,)),
    (F.m_asinh, (-1.7,)),
    (F.m_acosh, (1.8,)),
    (F.m_atanh, (0.45,)),
    (F.m_exp, (1.2,)),
    (F.m_expm1, (1e-3,)),
    (F.m_log, (2.5,)),
    (F.m_log1p, (0.35,)),
    (F.m_log2, (3.3,)),
    (F.m_log10, (42.0,)),
    (F.m_sqrt, (0.8,)),
    (F.m_fabs, (-1.3,)),
    (F.m_fabs, (0.9,)),
    (F.m_erf, (0.6,)),
    (F.m_erfc, (-0.4,)),
    (F.m_atan2, (0.8, -1.5)),
    (F.m_atan2, (-0.3, 0.5)),
    (F.m_log_base, (5.0, 3.0)),
    (F.m_log_const_base, (5.0,)),
    (F.m_log_const_arg, (2.5,)),
    (F.m_pow, (1.6, 2.3)),
    (F.m_pow_const, (-1.2,)),
    (F.m_hypot, (3.0, -4.0)),
    (F.m_composite, (0.7, 1.1)),
    (F.m_composite2, (0.7, 1.1, -0.4)),
    (F.b_abs, (-1.3,)),
    (F.b_abs, (0.9,)),
    (F.b_abs_expr, (0.4, 1.3)),
    (F.b_min, (0.3, 0.8)),
    (F.b_min, (0.9, -0.2)),
    (F.b_max, (0.3, 0.8)),
    (F.b_max, (0.9, -0.2)),
    (F.b_min3, (0.5, -0.3, 0.1)),
    (F.b_max3, (0.5, -0.3, 1.1)),
    (F.b_max_const, (1.2,)),
    (F.b_max_const, (2.7,)),
    (F.b_max_const_first, (2.7,)),
    (F.b_min_expr, (0.7, 1.1)),
    (F.b_pow, (1.6, 2.3)),
    (F.b_pow_int, (-0.7,)),
    (F.pc_floor, (2.3,)),
    (F.pc_ceil, (-2.3,)),
    (F.pc_trunc, (-2.3,)),
    (F.pc_round, (2.7,)),
    (F.pc_int, (2.7, 1.4)),
    (F.pc_mix, (0.7, 1.1)),
    (F.const_pi, (1.3,)),
    (F.const_e, (0.6,)),
    (F.const_tau, (0.6,)),
    (F.const_inf, (0.6,)),
    (F.aug_assign, (0.7, 1.3)),
    (F.aug_param, (0.7, 1.3)),
    (F.aug_pow_active, (0.7, 1.3)),
    (F.tuple_unpack, (0.7, 1.3)),
    (F.tuple_unpack_paren, (0.7, 1.3, -0.2)),
    (F.with_default, (0.7, 1.3, -0.2)),
    (F.unused_param, (0.7, 1.3)),
    (F.dead_code, (0.7, 1.3)),
    (F.many_uses, (0.7,)),
    (F.reassign, (0.7,)),
    (F.reassign2, (0.7, 1.3)),
    (F.long_chain, (0.3,)),
    (F.clash_params, (0.3, 1.1, -0.5, 0.9, 1.7, 0.2, -0.8, 1.4)),
    (F.clash_locals, (0.6, 1.2)),
    (F.clash_params_dup, (0.6, 1.2, -0.3, 0.8, 1.5)),
    (F.clash_more, (0.3, 1.1, -0.5, 0.9, 1.7, 0.2, -0.8, 1.4)),
    (F.tuple_out_mixed, (0.6, 1.2)),
    (F.spherical, (1.5, 0.7, -0.4)),
]


def case_id(case):
    func, args = case
    return f"{func.__name__}{args}"


@pytest.mark.parametrize("func,args", CASES, ids=[case_id(c) for c in CASES])
def test_check_grads(func, args):
    check_grads(D(func), args, original=func)


@pytest.mark.parametrize("func,args", CASES, ids=[case_id(c) for c in CASES])
def test_complex_step(func, args):
    """Every partial (forward and reverse) vs the complex step at ~1e-10."""
    df = D(func)
    n = len(args)
    out = func(*args)
    ct = tuple(1.0 for _ in out) if isinstance(out, tuple) else 1.0
    _, cts = df.vjp(args, ct)
    for i in range(n):
        exact = complex_step(func, args, i)
        unit = tuple(1.0 if k == i else 0.0 for k in range(n))
        _, tan = df.jvp(args, unit)
        assert_allclose(tan, exact, rtol=1e-10, atol=1e-13, what=f"jvp e{i}")
        assert_allclose(cts[i], sum(exact), rtol=1e-10, atol=1e-13, what=f"vjp {i}")


# ---------------------------------------------------------- analytic values


def _dlog_base(x, b):
    return (1.0 / (x * math.log(b)), -math.log(x) / (b * math.log(b) ** 2))


ANALYTIC = [
    (F.m_sin, (0.7,), (math.cos(0.7),)),
    (F.m_cos, (0.7,), (-math.sin(0.7),)),
    (F.m_tan, (0.7,), (1.0 / math.cos(0.7) ** 2,)),
    (F.m_asin, (0.3,), (1.0 / math.sqrt(1 - 0.09),)),
    (F.m_acos, (-0.6,), (-1.0 / math.sqrt(1 - 0.36),)),
    (F.m_atan, (2.0,), (1.0 / 5.0,)),
    (F.m_sinh, (0.7,), (math.cosh(0.7),)),
    (F.m_cosh, (-0.9,), (math.sinh(-0.9),)),
    (F.m_tanh, (0.4,), (1.0 - math.tanh(0.4) ** 2,)),
    (F.m_asinh, (-1.7,), (1.0 / math.sqrt(1.7**2 + 1),)),
    (F.m_acosh, (1.8,), (1.0 / math.sqrt(1.8**2 - 1),)),
    (F.m_atanh, (0.45,), (1.0 / (1 - 0.45**2),)),
    (F.m_exp, (1.2,), (math.exp(1.2),)),
    (F.m_expm1, (1e-3,), (math.exp(1e-3),)),
    (F.m_log, (2.5,), (0.4,)),
    (F.m_log1p, (0.35,), (1.0 / 1.35,)),
    (F.m_log2, (3.3,), (1.0 / (3.3 * math.log(2.0)),)),
    (F.m_log10, (42.0,), (1.0 / (42.0 * math.log(10.0)),)),
    (F.m_sqrt, (0.8,), (0.5 / math.sqrt(0.8),)),
    (F.m_fabs, (-1.3,), (-1.0,)),
    (F.m_erf, (0.6,), (2.0 / SQRT_PI * math.exp(-0.36),)),
    (F.m_erfc, (-0.4,), (-2.0 / SQRT_PI * math.exp(-0.16),)),
    (F.m_atan2, (0.8, -1.5), (-1.5 / 2.89, -0.8 / 2.89)),
    (F.m_hypot, (3.0, -4.0), (0.6, -0.8)),
    (F.m_log_base, (5.0, 3.0), _dlog_base(5.0, 3.0)),
    (F.m_log_const_base, (5.0,), (1.0 / (5.0 * math.log(10.0)),)),
    (F.m_log_const_arg, (2.5,), (_dlog_base(8.0, 2.5)[1],)),
    (F.pow_active, (1.6, 2.3), (2.3 * 1.6**1.3, 1.6**2.3 * math.log(1.6))),
    (F.m_pow, (1.6, 2.3), (2.3 * 1.6**1.3, 1.6**2.3 * math.log(1.6))),
    (F.b_pow, (1.6, 2.3), (2.3 * 1.6**1.3, 1.6**2.3 * math.log(1.6))),
    (F.b_pow_int, (-0.7,), (3 * 0.49,)),
    (F.pow_sq, (0.0,), (0.0,)),
    (F.pow_cube, (-1.3,), (3 * 1.69,)),
    (F.pow_neg_int, (-0.8,), (-2.0 * (-0.8) ** -3,)),
    (F.pow_zero, (1.5,), (0.0,)),
    (F.pow_float, (1.4,), (2.5 * 1.4**1.5,)),
    (F.pow_const_base, (0.7,), (2.0**0.7 * math.log(2.0),)),
    (F.const_pi, (1.3,), (2.0 * math.pi * 1.3,)),
    (F.const_e, (0.6,), (math.exp(0.6),)),
    (F.op_div, (1.3, -0.7), (1.0 / -0.7, -1.3 / 0.49)),
    (F.reassign, (0.7,), (4.0 * 0.7**3,)),
    (F.with_default, (0.7, 1.3, -0.2), (1.3 + 2 * -0.2 * 0.7, 0.7, 0.49)),
]


@pytest.mark.parametrize("func,args,expected", ANALYTIC, ids=[case_id(c[:2]) for c in ANALYTIC])
def test_analytic_gradient(func, args, expected):
    df = D(func)
    assert_allclose(df.vjp(args, 1.0)[1], expected, rtol=1e-12, what="vjp")


@pytest.mark.parametrize("func,args,expected", ANALYTIC, ids=[case_id(c[:2]) for c in ANALYTIC])
def test_analytic_forward(func, args, expected):
    df = D(func)
    n = len(args)
    got = [df.jvp(args, tuple(float(k == i) for k in range(n)))[1] for i in range(n)]
    assert_allclose(tuple(got), expected, rtol=1e-12, what="jvp columns")


# ------------------------------------------------ non-differentiable points


@pytest.mark.parametrize("func", [F.b_abs, F.m_fabs])
@pytest.mark.parametrize("x", [0.0, -0.0])
def test_abs_at_zero_is_zero(func, x):
    df = D(func)
    assert (df.grad(x), df.jvp((x,), (1.0,))[1]) == (0.0, 0.0)


TIES = [
    (F.b_min, (0.5, 0.5), (1.0, 0.0)),
    (F.b_max, (0.5, 0.5), (1.0, 0.0)),
    (F.b_min3, (0.5, 0.5, 0.5), (1.0, 0.0, 0.0)),
    (F.b_max3, (0.2, 0.7, 0.7), (0.0, 1.0, 0.0)),
    (F.b_min3, (0.9, 0.1, 0.1), (0.0, 1.0, 0.0)),
    (F.b_max3, (0.7, 0.2, 0.7), (1.0, 0.0, 0.0)),
    (F.b_max_const, (2.0,), (1.0,)),
    (F.b_max_const_first, (2.0,), (0.0,)),
]


@pytest.mark.parametrize("func,args,expected", TIES, ids=[case_id(c[:2]) for c in TIES])
def test_min_max_tie_goes_to_first_argument_reverse(func, args, expected):
    _, cts = D(func).vjp(args, 1.0)
    assert cts == expected


@pytest.mark.parametrize("func,args,expected", TIES, ids=[case_id(c[:2]) for c in TIES])
def test_min_max_tie_goes_to_first_argument_forward(func, args, expected):
    df = D(func)
    n = len(args)
    cols = tuple(df.jvp(args, tuple(float(k == i) for k in range(n)))[1] for i in range(n))
    assert cols == expected


PIECEWISE = [
    (F.pc_floor_only, (2.3,), (0.0,)),
    (F.pc_floor_only, (-2.0,), (0.0,)),
    (F.pc_floor, (2.3,), (2.0,)),
    (F.pc_ceil, (-2.3,), (-2.0,)),
    (F.pc_trunc, (-2.7,), (1.0,)),
    (F.pc_round, (2.7,), (3.0,)),
    (F.pc_int, (2.7, 1.4), (1.0, 2.0)),
    (F.pc_mix, (0.7, 1.1), (2.0 * 1.1, 2.0 * 0.7)),
]


@pytest.mark.parametrize("func,args,expected", PIECEWISE, ids=[case_id(c[:2]) for c in PIECEWISE])
def test_piecewise_constant_functions_have_zero_derivative(func, args, expected):
    df = D(func)
    n = len(args)
    fwd = tuple(df.jvp(args, tuple(float(k == i) for k in range(n)))[1] for i in range(n))
    assert (df.vjp(args, 1.0)[1], fwd) == (expected, expected)


# ----------------------------------------------------------- exact zeros


ZEROS = [
    (F.unused_param, (0.7, 1.3), 1),
    (F.dead_code, (0.7, 1.3), 1),
    (F.const_only, (0.7,), 0),
    (F.pow_zero, (1.5,), 0),
    (F.pc_floor_only, (2.3,), 0),
]


@pytest.mark.parametrize("func,args,i", ZEROS, ids=[case_id(c[:2]) for c in ZEROS])
def test_gradient_is_exactly_float_zero(func, args, i):
    _, cts = D(func).vjp(args, 1.0)
    assert (cts[i], type(cts[i])) == (0.0, float)


def test_const_only_value_and_forward():
    df = D(F.const_only)
    assert df.jvp((0.7,), (1.0,)) == (4.0, 0.0)


def test_hypot_with_three_arguments():
    # math.hypot is variadic; d/dx_i hypot(x) = x_i / hypot(x)
    g = D(F.m_hypot3).grad(1.0, 2.0, -2.0)
    assert_allclose(g, (1.0 / 3.0, 2.0 / 3.0, -2.0 / 3.0), what="hypot(1, 2, -2)")


def test_non_wrt_int_exponent_parameter():
    df = D(F.pow_param_exponent, wrt=("x",))
    assert_allclose(df.grad(1.5, 3), 3 * 1.5**2, what="d/dx x**n, n=3")


def test_tuple_output_constant_component_has_zero_tangent():
    df = D(F.tuple_out_mixed)
    _, tan = df.jvp((0.6, 1.2), (1.0, 1.0))
    assert tan == (1.0, 0.0, pytest.approx(1.8, rel=1e-15), 1.0)


# ------------------------------------------------------- random points

HYP = settings(max_examples=15, deadline=None, derandomize=True)
reals = st.floats(-3.0, 3.0, allow_nan=False)
positive = st.floats(0.2, 4.0, allow_nan=False)


def _check_fwd_rev_fd(func, args):
    check_grads(D(func), args, original=func, n_random=1)


@HYP
@given(reals, reals)
def test_random_points_composite(x, y):
    assume(x * x + y * y > 1e-4)  # sqrt(x*x + y*y) has a cone at the origin (central differences at
    # (0.00195, 0.00195), r = 0.0028, are off by 1.2e-6 of the slope there, the derivative's -0.7012716 analytic)
    _check_fwd_rev_fd(F.m_composite, (x, y))


@HYP
@given(positive, reals)
def test_random_points_pow_active(x, y):
    _check_fwd_rev_fd(F.pow_active, (x, y))


@HYP
@given(reals, reals, reals)
def test_random_points_composite2(x, y, z):
    assume(not (x < 1e-3 and abs(y) < 1e-3))  # atan2 branch cut / origin
    assume(x * x + z * z > 1e-6)  # hypot(z, x) cone at the origin
    _check_fwd_rev_fd(F.m_composite2, (x, y, z))


@HYP
@given(reals, reals)
def test_random_points_clash_locals(x, y):
    assume(abs(x) > 0.1)  # divides by x
    _check_fwd_rev_fd(F.clash_locals, (x, y))


@HYP
@given(st.floats(-0.9, 0.9), reals)
def test_random_points_forward_equals_reverse(x, y):
    df = D(F.aug_assign)
    rev = df.grad(x, y)
    fwd = tuple(df.jvp((x, y), v)[1] for v in ((1.0, 0.0), (0.0, 1.0)))
    assert_allclose(fwd, rev, rtol=1e-12, atol=1e-14, what="forward vs reverse")


def test_flatten_helper_sanity():
    # guards the oracle itself: complex step of a known function
    assert_allclose(complex_step(F.m_sin, (0.7,), 0), flatten(math.cos(0.7)))
