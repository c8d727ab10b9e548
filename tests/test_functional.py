"""The JAX-style functions (adcompiler.grad, value_and_grad, jvp, vjp, jacfwd, jacrev): argnums as JAX
takes it, has_aux, Jacobians shaped out.shape + in.shape, one transformation shared with differentiate.
References: analytic derivatives, and autograd where it has the function."""

import importlib.util
import math

import numpy as np
import pytest

import adcompiler
from shared import written
import functional_funcs as F

RNG = np.random.default_rng(7)
W, X = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))


def _loss_grads(w, x, n):
    s = sum(i + 1.0 for i in range(n))
    t = np.tanh(x * w)
    dt = 2 * t * (1 - t * t) * s
    return dt * x, dt * w


def test_grad_with_argnums_as_jax():
    gw, gx = _loss_grads(W, X, 3)
    np.testing.assert_allclose(adcompiler.grad(F.loss)(W, X, 3), gw, rtol=1e-13)
    np.testing.assert_allclose(adcompiler.grad(F.loss, argnums=1)(W, X, 3), gx, rtol=1e-13)
    (only,) = adcompiler.grad(F.loss, argnums=(0,))(W, X, 3)  # a tuple of one, as JAX gives
    np.testing.assert_allclose(only, gw, rtol=1e-13)
    both = adcompiler.grad(F.loss, argnums=(0, 1))(W, X, 3)
    assert isinstance(both, tuple) and len(both) == 2
    np.testing.assert_allclose(both[1], gx, rtol=1e-13)


def test_value_and_grad_and_has_aux():
    value, g = adcompiler.value_and_grad(F.loss)(W, X, 2)
    assert value == pytest.approx(F.loss(W, X, 2), rel=1e-15)
    np.testing.assert_allclose(g, _loss_grads(W, X, 2)[0], rtol=1e-13)
    z = float(np.sum(W * X))
    (value, aux), g = adcompiler.value_and_grad(F.with_aux, has_aux=True)(W, X)
    assert value == pytest.approx(z * z) and aux[0] == pytest.approx(z) and aux[1] == 3
    np.testing.assert_allclose(g, 2 * z * X, rtol=1e-13)
    g, aux = adcompiler.grad(F.with_aux, argnums=(0, 1), has_aux=True)(W, X)
    np.testing.assert_allclose(g[0], 2 * z * X, rtol=1e-13)
    np.testing.assert_allclose(g[1], 2 * z * W, rtol=1e-13)
    assert aux[1] == 3


def test_grad_of_a_vector_output_is_refused():
    with pytest.raises(TypeError, match="tuple|number"):
        adcompiler.grad(F.vector_field)(W, X)


def test_jvp_and_vjp_as_jax():
    a, b = 0.7, -1.3
    out, tangent = adcompiler.jvp(F.scalar_pair, (a, b), (1.0, 0.5))
    assert out == pytest.approx(F.scalar_pair(a, b))
    assert tangent == pytest.approx((math.cos(a) * b + 2 * a) + 0.5 * math.sin(a), rel=1e-14)
    out, pullback = adcompiler.vjp(F.scalar_pair, a, b)
    assert out == pytest.approx(F.scalar_pair(a, b))
    assert pullback(2.0) == pytest.approx((2.0 * (math.cos(a) * b + 2 * a), 2.0 * math.sin(a)), rel=1e-14)


@pytest.mark.parametrize("jac", [adcompiler.jacfwd, adcompiler.jacrev])
def test_jacobians_are_shaped_out_shape_plus_in_shape(jac):
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    (j_sin_x, j_sin_y), (j_sq_x, j_sq_y) = jac(F.vector_field, argnums=(0, 1))(x, y)
    assert j_sin_x.shape == (3, 3) and j_sq_y.shape == (3, 3)
    np.testing.assert_allclose(j_sin_x, np.diag(np.cos(x) * y), atol=1e-15)
    np.testing.assert_allclose(j_sin_y, np.diag(np.sin(x)), atol=1e-15)
    np.testing.assert_allclose(j_sq_x, np.diag(2 * x), atol=1e-15)
    np.testing.assert_allclose(j_sq_y, np.zeros((3, 3)), atol=1e-15)
    j = jac(F.loss)(W, X, 2)
    assert j.shape == W.shape
    np.testing.assert_allclose(j, _loss_grads(W, X, 2)[0], rtol=1e-12)


def test_one_transformation_shared():
    g = adcompiler.grad(F.scalar_pair, argnums=(0, 1))
    g(0.3, 0.4)
    vg = adcompiler.value_and_grad(F.scalar_pair, argnums=(0, 1))
    from adcompiler.api.transforms import _CACHE

    assert len(_CACHE[F.scalar_pair]) == 1
    assert vg(0.3, 0.4)[1] == pytest.approx(g(0.3, 0.4))


def test_hessian_with_argnums_has_jax_shapes():
    """hessian(f, argnums=...) gives in.shape + in.shape, a tuple of tuples of blocks for several argnums,
    against autograd's second derivatives; argnums=0 by default, as JAX; hessian_matrix is the flat (n, n)
    matrix over every parameter's scalars."""
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def twin(x, y):
        return anp.sum(x**2 * y[:2]) + anp.sin(y[0]) * x[1] + anp.prod(y) * x[0]

    x, y = np.array([0.5, -1.0]), np.array([1.5, 0.3, 2.0])
    H = adcompiler.hessian(F.mixed_hessian, argnums=(0, 1))(x, y)
    for i in range(2):
        for j in range(2):
            expected = ag.jacobian(ag.grad(twin, i), j)(x, y)
            assert H[i][j].shape == expected.shape
            np.testing.assert_allclose(H[i][j], expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        adcompiler.hessian(F.mixed_hessian, argnums=1)(x, y), ag.hessian(twin, 1)(x, y), rtol=1e-10
    )
    np.testing.assert_allclose(adcompiler.hessian(F.mixed_hessian)(x, y), ag.hessian(twin, 0)(x, y), rtol=1e-10)
    assert adcompiler.hessian_matrix(F.mixed_hessian)(x, y).shape == (5, 5)


def test_jacrev_of_a_number_beside_a_constant_array():
    """``jacrev(g)(0.5, x)`` with ``x`` an array held constant recursed without end (the rows' entry refused its
    arguments and called the path that made it again)."""
    x = np.array([1.0, 2.0])
    for _ in range(2):  # (the second call through the entry made by the first)
        assert adcompiler.jacrev(F.scaled_first)(0.5, x) == pytest.approx(1.0 + 2 * 0.5 * 2.0)
        assert adcompiler.jacobian(F.scaled_first, wrt=("a",), mode="reverse")(0.5, x)[0][0] == pytest.approx(3.0)
    assert adcompiler.jacrev(F.scaled_first)(0.5, np.array([3.0, 1.0])) == pytest.approx(4.0)


def test_hessian_of_outputs_other_than_one_number_is_each_outputs():
    """hessian of an array output gave the Hessian of the sum of its entries (a (2, 2) array where JAX gives
    (2, 2, 2)); of a list output an internal TypeError.  Each output's Hessian now, as JAX gives them."""
    H = adcompiler.hessian(F.cubed_times_first)(np.array([1.0, 2.0]))
    np.testing.assert_allclose(H, [[[6.0, 0.0], [0.0, 0.0]], [[0.0, 4.0], [4.0, 2.0]]], atol=1e-14)
    np.testing.assert_allclose(adcompiler.hessian(F.two_outputs_list)(2.0, 3.0), [0.0, 12.0], atol=1e-14)


def test_argnums_as_numpy_integers_and_refused_otherwise():
    """``argnums=np.int64(1)`` (as JAX takes it) raised "'numpy.int64' object is not iterable"; a string was taken
    silently as a tuple of names."""
    assert adcompiler.grad(F.scaled_first, argnums=np.int64(0))(0.5, np.array([1.0, 2.0])) == pytest.approx(3.0)
    with pytest.raises(TypeError, match=r"argnums must be an int or a tuple of ints"):
        adcompiler.grad(F.scaled_first, argnums="x")


def test_a_numpy_function_itself_is_refused_with_what_to_write():
    """``grad(np.sin)`` raised "cannot create weak reference to 'numpy.ufunc' object"."""
    with pytest.raises(TypeError, match=r"not ufunc <ufunc 'sin'>; differentiate a function of yours that calls it"):
        adcompiler.grad(np.sin)(1.0)


def test_a_string_argument_is_a_constant_by_default(tmp_path):
    """A string choosing a branch (``mode="linear"``) is no parameter differentiated by default, as an integer
    is not: the gradient is one number, and jvp takes one tangent (it took two, None the string's gradient)."""
    namespace = written(
        tmp_path, "modes", "def piecewise(x, mode):\n    return 2.0 * x if mode == 'linear' else x * x\n"
    )
    d = adcompiler.differentiate(namespace["piecewise"])
    assert d.grad(0.3, "linear") == 2.0 and d.grad(0.3, "square") == pytest.approx(0.6)
    assert d.jvp((0.3, "square"), (1.0,)) == pytest.approx((0.09, 0.6))


def test_a_string_arguments_methods_choose_a_branch(tmp_path):
    """kind.startswith("ab"), kind.upper() == "HUBER" of a string argument: computed as Python computes them
    (they were refused as methods of "a value with no derivative", the remedy naming NumPy's methods); on
    both targets, and in the module adc compile writes (the string a parameter with no tangent)."""
    path = tmp_path / "kinds.py"
    namespace = written(
        tmp_path,
        "kinds",
        "def loss(pred, target, kind='mse'):\n    if kind.startswith('ab'):\n        return abs(pred - target)\n"
        "    if kind.upper() == 'HUBER':\n        return 0.5 * (pred - target) ** 2\n    return (pred - target) ** 2\n",
    )
    backends = ["python", "numba"] if importlib.util.find_spec("numba") else ["python"]
    for backend in backends:
        d = adcompiler.differentiate(namespace["loss"], backend=backend)
        for kind, want in (("abs", (-1.0, 1.0)), ("huber", (-0.8, 0.8)), ("mse", (-1.6, 1.6))):
            assert d.grad(0.3, 1.1, kind) == pytest.approx(want, rel=1e-12)
    from adcompiler.cli.main import main

    assert main(["compile", str(path), "-o", str(tmp_path / "out.py")]) == 0
    module: dict = {}
    exec(compile((tmp_path / "out.py").read_text(), "out.py", "exec"), module)
    value, grads = module["loss_reverse"](0.3, 1.1, "abs")
    assert value == pytest.approx(0.8) and grads == pytest.approx((-1.0, 1.0))


def test_vjp_of_a_function_changing_its_list_argument():
    """The pullback differentiates at the point handed to vjp: the primal ran once (the list changed once, as
    Python's call changes it), and each call of the pullback runs on a copy of the point (it ran the primal
    sweep again on the changed list: [4, 4] for [4, 2], and changed the list a second time)."""
    xs = [1.0, 2.0]
    out, pullback = adcompiler.vjp(F.doubles_its_first, xs)
    assert out == 4.0 and xs == [2.0, 2.0]
    assert pullback(1.0) == ([4.0, 2.0],) and pullback(0.5) == ([2.0, 1.0],)
    assert xs == [2.0, 2.0]


def test_vjp_of_a_function_with_a_keyword_only_parameter():
    """``def f(x, *, k=2.0)``: the primal is called with k by keyword (a TypeError before: every argument
    passed by position)."""
    out, pullback = adcompiler.vjp(F.scaled_square, 1.5)
    assert out == 4.5 and pullback(1.0) == (6.0,)


def test_a_string_of_the_module_chooses_a_branch(tmp_path):
    """``MODE = "square"`` read by the function (refused before as "the global 'MODE' (str)"): a constant, as a
    string argument is, the derivative built again when the module's MODE is another string."""
    ns = written(
        tmp_path,
        "mode_strings",
        'MODE = "square"\n\n\ndef f(x):\n    if MODE == "square":\n        return x * x\n    return x * 3.0\n',
    )
    d = adcompiler.differentiate(ns["f"])
    assert d.grad(1.5) == 3.0 and adcompiler.jvp(ns["f"], (1.5,), (1.0,))[1] == 3.0
    ns["MODE"] = "linear"
    assert d.grad(1.5) == 3.0 and d.grad(2.5) == 3.0 and adcompiler.grad(ns["f"])(2.5) == 3.0
    ns["MODE"] = "square"
    assert d.grad(2.5) == 5.0


def test_a_dict_of_the_module_holding_a_string(tmp_path):
    """``CONFIG = {"lr": 0.5, "name": "logreg"}``: its numbers read as the code runs and its string a constant
    choosing a branch (the whole dict was refused for its string before), a change of either seen."""
    ns = written(
        tmp_path,
        "config_strings",
        'CONFIG = {"lr": 0.5, "name": "logreg"}\n\n\ndef step(w):\n    if CONFIG["name"] == "logreg":\n'
        '        return w - CONFIG["lr"] * w * w\n    return w\n',
    )
    assert adcompiler.grad(ns["step"])(0.5) == 0.5
    ns["CONFIG"]["lr"] = 1.0
    assert adcompiler.grad(ns["step"])(0.5) == 0.0
    ns["CONFIG"]["name"] = "other"
    assert adcompiler.grad(ns["step"])(0.5) == 1.0


def test_a_namedtuple_of_the_module_read_by_field_and_position(tmp_path):
    """``ORIGIN = Point(1.0, -2.0)`` read as ``ORIGIN.x`` (refused as an attribute access before) and
    ``ORIGIN[0]``, on both targets; a field changed (a new tuple) builds again."""
    ns = written(
        tmp_path,
        "origin_point",
        "from typing import NamedTuple\n\n\nclass Point(NamedTuple):\n    x: float\n    y: float\n\n\n"
        "ORIGIN = Point(1.0, -2.0)\n\n\ndef f(a):\n    return ORIGIN.x * a * a + ORIGIN[1] * a\n",
    )
    assert adcompiler.grad(ns["f"])(0.5) == pytest.approx(1.0 - 2.0, rel=1e-15)
    if importlib.util.find_spec("numba") is not None:
        assert adcompiler.differentiate(ns["f"], backend="numba").grad(0.5) == pytest.approx(-1.0, rel=1e-15)
    ns["ORIGIN"] = ns["Point"](3.0, 0.0)
    assert adcompiler.grad(ns["f"])(0.5) == pytest.approx(3.0, rel=1e-15)


@pytest.mark.parametrize(
    "call",
    [
        lambda: adcompiler.grad(None)(1.0),
        lambda: adcompiler.value_and_grad(None)(1.0),
        lambda: adcompiler.jacrev(3)(1.0),
        lambda: adcompiler.hessian("f")(1.0),
        lambda: adcompiler.jvp(None, (1.0,), (1.0,)),
        lambda: adcompiler.vjp(None, 1.0),
    ],
)
def test_a_transform_of_something_not_callable_is_a_type_error(call):
    """grad(None) raised an AttributeError from inside adcompiler; now a TypeError saying what was given."""
    with pytest.raises(TypeError, match="expected a function"):
        call()
