"""``functools.wraps`` decorators: the derivative is of what a call runs, the wrapper's own code (never
the source of the function it wraps); a wrapper that differentiation cannot follow is refused where it
is written; a SciPy function without a rule is refused at the user's line.  The decorators live in one
module (wrapper_decorators), the decorated functions and their callers in another (wrapper_funcs)."""

import inspect
import math

import numpy as np
import pytest

import adcompiler
from tests import wrapper_decorators as D
from tests import wrapper_funcs as W
from tests.oracle import central_grad


def _derivatives(fn, *args):
    """value_and_grad, jvp along ones and vjp of one, of ``fn`` at ``args`` (floats)."""
    d = adcompiler.differentiate(fn)
    value, gradient = d.value_and_grad(*args)
    gradient = gradient if isinstance(gradient, tuple) else (gradient,)
    _, tangent = d.jvp(args, (1.0,) * len(args))
    _, cotangents = d.vjp(args, 1.0)
    return value, gradient, tangent, cotangents


def _against_differences(fn, *args):
    value, gradient, tangent, cotangents = _derivatives(fn, *args)
    assert value == fn(*args)
    expected = [float(central_grad(fn, args, i)) for i in range(len(args))]
    assert list(gradient) == pytest.approx(expected, rel=1e-7)
    assert list(cotangents) == pytest.approx(expected, rel=1e-7)
    assert tangent == pytest.approx(sum(expected), rel=1e-7)
    return gradient


def test_a_scaling_wrapper_is_differentiated_as_it_runs():
    gradient = _against_differences(W.scaled, 1.0)
    assert gradient[0] == pytest.approx(2 * (math.cos(1.0) + math.sin(1.0)), rel=1e-15)
    assert adcompiler.grad(W.scaled)(1.0) == gradient[0]
    assert adcompiler.jacfwd(W.scaled)(1.0) == pytest.approx(gradient[0], rel=1e-15)


def test_the_wrapper_takes_the_parameters_it_declares():
    d = adcompiler.differentiate(W.scaled_with_default)
    assert d.params == ("x", "k") and d.grad(1.5) == (2 * 2 * 3.0 * 1.5, 2 * 1.5**2)
    assert d.grad(1.5, k=2.0) == (2 * 2 * 2.0 * 1.5, 2 * 1.5**2)
    assert adcompiler.grad(W.scaled_with_default)(1.5) == 2 * 2 * 3.0 * 1.5


def test_a_pass_through_wrapper_prints_as_the_call_does(capsys):
    _against_differences(W.printed, 0.7)
    assert "calling printed" in capsys.readouterr().out


@pytest.mark.parametrize(
    "fn, args",
    [
        (W.calls_scaled, (1.0, 2.0)),
        (W.calls_printed, (0.7,)),
        (W.calls_own_parameters, (0.7,)),
        (W.calls_with_keywords, (1.0, 2.0, 0.5)),  # keywords a wrapper's **kwargs passes on
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_decorated_helpers(fn, args):
    gradient = _against_differences(fn, *args)  # (value, gradient, jvp and vjp against central differences)
    assert len(gradient) == len(args)


def test_a_wrapper_with_parameters_of_its_own_is_itself():
    gradient = _against_differences(W.own_parameters, 0.7)
    assert gradient[0] == pytest.approx(2 * 0.7 + 1.0, rel=1e-15)


def test_a_decorated_array_helper():
    x = np.array([0.5, -1.0, 2.0])
    assert np.allclose(adcompiler.grad(W.calls_scaled_array)(x), 6 * (1 - np.tanh(x) ** 2), rtol=1e-14)


@pytest.mark.parametrize("fn", [W.with_state, W.calls_with_state], ids=lambda f: f.__name__)
def test_a_wrapper_that_keeps_state_is_refused_where_it_is_written(fn):
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as caught:
        adcompiler.differentiate(fn).grad(0.7)
    assert caught.value.filename == D.__file__ and "'calls'" in str(caught.value)


def test_the_wrapped_functions_defaults_as_they_are():
    d = adcompiler.differentiate(W.calls_scaled)
    before = d.grad(1.0, 2.0)
    wrapped = W.scaled_with_default.__wrapped__
    saved = wrapped.__defaults__
    try:
        wrapped.__defaults__ = (5.0,)
        after = d.grad(1.0, 2.0)
        assert after == pytest.approx((before[0] + 2 * 2 * 2.0, before[1]), rel=1e-15)
        assert W.calls_scaled(1.0, 2.0) == d.value_and_grad(1.0, 2.0)[0]
    finally:
        wrapped.__defaults__ = saved


def polar_then_root(a, b):  # (cho_factor, cho_solve and solve_triangular have rules: test_scipy_linalg_stats.py)
    c = sl.polar(a)
    return np.sum(sl.sqrtm(c[1]) @ b)


def logarithm(a, b):
    return np.sum(sl.logm(a) @ b)


sl = pytest.importorskip("scipy.linalg")


@pytest.mark.parametrize("fn", [polar_then_root, logarithm], ids=lambda f: f.__name__)
def test_scipy_functions_without_rules_are_refused_at_the_users_line(fn):
    a, b = np.array([[2.0, 0.1], [0.1, 3.0]]), np.array([1.0, 2.0])
    with pytest.raises(adcompiler.MissingRuleError) as caught:
        adcompiler.grad(fn)(a, b)
    first = inspect.getsourcelines(fn)[1]
    assert caught.value.filename == __file__ and caught.value.lineno in (first + 1, first + 2)
    assert "no derivative rule" in str(caught.value)
