"""Records as parameters, locals and results (issues 18 and 19): dicts of parameters as JAX users pass
them, dicts built in the function, NamedTuples and dataclasses.  Each case is checked in both modes
against central differences, the dot-product identity and the primal's structure (a cotangent of a
dict is a dict of the same keys, of a dataclass the same dataclass; check_both_modes), against
autograd where it takes the same structures (dicts, lists, tuples), and at second order through the
functional API.  What Python would not do with a record is refused with its location."""

import numpy as np
import pytest

import adcompiler
from shared import written
import record_funcs as F
from adcompiler.errors import UnsupportedSyntaxError
from adcompiler.testing.oracle import check_both_modes, leaves

RNG = np.random.default_rng(7)
MLP = {"W1": RNG.normal(size=(3, 2)), "b1": RNG.normal(size=3), "W2": RNG.normal(size=(2, 3)), "b2": RNG.normal(size=2)}
X = RNG.normal(size=2)
LAYERS = [
    {"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=3)},
    {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2)},
]
SHAPES = {
    "cube": RNG.normal(size=(2, 3, 2)),
    "one": np.array([0.7]),
    "zero_d": np.array(1.3),
    "s": 0.4,
}
SAME = {"a": 1.3, "b": -0.4}
NETWORK = {
    "first": {"W": RNG.normal(size=(2, 2)), "b": RNG.normal(size=2)},
    "second": {"W": RNG.normal(size=(2, 2)), "b": RNG.normal(size=2)},
}

CASES = [
    (F.mlp, (MLP, X)),
    (F.reg, (MLP, X)),
    (F.gen, (MLP, 1.5)),
    (F.calls, ({"a": 1.2, "b": -0.7}, 0.4)),
    (F.literal, (0.3, 1.1)),
    (F.items, (0.8,)),
    (F.returns_dict, (0.7,)),
    (F.scalars, ({"a": 1.2, "b": 0.5, "c": 0.3},)),
    (F.nested, ({"layer": {"w": 1.3}, "scale": 0.5, "layers": [0.2, 0.9]},)),
    (F.nt, (F.Point(1.5, -0.5),)),
    (F.nt_iter, (F.Point(1.5, -0.5),)),
    (F.dc, (F.Params(RNG.normal(size=3), 0.2), 0.7)),
    (F.get_default, (0.9,)),
    (F.list_of_dicts, (LAYERS, X)),
    (F.shapes, (SHAPES,)),
    (F.twice, ({"a": 1.3, "b": -0.4}, {"a": 0.6, "b": 2.0})),
    (F.twice, (SAME, SAME)),
    (F.dict_out_arrays, ({"W": RNG.normal(size=(3, 2))}, X)),
    (F.builds_and_applies, (RNG.normal(size=(3, 2)), RNG.normal(size=3), X)),
    (F.branches, ({"gate": 0.5, "w": 1.5}, 0.7)),
    (F.branches, ({"gate": -0.5, "w": 1.5}, 0.7)),
    (F.while_loop, ({"limit": 3.0, "rate": 1.3}, 0.5)),
    (F.nested_records, ({"scale": F.Scale(0.5, 2.0), "items": [{"w": 1.5}, {"w": -0.5}]}, [1.7])),
    (F.frozen, (F.Frozen(0.8, RNG.normal(size=(2, 2))),)),
    (F.many_keys, ({f"k{i}": 0.1 * i + 0.3 for i in range(20)},)),
    (F.literal_items_arrays, (RNG.normal(size=(2, 2)), RNG.normal(size=2))),
    (F.copies, (0.9,)),
    (F.optional_bias, (1.5, 2.0)),
    (F.optional_bias, (1.5, 2.0, 0.5)),
    (F.optional_default, (1.5,)),
    (F.optional_default, (1.5, 3.0)),
    (F.optional_branches, (RNG.normal(size=3),)),
    (F.optional_branches, (RNG.normal(size=3), RNG.normal(size=3))),
    (F.optional_in_dict, ({"W": RNG.normal(size=(3, 2)), "b": None}, X)),
    (F.optional_in_dict, ({"W": RNG.normal(size=(3, 2)), "b": RNG.normal(size=3)}, X)),
    (F.layers_by_key, (NETWORK, X)),
    (F.layers_by_module_keys, (NETWORK, X)),
    (F.dict_built_by_key, (NETWORK, X)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_both_modes(f, args):
    wrt = [p for p, a in zip(adcompiler.differentiate(f).params, args) if a is not None and not _holds_none(a)]
    check_both_modes(f, args, wrt=wrt)


def _holds_none(value) -> bool:
    return isinstance(value, dict) and any(v is None for v in value.values())


def test_none_argument_has_no_derivative():
    """The cotangent of a None argument (or item) is None, not a zero; a test for None that the
    arguments decide keeps only the branch Python takes (adding None to a number is never generated)."""
    d = adcompiler.differentiate(F.optional_bias)
    assert d.grad(1.5, 2.0, None) == (2.0, 1.5, None)
    g = adcompiler.grad(F.optional_in_dict)({"W": MLP["W1"], "b": None}, X)
    assert g["b"] is None and g["W"].shape == (3, 2)
    assert "bias" not in d.source("reverse").split("def ")[1].split(":", 1)[1]  # only in the parameter list


def test_gradient_of_dict_is_dict_of_same_keys():
    g = adcompiler.grad(F.mlp)(MLP, X)
    assert list(g) == list(MLP) and all(g[k].shape == MLP[k].shape for k in MLP)


def test_mlp_against_autograd():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def twin(params, x):
        h = anp.tanh(params["W1"] @ x + params["b1"])
        return anp.sum(params["W2"] @ h + params["b2"])

    expected = ag.grad(twin)(MLP, X)
    got = adcompiler.grad(F.mlp)(MLP, X)
    for k in MLP:
        np.testing.assert_allclose(got[k], expected[k], rtol=1e-12)


def test_list_of_dicts_against_autograd():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def twin(layers, x):
        h = x
        for layer in layers:
            h = anp.tanh(layer["W"] @ h + layer["b"])
        return anp.sum(h)

    expected = ag.grad(twin)(LAYERS, X)
    got = adcompiler.grad(F.list_of_dicts)(LAYERS, X)
    assert isinstance(got, list) and all(isinstance(g, dict) for g in got)
    for e, g in zip(expected, got):
        for k in e:
            np.testing.assert_allclose(g[k], e[k], rtol=1e-12)


def test_jvp_takes_dict_tangents_and_gives_dict_outputs():
    p, x = {"W": RNG.normal(size=(3, 2))}, X
    t = {"W": RNG.normal(size=(3, 2))}
    value, tangent = adcompiler.differentiate(F.dict_out_arrays, wrt=("p",)).jvp((p, x), (t,))
    assert set(value) == set(tangent) == {"h", "norm", "first"}
    h = 1e-6
    plus = F.dict_out_arrays({"W": p["W"] + h * t["W"]}, x)
    minus = F.dict_out_arrays({"W": p["W"] - h * t["W"]}, x)
    for k in value:
        np.testing.assert_allclose(tangent[k], (plus[k] - minus[k]) / (2 * h), rtol=1e-6, atol=1e-9)


def test_value_and_grad_and_functional_argnums():
    value, g = adcompiler.differentiate(F.scalars).value_and_grad({"a": 1.2, "b": 0.5, "c": 0.3})
    assert value == F.scalars({"a": 1.2, "b": 0.5, "c": 0.3}) and set(g) == {"a", "b", "c"}
    ga, gx = adcompiler.grad(F.calls, argnums=(0, 1))({"a": 1.2, "b": -0.7}, 0.4)
    assert set(ga) == {"a", "b"} and isinstance(gx, float)
    np.testing.assert_allclose(ga["a"], -0.7 * 0.4, rtol=1e-12)


def test_second_order_through_a_dict():
    """d/dp of the gradient of scalars(p) (hvp along a dict direction), against differences of grad."""
    p = {"a": 1.2, "b": 0.5, "c": 0.3}
    v = {"a": 0.3, "b": -0.2, "c": 0.9}
    grad = adcompiler.differentiate(F.scalars).grad
    grad(p)  # the derivative code of the last call's signature is what differentiate(grad) differentiates
    value, got = adcompiler.differentiate(grad).jvp((p,), (v,))
    assert isinstance(got, tuple)  # derivative code takes and gives a record as the tuple of its items
    h = 1e-6
    plus = grad({k: p[k] + h * v[k] for k in p})
    minus = grad({k: p[k] - h * v[k] for k in p})
    for k, g in zip(p, got):
        np.testing.assert_allclose(g, (plus[k] - minus[k]) / (2 * h), rtol=1e-6, atol=1e-9)


REFUSED = [
    (F.iterate_dict, ({"a": 1.0},), "iterating over it"),
    (F.keys_of_argument, ({"a": 1.0},), ".keys()"),
    (F.attribute_of_dict, ({"a": 1.0},), "the attribute .a of a dict"),
    (F.string_index_namedtuple, (F.Point(1.0, 2.0),), "['x'] of a Point"),
    (F.change_in_loop, (0.5,), "changing the dict d in a loop or branch"),
    (F.change_after_alias, (0.5,), "changing the dict d after"),
    (F.change_after_stored, (0.5,), "changing the dict d after"),
    (F.change_argument, ({"a": 1.0},), "changing a dict"),
    (F.missing_key, (0.5,), "the key 'b'"),
    (F.missing_argument_key, ({"a": 1.0},), "['nope']"),
    (F.attribute_of_float, (0.5,), "the attribute .value of a float"),
    (F.unpack_dict, (0.5,), "unpacking a dict"),
    (F.computed_key, (0.5, "a"), "a dict key that is not a string constant"),
    (F.computed_key_argument, ({"k0": 1.0, "k1": 2.0, "k2": 3.0},), "a key computed at run time"),
    (F.optional_reassigned, (1.5, None), "s = 2.0 if scale is None else scale"),
    (F.comprehension_over_argument, ({"a": 1.0},), "a dict comprehension over this"),
    (F.jump_in_a_key_loop, (0.5,), "break in a loop over constant keys"),
]


@pytest.mark.parametrize("f, args, words", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
@pytest.mark.parametrize("entry", ["grad", "vjp", "jvp"])
def test_refused_with_location(f, args, words, entry):
    d = adcompiler.differentiate(f, wrt=(adcompiler.differentiate(f).params[0],))
    if f is F.optional_reassigned and entry == "jvp":  # forward mode carries each path's value: right
        assert d.jvp(args, (1.0,)) == (3.0, 2.0)
        return
    with pytest.raises(UnsupportedSyntaxError) as info:
        if entry == "grad":
            d.grad(*args)
        elif entry == "vjp":
            d.vjp(args, 1.0)
        else:
            d.jvp(args, (args[0],))
    message = str(info.value)
    assert "record_funcs.py:" in message and words in message, message


def test_records_as_leaves_of_oracle():
    """The oracle itself: leaves and structure of records (so check_both_modes checks them)."""
    assert leaves({"a": 1.0, "b": np.array([2.0, 3.0])}) == [1.0, 2.0, 3.0]
    assert leaves(F.Point(1.0, 2.0)) == [1.0, 2.0]


def test_jacobian_hessian_hvp_of_dicts():
    """jacfwd / jacrev give a dict of blocks (out.shape + item.shape); hessian and hvp in key order,
    against central differences of the gradient."""
    p = {"a": 1.2, "b": np.array([0.5, -0.3]), "c": 0.3}

    def f(p):
        return p["a"] ** 2 * np.sum(p["b"] ** 3) + np.sin(p["c"]) * p["a"]

    for jac in (adcompiler.jacfwd, adcompiler.jacrev):
        J = jac(f)(p)
        assert set(J) == {"a", "b", "c"} and np.shape(J["b"]) == (2,) and np.shape(J["a"]) == ()
        g = adcompiler.grad(f)(p)
        for k in p:
            np.testing.assert_allclose(J[k], g[k], rtol=1e-12)
    H = adcompiler.hessian_matrix(f)(p)
    grad = adcompiler.grad(f)
    flat = lambda q: np.concatenate([np.ravel(q[k]) for k in ("a", "b", "c")])  # noqa: E731
    x0 = flat(p)
    cols = []
    for j in range(x0.size):
        e = np.zeros_like(x0)
        e[j] = 1e-6
        unflat = lambda x: {"a": x[0], "b": x[1:3], "c": x[3]}  # noqa: E731
        cols.append((flat(grad(unflat(x0 + e))) - flat(grad(unflat(x0 - e)))) / 2e-6)
    np.testing.assert_allclose(H, np.array(cols).T, rtol=1e-6, atol=1e-8)
    v = {"a": 0.3, "b": np.array([1.0, -2.0]), "c": 0.5}
    hv = adcompiler.hvp(f)((p,), v)  # v and H v shaped like the argument, as JAX's hvp
    assert set(hv) == {"a", "b", "c"}
    np.testing.assert_allclose(flat(hv), H @ flat(v), rtol=1e-10)
    np.testing.assert_allclose(flat(adcompiler.hvp(f)(p, v)), H @ flat(v), rtol=1e-10)
    Hd = adcompiler.hessian(f)(p)  # JAX's shape for a dict: a dict of dicts of blocks
    assert set(Hd) == {"a", "b", "c"} and np.shape(Hd["b"]["b"]) == (2, 2) and np.shape(Hd["a"]["b"]) == (2,)
    np.testing.assert_allclose(Hd["b"]["c"], H[1:3, 3], rtol=1e-12)


def test_dict_of_params_through_scipy_optimize():
    """A least-squares fit whose parameters are a dict, minimised by scipy.optimize with adcompiler's
    gradient (ravel gives the vector and its inverse), reaching the normal equations' solution."""
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(5)
    A, y = rng.normal(size=(20, 3)), rng.normal(size=20)
    x0, unravel = adcompiler.ravel({"w": np.zeros(3), "c": 0.0})
    grad = adcompiler.grad(F.least_squares)

    def fun(v):
        return F.least_squares(unravel(v), A, y)

    def jac(v):
        return adcompiler.ravel(grad(unravel(v), A, y))[0]

    result = optimize.minimize(fun, x0, jac=jac, method="BFGS", options={"gtol": 1e-10})
    design = np.hstack([A, np.ones((20, 1))])
    expected = np.linalg.lstsq(design, y, rcond=None)[0]
    found = unravel(result.x)
    np.testing.assert_allclose(np.append(found["w"], found["c"]), expected, rtol=1e-6, atol=1e-8)


def test_check_grad_takes_records():
    """check_grad perturbs a record's items in key order (central differences and the complex step)."""
    assert adcompiler.check_grad(F.mlp, MLP, X) < 1e-8
    assert adcompiler.check_grad(F.nt, F.Point(1.5, -0.5)) < 1e-8
    assert adcompiler.check_grad(F.dc, F.Params(RNG.normal(size=3), 0.2), 0.7) < 1e-8


def test_a_misspelt_key_is_a_key_error_at_its_line(tmp_path):
    """params["bias"] of a dict without that key: a KeyError, as the primal raises (located: an
    UnsupportedSyntaxError too); the message said "... has no such key is not supported" before."""
    namespace = written(tmp_path, "lookup", "def lookup(params, x):\n    return params['w'] * x + params['bias']\n")
    with pytest.raises(KeyError) as told:
        adcompiler.grad(namespace["lookup"])({"w": 1.0, "b": 2.0}, 0.5)
    assert "lookup.py:2:" in str(told.value) and "KeyError: 'bias'" in str(told.value)


def test_loops_over_constant_keys_against_autograd_and_under_numba():
    """for k in ["first", "second"]: params[k] ..., and dict comprehensions over keys (refused before: 'a key
    computed at run time', 'a dict comprehension')."""
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def twin(params, x):
        h = x
        for k in ["first", "second"]:
            h = anp.tanh(anp.dot(params[k]["W"], h) + params[k]["b"])
        return anp.sum(h * h)

    want = ag.grad(twin)(NETWORK, X)
    for backend in ("python", "numba"):
        if backend == "numba":
            pytest.importorskip("numba")
        got, _ = adcompiler.differentiate(F.layers_by_key, backend=backend).grad(NETWORK, X)
        for k in NETWORK:
            for name in ("W", "b"):
                np.testing.assert_allclose(got[k][name], want[k][name], rtol=1e-12)


def test_a_module_list_of_keys_changed_builds_again():
    d = adcompiler.differentiate(F.layers_by_module_keys, wrt=("params",))
    before = d.grad(NETWORK, X)
    try:
        F.NAMES = ("second", "first")  # the same keys in the other order: the layers applied the other way
        after = d.grad(NETWORK, X)
        want = adcompiler.differentiate(F.layers_by_module_keys, wrt=("params",)).grad(NETWORK, X)
    finally:
        F.NAMES = ("first", "second")
    assert not np.allclose(before["first"]["W"], after["first"]["W"])
    np.testing.assert_allclose(after["first"]["W"], want["first"]["W"], rtol=1e-12)
