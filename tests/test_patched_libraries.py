"""A library function replaced after the derivative was built (``math.sin = cube``, ``np.tanh = np.sin``):
the derivative is built again for what the call now runs, in forward and reverse mode and through the
fast entries, never the old rule applied to the new function's value."""

import math

import numpy as np
import pytest

import adcompiler


def cube(x):
    return x**3


def scalar(x):
    return math.sin(x) * 2.0


def calls_scalar(x):
    return scalar(x) + x


def vector(x):
    return np.sum(np.tanh(x))


@pytest.fixture
def restore():
    saved = math.sin, np.tanh
    yield
    math.sin, np.tanh = saved


@pytest.mark.parametrize("fn", [scalar, calls_scalar], ids=lambda f: f.__name__)
def test_math_sin_replaced_after_the_first_gradient(fn, restore):
    d = adcompiler.differentiate(fn)
    extra = 1.0 if fn is calls_scalar else 0.0
    for _ in range(2):  # the second call: the fast entry
        assert d.grad(0.5) == pytest.approx(2 * math.cos(0.5) + extra, rel=1e-15)
    math.sin = cube
    for _ in range(2):
        assert d.value_and_grad(0.5) == (fn(0.5), 2 * 3 * 0.25 + extra)
        assert d.jvp((0.5,), (1.0,)) == (fn(0.5), 2 * 3 * 0.25 + extra)
        assert d.vjp((0.5,), 1.0) == (fn(0.5), (2 * 3 * 0.25 + extra,))


def test_numpy_tanh_replaced_by_sin(restore):
    x = np.array([0.5, -1.0, 2.0])
    d = adcompiler.differentiate(vector)
    for _ in range(2):
        assert np.allclose(d.grad(x), 1 - np.tanh(x) ** 2, rtol=1e-15)
    np.tanh = np.sin
    for _ in range(2):
        value, gradient = d.value_and_grad(x)
        assert value == np.sum(np.sin(x)) and np.array_equal(gradient, np.cos(x))
        assert d.jvp((x,), (np.ones(3),))[1] == pytest.approx(np.sum(np.cos(x)), rel=1e-15)


def test_restored_gives_the_first_derivative_again(restore):
    d = adcompiler.differentiate(scalar)
    first, sin = d.grad(0.5), math.sin
    math.sin = cube
    assert d.grad(0.5) == 1.5
    math.sin = sin
    assert d.grad(0.5) == first == 2 * math.cos(0.5)
