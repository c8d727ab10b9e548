"""The cotangents of joins (np.concatenate, np.stack, vstack, hstack, column_stack, dstack), of tuples
written out and of lists made at run time: each argument's piece of the join's cotangent, checked
against central differences; the pieces are views of the joined cotangent (cut by slicing, not copied
through np.take), and reads of slices and rows add into one array of the parent's shape."""

import numpy as np
import pytest

import adcompiler
import join_adjoint_funcs as F
from adcompiler.targets.python.runtime_numpy import NUMPY_HELPERS

RNG = np.random.default_rng(4)
A, B = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
CASES = [
    (F.concat_rows, (A, B, RNG.normal(size=(9, 4)))),
    (F.concat_columns, (A, B, RNG.normal(size=(3, 8)))),
    (F.concat_last, (A, B, RNG.normal(size=(3, 8)))),
    (F.stack_inner, (A, B, RNG.normal(size=(3, 3, 4)))),
    (F.stack_last, (A, B, RNG.normal(size=(3, 4, 2)))),
    (F.others, (A, B, RNG.normal(size=(3, 8)))),
    (F.stacked_list, (A, B, RNG.normal(size=(3, 4, 4)))),
    (F.joined_list, (A, B, RNG.normal(size=(3, 12)))),
]


def differences(f, args, k, eps=1e-6):
    x = args[k]
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[j] += eps
        lo[j] -= eps
        g[j] = (f(*args[:k], hi, *args[k + 1 :]) - f(*args[:k], lo, *args[k + 1 :])) / (2 * eps)
    return g


@pytest.mark.parametrize("f, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_against_differences(f, args):
    grads = adcompiler.differentiate(f, wrt=("a", "b")).grad(*args)
    for k, g in enumerate(grads):
        assert g.shape == args[k].shape and g.dtype == np.float64
        assert np.allclose(g, differences(f, args, k), rtol=1e-6, atol=1e-6)


def test_lstm_gates_against_differences():
    rng = np.random.default_rng(5)
    args = (rng.normal(size=12), rng.normal(size=12), rng.normal(size=3), rng.normal(size=3))
    grads = adcompiler.differentiate(F.lstm_like).grad(*args)
    for k, g in enumerate(grads):
        assert np.allclose(g, differences(F.lstm_like, args, k), rtol=1e-6, atol=1e-6)


def helper(name):
    space: dict = {}
    exec(NUMPY_HELPERS[name], space)
    return space[name]


def test_unjoin_pieces_are_views():
    unjoin = helper("unjoin")
    g = np.arange(24.0).reshape(3, 8)
    a, b = np.zeros((3, 3)), np.zeros((3, 5))
    left, right = (unjoin(g, "concatenate", 1, i, a, b) for i in (0, 1))
    assert np.array_equal(left, g[:, :3]) and np.array_equal(right, g[:, 3:])
    assert np.shares_memory(left, g) and np.shares_memory(right, g)
    row = unjoin(np.arange(6.0).reshape(2, 3), "stack", -1, 1, np.zeros(2), np.zeros(2), np.zeros(2))
    assert np.array_equal(row, [1.0, 4.0])


def test_unjoin_all_pieces_are_views():
    unjoin_all = helper("unjoin_all")
    g = np.arange(12.0).reshape(3, 4)
    pieces = unjoin_all(g, [np.zeros(4)] * 3, "stack", 0)
    assert [np.array_equal(p, g[k]) for k, p in enumerate(pieces)] == [True] * 3
    assert all(np.shares_memory(p, g) for p in pieces)
    halves = unjoin_all(g, [np.zeros((3, 1)), np.zeros((3, 3))], "concatenate", -1)
    assert np.array_equal(halves[0], g[:, :1]) and np.array_equal(halves[1], g[:, 1:])
    assert all(np.shares_memory(p, g) for p in halves)


def test_scatter_add_from_zero_is_the_parents_shape():
    scatter_add = helper("scatter_add")
    x = np.ones((3, 2), dtype=np.float32)
    d = scatter_add(0.0, x, 1, np.array([2.0, 3.0], dtype=np.float32))
    assert d.dtype == np.float32 and np.array_equal(d, [[0, 0], [2, 3], [0, 0]])
    assert scatter_add(d, x, slice(0, 2), np.ones((2, 2), dtype=np.float32)) is d  # added in place
    assert np.array_equal(d, [[1, 1], [3, 4], [0, 0]])
    assert np.array_equal(scatter_add(-0.0, np.ones(2), 0, 1.0), [1.0, 0.0])
    assert np.array_equal(scatter_add(1.5, np.ones(2), 0, 1.0), [2.5, 1.5])


def test_scatter_add_of_a_numpy_float_at_an_entry_adds_in_place(monkeypatch):
    """``A[i, j]``'s adjoint with a NumPy float64 cotangent (a number read from a float64 array: GradBench
    det's products of entries) is added at the entry as a Python float is, not through numpy.add.at
    (whose buffers took half of det's scatters); a float32 parent still goes to numpy.add.at, which
    keeps its dtype."""
    scatter_add = helper("scatter_add")
    at_calls, add = [], np.add

    class Add:  # numpy.add with its .at counted
        def at(self, *args):
            at_calls.append(args[1])
            return add.at(*args)

    d = scatter_add(0.0, np.ones((3, 3)), (1, 2), np.float64(2.5))
    monkeypatch.setattr(np, "add", Add())
    assert scatter_add(d, np.ones((3, 3)), (1, 2), np.float64(-0.5)) is d
    assert scatter_add(d, np.ones((3, 3)), 0, np.float64(1.0)) is d
    assert at_calls == []
    np.testing.assert_array_equal(d, [[1, 1, 1], [0, 0, 2.0], [0, 0, 0]])
    narrow = scatter_add(0.0, np.ones(3, dtype=np.float32), 1, np.float64(2.5))
    assert narrow.dtype == np.float32 and np.array_equal(narrow, [0, 2.5, 0]) and at_calls == [1]
