"""Everyday Python in differentiated functions (issue 18): generator expressions, sum with a start,
max/min with key=, sorted, reversed, enumerate with a start, nested unpacking, swaps through
subscripts, print/logging/f-strings/assert (run in the primal, ignored by derivatives), float("inf"),
keyword-only parameters, for/while ... else, list methods and math's sums, products, distances and
gamma functions.  Each is checked in both modes against central differences, the dot-product identity
and its primal's structure (check_both_modes), against autograd running the same code where autograd
can, and at second order against differences of the gradient where the function is smooth."""

import logging
import math
import types

import numpy as np
import pytest

import adcompiler
import idiom_funcs as F
from adcompiler.testing.oracle import check_both_modes, check_second_order, leaves

XS = [0.7, -1.3, 2.1, 0.4]
YS = [1.1, 0.3, -0.6, 2.5]

CASES = [
    (F.genexp_sum, (XS,)),
    (F.genexp_sum_filtered, (XS, 0.8)),
    (F.genexp_nested, (XS, YS)),
    (F.genexp_max_min, (XS,)),
    (F.sum_with_start, (XS, 0.6)),
    (F.genexp_sum_start, (XS, 0.6)),
    (F.any_all_tests, (XS, 0.8)),
    (F.any_all_tests, ([0.7, 1.3, 0.1], 0.8)),
    (F.any_all_tests, ([2.7, 1.3, 0.2], 0.8)),
    (F.max_key_lambda, (XS, 0.5)),
    (F.max_key_function, (XS,)),
    (F.min_max_of_arguments_with_key, (0.5, -1.5)),
    (F.tuples_joined, (0.5, 1.5)),
    (F.sorted_list, (XS,)),
    (F.sorted_key_reverse, (XS, 0.5)),
    (F.sorted_returned, (XS,)),
    (F.sorted_genexp, (XS,)),
    (F.reversed_list, (XS,)),
    (F.enumerate_start, (XS,)),
    (F.nested_unpacking, (XS, YS)),
    (F.starred_unpacking, (XS, YS)),
    (F.tuple_in_loop, (0.7, 1.2)),
    (F.swap_in_list, ([2.0, 0.5, 1.5, -0.3],)),
    (F.print_and_fstring, (0.7, 1.9)),
    (F.logging_calls, (0.7,)),
    (F.logging_module, (0.7,)),
    (F.asserts, (0.7, 1.9)),
    (F.float_inf, (XS,)),
    (F.keyword_only, (0.7,)),
    (F.calls_keyword_only, (0.7,)),
    (F.for_else, (XS, 1.0)),
    (F.for_else, (XS, 3.0)),
    (F.while_else, (0.7,)),
    (F.while_else, (3.1,)),
    (F.list_extend_insert_pop, (XS, 0.9)),
    (F.list_copy_method, (XS,)),
    (F.helper_changes_list, (XS, 1.7)),
    (F.math_sums, (XS,)),
    (F.math_dist, ([0.7, -1.3, 2.1], [0.2, 0.5, -0.4])),
    (F.math_gamma, (2.7,)),
    (F.math_gamma, (0.3,)),
    (F.math_lgamma_negative, (-2.4,)),
    (F.math_angles, (0.7, 1.9)),
    (F.math_copysign_fmod, (2.3, -0.7)),
    (F.math_copysign_fmod, (-5.3, 1.6)),
    (F.math_tests, (0.7, 1.9)),
    (F.math_tests, (0.7, 1e9)),
    (F.comprehension_names_are_their_own, (XS, 0.6)),
    (
        F.sum_start_of_arrays,
        (np.array([[0.3, 0.5], [1.1, -0.4], [0.2, 0.9]]), 0.7),
    ),  # x is a slot of the function: the comprehensions' own x
]


def _id(case):
    return f"{case[0].__name__}{case[1]!r:.30}"


@pytest.mark.parametrize("f, args", CASES, ids=[_id(c) for c in CASES])
def test_both_modes_against_differences(f, args):
    check_both_modes(f, args, wrt=[p for p in adcompiler.differentiate(f).params if p not in ("scale", "shift")])


SHIM = dict(
    fsum=lambda xs: sum(xs),
    prod=lambda xs, start=1.0: math.prod(xs, start=start),
    dist=lambda p, q: sum((a - b) ** 2 for a, b in zip(p, q)) ** 0.5,
)


def autograd_grad(f, args):
    """autograd's gradient of the same code (``math`` rebound to autograd.numpy where it must be)."""
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    special = pytest.importorskip("autograd.scipy.special")
    shim = {n: getattr(anp, n) for n in ("sin", "cos", "exp", "degrees", "radians", "cbrt", "exp2") if hasattr(anp, n)}
    shim.update(SHIM, lgamma=special.gammaln, gamma=special.gamma, isfinite=math.isfinite, isnan=math.isnan)
    shim.update(isinf=math.isinf)
    g = dict(f.__globals__, math=types.SimpleNamespace(**shim), np=anp)
    twin = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__)
    twin.__kwdefaults__ = f.__kwdefaults__
    return [ag.grad(twin, k)(*args) for k in range(len(args))]


# autograd lacks: a vector output's grad, format specs of its boxes, list.copy of its boxes, cbrt's vjp
NOT_AUTOGRAD = (F.math_copysign_fmod, F.math_tests, F.sorted_returned, F.print_and_fstring, F.list_copy_method)
AUTOGRAD = [c for c in CASES if c[0] not in NOT_AUTOGRAD + (F.math_angles,)]


@pytest.mark.parametrize("f, args", AUTOGRAD, ids=[_id(c) for c in AUTOGRAD])
def test_against_autograd(f, args):
    expected = autograd_grad(f, args)
    got = adcompiler.differentiate(f, wrt=tuple(range(len(args)))).grad(*args)
    got = got if len(args) > 1 else (got,)
    np.testing.assert_allclose(leaves(got), leaves(expected), rtol=1e-9, atol=1e-12)


SMOOTH = [
    (F.genexp_sum_filtered, (XS, 0.8)),
    (F.sum_with_start, (XS, 0.6)),
    (F.max_key_lambda, (XS, 0.5)),
    (F.sorted_key_reverse, (XS, 0.5)),
    (F.sorted_genexp, (XS,)),
    (F.reversed_list, (XS,)),
    (F.print_and_fstring, (0.7, 1.9)),
    (F.logging_calls, (0.7,)),
    (F.asserts, (0.7, 1.9)),
    (F.for_else, (XS, 3.0)),
    (F.starred_unpacking, (XS, YS)),
    (F.list_extend_insert_pop, (XS, 0.9)),
    (F.math_sums, (XS,)),
    (F.math_dist, ([0.7, -1.3, 2.1], [0.2, 0.5, -0.4])),
    (F.math_gamma, (2.7,)),
    (F.math_gamma, (0.3,)),
    (F.math_lgamma_negative, (-2.4,)),
    (F.math_angles, (0.7, 1.9)),
    (F.math_copysign_fmod, (2.3, -0.7)),
]


@pytest.mark.parametrize("f, args", SMOOTH, ids=[_id(c) for c in SMOOTH])
def test_second_order_against_differences_of_the_gradient(f, args):
    """The Hessian (forward over reverse) of each parameter against central differences of the gradient."""
    check_second_order(f, args)


def test_digamma_and_its_derivatives_against_scipy():
    """The polygamma helper behind lgamma's and gamma's rules, against SciPy at orders 0 to 3."""
    special = pytest.importorskip("scipy.special")
    from adcompiler.targets.python.runtime import HELPERS

    ns: dict = {}
    exec(HELPERS["polygamma"], ns)
    for n in range(4):
        for x in [1e-6, 0.01, 0.3, 1.0, 2.5, 7.3, 15.9, 40.0, 1e3, 1e6] + ([-0.3, -2.4, -7.7] if n == 0 else []):
            expected = float(special.polygamma(n, x))
            assert abs(ns["polygamma"](n, x) - expected) <= 1e-13 * max(1.0, abs(expected)), (n, x)


def test_print_runs_in_the_primal_with_its_values(capsys):
    d = adcompiler.differentiate(F.print_and_fstring)
    d.grad(0.7, 1.9)
    d.jvp((0.7, 1.9), (1.0, 0.0))
    F.print_and_fstring(0.7, 1.9)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 6 and out[:2] == out[2:4] == out[4:], out
    assert out[1] == "z = 1.330, x =          0.7, nested, {braces} y=1.9"


def test_logging_runs_once_per_call(caplog):
    caplog.set_level(logging.INFO)
    adcompiler.differentiate(F.logging_calls).grad(0.7)
    assert [r.getMessage() for r in caplog.records] == ["x = 0.7"]


def test_a_failed_assert_raises_assertion_error_with_its_message():
    d = adcompiler.differentiate(F.asserts)
    with pytest.raises(AssertionError, match="x must be positive, not -0.5"):
        d.grad(-0.5, 1.0)
    with pytest.raises(AssertionError, match="x is small"):
        adcompiler.differentiate(F.assert_fails).jvp((1.0,), (1.0,))


def test_keyword_only_parameters_keep_their_defaults():
    d = adcompiler.differentiate(F.keyword_only, wrt="x")
    assert d.grad(0.7) == 2.0 and d.jvp((0.7,), (1.0,)) == (1.9, 2.0)


def test_sorted_and_reversed_cotangents_scatter_back():
    g = adcompiler.differentiate(F.sorted_returned).vjp(([3.0, -1.0, 2.0],), [1.0, 10.0, 100.0])[1][0]
    assert g == [6.0 * 100.0, -2.0 * 1.0, 4.0 * 10.0]  # sorted [1, 4, 9]: 9 = 3**2 got 100, 1 = (-1)**2 got 1
    assert type(g) is list and all(type(v) is float for v in g)


def test_starred_unpacking_under_numba_matches_python():
    pytest.importorskip("numba")
    args = (XS, YS)
    expected = adcompiler.differentiate(F.starred_unpacking, wrt=(0, 1)).grad(*args)
    got = adcompiler.differentiate(F.starred_unpacking, wrt=(0, 1), backend="numba").grad(*args)
    np.testing.assert_allclose(leaves(got), leaves(expected), rtol=1e-12)


def _starred_display(xs):
    return sum([*xs, 1.0])


def _starred_array(a):
    first, *rest = a
    return first * rest[0]


def _too_few(x, y):
    a, b, *rest = (x,)
    return a


@pytest.mark.parametrize(
    "f, args, words, column",
    [
        (_starred_display, ([1.0],), "a starred expression (*x) here", 16),
        (_starred_array, (np.ones(2),), "a, *rest = A", 4),
        (_too_few, (1.0, 2.0), "unpacking 1 value(s) into at least 2 names", 4),
    ],
)
def test_starred_outside_an_assignment_is_refused_at_its_place(f, args, words, column):
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as e:
        adcompiler.grad(f)(*args)
    line = f.__code__.co_firstlineno + 1
    assert words in str(e.value) and f"test_idioms.py:{line}:{column + 1}:" in str(e.value)
