"""The fast entry for records (issue 37 item 6): a gradient through a dict or object argument describes
the argument's structure once per distinct structure (``analysis.flattening``: a type test per part
written for it), not on every call.  Later calls like the first skip ``values.signature``; calls of
another structure (another key, another dtype or ndim, keys in another order, a list where an array
was) take the checking method and get their own code; code built from a module global that changed
is built again.  Every result is checked against autograd or central differences."""

import numpy as np
import pytest

import adcompiler
import object_funcs as F
from adcompiler.analysis import values as V
from adcompiler.testing.oracle import fd_jacobian

RNG = np.random.default_rng(6)
X, Y = RNG.normal(size=(20, 3)), (RNG.random(20) > 0.5).astype(float)


def _params(dtype=np.float64):
    return {"w": RNG.normal(size=3).astype(dtype), "b": np.array(0.3, dtype=dtype)}


def _autograd_logistic(params):
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def twin(p):
        z = X @ p["w"] + p["b"]
        return anp.mean(anp.logaddexp(0.0, z) - Y * z) + 0.01 * anp.sum(p["w"] ** 2)

    return ag.grad(twin)({k: np.asarray(v, float) for k, v in params.items()})


def _no_signature(monkeypatch):
    def refused(args):
        raise AssertionError("the arguments were described again")

    monkeypatch.setattr(V, "signature", refused)


def test_later_calls_skip_describing_the_arguments(monkeypatch):
    grad = adcompiler.grad(F.logistic)
    first = _params()
    grad(first, X, Y)  # the first call describes the arguments and makes the entry
    _no_signature(monkeypatch)
    for _ in range(3):
        params = _params()
        g = grad(params, X, Y)
        e = _autograd_logistic(params)
        assert type(g) is dict and list(g) == ["w", "b"]
        np.testing.assert_allclose(g["w"], e["w"], rtol=1e-10)
        np.testing.assert_allclose(g["b"], e["b"], rtol=1e-10)
    monkeypatch.undo()
    vg = adcompiler.value_and_grad(F.logistic)
    vg(first, X, Y)
    _no_signature(monkeypatch)
    value, g = vg(_params(), X, Y)
    value, g = vg(first, X, Y)
    assert value == pytest.approx(F.logistic(first, X, Y), rel=1e-12)
    np.testing.assert_allclose(g["w"], _autograd_logistic(first)["w"], rtol=1e-10)


@pytest.mark.parametrize(
    "other",
    [
        lambda: {"b": np.array(0.1), "w": RNG.normal(size=3)},  # keys in another order
        lambda: {"w": RNG.normal(size=3), "b": 0.2},  # a float where a 0-d array was
        lambda: {"w": RNG.normal(size=3), "b": np.array(0.1), "c": 1.0},  # another key
        lambda: {"w": RNG.normal(size=(3, 1))[:, 0].copy(), "b": np.array([0.1])},  # another ndim
        lambda: _params(np.float32),  # another dtype
    ],
    ids=["key-order", "float", "key", "ndim", "float32"],
)
def test_another_structure_takes_the_checking_method(other):
    grad = adcompiler.grad(F.logistic)
    grad(_params(), X, Y)
    grad(_params(), X, Y)
    params = other()
    g = grad(params, X, Y)
    e = _autograd_logistic(params)
    assert list(g) == list(params)
    rtol = 1e-4 if np.asarray(params["b"]).dtype == np.float32 else 1e-10
    for k in params:
        np.testing.assert_allclose(np.asarray(g[k], float), e[k], rtol=rtol)
        assert type(g[k]) is type(params[k])
    g = grad(_params(), X, Y)  # and the first structure still
    assert type(g["b"]) is np.ndarray


def test_objects_and_lists_of_them(monkeypatch):
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def layers():
        return [
            F.Dense(RNG.normal(size=(4, 3)), RNG.normal(size=4)),
            F.Dense(RNG.normal(size=(2, 4)), RNG.normal(size=2)),
        ]

    def twin(arrays, x):
        h = x
        for W, b in arrays:
            h = anp.tanh(W @ h + b)
        return anp.sum(h**2)

    grad = adcompiler.grad(F.layers_forward)
    x = RNG.normal(size=3)
    grad(layers(), x)
    _no_signature(monkeypatch)
    for _ in range(2):
        held = layers()
        g = grad(held, x)
        assert [type(layer) for layer in g] == [F.Dense, F.Dense]
        expected = ag.grad(twin)([(layer.W, layer.b) for layer in held], x)
        for layer, (eW, eb) in zip(g, expected):
            np.testing.assert_allclose(layer.W, eW, rtol=1e-10)
            np.testing.assert_allclose(layer.b, eb, rtol=1e-10)
    monkeypatch.undo()
    three = layers() + [F.Dense(RNG.normal(size=(2, 2)), RNG.normal(size=2))]  # a longer list: its own code
    g = grad(three, x)
    expected = ag.grad(twin)([(layer.W, layer.b) for layer in three], x)
    np.testing.assert_allclose(g[2].W, expected[2][0], rtol=1e-10)


def test_a_changed_global_builds_the_code_again(monkeypatch):
    grad = adcompiler.grad(F.through_helper)
    params, x = {"w": RNG.normal(size=3)}, RNG.normal(size=3)
    grad(params, x)
    grad(params, x)
    monkeypatch.setattr(F, "squash", np.sin)  # the helper replaced: the entry's code is stale
    g = grad(params, x)
    expected = fd_jacobian(lambda w: np.sum(np.sin(w * x) ** 2), (params["w"],), [0])[0]
    np.testing.assert_allclose(g["w"], expected, rtol=1e-6)
