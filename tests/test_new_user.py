"""The new-user programs of issue 37 (samples/new_user.py), run unchanged: logistic regression with dict
parameters fitted through scipy.optimize, an MLP on a list of (W, b) trained by SGD, an RK4 integrator
that unpacks its state, and a model class with layer objects whose loss returns a dict of metrics
(has_aux), and an N-body simulation on both backends.  Each gradient is checked against autograd on the
same program written with autograd.numpy (the RK4 and N-body ones against central differences)."""

import importlib.util
import os

import numpy as np
import pytest

import adcompiler
from adcompiler.testing.oracle import fd_jacobian

SAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples", "new_user.py")
spec = importlib.util.spec_from_file_location("new_user", SAMPLE)
U = importlib.util.module_from_spec(spec)
spec.loader.exec_module(U)
RNG = np.random.default_rng(11)


def test_logistic_regression_with_dict_parameters():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    X = RNG.normal(size=(40, 3))
    y = (X @ np.array([1.5, -2.0, 0.5]) > 0).astype(float)
    params = {"w": RNG.normal(size=3), "b": np.array(0.2)}

    def twin(p):
        z = X @ p["w"] + p["b"]
        return anp.mean(anp.logaddexp(0.0, z) - y * z) + 0.01 * anp.sum(p["w"] ** 2)

    g, e = adcompiler.grad(U.logistic_loss)(params, X, y), ag.grad(twin)(params)
    assert set(g) == {"w", "b"}
    np.testing.assert_allclose(g["w"], e["w"], rtol=1e-10)
    np.testing.assert_allclose(g["b"], e["b"], rtol=1e-10)
    fitted, fit = U.fit_logistic(X, y)
    assert fit.success and U.logistic_loss(fitted, X, y) < U.logistic_loss(params, X, y)


def test_mlp_sgd_on_a_list_of_tuples():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    layers = [(RNG.normal(size=(4, 2)), RNG.normal(size=4)), (RNG.normal(size=(1, 4)), RNG.normal(size=1))]
    xs = [RNG.normal(size=2) for _ in range(5)]
    ys = [np.array([x[0] * x[1]]) for x in xs]

    def twin(layers):
        total = 0.0
        for x, y in zip(xs, ys):
            h = x
            for W, b in layers[:-1]:
                h = anp.tanh(W @ h + b)
            W, b = layers[-1]
            total = total + anp.sum((W @ h + b - y) ** 2)
        return total / len(xs)

    g, e = adcompiler.grad(U.batch_loss)(layers, xs, ys), ag.grad(twin)(layers)
    for (gW, gb), (eW, eb) in zip(g, e):
        np.testing.assert_allclose(gW, eW, rtol=1e-10)
        np.testing.assert_allclose(gb, eb, rtol=1e-10)
    assert U.batch_loss(U.sgd(layers, xs, ys, steps=10), xs, ys) < U.batch_loss(layers, xs, ys)


def test_rk4_with_an_unpacked_state():
    y0, theta = np.array([1.0, 0.5, 0.8, 0.3]), np.array([1.1, 0.4])
    g_y0, g_theta = adcompiler.grad(U.rk4_loss, argnums=(0, 1))(y0, theta)
    np.testing.assert_allclose(g_y0, fd_jacobian(U.rk4_loss, (y0, theta), [0])[0], rtol=1e-6)
    np.testing.assert_allclose(g_theta, fd_jacobian(U.rk4_loss, (y0, theta), [1])[0], rtol=1e-6)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])  # (a long compile)
def test_nbody_on_each_backend(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    pos, vel, masses = RNG.standard_normal((4, 3)), 0.1 * RNG.standard_normal((4, 3)), RNG.uniform(0.5, 1.5, 4)
    args = (pos, vel, masses, 0.01, 5)
    d = adcompiler.differentiate(U.nbody_kinetic_energy, wrt=("pos", "vel", "masses"), backend=backend)
    got = d.grad(*args)
    for k, g in enumerate(got):
        want = fd_jacobian(U.nbody_kinetic_energy, args, [k])[0].reshape(args[k].shape)
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-9)
        assert g.shape == args[k].shape and g.dtype == args[k].dtype


def test_model_with_layer_objects_and_dict_metrics():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    model = U.Model(
        [U.Dense(RNG.normal(size=(5, 3)), RNG.normal(size=5)), U.Dense(RNG.normal(size=(2, 5)), np.zeros(2))]
    )
    x, target = RNG.normal(size=3), np.ones(2)
    g, metrics = adcompiler.grad(U.Model.loss_and_metrics, has_aux=True)(model, x, target)
    assert type(g) is U.Model and all(type(layer) is U.Dense for layer in g.layers)
    assert set(metrics) == {"mse", "max_error"}
    assert metrics["mse"] == pytest.approx(U.Model.loss_and_metrics(model, x, target)[0], rel=1e-12)

    def twin(arrays):
        h = x
        for W, b in arrays:
            h = anp.tanh(W @ h + b)
        return anp.mean((h - target) ** 2)

    expected = ag.grad(twin)([(layer.W, layer.b) for layer in model.layers])
    for layer, (eW, eb) in zip(g.layers, expected):
        np.testing.assert_allclose(layer.W, eW, rtol=1e-10)
        np.testing.assert_allclose(layer.b, eb, rtol=1e-10)


def test_the_oracle_takes_a_number_and_an_array_returned_together():
    """``check_both_modes`` of a function returning ``(loss, activations)``: its check of the scalar case
    read ``np.ndim`` of the pair, a ValueError of NumPy's (an inhomogeneous shape) after every check passed."""
    from adcompiler.testing.oracle import check_both_modes

    def loss_and_activations(x, W):
        h = W @ x
        return np.sum(h**2), np.tanh(h)

    check_both_modes(loss_and_activations, (np.array([0.5, -1.0, 2.0]), np.full((2, 3), 0.3)))
