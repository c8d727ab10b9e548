"""Fewer arrays in the adjoints of small arrays (issue 35, GradBench ba): an accumulator zeroed before a
branch and added into first in each way it goes starts in each way (``d = e``, no zeros added into); a
number's adjoint sums the product, its factors and sign outside (``-(sum_all(w * d_w) / theta)``); an
array read only for its shape is read of an array of its shape (``analysis.same_shapes``);
under Numba the sums into an accumulator and the helpers that change nothing fold into one expression
(one array), past the scatter_adds into other arrays too.  Values against central differences on both targets; the arrays a call makes counted.
"""

import re

import numpy as np
import pytest

import adcompiler
from oracle import central_grad
import slot_funcs
import small_array_funcs as S
from shared import BACKENDS

RNG = np.random.default_rng(36)


CASES = [
    (S.divided, (RNG.normal(size=4), 1.7)),
    (S.one_way, (RNG.normal(size=3), 0.5)),
    (S.one_way, (RNG.normal(size=3), -0.5)),
    (S.calls_one_way, (RNG.normal(size=3), 0.5)),
    (S.distorted, (RNG.normal(size=2) * 0.1, RNG.normal(size=2))),
    (S.broadcast_terms, (RNG.normal(size=(3, 1)), RNG.normal(size=(1, 4)))),
    (S.broadcast_terms, (RNG.normal(size=3), RNG.normal(size=3))),
    (S.broadcast_terms, (RNG.normal(size=(2, 3)).astype(np.float32), RNG.normal(size=3).astype(np.float32))),
    (S.projected, (RNG.normal(size=11), RNG.normal(size=2))),
    (S.squared_distances, (RNG.normal(size=(6, 3)), RNG.normal(size=(4, 3)))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", CASES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_gradient(fn, args, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    d = adcompiler.differentiate(fn, backend=backend)
    value, cts = d.vjp(args, 1.0)
    single = any(np.asarray(a).dtype == np.float32 for a in args)  # (Numba sums float32 in another order)
    assert value == pytest.approx(fn(*args), rel=1e-5 if single else 1e-12)
    for k, c in enumerate(cts):
        a = np.asarray(args[k])
        assert np.shape(c) == a.shape and (not a.shape or c.dtype == a.dtype)
        tolerance = dict(rtol=1e-2, atol=1e-3) if a.dtype == np.float32 else dict(rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(c, central_grad(fn, args, k), **tolerance)


def _reverse(fn, args, backend="python") -> str:
    d = adcompiler.differentiate(fn, backend=backend)
    d.vjp(args, 1.0)
    return d.source("reverse")


def test_no_zeros_added_into_in_a_branch():
    """rot's and X's adjoints in rotate start in each way of the branch: no d = 0.0 before it."""
    body = _reverse(S.rotate, (RNG.normal(size=3), RNG.normal(size=3)))
    assert re.search(r"(d_X|d_rot)\w* = 0\.0", body) is None, body
    assert re.search(r"\n        d_X_\d+ = np\.multiply", body) and re.search(r"\n        d_X_\d+ = unbroadcast", body)


def test_a_way_that_adds_nothing_starts_at_zero():
    body = _reverse(S.one_way, CASES[1][1])
    branch = body[body.index("    if t") :]
    assert re.search(r"else:\n(\s+#.*\n)?\s+d_y\w* = 0\.0", branch), body


def test_a_numbers_adjoint_sums_the_product():
    body = _reverse(S.divided, CASES[0][1])
    assert re.search(r"-\(sum_all\(y \* d_y\w*\) / s\)", body), body


@pytest.mark.slow  # (the fold is the python target's, checked by default; test_numba_folds_past_scatter_adds keeps Numba's)
def test_numba_sums_fold_into_one_expression():
    """rodrigues's X adjoint: one line a way, the sums folded (Numba makes one array of an expression).  (rotate
    is written into rotated under Numba, handed vectors of three: lower.small_arrays.)"""
    pytest.importorskip("numba")
    body = _reverse(slot_funcs.rotated, (RNG.normal(size=3), RNG.normal(size=3)), "numba")
    body = body[body.index("def rotated_reverse") :]
    assert len(re.findall(r"\n\s+d_X_\d+ = ", body)) == 2, body
    assert re.search(r"d_w = unbroadcast\(np\.cross\(X, d_t5\w*\), w\) \+ \(", body), body


def test_numba_folds_past_scatter_adds():
    """rsq's adjoints fold past the scatter_adds that make rad's (they add into no array rsq's read)."""
    pytest.importorskip("numba")
    body = _reverse(S.distorted, (RNG.normal(size=5) * 0.1, RNG.normal(size=5)), "numba")  # (2-vectors: numbers)
    assert "scatter_add(d_rad" in body and re.search(r"\n\s+d_rsq\w* = ", body) is None, body


def test_an_array_read_for_its_shape_is_read_of_its_representative():
    """a = x * 2.0 has x's shape: unbroadcast reads x, and the primal keeps no a for it; rotate's sum of rot * rot
    is read of rot (its cotangent times rot, which broadcasting spreads), and X * cos(theta) summed to X's."""
    body = _reverse(S.broadcast_terms, CASES[5][1])
    assert re.search(r"unbroadcast\([^\n]*, x\)", body) and re.search(r"unbroadcast\([^\n]*, a\)", body) is None, body
    body = _reverse(S.rotate, (RNG.normal(size=3), RNG.normal(size=3)))
    assert re.search(r"2 \* \(rot \* d_sq\w*\)", body), body  # (the sum's cotangent not spread: optimize.spread)


def test_a_fold_passes_a_slice_made():
    """t = slice(7, 9, None) between d * cam[6] and its sum with cam[t] stops no fold (one expression)."""
    body = _reverse(S.projected, CASES[-2][1])
    assert re.search(r"\n    t\d+ = d \* t\d+ \+ t\d+\n", body), body


def test_a_product_stays_inside_unbroadcast():
    """unbroadcast(2 * (diff * d), diff): the sign and numbers come out of unbroadcast only where a name is
    left inside (-(2.0 * unbroadcast(d_dist2, t12))), not from arithmetic one expression holds."""
    body = _reverse(S.squared_distances, CASES[-1][1])
    assert "unbroadcast(2 * (diff * " in body and "2 * unbroadcast(" not in body, body


def _allocations(fn, args) -> float:
    """The NRT allocations of one call of the compiled reverse of ``fn``, from compiled code."""
    import numba
    from numba.core.runtime import _nrt_python, rtsys

    reverse = adcompiler.differentiate(fn, backend="numba").compiled("reverse", *args)

    @numba.njit
    def calls(n, a, b):
        for _ in range(n):
            reverse(a, b, 1.0)

    calls(1, *args)
    _nrt_python.memsys_enable_stats()
    before = rtsys.get_allocation_stats().alloc
    calls(100, *args)
    return round((rtsys.get_allocation_stats().alloc - before) / 100)


@pytest.mark.slow  # allocation counts under Numba, a compile each
@pytest.mark.parametrize("rot, most", [(np.full(3, 0.3), 17), (np.zeros(3), 12)])
def test_numba_arrays_a_call_makes(rot, most):
    """rotated's reverse (rodrigues, both ways): 33 and 20 arrays and lists a call before issue 35's changes."""
    pytest.importorskip("numba")
    assert _allocations(slot_funcs.rotated, (rot, np.ones(3))) <= most
