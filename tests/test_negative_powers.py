"""``x ** y`` at a negative ``x`` with an integer-valued float ``y`` (issue 32, item 17): it used to raise
``math domain error`` for every derivative (the rule for ``d/dy`` took ``log(x)`` first).  Now ``d/dx =
y x**(y-1)`` in every mode, and ``d/dy`` is NaN there (``x**y`` is real only at integer ``y``), as JAX
and autograd give it; 0 at ``x == 0`` as before.  Analytic references, and autograd's."""

import math

import numpy as np
import pytest

import adcompiler
import negative_powers_funcs as F


@pytest.mark.parametrize("x, y", [(-2.0, 3.0), (-1.5, 2.0), (-0.5, -3.0), (-3.0, 0.0)])
def test_scalar_power_at_a_negative_base(x, y):
    d = adcompiler.differentiate(F.power)
    dx = y * x ** (y - 1) if y != 0 else 0.0
    gx, gy = d.grad(x, y)
    assert gx == pytest.approx(dx, rel=1e-14) and math.isnan(gy)
    assert adcompiler.differentiate(F.power, wrt="x").grad(x, y) == pytest.approx(dx, rel=1e-14)
    assert adcompiler.differentiate(F.power, wrt="x").jvp((x, y), (1.0,)) == pytest.approx((x**y, dx), rel=1e-14)
    value, (cx,) = adcompiler.differentiate(F.power, wrt="x").vjp((x, y), 2.0)
    assert value == x**y and cx == pytest.approx(2 * dx, rel=1e-14)
    assert math.isnan(d.jvp((x, y), (0.0, 1.0))[1])


def test_math_pow_and_a_constant_exponent():
    x, y = -2.0, 3.0
    gx, gy = adcompiler.differentiate(F.math_power).grad(x, y)
    assert gx == pytest.approx((y + 1) * x**y, rel=1e-14) and math.isnan(gy)
    assert adcompiler.differentiate(F.constant_exponent).grad(x) == pytest.approx(3 * x * x + 2 * x, rel=1e-14)
    assert adcompiler.hessian(F.constant_exponent)(x) == pytest.approx(6 * x + 2, rel=1e-14)


def test_numpy_power_matches_the_scalar_rule_and_autograd():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    x, y = np.array([-2.0, 1.5, 0.0]), 3.0
    gx, gy = adcompiler.differentiate(F.numpy_power).grad(x, y)
    assert np.allclose(gx, y * x ** (y - 1), rtol=1e-14) and np.isnan(gy)
    ag = autograd.grad(lambda x, y: anp.sum(anp.power(x, y)), argnum=(0, 1))(x, y)
    assert np.allclose(gx, ag[0], rtol=1e-14) and np.isnan(ag[1])  # the same convention
    positive = np.array([2.0, 1.5, 0.0])  # d/dy: sum(x**y log x), 0 at x == 0
    gy = adcompiler.differentiate(F.numpy_power).grad(positive, y)[1]
    assert gy == pytest.approx(8 * math.log(2.0) + 1.5**3 * math.log(1.5), rel=1e-14)
