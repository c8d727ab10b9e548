"""JAX's composition (issue 37 items 1 and 2): transforms of transforms (grad(grad(f)), jacfwd(jacrev(f)),
jvp of grad), lambdas, functools.partial and callable objects handed to grad, has_aux with any aux,
hessian and hvp with JAX's defaults.  References: autograd, analytic derivatives, central differences."""

import functools
import math

import numpy as np
import pytest

import adcompiler
import composition_funcs as C

ag = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

RNG = np.random.default_rng(37)
X3 = np.array([0.3, -0.5, 0.8])


def ag_cubic_sin(x):
    return anp.sin(x) * x**3


def ag_loss(w, X, y):
    return anp.sum((anp.dot(X, w) - y) ** 2) + 0.1 * anp.sum(w**4)


def ag_vector_out(x, y):
    return anp.sin(x) * y[:2] ** 2 + x[::-1] * y[2]


# ---- transforms of transforms -------------------------------------------------------------------


@pytest.mark.parametrize("order", [2, 3])
def test_grad_of_grad_is_the_higher_derivative(order):
    g, want = C.cubic_sin, ag_cubic_sin
    for _ in range(order):
        g, want = adcompiler.grad(g), ag.grad(want)
    assert g(0.7) == pytest.approx(want(0.7), rel=1e-12)
    assert g.__name__.startswith("grad_of_grad_of")


@pytest.mark.parametrize("outer", [adcompiler.jacfwd, adcompiler.jacrev])
@pytest.mark.parametrize("inner", [adcompiler.jacfwd, adcompiler.jacrev, adcompiler.grad])
def test_jacobian_of_a_gradient_is_the_hessian(outer, inner):
    w, X, y = RNG.standard_normal(2), RNG.standard_normal((3, 2)), RNG.standard_normal(3)
    H = outer(inner(C.loss))(w, X, y)
    assert H.shape == (2, 2)
    np.testing.assert_allclose(H, ag.hessian(ag_loss)(w, X, y), rtol=1e-10)
    np.testing.assert_allclose(H, adcompiler.hessian(C.loss)(w, X, y), rtol=1e-12)


@pytest.mark.parametrize("ai, ao", [(0, 0), (1, 0), (0, 1), ((0, 1), 1), (0, (0, 1)), ((0, 1), (0, 1))])
def test_jacobian_of_the_jacobian_of_a_vector_function(ai, ao):
    """jacfwd(jacrev(f)) of a function of two outputs: per block out.shape + in_i.shape + in_j.shape."""
    x, y = np.array([0.3, 0.7]), np.array([1.1, -0.4, 2.0])
    got = adcompiler.jacfwd(adcompiler.jacrev(C.vector_out, ai), ao)(x, y)
    for p, i in enumerate((ai,) if isinstance(ai, int) else ai):
        for q, j in enumerate((ao,) if isinstance(ao, int) else ao):
            want = ag.jacobian(ag.jacobian(ag_vector_out, i), j)(x, y)
            block = (
                (got if isinstance(ai, int) else got[p])
                if isinstance(ao, int)
                else (got[q] if isinstance(ai, int) else got[p][q])
            )
            assert block.shape == want.shape
            np.testing.assert_allclose(block, want, rtol=1e-10, atol=1e-14)


def test_jvp_of_grad_is_a_hessian_vector_product():
    w, X, y = RNG.standard_normal(2), RNG.standard_normal((3, 2)), RNG.standard_normal(3)
    v = np.array([0.5, -2.0])
    g, hv = adcompiler.jvp(adcompiler.grad(C.loss), (w, X, y), (v, np.zeros_like(X), np.zeros_like(y)))
    np.testing.assert_allclose(g, ag.grad(ag_loss)(w, X, y), rtol=1e-12)
    np.testing.assert_allclose(hv, ag.hessian(ag_loss)(w, X, y) @ v, rtol=1e-10)
    out, pullback = adcompiler.vjp(adcompiler.grad(C.cubic_sin), 0.4)
    assert out == pytest.approx(ag.grad(ag_cubic_sin)(0.4)) and pullback(1.0)[0] == pytest.approx(
        ag.grad(ag.grad(ag_cubic_sin))(0.4), rel=1e-12
    )


def test_mixed_second_derivative_with_a_dict_keeps_the_dict():
    """jacfwd(grad(f), argnums=1) with a dict second argument: a dict of blocks (out.shape + item.shape),
    checked against central differences of the gradient."""
    x = np.array([0.4, -0.3])
    p = {"W": RNG.standard_normal((2, 2)), "b": np.array([1.5, 0.5])}

    inner = adcompiler.grad(lambda x, p: C.mixed(x, p) * x[1])
    mixed = adcompiler.jacfwd(inner, argnums=1)(x, p)
    assert set(mixed) == {"W", "b"} and mixed["W"].shape == (2, 2, 2) and mixed["b"].shape == (2, 2)
    step = 1e-6
    for key in ("W", "b"):
        for index in np.ndindex(p[key].shape):
            up = {k: v.copy() for k, v in p.items()}
            down = {k: v.copy() for k, v in p.items()}
            up[key][index] += step
            down[key][index] -= step
            fd = (inner(x, up) - inner(x, down)) / (2 * step)
            np.testing.assert_allclose(mixed[key][(slice(None),) + index], fd, rtol=1e-6, atol=1e-8)


def test_has_aux_on_the_inner_transform_is_refused_with_a_remedy():
    with pytest.raises(TypeError, match="has_aux=True"):
        adcompiler.grad(adcompiler.grad(C.with_record_aux, has_aux=True))(0.3)


# ---- what grad is handed ------------------------------------------------------------------------


def test_lambdas_at_module_level_from_factories_and_comprehensions():
    assert adcompiler.grad(C.squared)(2.0) == pytest.approx(12.0)
    assert adcompiler.grad(C.pair[0])(2.0) == pytest.approx(12.0) and adcompiler.grad(C.pair[1])(2.0) == 2.0
    for k, f in zip((1.0, 2.0, 3.0), C.by_default):
        assert adcompiler.grad(f)(0.4) == pytest.approx(-k * math.sin(k * 0.4), rel=1e-14)
    for k, f in zip((0.5, 1.5), C.by_closure):
        want = k * math.cos(k * 0.4) * 0.4 + math.sin(k * 0.4)
        assert adcompiler.grad(f)(0.4) == pytest.approx(want, rel=1e-14)
    w = np.array([0.5, -2.0, 1.5])
    np.testing.assert_allclose(adcompiler.grad(C.split_lines)(w), 2 * w + np.prod(w) / w, rtol=1e-14)
    assert "def squared_grad(x)" in adcompiler.differentiate(C.squared).source("grad")


def test_a_lambda_written_in_the_call():
    w, X, y = RNG.standard_normal(2), RNG.standard_normal((3, 2)), RNG.standard_normal(3)
    got = adcompiler.grad(lambda w: C.loss(w, X, y))(w)
    np.testing.assert_allclose(got, ag.grad(ag_loss)(w, X, y), rtol=1e-12)


@pytest.mark.parametrize("bound", [C.partial_kw, C.partial_pos])
def test_partial_binds_constants(bound):
    X, y = np.eye(3)[:, :2] + 0.5, np.array([1.0, -1.0, 0.5])
    w = np.array([0.3, -0.7])
    np.testing.assert_allclose(adcompiler.grad(bound)(w), ag.grad(ag_loss)(w, X, y), rtol=1e-12)
    value, g = adcompiler.value_and_grad(bound)(w)
    assert value == pytest.approx(C.loss(w, X, y))
    np.testing.assert_allclose(adcompiler.hessian(bound)(w), ag.hessian(ag_loss)(w, X, y), rtol=1e-10)
    out, pullback = adcompiler.vjp(bound, w)
    (ct,) = pullback(1.0)
    np.testing.assert_allclose(ct, g, rtol=1e-14)


def test_partial_of_a_keyword_overridden_at_the_call():
    f = functools.partial(C.loss, X=np.eye(2), y=np.zeros(2))
    w = np.array([0.5, 0.25])
    X2 = np.array([[1.0, 2.0], [0.0, 1.0]])
    np.testing.assert_allclose(adcompiler.grad(f)(w, X=X2), ag.grad(ag_loss)(w, X2, np.zeros(2)), rtol=1e-12)


def test_a_callable_object_is_differentiated_through_its_call():
    W, b, x = RNG.standard_normal((2, 3)), RNG.standard_normal(2), RNG.standard_normal(3)
    model = C.Model(W, b)
    want = ag.grad(lambda x: anp.sum(anp.tanh(anp.dot(W, x) + b) ** 2))(x)
    np.testing.assert_allclose(adcompiler.grad(model)(x), want, rtol=1e-12)
    assert adcompiler.jacfwd(model)(x).shape == (3,)
    H = adcompiler.hessian(model)(x)
    np.testing.assert_allclose(H, ag.hessian(lambda x: anp.sum(anp.tanh(anp.dot(W, x) + b) ** 2))(x), rtol=1e-10)


# ---- has_aux ------------------------------------------------------------------------------------


def test_has_aux_with_a_dict_a_namedtuple_and_nested_aux():
    w, x = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    g, aux = adcompiler.grad(C.with_dict_aux, has_aux=True)(w, x)
    np.testing.assert_allclose(g, 2 * w * x**2, rtol=1e-14)
    assert aux["n"] == 3 and aux["loss"] == pytest.approx(np.sum((w * x) ** 2)) and aux["pred"].shape == (2,)
    g, aux = adcompiler.grad(C.with_record_aux, has_aux=True)(0.3)
    assert g == pytest.approx(0.6) and isinstance(aux, C.Metrics) and aux.scale == 2.0
    (value, aux), g = adcompiler.value_and_grad(C.with_nested_aux, has_aux=True)(w)
    np.testing.assert_allclose(g, 2 * w)
    assert aux[1][1] == "name" and aux[2] is None and value == pytest.approx(np.sum(w**2))


@pytest.mark.parametrize("jac", [adcompiler.jacfwd, adcompiler.jacrev])
def test_jacobians_with_has_aux(jac):
    x = np.array([0.3, 0.9])
    J, aux = jac(C.vector_with_aux, has_aux=True)(x)
    np.testing.assert_allclose(J, np.diag(np.cos(x) * x + np.sin(x)), rtol=1e-14)
    assert aux["norm"] == pytest.approx(np.sum(x**2))


# ---- hessian and hvp with JAX's defaults --------------------------------------------------------


def test_hessian_of_a_number_is_a_number_and_argnums_defaults_to_0():
    h = adcompiler.hessian(C.cubic_sin)(0.7)
    assert np.shape(h) == () and float(h) == pytest.approx(ag.hessian(ag_cubic_sin)(0.7), rel=1e-12)
    w, X, y = RNG.standard_normal(4), RNG.standard_normal((5, 4)), RNG.standard_normal(5)
    H = adcompiler.hessian(C.loss)(w, X, y)
    assert H.shape == (4, 4)  # only w's (argnums=0), not the data's
    np.testing.assert_allclose(H, ag.hessian(ag_loss)(w, X, y), rtol=1e-10)
    assert adcompiler.hessian_matrix(C.loss)(w, X, y).shape == (4 + 20 + 5, 4 + 20 + 5)


def test_hessian_with_wrt_names_the_flat_form():
    with pytest.raises(TypeError, match=r"hessian_matrix\(f, wrt='w'\)"):
        adcompiler.hessian(C.loss, wrt="w")


def test_hvp_defaults_to_argnums_0_and_is_scipys_hessp():
    optimize = pytest.importorskip("scipy.optimize")
    X, y = RNG.standard_normal((6, 3)), RNG.standard_normal(6)
    w, v = RNG.standard_normal(3), RNG.standard_normal(3)
    hvp = adcompiler.hvp(C.loss)
    np.testing.assert_allclose(hvp(w, v, X, y), ag.hessian(ag_loss)(w, X, y) @ v, rtol=1e-10)
    np.testing.assert_allclose(hvp((w, X, y), v), hvp(w, v, X, y), rtol=1e-15)
    fit = optimize.minimize(
        C.loss, np.zeros(3), args=(X, y), jac=adcompiler.grad(C.loss), hessp=hvp, method="trust-ncg"
    )
    assert fit.success and np.linalg.norm(adcompiler.grad(C.loss)(fit.x, X, y)) < 1e-4


def test_a_call_of_constants_returning_nested_tuples():
    """``p, (q, r) = helper(2.0)``, a call no derivative flows through: its targets nested as it returns
    them (flat before: "not enough values to unpack" in the generated code), in every mode and order."""
    x = 1.5
    f = C.nested_result_of_constants  # 4 x + 12 x**2
    assert adcompiler.grad(f)(x) == pytest.approx(4 + 24 * x, rel=1e-14)
    assert adcompiler.jvp(f, (x,), (1.0,))[1] == pytest.approx(4 + 24 * x, rel=1e-14)
    assert adcompiler.grad(adcompiler.grad(f))(x) == pytest.approx(24.0, rel=1e-14)
    assert adcompiler.hessian(f)(x) == pytest.approx(24.0, rel=1e-14)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_grad_of_grad_through_a_function_a_decorator_wrapped(argnums):
    """grad(grad(f)) where f calls a function a decorator returned (``wrapper`` calling the closure's
    ``fn``): the inner derivative's forward sweep, kept as a call where nothing of it is differentiated
    again, returns its residuals nested, which were unpacked flat (a TypeError in ``mul_x_reverse_sweep``)."""
    x, y = 0.3, 0.7  # f = x**2 y
    hessian = np.array([[2 * y, 2 * x], [2 * x, 0.0]])
    inner = adcompiler.grad(C.through_a_wrapper, argnums=argnums)
    if isinstance(argnums, tuple):  # the Hessian, a row a component of the inner gradient
        got = np.array([adcompiler.grad(lambda x, y, k=k: inner(x, y)[k], argnums=(0, 1))(x, y) for k in range(2)])
        np.testing.assert_allclose(got, hessian, rtol=1e-14)
    else:  # each entry on its own (the outer derivative in one argument: the case that failed), then the row
        for k in range(2):
            assert adcompiler.grad(inner, argnums=k)(x, y) == pytest.approx(hessian[argnums, k], rel=1e-14, abs=1e-14)
        np.testing.assert_allclose(adcompiler.grad(inner, argnums=(0, 1))(x, y), hessian[argnums], rtol=1e-14)
