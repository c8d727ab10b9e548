"""Differentiable methods (issue 19): ``model.loss.grad(x, y)`` with self's attributes as constants,
``wrt=("self", ...)`` giving a gradient object of the model's class, methods of self called from the
method, static methods in either decorator order, dataclass models, and the refusal of an instance
whose class overrides a method the derivative would read from the defining class.  Checked against
autograd on the same model written as a function of its arrays, central differences and the
dot-product identity between the two modes."""

import numpy as np
import pytest

import method_funcs as F
from adcompiler.testing.oracle import check_both_modes

RNG = np.random.default_rng(3)
LAYERS = [(RNG.normal(size=(3, 2)), RNG.normal(size=3)), (RNG.normal(size=(2, 3)), RNG.normal(size=2))]
X, Y = RNG.normal(size=2), RNG.normal(size=2)


def _twin(layers, x, y, scale):
    anp = pytest.importorskip("autograd.numpy")
    h = x
    for W, b in layers:
        h = anp.tanh(W @ h + b)
    return 0.5 * anp.sum((h - y) ** 2) * scale


def test_method_gradient_against_autograd():
    ag = pytest.importorskip("autograd")
    m = F.Model(LAYERS, 1.7)
    assert m.loss(X, Y) == pytest.approx(_twin(LAYERS, X, Y, 1.7), rel=1e-12)
    gx, gy = m.loss.grad(X, Y)
    np.testing.assert_allclose(gx, ag.grad(_twin, 1)(LAYERS, X, Y, 1.7), rtol=1e-10)
    np.testing.assert_allclose(gy, ag.grad(_twin, 2)(LAYERS, X, Y, 1.7), rtol=1e-10)


def test_gradient_with_respect_to_self_is_a_model():
    ag = pytest.importorskip("autograd")
    m = F.Model(LAYERS, 1.7)
    g_self, g_x = m.loss_all.grad(X, Y)
    assert type(g_self) is F.Model and g_self.name is None  # a string attribute has no derivative
    expected = ag.grad(_twin, 0)(LAYERS, X, Y, 1.7)
    for (gW, gb), (eW, eb) in zip(g_self.layers, expected):
        np.testing.assert_allclose(gW, eW, rtol=1e-10)
        np.testing.assert_allclose(gb, eb, rtol=1e-10)
    np.testing.assert_allclose(g_self.scale, _twin(LAYERS, X, Y, 1.0), rtol=1e-10)
    np.testing.assert_allclose(g_x, ag.grad(_twin, 1)(LAYERS, X, Y, 1.7), rtol=1e-10)


def test_bound_jvp_and_vjp_agree():
    m = F.Model(LAYERS, 1.7)
    v = (RNG.normal(size=2), RNG.normal(size=2))
    value, tangent = m.loss.jvp((X, Y), v)
    value2, cts = m.loss.vjp((X, Y), 1.0)
    assert value == value2
    assert tangent == pytest.approx(float(cts[0] @ v[0] + cts[1] @ v[1]), rel=1e-10)
    h = 1e-6
    fd = (m.loss(X + h * v[0], Y + h * v[1]) - m.loss(X - h * v[0], Y - h * v[1])) / (2 * h)
    assert tangent == pytest.approx(fd, rel=1e-6)


def test_static_methods_both_orders():
    assert F.Model.static_first.grad(0.7) == pytest.approx(np.sin(0.7) + 0.7 * np.cos(0.7), rel=1e-12)
    assert F.Model(LAYERS, 1.0).static_second.grad(0.7) == pytest.approx(np.cos(0.7) - 0.7 * np.sin(0.7), rel=1e-12)


def test_dataclass_model_both_modes():
    check_both_modes(F.Affine.energy.fn, (F.Affine(0.8, RNG.normal(size=3)), RNG.normal(size=3)))
    g_self, _ = F.Affine(0.8, np.ones(3)).energy.grad(np.arange(3.0))
    assert type(g_self) is F.Affine and g_self.w.shape == (3,)


def test_subclass_overriding_a_called_method_is_refused():
    with pytest.raises(TypeError, match="Linear overrides act of Model"):
        F.Linear(LAYERS, 1.0).loss.grad(X, Y)
    same = F.Same(LAYERS, 1.0).loss.grad(X, Y)
    np.testing.assert_allclose(same[0], F.Model(LAYERS, 1.0).loss.grad(X, Y)[0], rtol=1e-14)


def test_functional_api_and_differentiate_take_bound_methods():
    ag = pytest.importorskip("autograd")
    import adcompiler

    m = F.Model(LAYERS, 1.7)
    expected = ag.grad(_twin, 1)(LAYERS, X, Y, 1.7)
    np.testing.assert_allclose(adcompiler.grad(m.loss)(X, Y), expected, rtol=1e-10)
    value, g = adcompiler.value_and_grad(m.loss, argnums=(0, 1))(X, Y)
    np.testing.assert_allclose(g[0], expected, rtol=1e-10)
    out, pullback = adcompiler.vjp(m.forward, X)
    (ct,) = pullback(np.ones(2))
    J = adcompiler.jacrev(m.forward)(X)
    assert J.shape == (2, 2)
    np.testing.assert_allclose(ct, J.T @ np.ones(2), rtol=1e-10)
    _, tangent = adcompiler.jvp(m.forward, (X,), (np.array([1.0, 0.0]),))
    np.testing.assert_allclose(tangent, J[:, 0], rtol=1e-10)
    _, (ct2,) = adcompiler.differentiate(m.forward).vjp((X,), np.ones(2))  # Python's bound method
    np.testing.assert_allclose(ct2, ct, rtol=1e-14)
    with pytest.raises(TypeError, match="overrides act"):
        adcompiler.grad(F.Linear(LAYERS, 1.0).loss)(X, Y)


def test_positions_in_wrt_of_a_bound_method_count_the_arguments_after_self():
    """differentiate(m.misfit, wrt=(1,)) is d/dy, as grad(m.misfit, argnums=1) and as the call m.misfit(x, y)
    counts (it gave d/dx, counting self; x and y of one shape, so nothing else told)."""
    ag = pytest.importorskip("autograd")
    import adcompiler

    m = F.Model(LAYERS, 1.7)
    dx, dy = (ag.grad(_twin, k)(LAYERS, X, Y, 1.7) for k in (1, 2))
    assert np.max(np.abs(dx - dy)) > 0.1
    for wrt, expected in [((1,), (dy,)), ((-2,), (dx,)), ((0, 1), (dx, dy)), ((1, "x"), (dy, dx))]:
        g = adcompiler.differentiate(m.misfit, wrt=wrt).grad(X, Y)
        g = g if len(expected) > 1 else (g,)
        for got, want in zip(g, expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(adcompiler.differentiate(m.misfit, wrt=1).grad(X, Y), dy, rtol=1e-10)
    np.testing.assert_allclose(adcompiler.grad(m.misfit, argnums=1)(X, Y), dy, rtol=1e-10)
    with pytest.raises(ValueError, match=r"wrt position 2 is out of range: misfit\(x, y\) has 2 parameters"):
        adcompiler.differentiate(m.misfit, wrt=(2,))
