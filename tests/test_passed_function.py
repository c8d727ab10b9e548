"""``rk4(decay, y0, h, n)``: a function of the module handed to another and called there, as a local
function is (its code written into the callee's), in both modes and on both targets (it was refused: "the
global 'decay' (function) ... use functions defined with def").  Oracles: central differences, forward
against reverse, the python target against Numba's."""

import importlib.util

import pytest

import adcompiler
import passed_function_funcs as F

BACKENDS = ["python", "numba"] if importlib.util.find_spec("numba") else ["python"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_integrator_handed_its_right_hand_side(backend):
    d = adcompiler.differentiate(F.solve, backend=backend)
    y0, h = 0.8, 1e-6
    value, grad = d.value_and_grad(y0)
    assert value == pytest.approx(F.solve(y0), rel=1e-14)
    assert grad == pytest.approx((F.solve(y0 + h) - F.solve(y0 - h)) / (2 * h), rel=1e-8)
    assert d.jvp((y0,), (1.0,))[1] == pytest.approx(grad, rel=1e-12)
