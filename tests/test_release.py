"""Values a gradient no longer reads, let go before its loops (``optimize.release``): what is let go
(surely bound, never read again, not a number), the gradients unchanged against autograd, the peak
memory of the paper's particles on NumPy, and the Numba target, which has no ``del``."""

import tracemalloc

import numpy as np
import pytest

import adcompiler
from adcompiler.ir import expr as E
from adcompiler.ir.nodes import Assign, ForS, IfS, Release, Ret
from adcompiler.optimize.release import release_dead
from tests.release_funcs import particles_np

autograd = pytest.importorskip("autograd")
agnp = pytest.importorskip("autograd.numpy")

N = E.Name


def _loop(*reads):
    return ForS("i", E.Call("range", (E.Num(3),)), tuple(Assign(("s",), N(r)) for r in reads))


def test_dead_arrays_bound_before_a_loop_are_let_go_before_it():
    body = (
        Assign(("a",), E.Call("numpy.ones", (E.Num(3),))),
        Assign(("b", "c"), E.Tuple((E.BinOp("*", N("x"), N("x")), N("x")))),
        Assign(("n",), E.BinOp("*", N("y"), E.Num(2.0))),  # not an array: left alone
        Assign(("m",), E.Call("numpy.sum", (N("a"),))),  # a number (the primal's analysis says so)
        Assign(("w",), N("x")),  # the argument's array, which its caller holds
        _loop("c"),
        Ret(N("s")),
    )
    out = release_dead(body, frozenset({"x"}), frozenset({"m"}))
    assert out[5] == Release(("a", "b")) and out[6:] == body[5:]


def test_arrays_a_later_statement_reads_are_kept_and_those_a_branch_may_bind_are_set_to_none():
    arrays, made = frozenset({"x"}), E.BinOp("*", N("x"), N("x"))
    branch = IfS(N("p"), (Assign(("a",), made),), ())
    body = (Assign(("b",), made), branch, _loop("s"), Ret(E.BinOp("+", N("b"), N("s"))))
    assert release_dead(body, arrays)[2] == Release(("a",), bound=False)  # a: maybe bound, dead
    inside = IfS(N("p"), (_loop("x"),), ())  # a loop inside a branch: let go before the branch
    body = (Assign(("b",), made), inside, Ret(N("x")))
    assert release_dead(body, arrays)[1] == Release(("b",))
    bound_again = (Assign(("b",), made), _loop("x"), Assign(("b",), made), _loop("b"), Ret(N("s")))
    out = release_dead(bound_again, arrays)
    assert out[1] == Release(("b",)) and out[4] == _loop("b") and Release(("b",)) not in out[3:]


def test_a_loops_own_arrays_are_let_go_after_it_where_more_than_a_return_or_a_copy_follows():
    step = ForS("i", E.Call("range", (E.Num(3),)), (Assign(("t",), E.BinOp("*", N("x"), N("x"))),))
    body = (step, Assign(("y",), E.Call("numpy.ones", (E.Num(3),))), Ret(N("y")))
    out = release_dead(body, frozenset({"x"}))
    assert out[1] == Release(("t",), bound=False) and out[2:] == body[1:]
    assert release_dead((step, Ret(N("x"))), frozenset({"x"})) == (step, Ret(N("x")))
    copy = (step, Assign(("z",), N("x")), Ret(N("z")))  # a copy of a name makes nothing
    assert release_dead(copy, frozenset({"x"})) == copy


def hand_particles_np(state, n_steps):
    """The gradient by hand, as the reference harness writes it: the final state, then the
    transposed step n times."""
    P, V = state[:, 0:2], state[:, 2:4]
    for _ in range(n_steps):
        A = -0.5 * P - 0.2 * V
        P = P + 0.05 * V
        V = V + 0.05 * A
    dP, dV = P[:, ::-1].copy(), np.zeros_like(P)
    for _ in range(n_steps):
        dP, dV = dP - 0.025 * dV, 0.05 * dP + 0.99 * dV
    return np.concatenate([dP, dV], axis=1)


def _peak(fn) -> int:
    fn()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def test_particles_gradient_right_and_within_twice_the_hand_written_peak():
    state = np.random.default_rng(3).normal(size=(4, 4))
    d = adcompiler.differentiate(particles_np, wrt=("state",))
    got = d.grad(state, 300)
    np.testing.assert_allclose(got, autograd.grad(_on_autograd(particles_np))(state, 300), rtol=1e-12)
    np.testing.assert_allclose(got, hand_particles_np(state, 300), rtol=1e-10)
    source = d.source("grad")  # (for the signature of the last call)
    assert "del P, t" in source and "d_A = " in source and " = None" in source
    assert _peak(lambda: d.grad(state, 300)) <= 2 * _peak(lambda: hand_particles_np(state, 300))


def _on_autograd(fn):
    import types

    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": agnp})


def branchy(x, k):
    y = x * 2.0
    if k > 1:
        z = np.sin(y)
    else:
        z = np.cos(y)
    w = z * z
    for i in range(k):
        w = w * x + y
    u = np.tanh(w)
    for i in range(k):
        u = u * z
    return np.sum(u)


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 3)])
def test_gradients_with_names_let_go_between_loops_agree_with_autograd(k, shape):
    x = np.random.default_rng(k).normal(size=shape)
    d = adcompiler.differentiate(branchy, wrt=("x",))
    got = d.grad(x, k)
    want = autograd.grad(_on_autograd(branchy))(x, k)
    assert np.shape(got) == np.shape(x) and np.asarray(got).dtype == x.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


# backend="numba", which writes no del, on particles_np: a row of tests/test_numba_agrees.py
