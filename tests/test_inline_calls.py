"""lower/inline_calls.py: small leaf helpers on numbers written in place in their caller's ANF, with
the same derivatives (central differences, both modes, second order), and what stays a call."""

import math

import numpy as np
import pytest

import adcompiler
import inline_call_funcs as F
from oracle import central_diff, central_grad
from shared import BACKENDS


def _anf(fn):
    return adcompiler.differentiate(fn).source("anf")


def _code(text: str, name: str) -> str:
    """The lines of function ``name`` in ``text`` without their comments (which quote the source)."""
    body = text[text.index(f"def {name}(") :].split("\ndef ")[0]
    return "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("#"))


def _check(fn, args):
    """grad, jvp and the Hessian's diagonal against central differences of the function."""
    f = adcompiler.differentiate(fn)
    grad = f.grad(*args)
    grad = grad if isinstance(grad, tuple) else (grad,)
    for i, g in enumerate(grad):
        want = central_diff(fn, args, i)[0]
        assert g == pytest.approx(want, rel=1e-6, abs=1e-8)
        tangent = f.jvp(args, tuple(1.0 if k == i else 0.0 for k in range(len(args))))[1]
        assert tangent == pytest.approx(g, rel=1e-12, abs=1e-14)


def test_small_helpers_are_written_in_place():
    text = _anf(F.layer)
    assert "relu(" not in _code(text, "layer") and "clipped_twice(" not in _code(text, "layer"), text
    assert "# line 12: if v >= 0.0:" in text.split("def layer(")[1], text  # the helper's lines, where they run


@pytest.mark.parametrize("a", [0.7, -0.4, 1.6])
def test_written_in_place_derivatives(a):
    ws = [0.5, -1.25, 2.0, 0.1]
    f = adcompiler.differentiate(F.layer, wrt=("a",))
    h = 1e-6
    want = (F.layer(ws, a + h) - F.layer(ws, a - h)) / (2 * h)
    assert f.grad(ws, a) == pytest.approx(want, rel=1e-6)
    assert f.jvp((ws, a), (1.0,))[1] == pytest.approx(want, rel=1e-6)
    hess = adcompiler.hessian_matrix(f)(ws, a)[0][0]
    d2 = (F.layer(ws, a + 1e-4) - 2 * F.layer(ws, a) + F.layer(ws, a - 1e-4)) / 1e-8
    assert hess == pytest.approx(d2, rel=1e-4, abs=1e-6)


def test_a_helper_reading_a_module_name_the_caller_shadows_stays_a_call():
    assert "scaled_by_module_x(" in _code(_anf(F.shadows_the_module_name), "shadows_the_module_name")
    _check(F.shadows_the_module_name, (0.7,))
    assert adcompiler.differentiate(F.shadows_the_module_name).grad(0.7) == pytest.approx(10.0 + 1.4)


def test_list_helpers_and_recursion_stay_calls():
    assert "reads_a_list(" in _code(_anf(F.keeps_list_helpers_as_calls), "keeps_list_helpers_as_calls")
    text = _anf(F.calls_recursion)
    assert "countdown(" in _code(text, "calls_recursion") and "relu(" not in _code(text, "calls_recursion")
    _check(F.calls_recursion, (0.3,))
    _check(F.calls_recursion, (-0.3,))


@pytest.mark.parametrize("a", [0.3, 0.9])
def test_one_argument_for_two_parameters_one_of_them_assigned(a):
    _check(F.argument_twice, (a,))
    assert F.argument_twice(a) == adcompiler.differentiate(F.argument_twice).value_and_grad(a)[0]
    assert math.isfinite(adcompiler.hessian_matrix(F.argument_twice)(a)[0][0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_elementwise_numpy_helpers_are_written_in_place(backend):
    """_sigmoid on arrays: its result a new array, written in place (GradBench lstm: six calls, each a
    tuple of residuals and two sweeps, a character); _head (a slice) and _product (np.dot) stay calls."""
    if backend == "numba":
        pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")
    code = _code(_anf(F.gates), "gates")
    assert "_sigmoid(" not in code and "_head(" in code and "_product(" in code, code
    x, w = np.array([0.3, -1.2, 0.8, 0.5]), np.array([1.5, 0.25, -0.7, 2.0])
    f = adcompiler.differentiate(F.gates, backend=backend)
    for i, g in enumerate(f.grad(x, w)):
        np.testing.assert_allclose(g, central_grad(F.gates, (x, w), i), rtol=1e-6, atol=1e-8)


def test_numba_writes_calls_in_loops_in_place_with_their_loops_and_tuples():
    """Under Numba (``Options.inline_looped_calls``), a call in a loop of a larger leaf of the module, with a
    loop of its own, a list it grows and a tuple it returns, is written in place, callees first (``cell_step``
    in ``layers``, then ``layers`` in ``run_layers``'s loop): one function, no residual tuple of each call to
    make, push, pop and unpack.  The gradient is the python target's (which keeps the calls) and central
    differences'; a callee that changes its argument or returns early stays a call."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(3)
    params, state = rng.normal(size=(4, 9)) * 0.5, rng.normal(size=(4, 3)) * 0.5
    sequence = rng.normal(size=(6, 3))
    d = adcompiler.differentiate(F.run_layers, wrt=("params",), backend="numba")
    g = d.grad(params, state, sequence)
    source = d.source("grad")
    code = _code(source, "run_layers_grad")
    assert "sweep" not in source and "layers(" not in code and "cell_step(" not in code, source
    assert "# line 106: hidden, cell = cell_step(" in source, source  # (the callees' lines quoted where they run)
    python = adcompiler.differentiate(F.run_layers, wrt=("params",))
    assert "layers_params_state_forward_sweep" in python.source("grad")  # (the python target keeps calls)
    np.testing.assert_allclose(g, python.grad(params, state, sequence), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g, central_grad(F.run_layers, (params, state, sequence), 0), rtol=1e-6, atol=1e-8)
    v = rng.normal(size=params.shape)
    _, tangent = d.jvp((params, state, sequence), (v,))
    assert tangent == pytest.approx(np.sum(g * v), rel=1e-12)
    kept = adcompiler.differentiate(F.keeps_calls_that_change_or_return_early, backend="numba")
    code = _code(kept.source("anf"), "keeps_calls_that_change_or_return_early")
    assert "grows_its_argument(" in code and code.count("early_return(") == 2, code
    early = adcompiler.differentiate(F.sums_early_returns, backend="numba")
    assert "early_return(" in _code(early.source("anf"), "sums_early_returns")
    xs = np.array([0.3, -1.2, 8.0])
    np.testing.assert_allclose(early.grad(xs), central_grad(F.sums_early_returns, (xs,), 0), rtol=1e-6, atol=1e-8)
