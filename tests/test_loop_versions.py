"""Loops whose arrays all keep one shape (analysis.loop_shapes, modes.versions): the version without
``unbroadcast`` runs where the check at the loop's entry passes, the loop as it was elsewhere; both
give autograd's gradient, of the argument's shape and dtype, for shapes that broadcast too."""

import types

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
from shared import derivative


def _ag(fn):
    """``fn`` reading autograd's NumPy (the same code object, ``np`` rebound)."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp}, fn.__name__)


DT = 0.05


def particles(state):
    P = state[:, 0:2]
    V = state[:, 2:4]
    for step in range(30):
        A = 1.0 * (-0.5 * P - 0.2 * V)
        P = P + DT * V
        V = V + DT * A
    return np.sum(P[:, 0] * P[:, 1])


def grows(x0, w):
    x = x0
    for i in range(4):
        x = x * w + 0.5 * x / (1.0 + w * w)
    return np.sum(x * x)


def nested(x0, w):
    x = x0
    s = 0.0
    for k in range(3):
        y = x
        for i in range(4):
            y = y - 0.1 * y * w
        s = s + np.sum(y * y)
        x = x + 0.01 * y
    return s


def alone(x0):
    x = x0
    for i in range(5):
        x = x + 0.1 * x * x - x**2 / 3.0
    return np.sum(x)


def _check(f, f_ag, args):
    got = adcompiler.differentiate(f).grad(*args)
    got = got if isinstance(got, tuple) else (got,)
    for k, (g, a) in enumerate(zip(got, args)):
        want = autograd.grad(f_ag, k)(*args)
        assert type(g) is np.ndarray and g.shape == a.shape and g.dtype == a.dtype
        np.testing.assert_allclose(g, want, rtol=1e-5 if a.dtype == np.float32 else 1e-12, atol=1e-12)


RNG = np.random.default_rng(7)


@pytest.mark.parametrize("shape", [(4, 4), (4, 3), (4, 5), (4, 2), (1, 4), (3, 6), (4, 1)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_particles_every_shape(shape, dtype):
    state = RNG.normal(size=shape).astype(dtype)
    if shape[1] <= 2:  # V empty: the primal itself raises (P[:, 1] of P of shape (4, 1), or a broadcast)
        with pytest.raises(Exception) as raised:
            particles(state)
        with pytest.raises(raised.type):
            adcompiler.differentiate(particles).grad(state)
        return
    _check(particles, _ag(particles), (state,))


@pytest.mark.parametrize(
    "xs, ws",
    [((4,), (4,)), ((4,), (1,)), ((1,), (4,)), ((4, 1), (4,)), ((4,), (4, 1)), ((2, 3), (2, 3)), ((1,), (1,))],
)
def test_broadcasting_operands(xs, ws):
    _check(grows, _ag(grows), (RNG.normal(size=xs), RNG.normal(size=ws)))
    _check(nested, _ag(nested), (RNG.normal(size=xs), RNG.normal(size=ws)))


def test_the_same_array_twice():
    x = RNG.normal(size=5)
    d = adcompiler.differentiate(grows)
    gx, gw = d.grad(x, x)
    ax, aw = autograd.grad(_ag(grows), 0)(x, x), autograd.grad(_ag(grows), 1)(x, x)
    np.testing.assert_allclose(gx, ax, rtol=1e-12)
    np.testing.assert_allclose(gw, aw, rtol=1e-12)


def test_zero_dim_arrays_keep_the_loop_as_it_was():
    x, w = np.array(0.3), np.array(1.2)
    d = adcompiler.differentiate(grows)
    gx, gw = d.grad(x, w)
    assert np.isclose(gx, autograd.grad(_ag(grows), 0)(x, w)) and np.isclose(gw, autograd.grad(_ag(grows), 1)(x, w))
    assert "same_shapes" not in str(d.source("grad"))


def test_one_array_needs_no_check():
    x = RNG.normal(size=(3, 2))
    _check(alone, _ag(alone), (x,))
    _check(alone, _ag(alone), (x.astype(np.float32),))
    d = adcompiler.differentiate(alone)
    d.grad(x)
    source = str(d.source("grad"))
    body = source.split("def alone_grad")[1]
    assert "unbroadcast(" not in body and "same_shapes" not in body


def test_the_short_version_tapes_nothing():
    d = adcompiler.differentiate(particles)
    d.grad(RNG.normal(size=(4, 4)))
    body = str(d.source("grad")).split("def particles_grad")[1]
    short = body.split("if same_shapes")[1].split("else:")[0]
    assert "for step" in short and ".append(" not in short and "unbroadcast(" not in short


def test_dot_product_of_forward_and_reverse():
    x, w = RNG.normal(size=4), RNG.normal(size=4)
    u, v = RNG.normal(size=4), RNG.normal(size=4)
    d = adcompiler.differentiate(grows)
    gx, gw = d.grad(x, w)
    tangent = d.jvp((x, w), (u, v))[1]
    assert np.isclose(tangent, gx @ u + gw @ v, rtol=1e-12)


def test_scatter_add_at_a_basic_index_adds_as_add_at_does():
    from adcompiler.targets.python.runtime_numpy import NUMPY_HELPERS

    space: dict = {}
    exec(NUMPY_HELPERS["scatter_add"], space)
    x, g = np.zeros((4, 4)), np.array([[-0.0, 1.5], [2.0, np.nan], [3.0, -4.0], [0.25, -0.0]])
    for index in [(slice(None), slice(2, 4)), (slice(None, None, -2), slice(0, 2)), (Ellipsis, slice(1, 3))]:
        want, part = np.zeros((4, 4)) + 1.0, g[: len(x[index])]
        np.add.at(want, index, part)
        got = space["scatter_add"](np.zeros((4, 4)) + 1.0, x, index, part)
        np.testing.assert_array_equal(got, want)


def negated(x0, w):
    x = x0
    for i in range(3):
        x = -x + w * x - x * w * w
    return np.sum(x)


def no_steps(x0, w):
    x = x0
    for i in range(x0.shape[0] - x0.shape[0]):
        x = x * w + 0.5 * x
    return np.sum(x * x)


# backend="numba" on these loops, against the python backend and central differences: rows of
# tests/test_numba_agrees.py (the Hessian of particles too)


def test_numba_backend_refuses_zero_dim_arrays_in_a_loop_as_before():
    """0-d arrays keep the loop as it is (no versions); Numba types its adjoint's 0.0 and 0-d arrays
    apart, as it did before the versions, and the refusal names the loop."""
    pytest.importorskip("numba")
    from adcompiler.errors import UnsupportedSyntaxError

    with pytest.raises(UnsupportedSyntaxError, match="for i in range"):
        adcompiler.differentiate(grows, backend="numba").grad(np.array(0.3), np.array(1.2))


@pytest.mark.slow  # (the Numba table's "versions" rows run the short versions by default)
def test_numba_backend_runs_the_short_version_with_one_array_a_line():
    """Under backend="numba" the loop has its two versions, and in the short one's adjoint each line of
    the user's is one expression (Numba fuses an expression of arrays into one loop, one new array)."""
    pytest.importorskip("numba")
    d = derivative(particles, backend="numba")  # compiled once: tests/test_numba_agrees.py checks its values
    d.grad(RNG.normal(size=(4, 4)))
    body = str(d.source("grad")).split("def particles_grad")[1]
    adjoint = body.split("if same_shapes:")[2].split("else:")[0]
    lines = [s.strip() for s in adjoint.splitlines() if " = " in s and "#" not in s]
    assert "unbroadcast(" not in adjoint and ".pop()" not in adjoint
    assert lines == ["d_A = DT * d_V", "d_V = 0.2 * -d_A + (DT * d_P + d_V)", "d_P = -0.5 * d_A + d_P"]
