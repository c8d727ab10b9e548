"""backend="numba" through SciPy functions with adcompiler's rules (``rules.scipy_special``,
``rules.scipy_linalg``): their primal and their rules run in Numba's object mode
(``targets.numba.library``), so a reduction along an axis, ``keepdims``, ``b`` and ``expm`` are
differentiated as on the python target.  Checked against central differences and the python target,
forward against reverse.  Skipped without Numba or SciPy."""

import pytest

numba = pytest.importorskip("numba")
np = pytest.importorskip("numpy")
sp = pytest.importorskip("scipy.special")
sl = pytest.importorskip("scipy.linalg")

import adcompiler  # noqa: E402
from oracle import central_grad  # noqa: E402
from shared import derivative  # noqa: E402


def lse_rows(x):
    return np.sum(sp.logsumexp(x, axis=1))


def lse_columns_kept(x):
    return np.sum(sp.logsumexp(x, axis=0, keepdims=True) * x)


def lse_weighted(x):
    return sp.logsumexp(x, b=x + 1.0)


def softmax_rows(x):
    s = sp.softmax(x, axis=1)
    return np.sum(s * s)


def log_softmax_columns(x):
    return np.sum(sp.log_softmax(x, axis=0) ** 2)


def expm_corner(x):
    return np.sum(sl.expm(x[:3, :3]) * x[1:, 1:])


def expm_of_constants(x):
    """A SciPy function of constants (called as it is, in object mode) whose result is Fortran-ordered."""
    m = sl.expm(np.array([[0.1, 0.7, -0.3], [0.2, -0.4, 0.5], [0.9, 0.0, 0.3]]))
    return np.sum(m @ x[:3, :3] * x[:3, :3])


CASES = [lse_rows, lse_columns_kept, lse_weighted, softmax_rows, log_softmax_columns, expm_corner, expm_of_constants]
X = np.array([[0.3, -0.2, 0.5, 0.8], [0.1, 0.4, -0.6, 0.2], [-0.5, 0.9, 0.05, -0.1], [0.7, -0.3, 0.25, 0.45]])


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_scipy_rules_compiled_by_numba_agree(fn):
    """grad and jvp under Numba against central differences (an oracle of neither target) and the python
    target; <u, J v> == <J^T u, v>.  Before, these were refused ("axis 3 is out of bounds": the result
    type learnt from an example whose axis was 3) or, for expm, the gradient's transpose (a Fortran array
    read back from object mode as C)."""
    d, py = derivative(fn, backend="numba"), derivative(fn)
    g = d.grad(X)
    assert g.shape == X.shape and g.dtype == X.dtype
    np.testing.assert_allclose(g, central_grad(fn, (X,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, py.grad(X), rtol=1e-12, atol=1e-14)
    v = np.cos(np.arange(X.size).reshape(X.shape))
    value, tangent = d.jvp((X,), (v,))
    assert value == pytest.approx(fn(X), rel=1e-13)
    assert tangent == pytest.approx(float(np.sum(g * v)), rel=1e-10, abs=1e-12)


def test_an_integer_argument_example_fits():
    """A stand-in learns its result's type from a call on examples: an integer argument not a literal (an
    axis held in a variable) is tried as 3, then 1, then 0, for the one the call takes."""
    from adcompiler.targets.numba.library import in_object_mode

    lse = in_object_mode(sp.logsumexp)
    along = numba.njit(lambda x, axis: lse(x, axis))
    np.testing.assert_allclose(along(X, 1), sp.logsumexp(X, axis=1), rtol=1e-14)
    assert adcompiler  # (the package, imported before its targets)
