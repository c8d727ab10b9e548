"""lower/params.py: a parameter assigned in a loop or a branch keeps the argument; the derivative's
cotangent has the argument's shape, length and type, not the last value the variable held.

Each program is checked against autograd (grad, and the jvp along a random direction), reverse
against forward (the dot test), every cotangent's type, shape and dtype against its primal's, the
Hessian of the scalar programs against autograd's (backend="numba": tests/test_numba_agrees.py).
"""

import types

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
from tests import rebound_funcs as R

RNG = np.random.default_rng(11)


def _autograd(fn):
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp, "math": anp}, fn.__name__)


def _same_kind(got, arg):
    if isinstance(arg, list):
        return isinstance(got, list) and len(got) == len(arg) and all(_same_kind(g, a) for g, a in zip(got, arg))
    if isinstance(arg, np.ndarray):
        return type(got) is np.ndarray and got.shape == arg.shape and got.dtype == arg.dtype
    return type(got) is float


def _direction(arg):
    if isinstance(arg, list):
        return [float(RNG.standard_normal()) for _ in arg]
    if isinstance(arg, np.ndarray):
        return RNG.standard_normal(arg.shape)
    return float(RNG.standard_normal())


def _dot(a, b):
    if isinstance(a, list):
        return sum(_dot(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))


ARRAYS = (np.array([0.5]), np.array([1.0, 2.0, -0.5, 0.75]))
CASES = {
    "loop_rebind": (R.loop_rebind, ARRAYS),
    "calls_helper": (R.calls_helper, ARRAYS),
    "while_rebind": (R.while_rebind, ARRAYS),
    "branch_rebind": (R.branch_rebind, ARRAYS + (1.0,)),
    "branch_not_taken": (R.branch_rebind, ARRAYS[::-1] + (-1.0,)),
    "loop_rebind_2d": (R.loop_rebind, (np.array([[0.5], [1.5]]), np.array([1.0, 2.0, -0.5]))),
    "loop_rebind_float32": (R.loop_rebind, (np.array([0.5], np.float32), np.array([1.0, 2.0], np.float32))),
    "list_rebind": (R.list_rebind, ([0.5, 1.5], 2.0)),
    "float_rebind": (R.float_rebind, (0.7, 1.3)),
    "scalar_rebind_twice": (R.scalar_rebind_twice, (0.4, 0.9)),
}


@pytest.mark.parametrize("name", CASES)
def test_against_autograd_in_both_modes(name):
    fn, args = CASES[name]
    d = adcompiler.differentiate(fn)
    wrt = tuple(range(len(args)))
    want = autograd.grad(_autograd(fn), wrt)(*args)
    tol = 1e-5 if getattr(args[0], "dtype", None) == np.float32 else 1e-10
    for got in (d.grad(*args), d.grad(*args), d.vjp(args, 1.0)[1]):  # checking method, fast entry, vjp
        for g, w, a in zip(got, want, args):
            assert _same_kind(g, a), (g, a)
            np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float), rtol=tol, atol=tol)
    tangents = tuple(_direction(a) for a in args)
    value, jv = d.jvp(args, tangents)
    assert value == pytest.approx(fn(*args), rel=1e-6)
    expected = sum(_dot(w, t) for w, t in zip(want, tangents))
    assert float(jv) == pytest.approx(expected, rel=tol * 10, abs=tol)
    _, cts = d.vjp(args, 0.75)
    assert 0.75 * float(jv) == pytest.approx(sum(_dot(c, t) for c, t in zip(cts, tangents)), rel=tol * 10, abs=tol)


@pytest.mark.parametrize("name", ["float_rebind", "scalar_rebind_twice"])
def test_second_order(name):
    fn, args = CASES[name]
    want = autograd.hessian(lambda v: _autograd(fn)(v[0], v[1]))(np.array(args))
    np.testing.assert_allclose(adcompiler.hessian_matrix(fn)(*args), want, rtol=1e-8, atol=1e-10)


def test_second_order_of_a_list(fn=R.list_rebind, args=([0.5, 1.5], 2.0)):
    """The Hessian of a function that rebinds its list parameter to a longer list."""
    flat = lambda v: _autograd(fn)(list(v[:-1]), v[-1])  # noqa: E731
    want = autograd.hessian(flat)(np.array(args[0] + [args[1]]))
    got = adcompiler.hessian_matrix(fn)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def test_jacobian_of_a_rebound_list():
    """Each row of the reverse Jacobian starts from the argument, not the list the last row left."""
    want = autograd.jacobian(lambda v: anp.array(_autograd(R.list_jac)(list(v[:2]), v[2])))(np.array([0.5, 1.5, 2.0]))
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(adcompiler.jacobian(R.list_jac, mode=mode)([0.5, 1.5], 2.0), want)


def test_the_argument_is_kept_for_the_cotangent():
    """The generated gradient copies the parameter into a local the loop rebinds."""
    d = adcompiler.differentiate(R.loop_rebind)
    d.grad(*ARRAYS)
    body = d.source("grad").split("def loop_rebind_grad")[1]
    assert "x_1 = x\n" in body and "array_like(d_x_1, x)" in body


# backend="numba" on float_rebind, scalar_rebind_twice and loop_rebind: rows of tests/test_numba_agrees.py


def test_a_parameter_as_a_loop_variable_is_refused_at_the_loop():
    """After ``for x in xs`` the parameter ``x`` holds the argument or the last element: refused."""
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as refused:
        adcompiler.differentiate(R.loop_variable_param).grad(0.3, [0.5, -1.5, 2.0])
    message = str(refused.value)
    assert "rebound_funcs.py:" in message and "the parameter 'x' as a for-loop variable" in message
