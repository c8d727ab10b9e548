"""NumPy functions the Numba target spells with helpers of its own where Numba's take less: the helpers
of np.var and np.std's rules (no Numba form before: refused), np.expand_dims of a number or of a tuple
of axes and np.trace over given axes (slogdet's rules: its gradient under Numba was refused), np.argsort
and np.take_along_axis of a vector along its axis and take_along_vjp's Numba form (np.sort's rules: refused
before), the inverse of a transpose's axes (inverse_axes: an argsort of a tuple before), joins with a list
among their pieces (``np.concatenate((x, [1.0], y))``: refused before), np.sort of a matrix along either axis, a
helper called with no derivative whose join Numba's own concatenate does not take (its generated code runs now), the
zero adjoint of a product's operand broadcast to the other's shape (a ValueError of ``unbroadcast`` before), and
integer powers (``2 ** k``: 0 at k = -1 under Numba before, silently), np.nanmean and np.average with weights (their
rules' sums of every axis with keepdims a variable: refused before).  Each
derivative under Numba against the python target's (the same numbers), which is checked against
central differences and the dot-product identity.  Skipped without Numba."""

import math
import re

import numpy as np
import pytest

import adcompiler
import numba_spelled_funcs as F
from adcompiler.testing.oracle import check_both_modes

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

RNG = np.random.default_rng(63)
CASES = [
    (F.spread, (RNG.normal(size=4), RNG.normal(size=4))),
    (F.scaled_std, (RNG.normal(size=5),)),
    (F.logdet, (RNG.normal(size=(3, 3)),)),
    (F.gp_nll, (RNG.normal(size=(4, 2)), RNG.normal(size=4))),
    (F.expanded, (RNG.normal(size=3),)),
    (F.ranked, (RNG.normal(size=5),)),
    (F.sorted_parts, (RNG.normal(size=6),)),
    (F.transposed, (RNG.normal(size=12),)),
    (F.joined_with_lists, (RNG.normal(size=3), RNG.normal(size=2))),
    (F.sorted_matrix, (RNG.normal(size=(4, 3)),)),
    (F.helper_with_a_join, (RNG.normal(size=2), RNG.normal(size=3))),
    (F.zero_adjoint_broadcast, (RNG.normal(size=(2, 2)), RNG.normal(size=(1, 2)), 0.3)),
    (F.nan_mean_and_average, (RNG.normal(size=4),)),
]


def _tuple(g):
    return g if isinstance(g, tuple) else (g,)


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_numba_gives_the_python_targets_derivatives(f, args):
    check_both_modes(f, args)
    python, compiled = adcompiler.differentiate(f), adcompiler.differentiate(f, backend="numba")
    for a, b in zip(_tuple(python.grad(*args)), _tuple(compiled.grad(*args))):
        np.testing.assert_allclose(b, a, rtol=1e-13, atol=1e-15)
    tangents = tuple(RNG.normal(size=np.shape(x)) for x in args)
    np.testing.assert_allclose(compiled.jvp(args, tangents)[1], python.jvp(args, tangents)[1], rtol=1e-13)


def test_trace_over_given_axes_in_forward_mode():
    """np.trace(a, offset, axis1, axis2) of a matrix and of a stack (axes in either order): the primal
    and its tangent under Numba as NumPy gives them."""
    A = RNG.normal(size=(3, 4))
    dA = RNG.normal(size=(3, 4))
    python, compiled = adcompiler.differentiate(F.traces), adcompiler.differentiate(F.traces, backend="numba")
    value, tangent = compiled.jvp((A,), (dA,))
    np.testing.assert_allclose(value, F.traces(A), rtol=1e-13)
    np.testing.assert_allclose(tangent, python.jvp((A,), (dA,))[1], rtol=1e-13)
    eps = 1e-6
    np.testing.assert_allclose(tangent, (F.traces(A + eps * dA) - F.traces(A - eps * dA)) / (2 * eps), rtol=1e-6)


def _tanh_layer(W, x):
    return np.sum(np.tanh(x @ W))


def test_float32_matrix_products_under_numba():
    """float32 operands with a float64 cotangent: the adjoints of ``@`` called numpy.dot with two dtypes, which
    Numba's takes one of (no implementation of matmul_vjp_a); both operands' gradients as the python target's,
    float32."""
    W = np.full((3, 2), 0.1, np.float32)
    x = np.arange(12, dtype=np.float32).reshape(4, 3) * np.float32(0.1)
    got = adcompiler.differentiate(_tanh_layer, backend="numba").grad(W, x)
    expected = adcompiler.differentiate(_tanh_layer).grad(W, x)
    for g, e in zip(got, expected):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, e, rtol=1e-5)


DATA = [1.0, 2.0, 4.0]


def _distances_to_data(w):
    s = 0.0
    for y in DATA:
        s += (w - y) ** 2
    return s


def _make_loss(data):
    def loss(w):
        s = 0.0
        for y in data:
            s += (w - y) ** 2
        return s

    return loss


def _make_poly(coeffs):
    return lambda x: sum(c * x**k for k, c in enumerate(coeffs))


@pytest.mark.parametrize(
    "f", [_distances_to_data, _make_loss([1.0, 2.0]), _make_poly([1.0, -2.0, 0.5])], ids=["global", "closure", "poly"]
)
def test_lists_read_as_constants_under_numba(f):
    """A list of floats the code reads as a constant (a module's global, a closure's cell) failed under Numba
    with a repr of its internals ("OverloadSelector ... List(float64, True)"): it goes in as an array, as an
    argument does."""
    expected = adcompiler.grad(f)(0.5)
    assert adcompiler.differentiate(f, backend="numba").grad(0.5) == pytest.approx(expected, rel=1e-12)
    assert (f(0.5 + 1e-6) - f(0.5 - 1e-6)) / 2e-6 == pytest.approx(expected, rel=1e-6)


def _log_gamma_terms(x):
    y = x * 2.0
    return math.lgamma(y) + math.lgamma(-x + 0.3) * y


@pytest.mark.parametrize("x", [1.7, 0.45, -1.3, 4.1])
def test_lgamma_under_numba(x):
    """``math.lgamma``'s derivative (the helper ``polygamma``) was refused under Numba at the ``def`` line, naming
    the helper (its ``import math``); its Numba form gives the python target's numbers, to second order."""
    expected = adcompiler.differentiate(_log_gamma_terms).grad(x)
    got = adcompiler.differentiate(_log_gamma_terms, backend="numba").grad(x)
    assert got == pytest.approx(expected, rel=1e-13)
    assert (_log_gamma_terms(x + 1e-6) - _log_gamma_terms(x - 1e-6)) / 2e-6 == pytest.approx(expected, rel=1e-6)
    d2 = adcompiler.hessian_matrix(adcompiler.differentiate(_log_gamma_terms, backend="numba"))(x)[0][0]
    assert d2 == pytest.approx(adcompiler.hessian_matrix(_log_gamma_terms)(x)[0][0], rel=1e-12)


def _pendulum(th, om, dt, steps):
    for s in range(steps):
        om = om - dt * math.sin(th)
        th = th + dt * om
    return th


def _pendulum_fixed(th, om, dt):
    for s in range(23):
        om = om - dt * math.sin(th)
        th = th + dt * om
    return th


@pytest.mark.parametrize(
    "f, checkpoint, said",
    [
        (_pendulum, 10, "Python's reversed"),
        (_pendulum, "revolve", "int.bit_length"),
        (_pendulum_fixed, ("revolve", 3), "range(a, b)"),  # (a getitem of Numba's before, red team)
    ],
)
def test_a_checkpointed_loop_under_numba_is_refused_saying_why(f, checkpoint, said):
    """Numba's own words named the refusal ("Untyped global name 'reversed'", "Unknown attribute 'bit_length'",
    "No implementation of function getitem"): it says what in checkpointing Numba does not compile, and to drop
    checkpoint=."""
    d = adcompiler.differentiate(f, wrt=("th",), checkpoint=checkpoint, backend="numba")
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match=rf"checkpoint.*{re.escape(said)}.*drop checkpoint="):
        d.grad(*((0.5, 0.1, 0.01, 100) if f is _pendulum else (0.5, 0.1, 0.01)))


@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3, 20, 40])
def test_integer_powers_under_numba(k):
    """``2 ** k`` of an integer k: Python's power is a float for a negative k and an integer of any size else, where
    Numba's is a 64-bit integer (0 at k = -1, and 3 ** 40 wrapped): the derivatives under Numba are the python
    target's, or where Python's integers would differ from compiled code's, an error saying what to write, never
    another number."""
    x = 1.3
    want = adcompiler.differentiate(F.scaled_by_powers).jvp((x, k), (1.0,))
    assert want[1] == pytest.approx(2.0**k + k * x ** (k - 1) * 3.0**k, rel=1e-12)
    compiled = adcompiler.differentiate(F.scaled_by_powers, backend="numba")
    if k < 0 or 3**k >= 2**63:
        with pytest.raises(ValueError, match="write the base as a float"):
            compiled.jvp((x, k), (1.0,))
        return
    assert compiled.jvp((x, k), (1.0,)) == pytest.approx(want, rel=1e-12)
    assert compiled.grad(x, k) == pytest.approx(want[1], rel=1e-12)
