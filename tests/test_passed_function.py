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


@pytest.mark.parametrize("backend", ["python"])
def test_a_method_of_an_object_of_the_module(backend):
    """K.k(a, b) with K an object the module holds (its attributes numbers): its class's method, K's
    attributes constants (it was refused: "only module attributes such as math.pi are supported")."""
    xs = [0.1, 0.5, -0.3]
    d = adcompiler.differentiate(F.energy, backend=backend)
    value, grad = d.value_and_grad(xs)
    assert value == pytest.approx(F.energy(xs), rel=1e-14)
    h = 1e-6
    for i in range(3):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        assert grad[i] == pytest.approx((F.energy(up) - F.energy(down)) / (2 * h), rel=1e-7, abs=1e-9)
