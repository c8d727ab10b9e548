"""What crosses the API boundary (issue 32, items 9-13 and part of 17): integers have no derivative
(a constant by default, None inside records), outputs keep their record type in every entry point,
a float's cotangent is a float and float32 stays float32, and documented features that crashed.
Each checked against autograd, central differences or the analytic derivative."""

import math

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
import boundary_funcs as F

RNG = np.random.default_rng(32)


def central(f, x, h=1e-6):
    """d f / d x of a function of one float, by central differences."""
    return (f(x + h) - f(x - h)) / (2 * h)


# ---- item 10 and 17: integers --------------------------------------------------------------


@pytest.mark.parametrize("n", [3, True, np.int64(4), np.array([1, 2])])
def test_an_integer_in_a_dict_has_no_gradient(n):
    """grad of np.sum(p["w"] * x) * p["n"]: p["n"] an int, a bool, a NumPy integer or an integer
    array gets None, p["w"] and x what autograd gives with n held fixed."""
    w, x = np.array([1.0, 2.0]), np.array([1.0, 2.0])
    g = adcompiler.grad(F.scaled_sum if np.ndim(n) == 0 else _summed, argnums=(0, 1))({"w": w, "n": n}, x)
    want_w = autograd.grad(lambda w: anp.sum(anp.sum(w * x) * n))(w)
    want_x = autograd.grad(lambda x: anp.sum(anp.sum(w * x) * n))(x)
    assert set(g[0]) == {"w", "n"} and g[0]["n"] is None
    np.testing.assert_allclose(g[0]["w"], want_w, rtol=1e-14)
    np.testing.assert_allclose(g[1], want_x, rtol=1e-14)


def _summed(p, x):
    return np.sum(F.scaled_sum(p, x))


def test_the_issue_example():
    g = adcompiler.grad(F.scaled_sum)({"w": np.array([1.0, 2.0]), "n": 3}, np.array([1.0, 2.0]))
    assert g["n"] is None and g["w"].tolist() == [3.0, 6.0]


def test_an_integer_field_of_a_dataclass_and_of_self():
    w, x = np.array([0.5, -1.5]), np.array([2.0, 3.0])
    g = adcompiler.grad(F.dataclass_loss)(F.Params(w, 4), x)
    assert isinstance(g, F.Params) and g.n_iter is None
    np.testing.assert_allclose(g.w, 4 * x, rtol=1e-14)
    g_self, g_x = F.Model(w, 3).loss.grad(x)
    assert isinstance(g_self, F.Model) and g_self.n is None
    np.testing.assert_allclose(g_self.w, 3 * x, rtol=1e-14)
    np.testing.assert_allclose(g_x, 3 * w, rtol=1e-14)


def test_an_integer_in_a_tuple_and_its_tangent():
    """A tuple's integer: None in the cotangent; its tangent given as None or 0 (anything else is
    refused), forward against reverse."""
    w, x = np.array([0.5, -1.5]), np.array([2.0, 3.0])
    d = adcompiler.differentiate(F.tuple_with_int)
    value, (ct_t, ct_x) = d.vjp(((w, 3), x), 1.0)
    assert ct_t[1] is None and value == pytest.approx(3 * np.dot(w, x))
    np.testing.assert_allclose(ct_t[0], 3 * x)
    tw, tx = RNG.standard_normal(2), RNG.standard_normal(2)
    for zero in (None, 0, 0.0):
        _, tangent = d.jvp(((w, 3), x), ((tw, zero), tx))
        assert tangent == pytest.approx(np.dot(ct_t[0], tw) + np.dot(ct_x, tx), rel=1e-14)
    with pytest.raises(ValueError, match=r"\[1\] is an integer, which has no derivative"):
        d.jvp(((w, 3), x), ((tw, 1.0), tx))
    with pytest.raises(ValueError, match=r"p\['n'\] is an integer"):
        adcompiler.differentiate(F.scaled_sum).jvp(({"w": w, "n": 3}, x), ({"w": tw, "n": 2.0}, tx))


def test_an_integer_argument_or_default_is_a_constant_by_default():
    """def pend(theta, n=200) with dt = 1.0 / n (n read as a float too): pend.grad(0.5) is d/dtheta,
    with the default left in place or an int passed; naming n in wrt is refused (JAX refuses integer
    inputs to grad)."""
    d = adcompiler.differentiate(F.pend)
    want = central(F.pend, 0.5)
    assert d.grad(0.5) == pytest.approx(want, rel=1e-7)
    assert d.grad(0.5, 50) == pytest.approx(central(lambda t: F.pend(t, 50), 0.5), rel=1e-7)
    assert d.value_and_grad(0.5)[1] == pytest.approx(want, rel=1e-7)
    assert d.vjp((0.5,), 2.0)[1] == pytest.approx((2 * want,), rel=1e-7)
    assert d.jvp((0.5,), (1.0,))[1] == pytest.approx(want, rel=1e-7)
    assert adcompiler.grad(F.pend)(0.5) == pytest.approx(want, rel=1e-7)
    assert adcompiler.check_grad(F.pend, 0.5) < 1e-6
    assert adcompiler.hessian_matrix(F.pend)(0.5).shape == (1, 1)
    with pytest.raises(TypeError, match="cannot differentiate with respect to n, the integer 200"):
        adcompiler.differentiate(F.pend, wrt=("theta", "n")).grad(0.5)


def test_jvp_and_vjp_of_functions_give_none_for_an_integer_primal():
    """adcompiler.vjp's pullback gives a cotangent for every primal, None for an integer (JAX's float0);
    adcompiler.jvp takes None or 0 as an integer's tangent."""
    out, pullback = adcompiler.vjp(F.times_count, 1.5, 3)
    assert out == 1.5 * 3 + 1.5**2
    assert pullback(1.0) == (pytest.approx(3 + 2 * 1.5), None)
    assert adcompiler.jvp(F.times_count, (1.5, 3), (1.0, None))[1] == pytest.approx(3 + 2 * 1.5)
    assert adcompiler.vjp(F.times_count, 1.5, 3.0)[1](1.0) == pytest.approx((6.0, 1.5))


def test_a_gradient_of_ints_folded_in_is_a_float():
    """d/dx (x * n) folded with the seed 1.0 is n: a float, as x is."""
    g = adcompiler.differentiate(F.times_count, wrt="x").grad(1.5, 3)
    assert type(g) is float and g == 6.0
    assert type(adcompiler.differentiate(F.times_count, wrt="x").grad(1.5, np.int64(3))) is float


# ---- item 9: a float's cotangent -----------------------------------------------------------------


@pytest.mark.parametrize("call", ["grad", "value_and_grad", "vjp"])
def test_a_float_times_float32_arrays_gets_a_float_cotangent(call):
    a, x = 0.7, RNG.standard_normal(4).astype(np.float32)
    d = adcompiler.differentiate(F.scale_by_float)
    result = {"grad": lambda: d.grad(a, x), "value_and_grad": lambda: d.value_and_grad(a, x)[1]}.get(
        call, lambda: d.vjp((a, x), np.float32(1.0))[1]
    )()
    ga, gx = result
    want = autograd.grad(lambda a: anp.sum(anp.sin(a * x.astype(float))))(a)
    assert type(ga) is float and ga == pytest.approx(want, rel=1e-5, abs=1e-5)  # (float32 arithmetic)
    assert gx.dtype == np.float32


def test_floats_in_records_and_lists_beside_float32_get_float_cotangents():
    a32 = RNG.standard_normal(3).astype(np.float32)
    g = adcompiler.grad(F.record_of_mixed)({"a": a32, "s": 2.0}, a32)
    assert type(g["s"]) is float and g["s"] == pytest.approx(float(np.sum(a32 * a32)), rel=1e-6)
    assert g["a"].dtype == np.float32
    for kind in (list, tuple):
        gs, ga = adcompiler.grad(F.list_of_floats, argnums=(0, 1))(kind([1.5, 2.0]), a32)
        assert type(gs) is kind and all(type(v) is float for v in gs) and ga.dtype == np.float32
        np.testing.assert_allclose(gs, [np.sum(a32), np.sum(a32 * a32)], rtol=1e-6)


def test_a_numpy_float32_scalar_keeps_its_type_and_a_float_stays_a_float_on_python_and_numba():
    """x * s + x with s a NumPy float32: s's cotangent a float32 and x's a float, on both targets."""
    for backend in ("python", "numba"):
        d = adcompiler.differentiate(F.by_numpy_scalar, backend=backend)
        value, (gx, gs) = d.vjp((2.0, np.float32(3.0)), np.float32(1.0))
        assert type(value) is np.float32 and type(gx) is float and type(gs) is np.float32, backend
        assert (gx, gs) == (4.0, 2.0)


# ---- item 11: record outputs -------------------------------------------------------------------


@pytest.mark.parametrize(
    "backend,arrays", [("python", "numpy"), pytest.param("numba", "numpy", marks=pytest.mark.slow), ("python", "any")]
)
def test_jvp_of_a_dict_output_is_a_dict(backend, arrays):
    d = adcompiler.differentiate(F.dict_out, backend=backend, arrays=arrays)
    x = np.array(3.0) if arrays == "any" else 3.0
    for _ in range(2):  # the second call through a fast entry, where one is made
        value, tangent = d.jvp((x,), (1.0 if arrays == "numpy" else np.array(1.0),))
        assert value == {"b": 6.0, "a": 9.0} and tangent == {"b": 2.0, "a": 6.0}
        value, (ct,) = d.vjp((x,), {"a": 1.0, "b": 0.5})
        assert value == {"b": 6.0, "a": 9.0} and ct == pytest.approx(2 * 3.0 + 0.5 * 2.0)


def test_record_outputs_in_every_entry_point():
    """jvp and vjp of the function, of adcompiler.jvp / vjp, and jacfwd / jacrev (a dict of blocks, as
    JAX gives), against autograd."""
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    tx, ty = RNG.standard_normal(3), RNG.standard_normal(3)
    out, tangent = adcompiler.jvp(F.arrays_dict_out, (x, y), (tx, ty))
    assert list(out) == ["sum", "prod"] and list(tangent) == ["sum", "prod"]
    jac = {k: autograd.jacobian(lambda x, y, k=k: _ag_dict(x, y)[k], 0)(x, y) for k in ("sum", "prod")}
    jac_y = {k: autograd.jacobian(lambda x, y, k=k: _ag_dict(x, y)[k], 1)(x, y) for k in ("sum", "prod")}
    for k in ("sum", "prod"):
        np.testing.assert_allclose(tangent[k], jac[k] @ tx + jac_y[k] @ ty, rtol=1e-12, atol=1e-14)
    for J in (
        adcompiler.jacfwd(F.arrays_dict_out, argnums=(0, 1))(x, y),
        adcompiler.jacrev(F.arrays_dict_out, (0, 1))(x, y),
    ):
        assert list(J) == ["sum", "prod"]
        for k in ("sum", "prod"):
            np.testing.assert_allclose(J[k][0], jac[k], rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(J[k][1], jac_y[k], rtol=1e-12, atol=1e-14)
    _, pullback = adcompiler.vjp(F.arrays_dict_out, x, y)
    u = RNG.standard_normal(3)
    cx, cy = pullback({"prod": u, "sum": 2.0})  # (keys in another order: matched by key)
    np.testing.assert_allclose(cx, 2.0 * jac["sum"] + u @ jac["prod"], rtol=1e-12)
    np.testing.assert_allclose(cy, 2.0 * jac_y["sum"] + u @ jac_y["prod"], rtol=1e-12)


def _ag_dict(x, y):
    return {"sum": anp.sum(x * y), "prod": x * anp.sin(y)}


# ---- item 12: float32 --------------------------------------------------------------------------


@pytest.mark.parametrize("jac", [adcompiler.jacfwd, adcompiler.jacrev])
def test_jacobians_of_float32_functions_are_float32(jac):
    x = RNG.standard_normal(3).astype(np.float32)
    J = jac(F.sin_float32)(x)
    assert J.dtype == np.float32
    np.testing.assert_allclose(J, np.diag(2.0 * np.cos(x.astype(float))), rtol=1e-6, atol=1e-7)
    J = jac(F.sum_sin_times, argnums=(0, 1))(x, 2.0)  # a float32 output: a Python float's block float64
    assert J[0].dtype == np.float32 and J[1].dtype == np.float64
    np.testing.assert_allclose(J[1], np.sum(np.sin(x)), rtol=1e-6)


def test_numba_gives_numpy_float32_as_the_python_target_does():
    x, t = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    python, numba = (adcompiler.differentiate(F.sum_sin, backend=b) for b in ("python", "numba"))
    for d in (python, numba):
        value, tangent = d.jvp((x,), (t,))
        assert type(value) is np.float32 and type(tangent) is np.float32
        value, (ct,) = d.vjp((x,), np.float32(1.0))
        assert type(value) is np.float32 and ct.dtype == np.float32
        np.testing.assert_allclose(ct, np.cos(x), rtol=1e-6)


# ---- item 13: features that crashed --------------------------------------------------------------


@pytest.mark.parametrize("jac", [adcompiler.jacfwd, adcompiler.jacrev])
def test_jacobians_of_list_and_nested_tuple_outputs(jac):
    x = RNG.standard_normal(3)
    J = jac(F.list_out)(x)
    assert isinstance(J, list) and len(J) == 2
    np.testing.assert_allclose(J[0], np.diag(np.cos(x)), rtol=1e-14)
    np.testing.assert_allclose(J[1], 2.0 * np.ones(3), rtol=1e-14)
    J = jac(F.nested_out)(x)
    assert isinstance(J, tuple) and isinstance(J[1], tuple)
    np.testing.assert_allclose(J[0], 2.0 * np.eye(3), rtol=1e-14)
    np.testing.assert_allclose(J[1][0], autograd.grad(lambda x: anp.sum(x * x))(x), rtol=1e-14)
    np.testing.assert_allclose(J[1][1], np.diag(-np.sin(x)), rtol=1e-14)
    assert jac(F.dict_out)(3.0) == {"b": 2.0, "a": 6.0}


def test_has_aux_with_a_dict_or_a_named_tuple():
    x = RNG.standard_normal(3)
    g, aux = adcompiler.grad(F.with_dict_aux, has_aux=True)(x)
    np.testing.assert_allclose(g, 2 * x, rtol=1e-14)
    assert aux["n"] == 3 and aux["label"] == "aux"
    st = F.State(1.5, RNG.standard_normal(3))
    (value, aux), (gx, gst) = adcompiler.value_and_grad(F.with_state_aux, argnums=(0, 1), has_aux=True)(x, st)
    assert isinstance(aux, F.State) and aux.a == st.a and np.array_equal(aux.b, st.b)
    assert value == pytest.approx(np.sum(x * st.b) * 1.5)
    np.testing.assert_allclose(gx, 1.5 * st.b, rtol=1e-14)
    assert isinstance(gst, F.State) and gst.a == pytest.approx(np.sum(x * st.b))


def test_array_defaults():
    """An array as a parameter's default, a module global's or a factory's local: against the analytic
    gradient, through a call that leaves it out too."""
    x = RNG.standard_normal(3)
    gx, gw = adcompiler.differentiate(F.with_array_default).grad(x)
    np.testing.assert_allclose(gx, 2 * F.W0 * x, rtol=1e-14)
    np.testing.assert_allclose(gw, x * x, rtol=1e-14)
    np.testing.assert_allclose(adcompiler.grad(F.calls_array_default)(x), 4 * F.W0 * x, rtol=1e-14)
    a = RNG.standard_normal(3)
    np.testing.assert_allclose(adcompiler.grad(F.make_scaled(a))(x), a * np.cos(x), rtol=1e-14)
    assert "W_default" in adcompiler.differentiate(F.with_array_default).source("grad")


def test_custom_rules_of_functions_returning_tuples():
    """A custom_vjp and a custom_jvp function each returning a tuple of two arrays, differentiated in
    both modes (the custom_jvp one in reverse mode by transposition), against autograd."""
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    want = autograd.grad(lambda x, y: anp.sum(x * y * (anp.sin(x) + y)), (0, 1))(x, y)
    got = adcompiler.grad(F.uses_pair_rule, argnums=(0, 1))(x, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13)
    want = autograd.grad(lambda x: anp.sum(2 * x * x * x))(x)
    np.testing.assert_allclose(adcompiler.grad(F.uses_double_and_square)(x), want, rtol=1e-13)
    t = RNG.standard_normal(3)
    assert adcompiler.jvp(F.uses_double_and_square, (x,), (t,))[1] == pytest.approx(np.dot(want, t), rel=1e-13)
    value, cts = adcompiler.differentiate(F.pair_rule).vjp((3.0, 2.0), (1.0, 0.5))
    assert value == pytest.approx((6.0, math.sin(3.0) + 2.0), rel=1e-14)
    assert cts == pytest.approx((2.0 + 0.5 * math.cos(3.0), 3.0 + 0.5), rel=1e-14)


def test_check_grad_flags_a_wrong_custom_vjp_rule():
    with pytest.raises(AssertionError, match="x .* -  .*<-"):
        adcompiler.check_grad(F.uses_wrong_square, 1.5)
    assert adcompiler.check_grad(F.uses_right_square, np.array([1.5, -0.5])) < 1e-8


@pytest.mark.parametrize(
    "fn,args",
    [
        (F.strict_sin_of_number, ()),
        (F.strict_scalar_param, (0.3,)),
        (F.strict_maximum_of_numbers, (0.3,)),
        (F.strict_maximum_of_numbers, (0.7,)),
        (F.strict_clip, ()),
    ],
    ids=["sin of a number", "a float parameter", "maximum of numbers below", "... above", "clip"],
)
def test_array_api_strict_with_python_floats(fn, args):
    """arrays="any" on array-api-strict arrays: Python numbers in elementwise calls (the user's or the
    derivative's), against NumPy's gradient of the same function."""
    xp = pytest.importorskip("array_api_strict")
    x = np.array([0.25, 1.0, 2.0])
    want = adcompiler.differentiate(fn).grad(x, *args)
    got = adcompiler.differentiate(fn, arrays="any").grad(xp.asarray(x), *args)
    for g, w in zip(got if args else (got,), want if args else (want,)):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-14)


# ---- item 17: messages and matching ----------------------------------------------------------------


def test_vjp_checks_its_cotangent():
    d, x = adcompiler.differentiate(F.sine), np.array([1.0, 2.0])
    for ct, message in [
        (np.ones(3), r"output has shape \(2,\), but its cotangent has shape \(3,\)"),
        ("a", "cotangent is a number or an array of numbers, not 'a'"),
        (np.ones((2, 1)), "cotangent is an array of 2 dimensions"),
    ]:
        for _ in range(2):  # before and after a fast entry is made
            with pytest.raises(ValueError, match=message):
                d.vjp((x,), ct)
            d.vjp((x,), np.ones(2))
    with pytest.raises(ValueError, match=r"output has shape \(1, 2\), but its cotangent has shape \(2, 1\)"):
        d.vjp((x[None, :],), np.ones((2, 1)))


def test_a_list_tangent_of_an_array_is_named_a_list():
    with pytest.raises(ValueError, match=r"array of shape \(2,\) but the tangent is a list of 3"):
        adcompiler.differentiate(F.sine).jvp((np.array([1.0, 2.0]),), ([1.0, 2.0, 3.0],))


def test_records_match_whatever_their_key_order():
    """A tangent or cotangent dict with the keys in another order matches (by key, as JAX's sorted
    keys do); the gradient has the argument's own order."""
    d = adcompiler.differentiate(F.two_keys)
    p = {"a": 1.5, "b": 2.0}
    assert d.jvp((p,), ({"b": 1.0, "a": 0.0},))[1] == pytest.approx(1.5)
    assert d.jvp(({"b": 2.0, "a": 1.5},), ({"a": 1.0, "b": 0.0},))[1] == pytest.approx(4.0)
    g = d.grad({"b": 2.0, "a": 1.5})
    assert list(g) == ["b", "a"] and g == {"a": 4.0, "b": 1.5}
    value, (ct,) = adcompiler.differentiate(F.dict_out).vjp((3.0,), {"a": 1.0, "b": 0.0})
    assert ct == 6.0


def test_an_integer_argument_of_a_method_is_a_constant_by_default():
    w, x = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    np.testing.assert_allclose(F.Scaled(w).loss.grad(x, 3), 3 * w, rtol=1e-14)
    np.testing.assert_allclose(adcompiler.grad(F.Scaled(w).loss)(x, 3), 3 * w, rtol=1e-14)
    gx, gn = F.Scaled(w).loss.grad(x, 3.0)  # a float n: differentiated
    assert gn == pytest.approx(np.dot(w, x))


def test_a_float_through_numpy_functions_of_numbers_gets_a_float_cotangent():
    """np.maximum of two floats: its adjoint's np.where gives a 0-d array, a float's cotangent a float
    (found by the boundary fuzzer, seed 104)."""
    for x in (0.72, 0.3):
        g, (gy,) = adcompiler.grad(F.maximum_of_floats, argnums=(0, 1))(x, [0.51])
        assert type(g) is float and g == pytest.approx(0.51**2 if x > 0.51 else 0.0)
        assert gy == pytest.approx(2 * 0.51 * max(x, 0.51) + (0.51**2 if x <= 0.51 else 0.0))


def test_an_integer_argument_is_told_without_suggesting_another_integer():
    """``grad(2, 3)`` of ``f(x, n)``: the remedy suggested ``wrt=('n',)``, the other integer, whose derivative
    is refused as well; it says to pass a float."""

    def power_and_line(x, n):
        return x**n + n * x

    with pytest.raises(TypeError) as info:
        adcompiler.differentiate(power_and_line).grad(2, 3)
    assert "the integer 2: pass a float (2.0)" in str(info.value) and "wrt=" not in str(info.value)
