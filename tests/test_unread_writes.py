"""Writes into a new array before anything reads it (``out = np.zeros(n); out[:] = W @ x``): the old entries
they overwrite are read by nothing, so the primal sweep keeps none and the adjoint sweep puts none back
(``modes.plan.unread_writes``), and an array made by arithmetic or a comparison is new too (a Hessian through
``np.delete``, whose mask ``keep = np.ones(n) > 0.0`` it changes, was refused).  Before 2026-12-03 every such write was taped and restored; a Hessian through a
helper doing it was refused ("writing into an array taken from a list": its reverse sweep wrote into an array
it unpacked from its residuals).  Each program on both targets, first and second order, against central
differences; the programs that read the array before writing keep the tape and stay right."""

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402
from shared import defined  # noqa: E402

SOURCE = """
W = np.array([[0.2, -0.7, 0.4], [0.5, 0.3, -0.2], [-0.1, 0.8, 0.25]])


def helper(x):
    out = np.zeros(W.shape[0])
    out[:] = W @ x
    return out


def through_helper(x):
    return np.sum(helper(x) ** 3)


def rows_in_a_loop(x):
    s = 0.0
    for i in range(3):
        row = np.zeros_like(x)
        row[0] = x[0] * (i + 1.0)
        row[2] = np.sin(x[2]) * x[i]
        s = s + np.sum((row * W[i]) ** 2)
    return s


def read_before_written(x):
    out = np.ones(3)
    first = out[0] * x[0]
    out[0] = x[1] * x[2]
    out[1] = out[0] * x[0]
    return np.sum(out * x) * first


def written_from_itself(x):
    out = np.zeros(3)
    out[1] = x[0] ** 2
    out[0] = out[1] * x[2]
    return np.sum(out ** 2)


def deleted(x):
    return np.sum(np.delete(x, [1]) ** 3) + x[1] * x[0]


def masked_by_hand(x):
    if x[0] > 0.0:
        keep = np.abs(x) > -1.0
    else:
        keep = np.ones(3) > 0.0
    keep[2] = False
    return np.sum(x[keep] ** 3) * x[2]


def arithmetic_then_written(x):
    y = x * 2.0
    y[0] = np.sin(x[1])
    return np.sum(y**2)


def read_by_arithmetic_then_written(x):
    b = x * 1.0
    b[:] = x[0] * b
    c = np.copy(b)
    c[1:] = np.sin(c[:2])
    return np.sum(b * x) + np.sum(c**2)
"""
X = np.array([0.4, -0.7, 0.9])
NAMES = ("through_helper", "rows_in_a_loop", "read_before_written", "written_from_itself", "deleted")
NAMES += (
    "masked_by_hand",
    "arithmetic_then_written",
    "read_by_arithmetic_then_written",
)  # (a mask made by a comparison, written: np.delete's own way)


@pytest.fixture(scope="module")
def funcs(tmp_path_factory):
    return defined(tmp_path_factory.mktemp("unread"), "unread_funcs", SOURCE)


def _gradient(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("name", NAMES)
def test_writes_into_new_arrays(funcs, backend, name):
    if backend == "numba":
        pytest.importorskip("numba")
        if name in ("deleted", "masked_by_hand"):  # (np.delete of a list of places, and x[mask]'s adjoint, refused
            pytest.skip("refused under Numba at the line, as docs/numba.md says")  # there: docs/numba.md)
        if name == "read_by_arithmetic_then_written":  # (its Hessian: a write the second order keeps in a tuple)
            d = adcompiler.differentiate(getattr(funcs, name), backend=backend)
            np.testing.assert_allclose(d.grad(X), _gradient(getattr(funcs, name), X), rtol=1e-6, atol=1e-7)
            return
    f = getattr(funcs, name)
    d = adcompiler.differentiate(f, backend=backend)
    np.testing.assert_allclose(d.grad(X), _gradient(f, X), rtol=1e-6, atol=1e-7)
    python = adcompiler.differentiate(f)
    want = np.array([(python.grad(X + 1e-5 * e) - python.grad(X - 1e-5 * e)) / 2e-5 for e in np.eye(3)])
    np.testing.assert_allclose(adcompiler.hessian(d)(X), want, rtol=1e-5, atol=1e-6)


def test_what_is_kept(funcs):
    """No tape for a write nothing reads before; the tape where the array was read first."""
    unread = adcompiler.differentiate(funcs.through_helper).source("reverse")
    assert ".append(" not in unread, unread
    read = adcompiler.differentiate(funcs.read_before_written).source("reverse")
    assert ".append(" in read and ".pop()" in read, read
