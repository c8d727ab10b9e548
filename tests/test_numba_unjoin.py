"""The cotangents of joins under backend="numba" (rules/joins.py, their Numba forms): a piece cut from the leading
axis of the joined cotangent is a view of it, as the python target's is (no copy a piece: GradBench lstm's
four pieces of its gates' cotangent, each character); a piece along another axis is a copy in C order (one
type a variable).  The gradients agree with central differences under both backends.  Skipped without
Numba."""

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

import adcompiler  # noqa: E402
import join_adjoint_funcs as F  # noqa: E402
from adcompiler.targets.numba.live import unjoin, unjoin_all  # noqa: E402
from test_join_adjoints import CASES, differences  # noqa: E402
from shared import BACKENDS  # noqa: E402


@numba.njit
def _concatenated_pieces(g, a, b):
    return unjoin(g, "concatenate", 0, 0, a, b), unjoin(g, "concatenate", 0, 1, a, b)


@numba.njit
def _stacked_pieces(g, a, b):
    return unjoin(g, "stack", 0, 1, a, b), unjoin_all(g, [a, b], "stack", 0)


@numba.njit
def _column_pieces(g, a, b):
    return unjoin(g, "concatenate", 1, 1, a, b), unjoin_all(g, [a, b], "concatenate", 1)


def test_leading_axis_pieces_are_views():
    g = np.arange(24.0).reshape(8, 3)
    top, bottom = _concatenated_pieces(g, np.zeros((3, 3)), np.zeros((5, 3)))
    assert np.array_equal(top, g[:3]) and np.array_equal(bottom, g[3:])
    assert np.shares_memory(top, g) and np.shares_memory(bottom, g)
    rows = np.arange(6.0).reshape(2, 3)
    row, pieces = _stacked_pieces(rows, np.zeros(3), np.zeros(3))
    assert np.array_equal(row, rows[1]) and np.shares_memory(row, rows)
    assert [np.array_equal(p, rows[k]) for k, p in enumerate(pieces)] == [True, True]
    assert all(np.shares_memory(p, rows) for p in pieces)


def test_inner_axis_pieces_are_copies_in_c_order():
    g = np.arange(24.0).reshape(3, 8)
    right, pieces = _column_pieces(g, np.zeros((3, 2)), np.zeros((3, 6)))
    assert np.array_equal(right, g[:, 2:]) and right.flags.c_contiguous and not np.shares_memory(right, g)
    assert np.array_equal(pieces[0], g[:, :2]) and np.array_equal(pieces[1], g[:, 2:])
    assert not any(np.shares_memory(p, g) for p in pieces)


def test_a_read_only_cotangent_is_cut_into_copies():
    g = np.arange(8.0)
    g.flags.writeable = False  # (a view of it could not be added into: each piece its own)
    top, bottom = _concatenated_pieces(g, np.zeros(3), np.zeros(5))
    assert np.array_equal(top, g[:3]) and np.array_equal(bottom, g[3:])
    assert not np.shares_memory(top, g) and top.flags.writeable


def pieces_read_again(a, b, w):
    """Both pieces of a joined cotangent added to the adjoints of reads of the arrays joined, and to more."""
    c = np.concatenate((a, b, a))
    return np.sum(w * c) + np.sum(a[0:2] * b[1:3]) + np.sum(c * c) + np.sum(np.tanh(c[2:5]))


SLOW = {"concat_rows", "concat_columns", "concat_last", "stack_inner", "stack_last", "joined_list"}
COMPILED = [c for c in CASES if c[0].__name__ != "others"]  # (others: np.column_stack, which Numba lacks)


@pytest.mark.parametrize(
    "f, args",
    [pytest.param(*c, marks=pytest.mark.slow) if c[0].__name__ in SLOW else c for c in COMPILED]
    + [(F.lstm_like, tuple(np.random.default_rng(5).normal(size=n) for n in (12, 12, 3, 3)))],
    ids=[c[0].__name__ for c in COMPILED] + ["lstm_like"],
)
def test_numba_gradient_against_differences(f, args):
    wrt = f.__code__.co_varnames[:2]
    grads = adcompiler.differentiate(f, wrt=wrt, backend="numba").grad(*args)
    for k, g in enumerate(grads):
        assert g.shape == args[k].shape and g.dtype == np.float64
        assert np.allclose(g, differences(f, args, k), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pieces_read_again_against_differences(backend):
    rng = np.random.default_rng(11)
    args = (rng.normal(size=4), rng.normal(size=5), rng.normal(size=13))
    grads = adcompiler.differentiate(pieces_read_again, wrt=("a", "b"), backend=backend).grad(*args)
    for k, g in enumerate(grads):
        assert np.allclose(g, differences(pieces_read_again, args, k), rtol=1e-6, atol=1e-6)


def test_a_join_numba_lacks_is_refused_at_its_line():
    """np.column_stack (in ``others``) is outside the Numba target (docs/numba.md): refused at its line."""
    others, args = next(c for c in CASES if c[0].__name__ == "others")
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="column_stack") as refused:
        adcompiler.differentiate(others, wrt=others.__code__.co_varnames[:2], backend="numba").grad(*args)
    assert refused.value.filename.endswith("join_adjoint_funcs.py")
