"""backend="numba": every entry point on one differentiate object, in any order (issue 32, item 14).

The second entry point's module names Numba ``numba_1`` (the first took ``numba``): a runtime helper
that compiles an inner function with ``numba.njit`` (unbroadcast) must read the module's name, not its
own.  Checked against autograd.  Skipped without Numba.  This module binds no name ``numba``: the
generated code runs in the function's globals, where such a name would hide the bug."""

import itertools
import types

import pytest

pytest.importorskip("numba")
np = pytest.importorskip("numpy")
autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

import adcompiler  # noqa: E402


def scaled(w, x):
    return np.sum(np.sin(w) * x) + np.sum(w * w)


W, X = np.array([[0.3, -0.8, 1.1], [0.5, 0.2, -0.4]]), np.array([0.7, -1.2, 0.4])
ENTRIES = ("grad", "value_and_grad", "vjp", "jvp")


def _expected():
    on_autograd = types.FunctionType(scaled.__code__, {**scaled.__globals__, "np": anp}, "scaled")
    return scaled(W, X), autograd.grad(on_autograd, argnum=(0, 1))(W, X)


def _call(d, entry):
    """(value or None, the gradient pair) that entry point gives (jvp: along each unit direction's sum)."""
    if entry == "grad":
        return None, d.grad(W, X)
    if entry == "value_and_grad":
        return d.value_and_grad(W, X)
    if entry == "vjp":
        return d.vjp((W, X), 1.0)
    tw, tx = np.ones_like(W), np.full_like(X, 2.0)
    value, tangent = d.jvp((W, X), (tw, tx))
    return value, tangent


ORDERS = [p for p in itertools.permutations(ENTRIES) if p[0] in ("grad", "jvp")][::3]


@pytest.mark.parametrize(  # one order by default, the other three with --runslow
    "order",
    [pytest.param(p, marks=[] if k == 0 else [pytest.mark.slow]) for k, p in enumerate(ORDERS)],
)
def test_every_entry_point_on_one_object_in_any_order(order):
    value, (gw, gx) = _expected()
    d = adcompiler.differentiate(scaled, backend="numba")
    for entry in order:
        got_value, got = _call(d, entry)
        if got_value is not None:
            assert got_value == pytest.approx(value, rel=1e-12)
        if entry == "jvp":
            assert got == pytest.approx(np.sum(gw) + 2.0 * np.sum(gx), rel=1e-10)
        else:
            assert np.allclose(got[0], gw, rtol=1e-10) and np.allclose(got[1], gx, rtol=1e-10), entry
            assert got[0].shape == W.shape and got[1].shape == X.shape
