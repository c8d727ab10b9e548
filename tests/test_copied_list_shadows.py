"""The shadow of a copy of a list of numbers or arrays is zeros of its own (modes/primal.py), and so is each
element of the shadow of ``[r] * n`` where a shadow's zeros are arrays (Numba): a shadow that shared the
list's elements counted twice what was added into one of them in place (under Numba the copy's adjoint, in
a checkpointed loop the adjoints the list already had).  A copy of a list of lists still shares its lists.
Gradients against central differences, on both backends."""

import types

import numpy as np
import pytest

import adcompiler
import copied_list_funcs as F
from oracle import central_grad
from shared import BACKENDS

X = np.array([0.3, -1.2, 0.7])
CASES = [
    (F.copied, X),
    (F.copied_and_stacked, X),
    (F.repeated, X),
    (F.copied_in_a_loop, X),
    (F.numbers_copied_in_a_loop, 1.5),
]


def _check(f, x, **options):
    got = adcompiler.differentiate(f, **options).grad(x)
    np.testing.assert_allclose(got, central_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, x", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("checkpoint", [None, 2])
def test_python_gradient_against_differences(f, x, checkpoint):
    _check(f, x, checkpoint=checkpoint)


@pytest.mark.parametrize(
    "f, x",
    [c if c[0] is F.copied else pytest.param(*c, marks=pytest.mark.slow) for c in CASES],
    ids=[c[0].__name__ for c in CASES],
)
def test_numba_gradient_against_differences(f, x):
    pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")
    _check(f, x, backend="numba")


def test_a_copy_of_lists_shares_them():
    _check(F.rows_copied, 0.7)


def _lstm_arguments(layers=2, bits=3, characters=5):
    rng = np.random.default_rng(7)
    main = rng.normal(size=(2 * layers, 4 * bits))
    extra = rng.normal(size=(3, bits))
    state = rng.normal(size=(2 * layers, bits))
    sequence = (rng.random((characters, bits)) < 0.5).astype(float)
    return main, extra, state, sequence


@pytest.mark.parametrize("backend", BACKENDS)
def test_lstm_against_autograd(backend):
    """The join's copy in the reverse sweep of the calls: no zeros, no list(d_new_state), no add_into
    of the stack's cotangent; the gradient autograd's (the same source run on autograd.numpy)."""
    autograd = pytest.importorskip("autograd")
    if backend == "numba":
        pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")
    args = _lstm_arguments()
    d = adcompiler.differentiate(F.lstm, wrt=("main_params", "extra_params"), backend=backend)
    got = d.grad(*args)
    lstm = _on_autograd(F.lstm, autograd.numpy)
    want = autograd.grad(lstm, (0, 1))(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    source = d.source("grad")
    assert "list(d_new_state)" not in source and "add_into(d_t" not in source


def _on_autograd(f, anp):
    """``f`` and the functions of its module it calls, each reading ``np`` as autograd.numpy."""
    space = dict(vars(F), np=anp)
    for name, g in vars(F).items():
        if callable(g) and getattr(g, "__module__", None) == F.__name__:
            space[name] = types.FunctionType(g.__code__, space, name)
    return space[f.__name__]


AROUND_JOINS = [  # a joined copy's shadow from the join; a list read or grown around its stack
    (F.stacked_in_a_loop, X),
    (F.joined_unread, X),
    (F.stacked_after_a_read, X),
    (F.appended_after_the_stack, X),
]


@pytest.mark.parametrize("f, x", AROUND_JOINS, ids=[c[0].__name__ for c in AROUND_JOINS])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_joined_copy_gets_its_shadow_from_the_join(f, x, backend):
    if backend == "numba":
        pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")
    _check(f, x, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_stacked_parameters_take_the_pieces(backend):
    """The list's shadow is the stack's pieces (views of the cotangent): w's cotangent their sum, the
    caller's cotangent unchanged."""
    if backend == "numba":
        pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")
    w, v = np.array([0.5, -1.0]), np.array([2.0, 0.25])
    g = np.arange(6.0).reshape(3, 2)
    kept = g.copy()
    value, (d_w, d_v) = adcompiler.differentiate(F.stacked_parameters, backend=backend).vjp((w, v), g)
    np.testing.assert_array_equal(value, np.stack([w, v * 2.0, w]))
    np.testing.assert_array_equal(d_w, g[0] + g[2])
    np.testing.assert_array_equal(d_v, 2.0 * g[1])
    np.testing.assert_array_equal(g, kept)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_stack_no_cotangent_reaches(backend):
    """A Jacobian's rows of the number output: the stack's cotangent a literal zero, its list's shadow zeros."""
    if backend == "numba":
        pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")
    x = np.array([0.3, -1.2])
    d = adcompiler.differentiate(F.stacked_and_another, backend=backend)
    jac = adcompiler.jacobian(d, mode="reverse")(x)
    want = np.concatenate((np.diag(np.cos(x)), 3.0 * np.eye(2), [2.0 * x]))
    np.testing.assert_allclose(jac, want, rtol=1e-12)
