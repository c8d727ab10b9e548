"""The records of what has no derivative (constructors of a shape, comparisons, indices, an array's shape) and
of the constructors linear in their values and np.vander (rules/constructors.py): each one's abstract value against what
NumPy itself returns, and linspace's, full's and full_like's rules against central differences, forward
against reverse, on the python and Numba targets and under arrays="any"."""

import types

import numpy as np
import pytest

import adcompiler
from adcompiler.analysis import values as V
from adcompiler.analysis.infer_numpy import numpy_transfer
from adcompiler.ir.nodes import Const, Var
from adcompiler.rules import arrays as N
from adcompiler.rules.families import REGISTRY
from adcompiler.testing.oracle import check_both_modes

X, Y = np.linspace(0.5, 2.0, 6).reshape(2, 3), np.array([[1.0, 2.0, -1.0], [0.5, 0.25, 3.0]])
# name -> calls: (positional arguments, keywords); a constant (shape, dtype, axis) is a static argument
CALLS = {
    "zeros": [((3,), {}), (((2, 3),), {}), ((4,), {"dtype": np.float32})],
    "ones": [(((2, 2),), {}), ((3,), {"dtype": np.int64})],
    "empty": [((3,), {})],
    "zeros_like": [((X,), {}), ((X,), {"dtype": np.float32})],
    "ones_like": [((X,), {})],
    "empty_like": [((X,), {}), ((X,), {"dtype": np.float32})],
    "arange": [((5,), {}), ((5,), {"dtype": np.float64})],
    "eye": [((3,), {}), ((3,), {"dtype": np.float32})],
    "identity": [((2,), {})],
    "full": [((3, 2.0), {}), (((2, 2), 1.5), {"dtype": np.float32})],
    "full_like": [((X, 2.0), {})],
    "linspace": [((0.0, 1.0, 5), {}), ((X[0], X[1], 4), {})],
    "equal": [((X, Y), {})],
    "not_equal": [((X, 1.0), {})],
    "less": [((X, Y), {})],
    "less_equal": [((X, Y), {})],
    "greater": [((X, Y), {})],
    "greater_equal": [((X[0], Y), {})],
    "logical_and": [((X > 1, Y > 1), {})],
    "logical_or": [((X > 1, Y > 1), {})],
    "logical_not": [((X > 1,), {})],
    "isfinite": [((X,), {})],
    "isnan": [((X,), {})],
    "isinf": [((X[0],), {})],
    "argsort": [((X,), {})],
    "searchsorted": [((np.array([0.0, 1.0, 2.5]), X), {}), ((np.array([0.0, 1.0, 2.5]), 0.7), {})],
    "argmax": [((X,), {}), ((X, 1), {})],
    "argmin": [((X[0],), {}), ((X, 0), {})],
    "ndim": [((X,), {})],
    "size": [((X,), {})],
}
NO_DERIVATIVE = [p.name for p in REGISTRY.values() if p.inactive]


def _aval(value):
    """The abstract value of an argument the analysis would see."""
    if isinstance(value, np.ndarray):
        return V.Arr(value.ndim, value.dtype.name)
    return V.Num("float") if isinstance(value, float) else V.INT


def _static(value) -> bool:
    return not isinstance(value, (np.ndarray, float))


def test_every_record_without_a_derivative_is_tested_and_inactive():
    assert {f"numpy.{name}" for name in CALLS} | {"numpy.shape", "numpy.dtype_of"} >= set(NO_DERIVATIVE)
    for name in NO_DERIVATIVE:
        assert name in N.INACTIVE


def test_an_arrays_dtype_is_a_static_value_naming_it():
    """``x.dtype`` (``numpy.dtype_of``): the dtype's name where x's is known, which a constructor asking for it
    reads as it reads a constant; two arrays' dtypes join to the one, or to a dtype not known."""
    eq = types.SimpleNamespace(prim="numpy.dtype_of", outs=[Var("out")], ins=[Var("x")], param=None)
    (named,) = numpy_transfer(eq, [V.Arr(1, "float32")])
    assert named == V.Static("dtype", dtype="float32")
    assert V.join(named, named) == named and V.join(named, V.Static("dtype", dtype="float64")) == V.Static("dtype")
    zeros = types.SimpleNamespace(prim="numpy.zeros", outs=[Var("y")], ins=[Const(3), Var("dt")], param=("dtype",))
    assert numpy_transfer(zeros, [V.Static(), named]) == [V.Arr(1, "float32")]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_records_abstract_value_is_numpys(name):
    """ndim and dtype as NumPy computes them (a bool array for a test, an int64 index, the dtype asked for)."""
    prim = REGISTRY[f"numpy.{name}"]
    for args, keywords in CALLS[name]:
        got = getattr(np, name)(*args, **keywords)
        if prim.signature is not None:  # bound to its signature: the keywords in their places
            names = [p for p, _ in prim.signature]
            bound = list(args) + [keywords[p] for p in names[len(args) :] if p in keywords]
            params = tuple(p for p in names[len(args) : len(bound)])
        else:  # called as written
            bound, params = list(args) + list(keywords.values()), tuple(keywords)
        ins = [Const(a) if _static(a) else Var(f"v{i}") for i, a in enumerate(bound)]
        eq = types.SimpleNamespace(prim=prim.name, outs=[Var("out")], ins=ins, param=params)
        (aval,) = numpy_transfer(eq, [V.Static() if _static(a) else _aval(a) for a in bound])
        if isinstance(got, np.ndarray):
            assert isinstance(aval, V.Arr) and aval.ndim == got.ndim, (args, keywords, aval)
            # (arange's dtype is its arguments', which the analysis leaves not known when none is asked for)
            assert aval.dtype == got.dtype.name or name == "arange" and aval.dtype is None, (args, keywords, aval)
        else:
            assert isinstance(aval, V.Num), (args, keywords, aval)


def constructors(a, b, x):
    t = np.linspace(a, b, 7)
    y = np.full(x.shape, a) * x + np.full_like(x, b * b)
    return np.sum(t * t) + np.sum(y * y)


@pytest.mark.parametrize("backend, arrays", [("python", "numpy"), ("numba", "numpy"), ("python", "any")])
def test_linspace_full_and_full_like_against_central_differences(backend, arrays):
    pytest.importorskip({"numba": "numba", "python": "numpy"}[backend])
    if arrays == "any":
        pytest.importorskip("array_api_compat")
    a, b, x = 0.3, 1.7, np.array([0.5, -1.0, 2.0])
    d = adcompiler.differentiate(constructors, backend=backend, arrays=arrays)
    ga, gb, gx = d.grad(a, b, x)
    h = 1e-6
    assert ga == pytest.approx((constructors(a + h, b, x) - constructors(a - h, b, x)) / (2 * h), rel=1e-6)
    assert gb == pytest.approx((constructors(a, b + h, x) - constructors(a, b - h, x)) / (2 * h), rel=1e-6)
    for k in range(3):
        e = np.eye(3)[k] * h
        assert gx[k] == pytest.approx((constructors(a, b, x + e) - constructors(a, b, x - e)) / (2 * h), rel=1e-6)
    assert gx.shape == x.shape and gx.dtype == x.dtype and np.ndim(ga) == np.ndim(gb) == 0
    da, db, dx = 0.7, -0.4, np.array([0.1, 0.2, -0.3])  # forward against reverse: <grad, v> = the jvp
    _, tangent = d.jvp((a, b, x), (da, db, dx))
    assert tangent == pytest.approx(ga * da + gb * db + gx @ dx, rel=1e-10)


def poly_fit(c, t, y):
    r = np.vander(t, len(c)) @ c - y
    return r @ r + np.sum(np.vander(t, 3, increasing=True) ** 2) + np.sum(np.sin(np.vander(t)))


def poly_fit_jax(c, t, y):
    import jax.numpy as jnp

    r = jnp.vander(t, len(c)) @ c - y
    return r @ r + jnp.sum(jnp.vander(t, 3, increasing=True) ** 2) + jnp.sum(jnp.sin(jnp.vander(t)))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_vander_in_its_points(backend):
    """np.vander's rule in the points (N given, defaulted, increasing; 1 column: slopes of power 0):
    against central differences and the dot-product identity on the python target, and the Numba
    target's numbers the python target's."""
    pytest.importorskip({"numba": "numba", "python": "numpy"}[backend])
    rng = np.random.default_rng(63)
    args = (rng.normal(size=4), rng.normal(size=5), rng.normal(size=5))
    if backend == "python":
        check_both_modes(poly_fit, args)
        check_both_modes(lambda t: np.sum(np.vander(t, 1)) + np.sum(t), args[1:2])
        return
    expected = adcompiler.grad(poly_fit, argnums=(0, 1, 2))(*args)
    for got, want in zip(adcompiler.differentiate(poly_fit, backend="numba").grad(*args), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_vander_against_jax_to_second_order():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(64)
    args = (rng.normal(size=3), rng.normal(size=4), rng.normal(size=4))
    for got, want in zip(adcompiler.grad(poly_fit, argnums=(0, 1, 2))(*args), jax.grad(poly_fit_jax, (0, 1, 2))(*args)):
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-10, atol=1e-12)
    c, y = args[0], args[2]
    t_only = lambda t: poly_fit(c, t, y)  # noqa: E731
    want = jax.hessian(lambda t: poly_fit_jax(c, t, y))(args[1])
    np.testing.assert_allclose(adcompiler.hessian(t_only)(args[1]), np.asarray(want), rtol=1e-9, atol=1e-10)
