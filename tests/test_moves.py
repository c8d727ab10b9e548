"""NumPy's moves and reductions as records (rules/movement.py, rules/reductions.py): each record's rules
are its function's derivative, in both modes, against central differences of NumPy itself."""

import numpy as np
import pytest

import adcompiler
from adcompiler.rules.families import family

_SELECTIONS = [f"numpy.{name}" for name in ("max", "min", "amax", "amin", "prod", "ptp")]
# (the call, of x; x's shape): each record at least once, with its static arguments given and left out
CASES = {
    "transpose": [
        ("np.transpose(x)", (2, 3)),
        ("np.transpose(x, (2, 0, 1))", (2, 3, 4)),
        ("x.T", (3, 2)),
        ("np.transpose(x, (1, 0, -1))", (2, 3, 4)),  # negative axes: the adjoint's inverse counts them from the end
        ("np.transpose(x, (-1, 0))", (2, 3)),
        ("x.transpose(2, -3, 1)", (2, 3, 4)),
    ],
    "reshape": [("np.reshape(x, (2, 6))", (3, 4)), ("x.reshape(-1)", (2, 3))],
    "ravel": [("np.ravel(x)", (2, 3)), ("x.flatten()", (3, 2))],
    "expand_dims": [("np.expand_dims(x, 1)", (3, 2))],
    "squeeze": [("np.squeeze(x, 1)", (3, 1, 2)), ("x.squeeze()", (1, 4))],
    "atleast_1d": [("np.atleast_1d(x)", (3,))],
    "atleast_2d": [("np.atleast_2d(x)", (3,))],
    "atleast_3d": [("np.atleast_3d(x)", (2, 3))],
    "swapaxes": [("np.swapaxes(x, 0, 2)", (2, 3, 4)), ("x.swapaxes(0, 1)", (2, 3))],
    "moveaxis": [("np.moveaxis(x, 0, -1)", (2, 3, 4))],
    "rollaxis": [("np.rollaxis(x, 2)", (2, 3, 4)), ("np.rollaxis(x, 2, 1)", (2, 3, 4))],
    "flip": [("np.flip(x)", (2, 3)), ("np.flip(x, 1)", (2, 3))],
    "fliplr": [("np.fliplr(x)", (2, 3))],
    "flipud": [("np.flipud(x)", (2, 3))],
    "rot90": [("np.rot90(x)", (2, 3)), ("np.rot90(x, 3, (1, 0))", (3, 4))],
    "roll": [("np.roll(x, 2)", (2, 3)), ("np.roll(x, -1, 1)", (2, 3)), ("np.roll(x, (1, 2), (0, 1))", (2, 3))],
    "tril": [("np.tril(x)", (3, 3)), ("np.tril(x, -1)", (3, 4))],
    "triu": [("np.triu(x, 1)", (4, 3))],
    "broadcast_to": [("np.broadcast_to(x, (3, 4))", (4,))],
    "repeat": [("np.repeat(x, 2)", (2, 3)), ("x.repeat(3, 1)", (2, 2))],
    "tile": [("np.tile(x, (2, 1))", (2, 3)), ("np.tile(x, 3)", (4,))],
    "diff": [("np.diff(x)", (5,)), ("np.diff(x, 2, 0)", (5, 2))],
    "diag": [("np.diag(x)", (3,)), ("np.diag(x, 1)", (3, 3)), ("np.diag(x, -1)", (3,))],
    "diagonal": [("np.diagonal(x)", (3, 4)), ("x.diagonal(1)", (3, 3))],
    "sum": [("np.sum(x)", (2, 3)), ("np.sum(x, axis=0)", (2, 3)), ("x.sum(1, keepdims=True)", (2, 3))],
    "mean": [("np.mean(x)", (2, 3)), ("x.mean(axis=(0, 2))", (2, 3, 2))],
    "cumsum": [("np.cumsum(x)", (2, 3)), ("x.cumsum(1)", (2, 3))],
    "trace": [("np.trace(x)", (3, 3)), ("x.trace(1)", (3, 4))],
    # the selections and prod (their two rules): entries apart, so that no tie is near
    "max": [("np.max(x)", (2, 3)), ("x.max(axis=0)", (3, 2))],
    "min": [("np.min(x, 1)", (2, 3)), ("x.min(keepdims=True)", (2, 2))],
    "amax": [("np.amax(x, axis=(0, 1))", (2, 2, 2))],
    "amin": [("np.amin(x)", (4,))],
    "prod": [("np.prod(x)", (2, 3)), ("x.prod(1)", (2, 3)), ("np.prod(x, axis=0, keepdims=True)", (3, 2))],
    "ptp": [("np.ptp(x)", (2, 3)), ("np.ptp(x, 1)", (2, 3))],
    # rules/products.py's functions of one array: a product, gathers and sorts, order statistics
    "cumprod": [("np.cumprod(x)", (2, 3)), ("x.cumprod(1)", (2, 3))],
    "take": [("np.take(x, [0, 2, 2])", (2, 3)), ("np.take(x, [[1, 0], [1, 1]], axis=1)", (2, 3))],
    "take_along_axis": [("np.take_along_axis(x, np.argsort(x, axis=1), axis=1)", (2, 3))],
    "sort": [("np.sort(x)", (2, 3)), ("np.sort(x, axis=0)", (3, 2))],
    "median": [("np.median(x)", (5,)), ("np.median(x, axis=1)", (2, 4))],
    "percentile": [("np.percentile(x, 30.0)", (6,)), ("np.percentile(x, [10.0, 75.0], axis=0)", (5, 2))],
    "quantile": [("np.quantile(x, 0.4, axis=1, keepdims=True)", (2, 5))],
}
_ONE_ARRAY = [
    f"numpy.{name}" for name in ("cumprod", "take", "take_along_axis", "sort", "median", "percentile", "quantile")
]
NAMES = [
    p.numpy_name
    for f in ("movement", "reductions", "products", "orders")
    for p in family(f)
    if p.linear and f not in ("products", "orders") or p.name in _SELECTIONS + _ONE_ARRAY
]


def test_every_linear_record_has_its_cases():
    assert sorted(CASES) == sorted(NAMES)


def _function(tmp_path, expression: str, k: int):
    """``f(x)`` = sum(sin(expression) * w), w fixed weights: a nonlinear function of the move."""
    path = tmp_path / f"move_{k}.py"
    path.write_text(
        "import numpy as np\n\n\n" f"def f(x, w):\n    y = {expression}\n    return np.sum(np.sin(y) * w)\n"
    )
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("case", [(n, e, s) for n, cases in CASES.items() for e, s in cases], ids=lambda c: c[1])
def test_each_linear_record_differentiates_its_function(tmp_path, case):
    """grad and jvp against central differences of NumPy's own function, forward against reverse, and the
    cotangent of x's shape and dtype."""
    name, expression, shape = case
    rng = np.random.default_rng(sum(map(ord, expression)))
    x = rng.standard_normal(shape)
    f = _function(tmp_path, expression, len(expression))
    w = rng.standard_normal(np.shape(eval(expression, {"np": np, "x": x})))
    d = adcompiler.differentiate(f, wrt="x")
    g = d.grad(x, w)
    assert g.shape == x.shape and g.dtype == x.dtype
    h = 1e-6
    for k in np.ndindex(*shape):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        assert g[k] == pytest.approx((f(up, w) - f(down, w)) / (2 * h), rel=1e-6, abs=1e-8), (expression, k)
    v = rng.standard_normal(shape)
    value, tangent = d.jvp((x, w), (v,))
    assert value == pytest.approx(f(x, w), rel=1e-14)
    assert tangent == pytest.approx(float(np.sum(g * v)), rel=1e-10, abs=1e-12)


def test_second_derivatives_through_a_transpose_with_axes():
    """``hessian`` through ``np.transpose(y, (2, 0, 1))`` was refused since the adjoint inverts computed axes
    with the helper ``inverse_axes``, which had no rule: a function of integers, it has no derivative."""
    C = np.random.default_rng(0).normal(size=(4, 2, 3))

    def f(x):
        return np.sum(np.transpose(x.reshape(2, 3, 4), (2, 0, -2)) ** 2 * C)

    x = np.random.default_rng(1).normal(size=24)
    H = adcompiler.hessian(f)(x)
    np.testing.assert_allclose(H, np.diag(2 * np.transpose(C, (1, 2, 0)).ravel()), atol=1e-12)
