"""Residuals computed again instead of kept (``modes.recomputed``, ``Options.recomputed_residuals``: the
Numba target): one step of arithmetic on other residuals, in a called function's tuple and on a loop's
tape; the same numbers bit for bit as the python target, which keeps them."""

import re

import numpy as np
import pytest

import adcompiler
from oracle import central_grad

pytest.importorskip("numba")


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def squashed(w, x):
    """A loop of sigmoids: each pushes exp(-w x) and 1.0 + exp(-w x) (lstm's gates, written in a loop)."""
    total = 0.0
    for k in range(3):
        s = _sigmoid(w * x)
        x = s * x + 0.1 * k
        total = total + np.sum(s * s)
    return total


def _squash(w, x):
    e = np.exp(-(w * x))
    t = 1.0 + e
    return np.sum(x / t)


def called(w, x):
    """The same arithmetic in a called function, outside any loop (its residuals a tuple)."""
    return _squash(w, x) + _squash(x, w)


@pytest.mark.parametrize("f", [squashed, called])
def test_a_residual_that_is_arithmetic_of_others_is_computed_again(f):
    w, x = np.array([0.3, -1.2, 0.8, 0.5, -0.2]), np.array([1.1, 0.4, -0.7, 2.0, 0.6])  # (five: arrays, not numbers)
    d = adcompiler.differentiate(f, backend="numba")
    g = d.grad(w, x)
    source = d.source("grad")
    sums = set(re.findall(r"(\w+) = 1\.0 \+ \w+\n", source))  # (t = 1.0 + e, bound where it is computed)
    kept = re.findall(r"\.append\(\((.*)\)\)\n", source) + re.findall(r"return \(\w+\.sum\(\), \((.*)\)\)", source)
    assert kept, source
    for held in kept:  # what a loop's tape or a call's residuals hold: not those sums
        assert not sums & set(re.findall(r"\w+", held)), source
    again = source.split("reversed(")[-1] if f is squashed else source.split("def _squash_reverse_sweep")[1]
    assert re.search(r"1\.0 \+ (t2_1|e)\b", again), source  # (computed again where the adjoint reads it)
    python = adcompiler.differentiate(f)
    for mine, theirs in zip(g, python.grad(w, x)):
        np.testing.assert_array_equal(mine, theirs)  # (the same operation on the same values)
    for i in range(2):
        np.testing.assert_allclose(g[i], central_grad(f, (w, x), i), rtol=1e-6, atol=1e-8)


def squashed_rows(w, S):
    """Rows through a sigmoid, stacked, again: the adjoint loop pops each row's cotangent (an effect) between
    the tape's pop and the line that reads 1.0 + exp(-w S[i])."""
    total = 0.0
    for k in range(2):
        rows = []
        for i in range(S.shape[0]):
            s = _sigmoid(w * S[i])
            rows.append(s * S[i])
        S = np.stack(rows)
        total = total + np.sum(S)
    return total


def test_a_residual_computed_again_goes_to_its_reader_and_folds_into_it():
    """The sum is computed where the adjoint reads it, past the pop of the row's cotangent, so that it folds
    into that line (no array of its own on the Numba target: there, element by element)."""
    w, S = np.array([0.3, -1.2, 0.8]), np.array([[1.1, 0.4, -0.7], [2.0, 0.1, 0.2]])
    d = adcompiler.differentiate(squashed_rows, backend="numba")
    g = d.grad(w, S)
    source = d.source("grad")
    again = source.split("reversed(")[-1]
    assert ".pop()" in again and "(1.0 + t2_1)" in again, source
    assert not re.search(r"\w+ = 1\.0 \+ \w+", source), source
    for mine, theirs in zip(g, adcompiler.differentiate(squashed_rows).grad(w, S)):
        np.testing.assert_array_equal(mine, theirs)
    for i in range(2):
        np.testing.assert_allclose(g[i], central_grad(squashed_rows, (w, S), i), rtol=1e-6, atol=1e-8)
