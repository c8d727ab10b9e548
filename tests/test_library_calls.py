"""Library functions with no derivative rule whose arguments have no derivative (``np.triu_indices(d, 1)``,
``np.vander(t, m)`` of data, ``multigammaln`` of constants) are computed as the primal computes them, in
both modes; where an argument has a derivative, MissingRuleError at the user's line.  Oracles: central
differences, the analytic gradient of least squares, forward mode against reverse mode."""

import inspect

import numpy as np
import pytest

import adcompiler
from tests import library_call_funcs as L

RNG = np.random.default_rng(3)


def central(f, args, i, h=1e-6):
    """d f / d args[i] by central differences."""
    a = np.asarray(args[i], dtype=float)
    g = np.zeros_like(a)
    for j in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[j] = h
        hi, lo = list(args), list(args)
        hi[i], lo[i] = a + e, a - e
        g[j] = (f(*hi) - f(*lo)) / (2 * h)
    return g


def check_both_modes(fn, args, wrt, backend="python"):
    """The gradient against central differences, and <J v> of forward mode against <grad, v>."""
    d = adcompiler.differentiate(fn, wrt=wrt, backend=backend)
    names = list(inspect.signature(fn).parameters)
    grads = d.grad(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    tangents = []
    for name, g in zip(wrt, grads, strict=True):
        i = names.index(name)
        np.testing.assert_allclose(g, central(fn, args, i), rtol=1e-6, atol=1e-6)
        tangents.append(RNG.normal(size=np.shape(args[i])))
    value, tangent = d.jvp(args, tuple(tangents))
    assert value == pytest.approx(fn(*args), rel=1e-12)
    assert tangent == pytest.approx(sum(np.sum(g * t) for g, t in zip(grads, tangents)), rel=1e-9)


def test_triu_indices_of_an_int():
    check_both_modes(L.lower_factor, (RNG.normal(size=4), RNG.normal(size=6)), ("q", "l"))


def test_vander_of_data_not_differentiated():
    x = RNG.normal(size=4)
    check_both_modes(L.poly_fit, (x, 7), ("x",))
    t = -1.0 + np.arange(7) * 2.0 / 6
    P = np.vander(t, 4, increasing=True)
    np.testing.assert_allclose(adcompiler.grad(L.poly_fit)(x, 7), P.T @ (P @ x - np.sign(t)), rtol=1e-12)


def test_scipy_and_math_of_integers_and_constants():
    check_both_modes(L.wishart_constant, (RNG.normal(size=3), 2), ("q",))


def test_a_builtin_of_ints():
    check_both_modes(L.halves, (1.5, 7), ("x",))


def test_the_call_is_the_primal_line_in_the_generated_code():
    d = adcompiler.differentiate(L.poly_fit, wrt=("x",))
    d.grad(np.ones(3), 5)
    assert "powers = np.vander(t, len(x), increasing=True)" in d.source("grad")


def _refused(fn, mode):
    d = adcompiler.differentiate(fn, wrt=(list(inspect.signature(fn).parameters)[0],))
    args = (
        (np.eye(2) * 2.0, np.ones(2))
        if fn is L.chained
        else (np.ones((3, 3)),) if fn is L.zero_diagonal else (np.ones(3),)
    )
    with pytest.raises(adcompiler.MissingRuleError) as caught:
        if mode == "grad":
            d.grad(*args)
        else:
            d.jvp(args, (np.ones_like(args[0]),))
    return caught.value


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize(
    "fn, marker, words",
    [
        (L.active_unwrap, "unwrap", ("np.unwrap", "no derivative rule", "(t)")),
        (L.through_helper, "helper", ("np.unwrap", "no derivative rule")),  # in a callee, its output returned
        (L.chained, "chained", ("sl.polar", "no derivative rule", "(a)")),  # through another library call
        (L.seeded, "seed", ("np.random.seed", "no derivative rule")),  # a state, not a value: refused as before
        (L.zero_diagonal, "inplace", ("np.fill_diagonal", "(A)")),  # it changes A in place: refused
    ],
    ids=["active", "callee", "chained", "seed", "inplace"],
)
def test_an_argument_with_a_derivative_is_refused_at_the_users_line(fn, marker, words, mode):
    error = _refused(fn, mode)
    lines, _ = inspect.getsourcelines(L)
    line = next(k + 1 for k, text in enumerate(lines) if f"# ERR:{marker}" in text)
    assert (error.filename, error.lineno) == (L.__file__, line)
    assert all(w in str(error) for w in words)


def test_numba_calls_what_numba_compiles_and_refuses_the_rest_by_name():
    pytest.importorskip("numba")
    x = RNG.normal(size=4)
    python = adcompiler.differentiate(L.poly_fit, wrt=("x",)).grad(x, 7)
    np.testing.assert_allclose(adcompiler.differentiate(L.poly_fit, wrt=("x",), backend="numba").grad(x, 7), python)
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match='backend="python"') as caught:
        adcompiler.differentiate(L.wishart_constant, wrt=("q",), backend="numba").grad(RNG.normal(size=3), 2)
    assert caught.value.filename == L.__file__
