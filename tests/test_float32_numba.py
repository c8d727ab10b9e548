"""float32 arrays keep float32 values, tangents and cotangents under backend="numba" as under "python", with
the python target's numbers: a quotient of float32 arrays is float32 (its abstract value said float64, and
the Numba entry cast the value and tangent so), a max along an axis's adjoint (extreme_vjp) and np.dot of a
float64 cotangent with float32 operands compile (both were refused).  Oracle: the python target, itself
checked against central differences elsewhere; forward against reverse."""

import importlib.util

import numpy as np
import pytest

import adcompiler
from shared import written
import float32_funcs as F

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="needs numba")
RNG = np.random.default_rng(5)


def _arrays(*shapes):
    return tuple(RNG.standard_normal(s).astype(np.float32) for s in shapes)


CASES = [
    (F.softmax_rows, _arrays((3, 4)), None),
    (F.tanh_loss, _arrays((3,), (4, 3)), ("w",)),
    (F.logistic, _arrays((3,), (5, 3)), ("w",)),
    (F.mlp, _arrays((5, 8), (8,), (8,), (16, 5), (16,)), ("W1", "b1", "w2")),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_float32_both_modes_agree_with_the_python_target(f, args, wrt):
    python, numba = (adcompiler.differentiate(f, wrt=wrt, backend=b) for b in ("python", "numba"))
    n = len(wrt) if wrt else len(args)
    tangents = tuple(np.ones_like(a) for a in args[:n])
    (v1, t1), (v2, t2) = python.jvp(args, tangents), numba.jvp(args, tangents)
    assert np.asarray(v2).dtype == np.asarray(v1).dtype == np.float32
    assert np.asarray(t2).dtype == np.asarray(t1).dtype == np.float32
    np.testing.assert_allclose(v2, v1, rtol=1e-5)
    np.testing.assert_allclose(t2, t1, rtol=1e-4, atol=1e-5)
    ct = np.ones_like(np.asarray(v1))
    (_, c1), (_, c2) = python.vjp(args, ct), numba.vjp(args, ct)
    for a, x, y in zip(args, c1, c2):
        assert x.dtype == y.dtype == a.dtype == np.float32 and x.shape == y.shape == a.shape
        np.testing.assert_allclose(y, x, rtol=1e-4, atol=1e-5)
    dot = sum(float(np.sum(x.astype(np.float64) * u)) for x, u in zip(c2, tangents))
    assert dot == pytest.approx(float(np.sum(ct * t2)), rel=1e-4)  # <J^T u, v> == <u, J v>


def test_an_integer_times_a_sum_has_a_float_gradient(tmp_path):
    """x.shape[0] * np.sum(x): its gradient, the integer spread over x, is of x's float dtype under Numba (an
    int64 array came back), float64 and float32 alike."""
    namespace = written(tmp_path, "counted", "import numpy as np\n\n\ndef f(x):\n    return x.shape[0] * np.sum(x)\n")
    for dtype in (np.float64, np.float32):
        x = np.array([0.5, -1.0, 2.0, 1.5], dtype=dtype)
        g = adcompiler.differentiate(namespace["f"], backend="numba").grad(x)
        assert g.dtype == dtype and np.array_equal(g, np.full(4, 4.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_casts_under_numba(dtype):
    """``x.astype(np.float64)``, ``np.asarray(x, dtype=np.float32)`` and ``np.array(number, dtype=...)`` under
    Numba (whose numpy.array takes no array with a dtype: refused with Numba's own message before): the python
    target's gradient and tangent, each cotangent of its argument's dtype."""
    x = np.array([1.0, 2.0, 3.0], dtype=dtype)
    v = np.array([1.0, -1.0, 0.5], dtype=dtype)
    python, numba = (adcompiler.differentiate(F.cast_up, backend=b) for b in ("python", "numba"))
    g = numba.grad(x)
    assert g.dtype == dtype
    np.testing.assert_allclose(g, python.grad(x), rtol=1e-6)
    assert numba.jvp((x,), (v,))[1] == pytest.approx(python.jvp((x,), (v,))[1], rel=1e-6)


def test_a_float32_solve_under_numba():
    """np.linalg.solve of float32 operands in reverse mode: the sum's cotangent spread over float32 entries is
    float32 (it was float64, which Numba's solve will not take with a float32 matrix: refused)."""
    A = np.array([[3.0, 1.0], [0.5, 2.0]], dtype=np.float32)
    b = np.array([1.0, 2.0], dtype=np.float32)
    got = adcompiler.differentiate(F.solved, backend="numba").grad(A, b)
    want = adcompiler.differentiate(F.solved).grad(A, b)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


def test_a_float32_array_times_a_number_in_a_loop_is_explained():
    """``u = u + 0.2 * u`` of float32 in a loop: float64 in Numba's typing, float32 in NumPy's; the refusal says
    so and what to write (it spoke of ndims and list arguments)."""
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        adcompiler.differentiate(F.scaled_in_a_loop, backend="numba").grad(np.ones(3, dtype=np.float32))
    assert "float32 and float64" in str(info.value) and "np.float32(0.2)" in str(info.value)


CASTS = """\
import math

import numpy as np


def cast_of_a_number(x):
    return np.float64(x * x) + 1.0


def narrowed_rows(x):
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        y[i] = np.float32(math.tanh(x[i]))
    return np.sum(y * y)
"""


@pytest.mark.parametrize(
    "name, arg", [("cast_of_a_number", 0.7), ("narrowed_rows", np.linspace(0.1, 0.5, 4).astype(np.float32))]
)
def test_numpy_casts_of_numbers_under_numba(tmp_path, name, arg):
    """np.float64(x * x) and np.float32(math.tanh(x[i])) in reverse mode: Numba failed to compile their reverse
    sweep (np.broadcast_to of the shape () of the 0-d array np.asarray makes of a number: refused at the def
    line with Numba's IndexError).  Against the python target, and its dtype."""
    f = written(tmp_path, "casts", CASTS)[name]
    want = adcompiler.differentiate(f).grad(arg)
    got = adcompiler.differentiate(f, backend="numba").grad(arg)
    assert np.asarray(got).dtype == np.asarray(want).dtype and np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-6)
