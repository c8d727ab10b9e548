"""A float parameter's cotangent is a number, not a 0-d array, where a helper of numbers calls NumPy (whose
functions of numbers may make 0-d arrays: ``np.where``'s did, and its adjoint, through a called function's
split sweeps, reached the parameter as ``array(3.)``).  Each helper called twice, against central
differences, both targets."""

import math

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402
import number_helpers_funcs as H  # noqa: E402

CASES = [H.twice_clipped, H.twice_chosen, H.twice_logged, H.twice_largest, H.twice_hyperbolic]


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x, y", [(0.7, 1.3), (0.2, 0.9)])
def test_a_number_parameters_cotangent_is_a_number(backend, fn, x, y):
    if backend == "numba":
        pytest.importorskip("numba")
    d = adcompiler.differentiate(fn, backend=backend)
    gx, gy = d.grad(x, y)
    for g in (gx, gy):
        assert isinstance(g, float) and not isinstance(g, np.ndarray), repr(g)
    h = 1e-6
    assert gx == pytest.approx((fn(x + h, y) - fn(x - h, y)) / (2 * h), rel=1e-6, abs=1e-8)
    assert gy == pytest.approx((fn(x, y + h) - fn(x, y - h)) / (2 * h), rel=1e-6, abs=1e-8)
    value, tangent = d.jvp((x, y), (0.5, -1.5))
    assert math.isclose(float(value), float(fn(x, y)), rel_tol=1e-13)
    assert tangent == pytest.approx(0.5 * gx - 1.5 * gy, rel=1e-10, abs=1e-12)
