"""Records and objects as users build them (issue 37 items 3-4): NamedTuples and dataclasses made in the
function (locals and results, defaults filled in, keyword construction, unpacking), ``@property`` read
through self, closures over a dict of parameters or a list of functions, ``custom_jvp``/``custom_vjp``
with ``nondiff_argnums`` as JAX spells them, and calls through objects (``layer(h)``,
``layer.forward(h)``, static and inherited methods) held in lists, tuples, dicts and attributes, the
gradient coming back in the same objects.  Checked against autograd on the same computation written on
arrays, central differences and the dot-product identity (check_both_modes); what cannot be called so
is refused at the user's line."""

import numpy as np
import pytest

import adcompiler
import object_funcs as F
from adcompiler.errors import UnsupportedSyntaxError
from adcompiler.testing.oracle import check_both_modes, fd_jacobian

RNG = np.random.default_rng(37)
X = RNG.normal(size=3)


def _layers(cls=F.Dense):
    return [F.Dense(RNG.normal(size=(4, 3)), RNG.normal(size=4)), cls(RNG.normal(size=(2, 4)), RNG.normal(size=2))]


def _twin(arrays, x, last_linear=False, scale=1.0):
    """The two-layer network on plain arrays, for autograd."""
    anp = pytest.importorskip("autograd.numpy")
    (W1, b1), (W2, b2) = arrays
    h = anp.tanh(W1 @ x + b1)
    z = W2 @ h + b2
    return anp.sum((z if last_linear else anp.tanh(z)) ** 2) * scale


def _arrays(layers):
    return [(layer.W, layer.b) for layer in layers]


@pytest.mark.parametrize(
    "f, args",
    [
        (F.stats_local, (X,)),
        (F.stats_keywords, (X,)),
        (F.stats_result, (X,)),
        (F.pair_default, (X,)),
        (F.pair_passed, (X, 0.7)),
        (F.module_dict, (X,)),
        (F.chain_of_functions, (0.1 * X,)),
        (F.uses_scaled_sin, (X,)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_records_and_closures_both_modes(f, args):
    check_both_modes(f, args)


def test_custom_vjp_with_nondiff_argnums():
    g = adcompiler.grad(F.uses_power_sum)(X)  # reverse mode only, as JAX's custom_vjp
    np.testing.assert_allclose(g, 1.5 * X**2, rtol=1e-12)
    np.testing.assert_allclose(g, fd_jacobian(F.uses_power_sum, (X,), [0])[0], rtol=1e-6)


def test_records_made_inside_against_autograd():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    np.testing.assert_allclose(
        adcompiler.grad(F.stats_local)(X), ag.grad(lambda x: anp.mean(x) * anp.var(x) + anp.mean(x))(X), rtol=1e-10
    )
    jac = adcompiler.jacrev(F.stats_result)(X)  # a NamedTuple result: its Jacobian a NamedTuple of rows
    assert type(jac) is F.Stats
    np.testing.assert_allclose(jac.var, ag.grad(anp.var)(X), rtol=1e-10)
    np.testing.assert_allclose(jac.mean, np.full(3, 1 / 3), rtol=1e-12)
    g_x, g_k = adcompiler.grad(F.pair_passed, argnums=(0, 1))(X, 0.7)
    np.testing.assert_allclose(g_x, ag.grad(lambda x: anp.sum(anp.sin(x) ** 2) * 0.7)(X), rtol=1e-10)
    assert g_k == pytest.approx(float(np.sum(np.sin(X) ** 2)), rel=1e-12)


def test_property_read_through_self():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    model = F.Scaled(RNG.normal(size=3), 0.3)
    g = adcompiler.grad(F.property_loss)(model, X)
    assert type(g) is F.Scaled
    np.testing.assert_allclose(g.w, 2.0 * X**2, rtol=1e-12)
    assert g.shift == pytest.approx(float(np.sum(X**2)), rel=1e-12)
    twin = ag.grad(lambda x: anp.sum((model.w * 2.0 + 0.3) * x**2))
    np.testing.assert_allclose(adcompiler.grad(F.property_loss, argnums=1)(model, X), twin(X), rtol=1e-12)


def test_closure_over_a_dict_of_parameters():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    params = {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2)}
    loss = F.closure_over(params)
    twin = ag.grad(lambda x: anp.sum(anp.tanh(params["W"] @ x + params["b"]) ** 2))
    np.testing.assert_allclose(adcompiler.grad(loss)(X), twin(X), rtol=1e-10)
    other = F.closure_over({"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2)})  # another closure's dict
    np.testing.assert_allclose(adcompiler.grad(other)(X), fd_jacobian(other, (X,), [0])[0], rtol=1e-6)
    params["b"] = RNG.normal(size=2)  # an item replaced: read when the code runs
    np.testing.assert_allclose(adcompiler.grad(loss)(X), twin(X), rtol=1e-10)


def test_layers_in_a_list_against_autograd():
    ag = pytest.importorskip("autograd")
    layers = _layers()
    assert F.layers_forward(layers, X) == pytest.approx(_twin(_arrays(layers), X), rel=1e-12)
    g_layers, g_x = adcompiler.grad(F.layers_forward, argnums=(0, 1))(layers, X)
    assert type(g_layers) is list and all(type(g) is F.Dense for g in g_layers)
    expected = ag.grad(_twin, 0)(_arrays(layers), X)
    for g, (eW, eb) in zip(g_layers, expected):
        np.testing.assert_allclose(g.W, eW, rtol=1e-10)
        np.testing.assert_allclose(g.b, eb, rtol=1e-10)
    np.testing.assert_allclose(g_x, ag.grad(_twin, 1)(_arrays(layers), X), rtol=1e-10)


@pytest.mark.parametrize(
    "f, wrap",
    [
        (F.layers_unpacked, tuple),
        (F.layers_indexed, list),
        (F.layers_by_name, lambda ls: {"first": ls[0], "second": ls[1]}),
    ],
    ids=["tuple", "indexed", "dict"],
)
def test_layers_held_in_containers(f, wrap):
    ag = pytest.importorskip("autograd")
    layers = _layers()
    held = wrap(layers)
    g = adcompiler.grad(f)(held, X)
    firsts = g[0] if not isinstance(g, dict) else g["first"]
    assert type(firsts) is F.Dense
    if f is F.layers_unpacked:  # square of the second layer's output
        anp = pytest.importorskip("autograd.numpy")

        def twin(arrays, x):
            (W1, b1), (W2, b2) = arrays
            return anp.sum(anp.tanh(W2 @ anp.tanh(W1 @ x + b1) + b2) ** 2)

        expected = ag.grad(twin)(_arrays(layers), X)
    else:
        expected = ag.grad(_twin)(_arrays(layers), X)
    np.testing.assert_allclose(firsts.W, expected[0][0], rtol=1e-10)
    np.testing.assert_allclose(firsts.b, expected[0][1], rtol=1e-10)
    g_x = adcompiler.grad(f, argnums=1)(held, X)  # forward mode through the objects too
    np.testing.assert_allclose(adcompiler.jacfwd(f, argnums=1)(held, X), g_x, rtol=1e-10)
    np.testing.assert_allclose(g_x, fd_jacobian(f, (held, X), [1])[0], rtol=1e-6, atol=1e-9)


def test_model_holding_layers_in_an_attribute():
    ag = pytest.importorskip("autograd")
    layers = _layers()
    model = F.Model(layers, 1.5)  # for layer in self.layers: h = layer(h)
    assert F.model_call(model, X) == pytest.approx(_twin(_arrays(layers), X, False, 1.5), rel=1e-12)
    g = adcompiler.grad(F.model_call)(model, X)
    assert type(g) is F.Model and [type(layer) for layer in g.layers] == [F.Dense, F.Dense]
    expected = ag.grad(_twin)(_arrays(layers), X, False, 1.5)
    for layer, (eW, eb) in zip(g.layers, expected):
        np.testing.assert_allclose(layer.W, eW, rtol=1e-10)
        np.testing.assert_allclose(layer.b, eb, rtol=1e-10)
    assert g.scale == pytest.approx(_twin(_arrays(layers), X, False, 1.0), rel=1e-10)
    twin_x = ag.grad(_twin, 1)(_arrays(layers), X, False, 1.5)
    np.testing.assert_allclose(adcompiler.grad(model)(X), twin_x, rtol=1e-10)  # the callable object itself


def _net_twin(W1, b1, W2, b2, x):
    """``F.net_call`` on plain arrays, for autograd."""
    anp = pytest.importorskip("autograd.numpy")
    h = anp.tanh(W1 @ x + b1)
    return anp.sum(anp.tanh(W2 @ h + b2) ** 2) + 2 * anp.sum(h)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_layers_held_as_attributes_and_called(backend):
    """``self.first(x)`` where ``first`` is a layer the object holds (an attribute, not a method of its
    class), ``net.first(x)`` outside it, and the object itself called: the layer's class's ``__call__``
    (refused before as "calling .first, an attribute of a Net object")."""
    ag = pytest.importorskip("autograd")
    if backend == "numba":
        pytest.importorskip("numba")
    net = F.Net(
        F.Dense(RNG.normal(size=(4, 3)), RNG.normal(size=4)), F.Dense(RNG.normal(size=(1, 4)), RNG.normal(size=1))
    )
    arrays = (net.first.W, net.first.b, net.second.W, net.second.b)
    d = adcompiler.differentiate(F.net_call, backend=backend)
    assert d(net, X) == pytest.approx(_net_twin(*arrays, X), rel=1e-12)
    g_net, g_x = d.grad(net, X)
    expected = ag.grad(_net_twin, argnum=(0, 1, 2, 3, 4))(*arrays, X)
    assert type(g_net) is F.Net and type(g_net.first) is F.Dense
    for got, want in zip((g_net.first.W, g_net.first.b, g_net.second.W, g_net.second.b, g_x), expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10)
    v = RNG.normal(size=3)
    _, tangent = adcompiler.jvp(lambda x: F.net_call(net, x), (X,), (v,))
    assert tangent == pytest.approx(expected[4] @ v, rel=1e-10)


def test_an_object_of_the_module_called():
    """``NET(x)`` and ``NET.embed(x)`` of a network the module holds (its layers attributes): gradient, jvp
    and Hessian against autograd on the same arrays (``NET`` was "net, which has no derivative rule", and
    ``NET.second.W`` "the attribute access NET.second")."""
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    net = F.NET

    def twin(x):
        h = anp.tanh(net.first.W @ x + net.first.b)
        y = anp.tanh(net.second.W @ h + net.second.b)
        return anp.sum(y**2) + anp.sum(h) + anp.sum(net.second.W @ anp.tanh(x[:2]))

    x = np.array([0.3, -0.4, 0.8])
    assert F.module_net(x) == pytest.approx(twin(x), rel=1e-12)
    np.testing.assert_allclose(adcompiler.grad(F.module_net)(x), ag.grad(twin)(x), rtol=1e-10)
    np.testing.assert_allclose(adcompiler.hessian(F.module_net)(x), ag.hessian(twin)(x), rtol=1e-9, atol=1e-12)
    v = np.array([1.0, 2.0, -1.0])
    _, tangent = adcompiler.jvp(F.module_net, (x,), (v,))
    assert tangent == pytest.approx(ag.grad(twin)(x) @ v, rel=1e-10)


def test_dispatch_on_each_objects_class():
    ag = pytest.importorskip("autograd")
    layers = _layers(F.Shifted)  # the second's __call__ is Shifted's (linear), its forward inherited
    held = tuple(layers)
    g_layers, g_x = adcompiler.grad(F.layers_indexed, argnums=(0, 1))(held, X)
    assert [type(layer) for layer in g_layers] == [F.Dense, F.Shifted]
    expected = ag.grad(_twin)(_arrays(layers), X, True)
    for layer, (eW, eb) in zip(g_layers, expected):
        np.testing.assert_allclose(layer.W, eW, rtol=1e-10)
        np.testing.assert_allclose(layer.b, eb, rtol=1e-10)
    np.testing.assert_allclose(g_x, ag.grad(_twin, 1)(_arrays(layers), X, True), rtol=1e-10)
    with pytest.raises(UnsupportedSyntaxError, match="whose class is not known") as info:  # one loop, two classes
        adcompiler.grad(F.model_call)(F.Model(layers, 1.0), X)
    assert f"object_funcs.py:{F.Model.__call__.__code__.co_firstlineno + 3}:" in str(info.value)


def test_methods_called_through_their_class():
    obj = F.Pairs(X)
    g_obj, g_x = adcompiler.grad(F.through_the_class, argnums=(0, 1))(obj, X)
    np.testing.assert_allclose(g_obj.w, X * X, rtol=1e-12)  # sum(w x * x)
    np.testing.assert_allclose(g_x, 2 * obj.w * X + 2 * X, rtol=1e-12)
    np.testing.assert_allclose(g_x, fd_jacobian(F.through_the_class, (obj, X), [1])[0], rtol=1e-6)


def test_static_method_through_an_object():
    layer = F.Dense(RNG.normal(size=(3, 3)), RNG.normal(size=3))
    g = adcompiler.grad(F.static_through_object, argnums=1)(layer, X)
    np.testing.assert_allclose(g, fd_jacobian(F.static_through_object, (layer, X), [1])[0], rtol=1e-6)


@pytest.mark.parametrize(
    "f, args, words, line",
    [
        (F.array_method, (X,), ["the method .foo()", "1-D float64 array", "numpy function"], 1),
        (F.array_called, (X,), ["calling a local variable holding a 1-D float64 array", "__call__"], 2),
        (F.no_such_method, (F.Pairs(X), X), ["the method .bar() of a Pairs, a class with no method bar"], 1),
        (F.method_returning_tuple, (F.Pairs(X), X), ["Pairs.both, which returns a tuple", "Pairs.both(obj, ...)"], 1),
        (F.keyword_through_object, (F.Pairs(X), X), ["keyword arguments in a call through an object"], 1),
        (F.function_attribute, (F.Activated(X), X), ["calling .act, an attribute of a Activated object"], 1),
        (F.replaced, (F.Pair(0.5, 0.2), X), ["dataclasses.replace(p, a=p.a * 2.0)", "**changes"], 1),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_refused_at_the_users_line(f, args, words, line):
    with pytest.raises(UnsupportedSyntaxError) as info:
        adcompiler.grad(f, argnums=1)(*args) if len(args) > 1 else adcompiler.grad(f)(*args)
    message = str(info.value)
    assert "object_funcs.py" in message and all(w in message for w in words), message
    line = f.__code__.co_firstlineno + line
    assert f":{line}:" in message, message


# ---- plain classes built in the function ---------------------------------------------------------

V = RNG.normal(size=3)


@pytest.mark.parametrize(
    "f, args",
    [
        (F.body_fields, (X, V)),
        (F.box_area, (2.0, 3.0)),
        (F.rect_area_held, (2.0, 3.0)),
        (F.body_keywords, (X, V)),
        (F.bodies_in_list, (X, V)),
        (F.heavy_body, (X, V)),
        (F.dense_built, (RNG.normal(size=(2, 3)), RNG.normal(size=2), X)),
        (F.scalar_body, (0.7, -1.3)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_plain_classes_built_inside(f, args):
    """An object of a class whose ``__init__`` stores its arguments is a record of its attributes: read,
    handed to its methods (its own and inherited), kept in lists; against central differences, the
    dot-product identity and each cotangent's shape."""
    check_both_modes(f, args)


def test_plain_classes_against_autograd():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    g = adcompiler.grad(F.bodies_in_list, argnums=(0, 1))(X, V)
    twin = lambda x, v: sum(0.5 * 2.0 * anp.sum(v**2) + anp.sum(x * k) for k in (1.0, 2.0, 3.0))  # noqa: E731
    for mine, theirs in zip(g, ag.grad(twin, (0, 1))(X, V)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_plain_class_as_result():
    """An object built and returned: its tangent and cotangent objects of its class, attributes set
    (its ``__init__`` not run again)."""
    d = adcompiler.differentiate(F.body_returned)
    value, tangent = d.jvp((X, V), (np.ones(3), np.zeros(3)))
    assert type(value) is F.Body and type(tangent) is F.Body
    np.testing.assert_allclose(value.pos, X * V)
    np.testing.assert_allclose(tangent.pos, V)
    np.testing.assert_allclose(tangent.vel, np.zeros(3))
    ct = F.Body(np.ones(3), np.full(3, 2.0))
    ct.mass, ct.kind = 0.0, None  # (a string's cotangent: None, as the gradients give)
    _, (g_x, g_v) = d.vjp((X, V), ct)
    np.testing.assert_allclose(g_x, V)
    np.testing.assert_allclose(g_v, X + 2.0)


def test_plain_class_under_numba():
    pytest.importorskip("numba")
    expected = adcompiler.grad(F.scalar_body, argnums=(0, 1))(0.7, -1.3)
    got = adcompiler.differentiate(F.scalar_body, backend="numba").grad(0.7, -1.3)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(expected, ((-1.3) ** 2, 2.0 * 0.7 * -1.3), rtol=1e-12)  # v**2 x: (v**2, 2 v x)


def test_a_computing_init_is_refused_at_the_users_line():
    with pytest.raises(UnsupportedSyntaxError) as info:
        adcompiler.grad(F.doubled)(1.5)
    assert info.value.filename.endswith("object_funcs.py")
    assert "Doubled(x).a * x" in (info.value.text or "")


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("f", [F.unread_list, F.unread_tuple_handed, F.unread_dataclass, F.body_keywords])
def test_items_never_read_have_cotangents_of_their_shape(f, backend):
    """An array stored in a list, a tuple or a record and never read back: its cotangent zeros of its
    shape and dtype (the python target's shadow list holds the number 0.0 there), in grad and vjp."""
    if backend == "numba":
        pytest.importorskip("numba")
        if f is F.body_keywords:
            pytest.skip("records of arrays handed to methods are refused under Numba (docs/numba.md)")
    d = adcompiler.differentiate(f, backend=backend)
    for cts in (d.grad(X, V), d.vjp((X, V), 1.0)[1]):
        for ct, arg in zip(cts, (X, V)):
            assert isinstance(ct, np.ndarray) and ct.shape == arg.shape and ct.dtype == arg.dtype
        np.testing.assert_allclose(cts[0], 0.0)


def test_a_list_of_objects_holding_arrays_built_inside():
    """Both modes on the python target; under Numba refused at its line (its typing never ended: it ran for
    over ten minutes), with what to write instead."""
    args = (RNG.normal(size=(3, 3)), RNG.normal(size=3), RNG.normal(size=(2, 3)), RNG.normal(size=2), X)
    check_both_modes(F.dense_list_built, args)
    pytest.importorskip("numba")
    with pytest.raises(UnsupportedSyntaxError) as info:
        adcompiler.differentiate(F.dense_list_built, backend="numba").grad(*args)
    assert "a list of records holding arrays" in str(info.value) and "pass the list as an argument" in str(info.value)
    assert info.value.filename.endswith("object_funcs.py")


def test_super_is_refused_saying_to_call_the_base_class_method():
    """``super().kinetic()`` was refused as "super, which has no derivative rule ... give it rules with
    adcompiler.defrule": a construct of the language, which the message names with what to write."""
    with pytest.raises(UnsupportedSyntaxError, match=r"super\(\) is not supported; call the base class's method"):
        adcompiler.grad(F.offset_kinetic)(X, V)


def test_class_attributes_read_through_an_object():
    """``self.factor`` where ``factor = 3.0`` is set in the class body (a MissingKeyError "Python raises
    KeyError" before, although the primal runs): the object's class's attribute, a subclass's where it
    overrides it, read as the code runs (a class attribute changed since is seen)."""
    x = 0.4
    for sc in (F.Scaler(2.0), F.Tripled(2.0)):
        k = type(sc).factor
        assert adcompiler.grad(F.scaled_apply, argnums=1)(sc, x) == pytest.approx(2 * x * 2.0 * k + k, rel=1e-14)
        g = adcompiler.grad(F.scaled_apply, argnums=0)(sc, x)
        assert type(g) is type(sc) and g.s == pytest.approx(x * x * k, rel=1e-14)
        _, tangent = adcompiler.jvp(lambda x: F.scaled_apply(sc, x), (x,), (1.0,))
        assert tangent == pytest.approx(2 * x * 2.0 * k + k, rel=1e-14)
    try:
        F.Scaler.factor = 7.0
        assert adcompiler.grad(F.scaled_apply, argnums=1)(F.Scaler(2.0), x) == pytest.approx(
            2 * x * 2.0 * 7 + 7, rel=1e-14
        )
    finally:
        F.Scaler.factor = 3.0
    with pytest.raises(UnsupportedSyntaxError) as info:
        adcompiler.grad(F.misspelt_attribute, argnums=1)(F.Scaler(2.0), x)
    assert "AttributeError" in str(info.value) and "KeyError" not in str(info.value)
