"""float32 in, float32 out, in every mode: the value a derivative returns is the function's own (dtype and
numbers), the tangent of a float32 output is float32 and a float32 argument's cotangent is float32.  The
tangents of max/min, median/quantile and prod along an axis, of np.clip and of an array written in a loop,
and the values of np.nanmean/nanmax/nanmin, were float64 (a count, a partial of float64 ones or a zeros of
dtype=float promoted them).  Numbers checked against the same function in float64 (a float32's rounding)."""

import numpy as np
import pytest

import adcompiler
import float32_reduction_funcs as F

X = (np.arange(12, dtype=np.float32).reshape(3, 4) / 3).astype(np.float32)
X[1, 2] = X[1, 1]  # (a tie)
FUNCTIONS = [getattr(F, name) for name in dir(F) if callable(getattr(F, name)) and not name.startswith("_")]
FUNCTIONS = [f for f in FUNCTIONS if getattr(f, "__module__", "") == F.__name__]


@pytest.mark.float32
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_float32_stays_float32(f):
    plain = np.asarray(f(X))
    v = np.ones_like(X)
    value, tangent = adcompiler.jvp(f, (X,), (v,))
    assert np.asarray(value).dtype == plain.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(value), plain)
    assert np.asarray(tangent).dtype == np.float32 and np.shape(tangent) == plain.shape
    value, pullback = adcompiler.vjp(f, X)
    (cotangent,) = pullback(np.ones_like(plain))
    assert cotangent.dtype == np.float32 and cotangent.shape == X.shape
    # the numbers: float64's to float32's rounding, and <1, J v> == <J^T 1, v>
    _, tangent64 = adcompiler.jvp(f, (X.astype(np.float64),), (v.astype(np.float64),))
    np.testing.assert_allclose(tangent, tangent64, rtol=1e-5, atol=1e-5)
    assert np.sum(tangent, dtype=np.float64) == pytest.approx(np.sum(cotangent * v, dtype=np.float64), rel=1e-5)
