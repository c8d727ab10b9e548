"""A[rows, cols] with two index vectors is one axis (NumPy broadcasts the advanced indices together): its
abstract value said two, so vjp refused every cotangent and jacrev failed.  Oracles: NumPy's add.at of the
cotangent at the indices, central differences, forward against reverse, on both targets."""

import importlib.util

import numpy as np
import pytest

import adcompiler
import fancy_index_funcs as F

BACKENDS = ["python", "numba"] if importlib.util.find_spec("numba") else ["python"]
A = np.arange(20.0).reshape(5, 4) / 7.0
ROWS, COLS = np.array([0, 2, 4]), np.array([1, 1, 3])


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_index_vectors_read_one_axis(backend):
    d = adcompiler.differentiate(F.pick, wrt=("A",), backend=backend)
    ct = np.array([1.0, 2.0, 3.0])
    value, (g,) = d.vjp((A, ROWS, COLS), ct)
    want = np.zeros_like(A)
    np.add.at(want, (ROWS, COLS), ct)  # (rows 0 and 2 both read column 1)
    np.testing.assert_array_equal(value, A[ROWS, COLS])
    np.testing.assert_array_equal(g, want)
    assert adcompiler.jacrev(F.pick)(A, ROWS, COLS).shape == (3, 5, 4)


@pytest.mark.parametrize("backend", ["python"])  # (under Numba: refused at the line, list indices and a slice
# beside an index vector, a documented limit)
@pytest.mark.parametrize(
    "f, args",
    [(F.picked_listed, (A,)), (F.picked_rows_and_a_slice, (A, ROWS)), (F.picked_grid, (A, ROWS, COLS))],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_advanced_reads_against_central_differences(backend, f, args):
    d = adcompiler.differentiate(f, wrt=("A",), backend=backend)
    out = f(*args)
    u = np.random.default_rng(1).standard_normal(np.shape(out))
    _, (g,) = d.vjp(args, u)
    v = np.random.default_rng(2).standard_normal(A.shape)
    h = 1e-6
    moved = lambda s: f(A + s * h * v, *args[1:])  # noqa: E731
    want = np.sum(u * (moved(1) - moved(-1)) / (2 * h))
    assert float(np.sum(g * v)) == pytest.approx(want, rel=1e-6)
    assert float(np.sum(u * d.jvp(args, (v,))[1])) == pytest.approx(want, rel=1e-6)
    assert g.shape == A.shape and g.dtype == A.dtype
