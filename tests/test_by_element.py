"""The Numba target's elementwise cotangents added into an accumulator element by element
(``targets.numba.by_element``): the same numbers bit for bit as the lines they stand for, fewer arrays,
and the lines as they were wherever the shapes do not allow it (a broadcast operand, a part that is a
number or a matrix)."""

import glob
import os

import numpy as np
import pytest

import adcompiler
from oracle import central_grad
import callee_into_funcs

numba = pytest.importorskip("numba")
from adcompiler.targets.numba import translate  # noqa: E402

RNG = np.random.default_rng(7)


def gates(w, x):
    """An LSTM cell's gates: parts of one vector through a sigmoid and a tanh (GradBench lstm)."""
    g = x * w + 0.5
    h = len(x) // 2
    a = 1.0 / (1.0 + np.exp(-g[0:h]))
    b = np.tanh(g[h : 2 * h])
    return np.sum(a * b)


def rows(v, M):
    """Each row of M times v, which is a vector as long as a row or of one element (broadcast)."""
    t = 0.0
    for i in range(M.shape[0]):
        r = M[i] * v
        t += np.sum(np.sin(r) * r)
    return t


def twice(x, W):
    """x read in every iteration: its cotangent a sum of vectors, each added into it (``d_x += ...``)."""
    t = 0.0
    for i in range(W.shape[0]):
        t += np.sum(np.tanh(W[i] * x) * x)
    return t


def picks(x, M):
    """Parts that are numbers, a vector and a row of a matrix."""
    return np.sum(np.sin(x[0:3]) * M[1]) + x[4] * np.cos(x[1]) + np.sum(np.exp(-M[:, 0]) * x[1:4])


def cells(W, B, x):
    """A layer of cells: rows of W and B read once an iteration, their cotangents added into rows of matrices."""
    t = 0.0
    h = x
    for i in range(W.shape[0]):
        g = h * W[i] + B[i]
        h = np.tanh(g)
        t += np.sum(h * h)
    return t


def stacked(S, w):
    """Rows made one by one and stacked, again and again (GradBench lstm's state): the stack's cotangent
    starts anew each time, a number until its first row is added (``scatter_add`` of a name: ``line_in``)."""
    t = 0.0
    for k in range(3):
        rows = []
        for i in range(S.shape[0]):
            rows.append(np.tanh(S[i] * w))
        S = np.stack(rows)
        t += np.sum(S * S)
    return t


CASES = {
    "gates": (gates, (RNG.normal(size=8), RNG.normal(size=8))),
    "rows": (rows, (RNG.normal(size=5), RNG.normal(size=(4, 5)))),
    "rows broadcast": (rows, (RNG.normal(size=1), RNG.normal(size=(4, 5)))),
    "twice": (twice, (RNG.normal(size=6), RNG.normal(size=(3, 6)))),
    "picks": (picks, (RNG.normal(size=6), RNG.normal(size=(3, 3)))),
    "cells": (cells, (RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5)), RNG.normal(size=5))),
    "stacked": (stacked, (RNG.normal(size=(3, 4)), RNG.normal(size=4))),
    "stacked broadcast": (stacked, (RNG.normal(size=(3, 1)), RNG.normal(size=4))),
}
LOOPED = {"gates": "line_of(", "rows": "line_of(", "twice": "line_of(", "cells": "line_of(", "stacked": "line_in("}


def _gradient(fn, args, monkeypatch=None, directory=None):
    """The Numba gradient, and the text of the module compiled for it (written to ``directory``)."""
    if monkeypatch is not None:
        monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(directory))
    d = adcompiler.differentiate(fn, backend="numba")
    got = d.grad(*args)
    texts = [open(p).read() for p in glob.glob(os.path.join(str(directory), "numba", "adc_*.py"))]
    return got, "\n".join(texts)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_numbers_as_the_lines_it_stands_for(case, monkeypatch, tmp_path):
    """Against the python target and central differences; and bit for bit against the Numba target without
    the rewrite, whose module then has no loop of it."""
    fn, args = CASES[case]
    got, text = _gradient(fn, args, monkeypatch, tmp_path / "with")
    expected = adcompiler.differentiate(fn).grad(*args)
    differences = [central_grad(fn, args, i) for i in range(len(args))]
    for g, e, c, a in zip(got, expected, differences, args, strict=True):
        assert np.shape(g) == np.shape(a) and np.asarray(g).dtype == np.float64
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, c, rtol=1e-6, atol=1e-8)
    monkeypatch.setattr(translate, "added_by_element", lambda function, **helpers: None)
    monkeypatch.setattr(translate, "fused_runs", lambda function, **helpers: None)  # (element_runs: loops too)
    plain, plain_text = _gradient(fn, args, monkeypatch, tmp_path / "without")
    for g, p in zip(got, plain, strict=True):
        np.testing.assert_array_equal(g, p)
    assert "line_of(" not in plain_text
    if case in LOOPED:
        assert LOOPED[case] in text, text


def test_fewer_arrays_a_call(monkeypatch, tmp_path):
    """Numba's count of the arrays one call of the gates' gradient makes: four fewer than without the
    rewrite (each gate's part added by element, and its zeros made once)."""
    from numba.core.runtime import _nrt_python, rtsys

    fn, args = CASES["gates"]

    def made(directory):
        monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(directory))
        d = adcompiler.differentiate(fn, backend="numba")
        d.grad(*args)
        _nrt_python.memsys_enable_stats()
        before = rtsys.get_allocation_stats().alloc
        d.grad(*args)
        return rtsys.get_allocation_stats().alloc - before

    with_it = made(tmp_path / "with")
    monkeypatch.setattr(translate, "added_by_element", lambda function, **helpers: None)
    without = made(tmp_path / "without")
    assert with_it < without, (with_it, without)


def test_the_hessian_vector_product_over_it():
    """The gradient code differentiated again on the Numba target (forward over reverse) against the python
    target's."""
    fn, (w, x) = CASES["gates"]
    v = RNG.normal(size=x.shape)
    got = adcompiler.hvp(adcompiler.differentiate(fn, wrt=("x",), backend="numba"), wrt="x")
    want = adcompiler.hvp(adcompiler.differentiate(fn, wrt=("x",)), wrt="x")
    np.testing.assert_allclose(got((w, x), v), want((w, x), v), rtol=1e-12, atol=1e-12)


def test_a_line_of_an_accumulator_not_yet_of_its_shape_or_sharing_memory_is_left_to_scatter_add():
    """``line_in`` finds no line in a cotangent that is not yet an array of its array's shape (a number, a
    zero_array), and ``apart`` tells a cotangent that shares memory with the line (which the loop would read
    as it writes) from one that does not."""
    from adcompiler.targets.numba.live import apart, line_in

    @numba.njit
    def probe(d, x, i, g):
        count, line = line_in(d, x, i)
        return count, apart(line, g) if count >= 0 else True

    x = np.zeros((3, 4))
    assert probe(np.zeros((1, 1)), x, 2, np.ones(4)) == (-1, True)
    d = np.zeros((3, 4))
    assert probe(d, x, 2, np.ones(4)) == (4, True)
    assert probe(d, x, 2, d[2]) == (4, False)
    assert probe(d, x, 1, d.ravel()[5:9]) == (4, False)
    assert probe(d, x, 0, d[1]) == (4, True)


def test_a_place_named_by_a_tuple_is_no_row(monkeypatch, tmp_path):
    """A cotangent added at one number's place, named by a tuple (det's), gets no loop and no test of a line
    (the test alone would cost a sixth of det's gradient), and the gradient is the cofactor matrix."""
    A = RNG.normal(size=(4, 4))
    got, text = _gradient(callee_into_funcs.det, (A,), monkeypatch, tmp_path)  # (GradBench det, the eval's)
    np.testing.assert_allclose(got, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-10, atol=1e-12)
    assert "scatter_into(" in text and "line_of(" not in text, text


@pytest.mark.parametrize(
    "shapes",
    [((1, 1), (1,)), ((2, 1), (3,)), ((3, 4), (1,)), ((1, 5), (5,)), ((4, 2), (2,))],
)
def test_rows_and_stacked_states_of_other_shapes(shapes):
    """The loops' tests of lengths, for shapes where they fail as well as where they hold: a stacked state
    that broadcasts up to a wider one at its first stack (its cotangent's shape then changes from one
    iteration to the next), rows of one element, a weight of one element; the Numba target against the
    python target and central differences.  (A weight of two axes makes the state gain an axis at each
    stack, a variable of no one type, which Numba refuses at the function's line.)"""
    s_shape, w_shape = shapes
    rng = np.random.default_rng(sum(s_shape) * 10 + len(w_shape))
    args = (rng.normal(size=s_shape), rng.normal(size=w_shape))
    got = adcompiler.differentiate(stacked, backend="numba").grad(*args)
    want = adcompiler.differentiate(stacked).grad(*args)
    for g, w, a, k in zip(got, want, args, range(2), strict=True):
        assert np.shape(g) == np.shape(a) and np.asarray(g).dtype == np.float64
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, central_grad(stacked, args, k), rtol=1e-6, atol=1e-8)
    W, B = rng.normal(size=(3,) + s_shape[1:]), rng.normal(size=(3,) + s_shape[1:])
    x = rng.normal(size=s_shape[1:])
    got = adcompiler.differentiate(cells, backend="numba").grad(W, B, x)
    for g, w in zip(got, adcompiler.differentiate(cells).grad(W, B, x), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
