"""``d.value(*args)``: the function's value by the code its target runs (compiled under Numba, derivatives
taken inside included, as ``jax.jit(f)`` gives it), and a function decorated with
``@adcompiler.differentiate`` called inside another differentiated function: a call of it runs the
function, so that is what is differentiated (``d(x)``, ``d.value(x)``, a ``*args`` one too).  Checked
against the function itself, analytic derivatives and central differences, on both targets."""

import importlib.util
import math

import numpy as np
import pytest

import adcompiler

NUMBA = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="Numba is not installed")
BACKENDS = ["python", pytest.param("numba", marks=NUMBA)]


def energy(x):
    return np.sum(np.cos(x) * x * x)


def descent_step(x, rate=0.1, forward=False):
    """One step down energy's gradient, by reverse or forward mode inside, then its energy."""
    if forward:
        g = np.array([adcompiler.jvp(energy, (x,), (e,))[1] for e in np.eye(x.shape[0])])
    else:
        g = adcompiler.grad(energy)(x)
    return energy(x - rate * g)


def analytic_step(x, rate=0.1):
    g = np.cos(x) * 2.0 * x - np.sin(x) * x * x
    return energy(x - rate * g)


def pair(x, k=2.0):
    return x * k, np.sum(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_is_the_function_s_value(backend):
    x = np.array([0.3, -1.2, 0.8])
    d = adcompiler.differentiate(descent_step, wrt=("x",), backend=backend)
    for forward in (False, True):
        want = analytic_step(x)
        assert d.value(x, 0.1, forward) == pytest.approx(want, rel=1e-12)
        assert d.value(x, forward=forward) == pytest.approx(want, rel=1e-12)
        assert d.value(x, rate=0.2, forward=forward) == pytest.approx(analytic_step(x, 0.2), rel=1e-12)
    # the derivative beside it is still the derivative (the value's code is a code of its own)
    _, dv = d.jvp((x, 0.1, False), (np.array([1.0, 0.0, 0.0]),))
    e = np.array([1e-6, 0.0, 0.0])
    assert dv == pytest.approx((analytic_step(x + e) - analytic_step(x - e)) / 2e-6, rel=1e-6)
    out = adcompiler.differentiate(pair, backend=backend).value(x, k=3.0)
    np.testing.assert_allclose(out[0], 3.0 * x, rtol=1e-15)
    assert out[1] == pytest.approx(np.sum(x), rel=1e-15)


@NUMBA
def test_value_under_numba_is_compiled_code():
    x = np.array([0.3, -1.2])
    d = adcompiler.differentiate(descent_step, backend="numba")
    d.value(x)
    plain = d.derived["value"]  # the code of nothing varied: what value runs
    assert plain.backend == "numba" and plain.wrt == ()
    assert plain.compiled("forward").signatures  # (compiled for the call above)


def test_value_under_python_calls_the_function():
    calls = []

    def counted(x):
        calls.append(x)
        return x * x

    assert adcompiler.differentiate(counted).value(3.0) == 9.0
    assert calls == [3.0]


@adcompiler.differentiate
def bowl(x):
    return np.sum(x * x * x)


@adcompiler.differentiate(wrt=("a",))
def scaled(a, s=2.0):
    return s * math.sin(a)


@adcompiler.differentiate
def product(*xs):
    out = 1.0
    for x in xs:
        out = out * x
    return out


def uses_decorated(x):
    return bowl(x) + scaled(x[0]) + scaled.value(x[1], 3.0) + product(x[0], x[1], x[2]) + bowl.value(x) * 0.5


def uses_decorated_gradient(x):
    s = 1.5 * np.sum(3.0 * x * x)
    return s + 2.0 * math.cos(x[0]) + 3.0 * math.cos(x[1]) + np.array([x[1] * x[2], x[0] * x[2], x[0] * x[1]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_decorated_helper_called_inside_is_the_function_it_calls(backend):
    x = np.array([0.4, -0.7, 1.1])
    d = adcompiler.differentiate(uses_decorated, backend=backend)
    assert d.value(x) == pytest.approx(uses_decorated(x), rel=1e-12)
    g = d.grad(x)
    want = 1.5 * 3.0 * x * x + np.array(
        [2.0 * math.cos(x[0]) + x[1] * x[2], 3.0 * math.cos(x[1]) + x[0] * x[2], x[0] * x[1]]
    )
    np.testing.assert_allclose(g, want, rtol=1e-12)
    v = np.array([0.3, -0.2, 0.5])
    _, t = d.jvp((x,), (v,))
    h = 1e-6
    assert t == pytest.approx((uses_decorated(x + h * v) - uses_decorated(x - h * v)) / (2 * h), rel=1e-6)
    assert t == pytest.approx(g @ v, rel=1e-12)  # forward against reverse


def test_what_a_star_args_differentiable_lacks_is_said_and_still_no_attribute():
    assert getattr(product, "py_func", None) is None  # (introspection, as Numba's cache does, sees none)
    with pytest.raises(TypeError, match=r"takes \*xs: differentiate it with grad"):
        product.hvp  # noqa: B018
    assert product.value(2.0, 3.0, 4.0) == 24.0


class Quadratic:
    def __init__(self, w):
        self.w = w

    @adcompiler.differentiate
    def loss(self, x):
        return np.sum(self.w * x * x)

    def doubled(self, x):
        return self.loss(x) * 2.0


def through_a_method(m, x):
    return m.doubled(x) + m.loss(x) + Quadratic.loss(m, x) * 0.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_decorated_method_called_inside_is_its_function(backend):
    m = Quadratic(np.array([1.0, 2.0, -0.5]))
    x = np.array([0.5, -1.0, 2.0])
    assert m.loss.value(x) == pytest.approx(np.sum(m.w * x * x), rel=1e-15)
    d = adcompiler.differentiate(through_a_method, wrt=("x",), backend=backend)
    np.testing.assert_allclose(d.grad(m, x), 3.5 * 2.0 * m.w * x, rtol=1e-12)
    assert d.value(m, x) == pytest.approx(3.5 * np.sum(m.w * x * x), rel=1e-12)


@NUMBA
def test_njit_code_calls_the_compiled_value():
    import numba

    forward = adcompiler.differentiate(descent_step, wrt=(), backend="numba").compiled("forward", np.zeros(2))

    @numba.njit
    def best_of(x, rates):
        best = 1e300
        for r in rates:
            v, t = forward(x, r, False)
            best = min(best, v + t)  # (t: the tangent of nothing varied, 0.0)
        return best

    x, rates = np.array([0.3, -1.2]), np.linspace(0.0, 0.5, 6)
    assert best_of(x, rates) == pytest.approx(min(analytic_step(x, r) for r in rates), rel=1e-12)
