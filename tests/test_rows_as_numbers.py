"""Short rows held as numbers under Numba (``lower.small_arrays``): the code built for the rows' length
(part of the signature), each held vector's numbers NumPy's, checked at the entry; arrays kept wherever
the array is needed.  Every case against the python target, central differences, and forward against
reverse; programs drawn at random (``_drawn``) too."""

import re

import numpy as np
import pytest

import adcompiler
from adcompiler.testing import parallel_programs as P
from adcompiler.testing.fuzz.check import load_module
from numbers_oracle import agree, refused_alike, renamed

pytest.importorskip("numba")


def test_the_papers_particles_hold_their_rows_as_numbers():
    args = P.inputs("particles", 6, seed=1)
    d = agree(P.particles, args, P.WRT["particles"])
    anf = d.source("anf")
    assert (
        not re.search(r"^ *\w+ = np\.zeros", anf, re.M) and "check_rows(x0, 2)" in anf
    )  # force is two numbers; the length checked
    assert "force_at0" in anf and "d_at1 = t4_at1 - x_at1" in anf


def test_a_mixture_holds_its_points_and_keeps_its_components():
    args = P.inputs("gmm", 7, seed=2)
    d = agree(P.gmm, args, P.WRT["gmm"])
    anf = d.source("anf")
    assert "z_at3 = " in anf  # a point less a mean, of four numbers
    assert "q = np.zeros(k)" in anf  # five components, written at a computed place: an array


def _spring(x0, s):
    total = 0.0
    for p in range(x0.shape[0]):
        x = x0[p]
        total = total + np.sum(np.sin(x) * x) * s + x[0]
    return total


def test_rows_of_another_length_get_code_of_their_own():
    """Rows of two, three, two, five (longer than held), three, one: each call's own code (its fast entry
    tests the length), never the code of another length."""
    d = adcompiler.differentiate(_spring, backend="numba")
    python = adcompiler.differentiate(_spring)
    rng = np.random.default_rng(4)
    for width in (2, 3, 2, 5, 3, 1):
        args = (rng.normal(size=(4, width)), 0.8)
        for g, w in zip(d.grad(*args), python.grad(*args)):
            np.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-12)
        assert ("x_at0" in d.source("anf")) == (2 <= width <= 4)
    assert {sig.lengths for sig in d._built.programs} == {(2, None), (3, None), ()}


def test_compiled_code_refuses_rows_of_another_length():
    """An ``@njit`` caller of ``d.compiled()`` is not dispatched on shapes: the code built for rows of two
    raises at its entry for rows of three, and never reads them as two."""
    args = P.inputs("particles", 4, seed=5)
    d = adcompiler.differentiate(P.particles, wrt=P.WRT["particles"], backend="numba")
    reverse = d.compiled("reverse", *args)
    value, _ = reverse(*args)
    assert value == pytest.approx(P.particles(*args), rel=1e-12)
    wider = tuple(np.concatenate([a, a[:, :1]], axis=1) if a.ndim == 2 else a for a in args)
    with pytest.raises(ValueError, match="another length of rows"):
        reverse(*wider)


def _escapes(x0, w, s):
    """Rows whose arrays are needed: one returned into a helper, one read at a computed place, one
    broadcast against an array of a length not known, one changed in place (a copy of it)."""
    total = 0.0
    for p in range(x0.shape[0]):
        x = x0[p]
        u = x * s + 1.0
        total = total + _first_times_last(u)
        total = total + x[p % 2] * s
        total = total + np.sum(x[:1] * w[:1])
        y = x.copy()
        y += u
        total = total + np.sum(y * y)
    return total


def _first_times_last(v):
    return v[0] * v[-1]


def _held_and_kept(x0, s):
    """A vector held as numbers made of one kept (read at a computed place): the kept one read at each
    place by new lines."""
    total = 0.0
    for p in range(x0.shape[0]):
        x = x0[p]
        kept = x * 2.0
        total = total + kept[p % 2]
        y = np.sin(kept) + s
        total = total + np.sum(y * y) + np.dot(y, y) * s
    return total


def test_arrays_stay_where_the_array_is_needed():
    rng = np.random.default_rng(6)
    x0, w = rng.normal(size=(4, 2)), rng.normal(size=3)
    d = agree(_escapes, (x0, w, 0.7), ("x0", "w", "s"), held=None)
    assert "y = " in d.source("anf") and "x = x0[p]" in d.source("anf")


def test_a_vector_made_of_rows_is_read_back_where_another_is_kept():
    rng = np.random.default_rng(7)
    d = agree(_held_and_kept, (rng.normal(size=(3, 3)), 0.4), ("x0", "s"))
    assert "kept_at2 = kept[2]" in d.source("anf") and "y_at2 = " in d.source("anf")


def _held_with_a_kept_one(x0, c, s):
    """A vector kept (returned from the loop's last iteration) beside ones held."""
    last = np.zeros(3)
    total = 0.0
    for p in range(x0.shape[0]):
        x = x0[p]
        d = c[p] - x
        total = total + np.sum(d * d) * s + d[2]
        last = d
    return total, last


def test_a_returned_vector_is_kept_with_what_it_is_computed_from():
    rng = np.random.default_rng(8)
    x0, c = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    d = adcompiler.differentiate(_held_with_a_kept_one, backend="numba")
    python = adcompiler.differentiate(_held_with_a_kept_one)
    ct = (1.0, rng.normal(size=3))
    for g, w in zip(d.vjp((x0, c, 0.3), ct)[1], python.vjp((x0, c, 0.3), ct)[1]):
        np.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-12)
    anf = d.source("anf")  # last is returned, d copied into it, x and c[p] make d: arrays; d * d is held
    assert "d = t3 - x" in anf and "t4_at0 = d_at0 * d_at0\n" in anf


_VECTORS = (
    "a - b",
    "a * b",
    "s * a + b",
    "np.sin(a) * b",
    "a / (1.0 + b * b)",
    "np.exp(-a * a) - w[i] * b",
    "(a + 0.5) ** 2",
    "-a + np.tanh(b)",
    "np.sqrt(1.0 + a * a) * s",
    "np.maximum(a, b) - np.minimum(a * s, 0.5)",  # (kept: their derivatives choose by numpy.where)
    "(1.0 + a * a) ** b + b ** 2",  # (a power of a vector: kept)
    "np.log1p(a * a) + np.arctan(b)",
    "np.abs(a - b) * np.expm1(b)",
)
_NUMBERS = ("np.sum(u * u)", "u[0] * u[-1]", "np.dot(u, a)", "np.sum(np.cos(u))", "u[1] - u[0] * s")
_NUMBERS += ("np.max(u) * np.min(a)", "np.mean(u * b)", "np.prod(1.0 + 0.1 * u)")


def _drawn(rng, k: int) -> str:
    """A loop over the rows of A (and of B), its vectors drawn from ``_VECTORS`` and its numbers from
    ``_NUMBERS``, a vector accumulated across iterations (``acc``), sometimes a prange loop, sometimes a
    use that keeps an array (a call, a computed place, an operation in place)."""
    first, second, third = (str(e) for e in rng.choice(_VECTORS, 3))
    number, other = (str(e) for e in rng.choice(_NUMBERS, 2))
    escape = rng.choice(
        ["", "", "total = total + first(u)", "total = total + u[i % 2]", "acc += u", "v += a", _COPIED] + _ALIASED
    )
    loop = "prange" if not escape and rng.random() < 0.3 else "range"
    acc = "" if loop == "prange" else f"\n        acc = acc * 0.5 + {renamed(third, 'a', 'u')}"
    tail = f"np.sum(acc * acc) + acc[{k - 1}]" if loop != "prange" else "0.0"
    return f"""import numpy as np
from numba import prange


def first(v):
    return v[0] * 2.0


def f(A, B, w, s):
    total = 0.0
    acc = np.zeros({k})
    for i in {loop}(A.shape[0]):
        a = A[i]
        b = B[i]
        u = {first}
        v = {renamed(second, 'b', 'u')}
        total += {number} + {renamed(other, 'u', 'v')}
        {escape or 'pass'}{acc}
    return total + {tail}
"""


_COPIED = "v2 = v.copy()\n        v2 += a\n        total = total + np.sum(v2 * v)"  # a copy changed alone
_ALIASED = [  # an array changed in place while another name holds it: refused on both targets
    "w2 = v\n        v += b\n        total = total + np.sum(w2)",
    "u2 = u\n        u *= 0.5\n        total = total + u2[0]",
]


@pytest.mark.parametrize("seed", range(12))
def test_drawn_loops_over_short_rows(seed, tmp_path):
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 5))
    source = _drawn(rng, k)
    module = load_module(source, str(tmp_path), f"drawn_rows_{seed}")
    n = int(rng.integers(2, 6))
    args = (rng.normal(size=(n, k)) * 0.5, rng.normal(size=(n, k)) * 0.5, rng.normal(size=n), 0.6)
    if refused_alike(module.f, args):  # (a change in place another name would see)
        return
    kept = ("maximum", "np.max(", "np.min(", "** b")  # uses that need the array (and so keep what they read)
    held = True if "pass" in source and not any(k in source for k in kept) else None
    d = agree(module.f, args, ("A", "B", "w", "s"), seed, held=held)
    assert d.grad(*args)[0].shape == (n, k)  # (A's cotangent: its rows' numbers, an array as A is)


def test_second_derivatives_and_the_value_through_rows_held_as_numbers():
    """The Hessian (forward mode over the reverse code, whose check of the rows is inert), its product
    with a vector, and ``d.value``, under Numba against the python target."""
    rng = np.random.default_rng(9)
    x0, v = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    d = adcompiler.differentiate(_spring, wrt=("x0",), backend="numba")
    python = adcompiler.differentiate(_spring, wrt=("x0",))
    h = adcompiler.hessian(d)(x0, 0.7)
    np.testing.assert_allclose(h, adcompiler.hessian(python)(x0, 0.7), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(adcompiler.hvp(d)(x0, v, 0.7), np.tensordot(h, v, 2), rtol=1e-10, atol=1e-12)
    assert d.value(x0, 0.7) == pytest.approx(_spring(x0, 0.7), rel=1e-13)


def _changed_in_place(x0, s):
    """A vector the function made, changed in place in a loop: held (one variable holds it)."""
    total = 0.0
    for p in range(x0.shape[0]):
        x = x0[p]
        force = np.zeros(2)
        for c in range(3):
            force += x * s
        force *= 0.5
        total = total + np.sum(force * force)
    return total


def _aliased_in_place(x0):
    total = 0.0
    for p in range(x0.shape[0]):
        x = x0[p]
        other = np.ones(2)
        alias = other
        other += x
        total = total + np.dot(alias, x)
    return total


def test_a_vector_changed_in_place_is_held_where_no_other_variable_holds_it():
    """Held where one variable holds it; where two do, kept, and refused as the python target refuses it
    (the change would reach the other name)."""
    rng = np.random.default_rng(10)
    d = agree(_changed_in_place, (rng.normal(size=(4, 2)), 0.8), ("x0", "s"))
    assert "force_at0_2 = force_at0_1 + t" in d.source("anf")  # force += x * s, on numbers
    x0 = rng.normal(size=(3, 2))
    for backend in ("numba", "python"):
        with pytest.raises(adcompiler.UnsupportedSyntaxError, match="another name"):
            adcompiler.differentiate(_aliased_in_place, backend=backend).grad(x0)


def _row_changed_in_place(x0, v0):
    total = 0.0
    for p in range(x0.shape[0]):
        x = x0[p].copy()
        x += v0[p]
        y = x0[p]
        total = total + np.sum(x * y)
    return total


def test_a_copy_of_a_row_changed_in_place_is_held():
    """``x = x0[p].copy(); x += v0[p]``: the copy is the row's numbers, changed alone (the row is not)."""
    rng = np.random.default_rng(11)
    d = agree(_row_changed_in_place, (rng.normal(size=(3, 3)), rng.normal(size=(3, 3))), ("x0", "v0"))
    assert re.search(r"x_at2_?\d* = \w+ \+ \w+", d.source("anf")), d.source("anf")


def _rows_sliced(x0, s):
    total = 0.0
    for p in range(x0.shape[0]):
        x = x0[p, :]
        total = total + np.sum(np.sin(x) * x) * s
    return total


def _rows_iterated(x0, s):
    total = 0.0
    for x in x0:
        total = total + np.sum(np.sin(x) * x) * s
    return total


def _rows_generated(x0, s):
    return sum(np.dot(x, x) * s for x in x0)


@pytest.mark.parametrize("fn", [_rows_sliced, _rows_iterated, _rows_generated])
def test_rows_spelt_other_ways(fn):
    """``x0[p, :]``, ``for x in x0`` and a generator over the rows: rows too."""
    rng = np.random.default_rng(12)
    d = agree(fn, (rng.normal(size=(4, 3)), 0.7), ("x0", "s"))
    assert "check_rows(x0, 3)" in d.source("anf")
