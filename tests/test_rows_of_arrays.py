"""Rows appended in a loop, then made one array: ``np.array(rows)`` (what users write for a trajectory or a
batch of features), beside ``np.stack``, ``np.vstack`` and ``np.array(rows, dtype=float)``, rows of vectors and of
matrices, on both targets and in both modes, against central differences and the dot test.  Under Numba
``np.array`` of a list of arrays was refused at a line that does not hold it, with a message about tuples (Numba's
``numpy.array`` takes no list of arrays: ``array_of`` stacks them now); a ragged list raises NumPy's error on
both targets."""

import itertools

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402
from shared import defined  # noqa: E402

JOINED = {
    "array": "np.array(rows)",
    "array_float": "np.array(rows, dtype=float)",
    "asarray": "np.asarray(rows)",
    "stack": "np.stack(rows)",
    "vstack": "np.vstack(rows)",
}
ROW = {  # one row from x (a vector of 3) and the step i
    "vector": "x * float(i + 1) + np.sin(x)",
    "matrix": "np.outer(x, x) * float(i) + x",
    "number_row": "np.array([x[0] * i, x[1] ** 2, x[2]])",
}
CASES = [(j, r) for j, r in itertools.product(JOINED, ROW) if not (j == "vstack" and r == "matrix")]


def _source(joined: str, row: str) -> str:
    return (
        "def f(x):\n"
        "    rows = []\n"
        "    for i in range(4):\n"
        f"        rows.append({ROW[row]})\n"
        f"    M = {JOINED[joined]}\n"
        "    K = np.arange(M.size).reshape(M.shape).astype(M.dtype)\n"
        "    return np.sum(M * M * K) + M[1].sum() * x[2]\n"
    )


def _load(tmp_path, name: str, source: str):
    return defined(tmp_path, name, source).f


X, U = np.array([0.5, -1.2, 2.0]), np.array([0.3, -0.2, 0.7])


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("joined, row", CASES, ids=["-".join(c) for c in CASES])
def test_rows_made_one_array(tmp_path, backend, joined, row):
    if backend == "numba":
        pytest.importorskip("numba")
    f = _load(tmp_path, f"rows_{joined}_{row}", _source(joined, row))
    d = adcompiler.differentiate(f, backend=backend)
    g = d.grad(X)
    h = 1e-6
    want = np.array([(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6)
    value, tangent = d.jvp((X,), (U,))
    assert value == pytest.approx(f(X), rel=1e-12)
    assert tangent == pytest.approx(float(g @ U), rel=1e-10, abs=1e-12)
    if joined == "array_float":  # (float64 rows of float32 ones: a float64 sum times x[2], a float32 number,
        return  # whose product NumPy makes float64 and the analysis float32: docs/limits.md)
    x32, u32 = X.astype(np.float32), U.astype(np.float32)  # float32 rows: a float32 value, tangent and gradient
    value32, tangent32 = d.jvp((x32,), (u32,))
    primal = np.asarray(f(x32)).dtype
    assert np.asarray(value32).dtype == np.asarray(tangent32).dtype == primal, (value32, tangent32, primal)
    assert d.grad(x32).dtype == np.float32


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_ragged_rows_raise_numpys_error(tmp_path, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    source = (
        "def f(x):\n    rows = []\n    for i in range(3):\n        rows.append(x[: i + 1] * 2.0)\n"
        "    return np.sum(np.array(rows))\n"
    )
    f = _load(tmp_path, "rows_ragged", source)
    with pytest.raises(ValueError, match="inhomogeneous"):
        f(X)
    with pytest.raises(ValueError, match="inhomogeneous"):
        adcompiler.differentiate(f, backend=backend).grad(X)
