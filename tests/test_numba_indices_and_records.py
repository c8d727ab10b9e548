"""Under ``backend="numba"``: an index holding ``...`` (``A[..., 1]`` read, written and added into), a vector
written at an array of places that repeats one (``y[idx] += x``: the last write at a place wins), and records
among the parameters of reverse mode.  A red team found both refused with Numba's typing errors about
adcompiler's own helpers (``scatter_add``, ``take_and_clear``, ``add_at``) as the reason; so were ``sum(A)`` of a
matrix (its rows added), ``np.argsort(A, axis=1)``, ``np.sort(A)[:, 0]``'s tangent and the adjoints of ``A[0, order]``,
``A[idx, :]``, ``A[:, idx]``, ``A[::-2, idx]`` (integers, slices and an array of integers, one per axis) and ``A[keep]``
(a mask of rows), which compile now.  ``...`` now indexes
in every helper that adds at or clears a basic index, and ``take_and_clear`` takes a vector's array of places; a record holding numbers and arrays is refused at its
``def`` with what to write (its numbers as 0-d arrays compile), and records of arrays, or of numbers, compile."""

from typing import NamedTuple

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

import adcompiler  # noqa: E402
from shared import defined  # noqa: E402

SOURCE = """
from typing import NamedTuple


class Mixed(NamedTuple):
    a: float
    b: np.ndarray


class Arrays(NamedTuple):
    a: np.ndarray
    b: np.ndarray


def read(A):
    return np.sum(A[..., 1] * A[0, ...]) + A[-1, -2] * np.sum(A[-2:, ::-1] ** 2)


def written(A):
    B = A.copy()
    B[..., 1] = np.sin(A[..., 0])
    return np.sum(B ** 2)


def added(A):
    B = A * 2.0
    B[..., 1] += A[..., 2]
    return np.sum(B ** 3)


def repeated_places(x):
    y = np.zeros(5)
    idx = np.array([0, 1, 1, -2])
    y[idx] += x
    return np.sum(y ** 2) + y[1] * x[0]


def written_places(x):
    y = np.ones(5) * x[3]
    y[np.array([4, 2, 4])] = np.sin(x[:3])
    return np.sum(y ** 3)


def rows_summed(A):
    return np.sum(sum(A) ** 2) + np.sum(sum(A * A[0]))


def sorted_rows(A):
    i = np.argsort(A, axis=1)
    j = np.argsort(A, axis=0)
    k = np.argsort(A)
    return np.sum(A[0, i[0]] * np.arange(4.0)) + np.sum(A[j[1], 2] ** 2) + A[3, k[3, -1]] * A[j[0, 0], 0]


def mixed_places(A):
    idx = np.array([0, 2, 2, -1])
    return np.sum(A[1, idx] ** 2) + np.sum(np.sin(A[idx, -1]) * A[idx, 0])


IDX = np.array([2, 0, 2, 3])
X = np.array([0.5, -0.2, 0.3, 0.9])


def rows_and_columns(A):
    return np.sum(A[IDX, :] * X) + np.sum(np.sin(A[:, IDX]))


def chained_reads(A):
    B = A[IDX][:, IDX]
    return np.sum(B ** 2) + np.sum(A[1:, IDX] * A[IDX, -1])


def masked_rows(A):
    keep = X > 0.0
    return np.sum(np.tanh(A[keep]) * X[keep][:, None])


def stepped_reads(A):
    return np.sum(A[::-2, IDX] ** 3) + np.sum(A[IDX, 0] * A[IDX, 2])


def sorted_lines(A):
    return np.sum(np.sort(A)[:, 0] * X) + np.sum(np.sort(A, axis=0)[-1] ** 2)


def affine(p, x):
    return np.sum((p.a * x + p.b) ** 2)
"""


@pytest.fixture(scope="module")
def funcs(tmp_path_factory):
    return defined(tmp_path_factory.mktemp("ellipsis"), "ellipsis_funcs", SOURCE)


@pytest.mark.parametrize(
    "name",
    [
        "read",
        "written",
        "added",
        "repeated_places",
        "written_places",
        "rows_summed",
        "sorted_rows",
        "mixed_places",
        "rows_and_columns",
        "chained_reads",
        "masked_rows",
        "stepped_reads",
        "sorted_lines",
    ],
)
def test_indices_under_numba(funcs, name):
    f = getattr(funcs, name)
    A = np.random.default_rng(3).standard_normal((4,) if name.endswith("places") and name != "mixed_places" else (4, 4))
    want = adcompiler.differentiate(f).grad(A)
    h = 1e-6
    central = np.zeros_like(A)
    for k in np.ndindex(A.shape):
        up, down = A.copy(), A.copy()
        up[k] += h
        down[k] -= h
        central[k] = (f(up) - f(down)) / (2 * h)
    np.testing.assert_allclose(want, central, rtol=1e-6, atol=1e-7)
    compiled = adcompiler.differentiate(f, backend="numba")
    np.testing.assert_allclose(compiled.grad(A), want, rtol=1e-12, atol=1e-14)
    V = np.random.default_rng(5).standard_normal(A.shape)  # forward mode, against the same derivative
    assert compiled.jvp((A,), (V,))[1] == pytest.approx(float(np.sum(want * V)), rel=1e-10, abs=1e-12)


def test_a_record_of_numbers_and_arrays_is_refused_at_its_def_in_reverse_mode(funcs):
    r = np.random.default_rng(4)
    p, x = funcs.Mixed(0.3, r.standard_normal(3)), r.standard_normal(3)
    d = adcompiler.differentiate(funcs.affine, backend="numba")
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="a record holding numbers and arrays") as caught:
        d.grad(p, x)
    assert caught.value.lineno == funcs.affine.__code__.co_firstlineno
    python = adcompiler.differentiate(funcs.affine)
    tangents = (funcs.Mixed(1.0, np.ones(3)), np.ones(3))
    assert d.jvp((p, x), tangents)[1] == pytest.approx(python.jvp((p, x), tangents)[1], rel=1e-12)  # forward: fine
    np.testing.assert_allclose(  # not differentiated with respect to p: fine
        adcompiler.differentiate(funcs.affine, backend="numba", wrt=("x",)).grad(p, x),
        adcompiler.differentiate(funcs.affine, wrt=("x",)).grad(p, x),
        rtol=1e-12,
    )
    q = funcs.Arrays(np.array(0.3), p.b)  # what the message says to write: its number a 0-d array
    got, want = adcompiler.differentiate(funcs.affine, backend="numba").grad(q, x), python.grad(q, x)
    np.testing.assert_allclose(got[0].a, want[0].a, rtol=1e-12)
    np.testing.assert_allclose(got[0].b, want[0].b, rtol=1e-12)
