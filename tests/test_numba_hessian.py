"""hessian and hvp under backend="numba": forward mode over the python target's reverse code, that
forward code compiled by numba.njit; checked against autograd's Hessian (or central differences of
an analytic gradient), the python backend, and hvp against H @ v; the shape and dtype of each result;
what the target cannot compile at second order refused at the user's line.  Skipped without Numba."""

import math
import os
import types

import pytest

numba = pytest.importorskip("numba")
np = pytest.importorskip("numpy")
autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

import adcompiler  # noqa: E402
import numba_funcs as F  # noqa: E402
from adcompiler.errors import UnsupportedSyntaxError  # noqa: E402
from shared import derivative, written  # noqa: E402

MATH = types.SimpleNamespace(sin=anp.sin, cos=anp.cos, exp=anp.exp, tanh=anp.tanh, log=anp.log)


def on_autograd(fn):
    """fn reading autograd's functions where it reads np and math: the same code, for autograd."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp, "math": MATH}, fn.__name__)


def autograd_hessian(fn, args, wrt):
    """autograd's Hessian of fn in the floats of args[i] for i in wrt, flattened in that order."""
    shapes = [np.shape(args[i]) for i in wrt]
    sizes = [int(np.prod(s)) for s in shapes]

    def flat(v):
        parts, at = list(args), 0
        for i, shape, size in zip(wrt, shapes, sizes):
            piece = v[at : at + size]
            if isinstance(args[i], np.ndarray):
                parts[i] = anp.reshape(piece, shape)
            elif isinstance(args[i], list) and args[i] and isinstance(args[i][0], list):
                parts[i] = [[piece[r * shape[1] + c] for c in range(shape[1])] for r in range(shape[0])]
            elif isinstance(args[i], list):
                parts[i] = [piece[k] for k in range(size)]
            else:
                parts[i] = piece[0]
            at += size
        return on_autograd(fn)(*parts)

    point = np.concatenate([np.ravel(np.asarray(args[i], dtype=float)) for i in wrt])
    return autograd.hessian(flat)(point)


def second_order(d, args):
    """The Numba dispatcher of the forward code hessian and hvp run for these arguments."""
    _, sig = d._bound(args)
    return next(iter(d.derived[("reverse", sig)]._built.compiled_for.values()))["forward"].compiled


def hessian_checked(fn, args, wrt=None):
    """The Hessian under backend="numba", an (n, n) float64 array computed by compiled code, equal to
    the python backend's."""
    d = derivative(fn, wrt, "numba")
    h = adcompiler.hessian_matrix(d)(*args)
    n = sum(np.size(args[d.params.index(w)]) for w in d.wrt)
    assert type(h) is np.ndarray and h.shape == (n, n) and h.dtype == np.float64
    assert isinstance(second_order(d, args), numba.core.registry.CPUDispatcher)
    np.testing.assert_allclose(h, adcompiler.hessian_matrix(derivative(fn, wrt))(*args), rtol=1e-12)
    return h


@pytest.mark.parametrize(
    "fn, args, wrt",
    [
        (F.poly, (0.7, 1.3), None),
        (F.branchy, (0.4, 1.1), None),
        pytest.param(F.branchy, (1.4, 0.3), None, marks=pytest.mark.slow),  # (the other branch, with --runslow)
        (F.loop_jumps, (0.9, 12), (0,)),
        (F.early_return, (0.3,), None),
        pytest.param(F.early_return, (2.0,), None, marks=pytest.mark.slow),
        (F.newton_sqrt, (2.0,), None),
        (F.list_loop, ([0.3, -0.7, 1.2, 0.9, 1.5], 0.8), None),
        pytest.param(F.list_while, ([0.6, -0.4, 0.9], 0.7), None, marks=pytest.mark.slow),
        pytest.param(  # (lists of lists, a long compile: list_loop holds lists at second order by default)
            F.mat_vec_sum, ([[0.1, 0.2, -0.3], [0.3, 0.5, 0.7]], [1.0, -2.0, 0.5]), None, marks=pytest.mark.slow
        ),
        pytest.param(F.dot, ([1.0, -2.0, 0.5], [0.3, 0.2, -1.5]), None, marks=pytest.mark.slow),  # (lists: list_loop)
    ],
)
def test_hessian_of_scalar_and_list_code_against_autograd(fn, args, wrt):
    h = hessian_checked(fn, args, wrt)
    positions = wrt or tuple(range(len(args)))
    np.testing.assert_allclose(h, autograd_hessian(fn, args, positions), rtol=1e-10, atol=1e-12)


def test_hessian_of_a_while_loop_is_the_analytic_one():
    for a in (0.5, 2.0, 9.0):
        h = hessian_checked(F.newton_sqrt, (a,))
        assert h[0, 0] == pytest.approx(-0.25 * a**-1.5, rel=1e-10)


@pytest.mark.slow  # (recursion at second order: two long compiles)
def test_hessian_of_recursion_against_the_power_rule_and_differences():
    h = hessian_checked(F.power, (1.3, 7), ("x",))
    assert h[0, 0] == pytest.approx(7 * 6 * 1.3**5, rel=1e-12)
    grad = derivative(F.tower, wrt=("x",), backend="numba").grad
    step = 1e-5
    expected = (grad(0.7 + step, 5) - grad(0.7 - step, 5)) / (2 * step)
    assert hessian_checked(F.tower, (0.7, 5), ("x",))[0, 0] == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize(
    "fn, shapes", [pytest.param(F.softmax_np, ((3, 2), (2,)), marks=pytest.mark.slow), (F.array_loop, ((3, 3), (3,)))]
)
def test_hessian_of_numpy_code_against_autograd(fn, shapes):
    rng = np.random.default_rng(7)
    args = tuple(rng.normal(size=s) for s in shapes)
    h = hessian_checked(fn, args)
    np.testing.assert_allclose(h, autograd_hessian(fn, args, (0, 1)), rtol=1e-10, atol=1e-12)


@pytest.mark.slow  # (a gather's second order: tests/test_numba_agrees.py's written_elements by default)
def test_hessian_of_a_gather_with_repeats_against_autograd():
    rng = np.random.default_rng(8)
    x, idx = rng.normal(size=5), np.array([0, 3, 3, 1, 0, 0])
    h = hessian_checked(F.gathered, (x, idx), ("x",))
    np.testing.assert_allclose(h, autograd.hessian(on_autograd(F.gathered))(x, idx), rtol=1e-10, atol=1e-12)


def test_hvp_against_h_times_v_structured():
    rng = np.random.default_rng(9)
    xs, c = [0.3, -0.7, 1.2, 0.9], 0.8
    d = derivative(F.list_loop, backend="numba")
    h = adcompiler.hessian_matrix(d)(xs, c)
    v = rng.normal(size=5)
    hv_xs, hv_c = adcompiler.hvp(d, argnums=(0, 1))((xs, c), (v[:4].tolist(), float(v[4])))  # shaped like them
    assert type(hv_xs) is list and len(hv_xs) == 4 and all(type(t) is float for t in hv_xs)
    assert type(hv_c) is float
    np.testing.assert_allclose(hv_xs + [hv_c], h @ v, rtol=1e-12, atol=1e-14)


@pytest.mark.slow  # hvps of arrays under Numba: tests/test_numba_kmeans.py's by default
def test_hvp_of_arrays_keeps_their_shapes_and_is_scipys_hessp():
    rng = np.random.default_rng(10)
    w, x = rng.normal(size=(3, 2)), rng.normal(size=2)
    d = derivative(F.softmax_np, backend="numba")
    h = adcompiler.hessian_matrix(d)(w, x)
    tw, tx = rng.normal(size=(3, 2)), rng.normal(size=2)
    hw, hx = adcompiler.hvp(d, argnums=(0, 1))((w, x), (tw, tx))
    assert hw.shape == w.shape and hx.shape == x.shape and hw.dtype == hx.dtype == np.float64
    np.testing.assert_allclose(np.concatenate([hw.ravel(), hx]), h @ np.concatenate([tw.ravel(), tx]), rtol=1e-10)
    d = derivative(F.gathered, wrt=("x",), backend="numba")  # one wrt parameter: (x, p)
    x, idx, p = rng.normal(size=5), np.array([0, 3, 3]), rng.normal(size=5)
    hp = adcompiler.hvp(d)((x, idx), p)
    np.testing.assert_allclose(hp, adcompiler.hessian_matrix(d)(x, idx) @ p, rtol=1e-12)


def test_outside_the_subset_at_second_order_is_refused_at_the_users_line():
    rng = np.random.default_rng(11)
    layers = [(rng.normal(size=(3, 2)), rng.normal(size=3)), (rng.normal(size=(1, 3)), rng.normal(size=1))]
    x = rng.normal(size=2)
    d = derivative(F.layers_np, backend="numba")
    with pytest.raises(UnsupportedSyntaxError) as caught:
        adcompiler.hessian_matrix(d)(layers, x)
    message = str(caught.value)
    assert os.path.basename(F.__file__) in message and 'backend="python"' in message
    assert "second order" in message and "Failed in" not in message and "\x1b" not in message
    first = F.layers_np.__code__.co_firstlineno
    assert first < caught.value.lineno <= first + 6
    assert d.grad(layers, x)[1].shape == x.shape  # first order still compiles


def test_math_of_the_oracles():
    """The autograd oracle itself, on a Hessian known in closed form."""
    h = autograd_hessian(F.poly, (0.7, 1.3), (0, 1))
    x, y = 0.7, 1.3
    expected_xy = 2 * x + math.cos(x) + math.exp(-y) * (-2 * x) / (1 + x * x) ** 2
    assert h[0, 1] == pytest.approx(expected_xy, rel=1e-12)


def test_a_matrix_a_helper_builds_as_nested_lists_under_numba():
    """np.array([[c, -s], [s, c]]) in a helper: its reverse mode under Numba adds the cotangent into the
    shadow rows (a list of lists: add_into had no such overload, refused); its second derivative, whose
    zero tangents of those rows must be one list with the matrix's (Numba's zeros_like makes each apart),
    is refused at the user's line, not wrong."""
    import higher_funcs as H

    theta, p, q = 0.7, np.array([1.5, -0.4]), np.array([0.2, 0.9])
    python, compiled = (adcompiler.differentiate(H.pose_residual, backend=b) for b in ("python", "numba"))
    for want, got in zip(python.grad(theta, p, q), compiled.grad(theta, p, q)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert compiled.grad(0.3, p, q)[0] == pytest.approx(python.grad(0.3, p, q)[0], rel=1e-12)
    with pytest.raises(UnsupportedSyntaxError, match="higher_funcs.py:.*backend=.numba"):
        adcompiler.hessian(adcompiler.differentiate(H.cubes_of_a_row, backend="numba"))(0.3)


def test_matrix_norms_numba_refused_as_it_ran(tmp_path):
    """np.linalg.norm(A, "nuc") and ord="fro" under Numba: the value too (jvp, vjp), which Numba's own norm
    refused as the code ran (a bare ValueError); the python target's numbers."""
    namespace = written(
        tmp_path,
        "norms",
        "import numpy as np\n\n\ndef nuclear(A):\n    return np.linalg.norm(A, ord='nuc')\n\n\n"
        "def frobenius(A):\n    return np.linalg.norm(A, 'fro') * 2.0\n",
    )
    A = np.arange(12.0).reshape(4, 3) ** 0.5
    for name in ("nuclear", "frobenius"):
        python, compiled = (adcompiler.differentiate(namespace[name], backend=b) for b in ("python", "numba"))
        v1, t1 = python.jvp((A,), (np.ones_like(A),))
        v2, t2 = compiled.jvp((A,), (np.ones_like(A),))
        assert v2 == pytest.approx(v1, rel=1e-12) and t2 == pytest.approx(t1, rel=1e-10)
        np.testing.assert_allclose(compiled.vjp((A,), 1.0)[1][0], python.vjp((A,), 1.0)[1][0], rtol=1e-10)


def test_row_norms_and_a_clipped_number_under_numba(tmp_path):
    """np.linalg.norm(X, axis=1) (Numba's norm takes no axis: the root of the rows' sums of squares) and
    np.clip of a number (Numba's takes arrays only): both were refused; the python target's numbers."""
    namespace = written(
        tmp_path,
        "spelt",
        "import numpy as np\n\n\ndef rownorm(X):\n    return np.sum(np.linalg.norm(X, axis=1) ** 3)\n\n\n"
        "def kept(X):\n    return np.sum(np.linalg.norm(X, axis=0, keepdims=True) * X)\n\n\n"
        "def clip_scalar(x):\n    return np.sum(np.clip(x.sum(), -1.0, 1.0) * x)\n",
    )
    X = np.arange(12.0).reshape(3, 4) / 10 - 0.4
    for name, x in (("rownorm", X), ("kept", X), ("clip_scalar", X), ("clip_scalar", X / 20)):
        python, compiled = (adcompiler.differentiate(namespace[name], backend=b) for b in ("python", "numba"))
        np.testing.assert_allclose(compiled.grad(x), python.grad(x), rtol=1e-12, atol=1e-14)
        v = np.cos(np.arange(12.0)).reshape(3, 4)
        assert compiled.jvp((x,), (v,))[1] == pytest.approx(python.jvp((x,), (v,))[1], rel=1e-12)


ENTRIES = ["t", "-t", "math.sin(t)", "math.cos(t)", "t * t", "2.0", "s", "s * t"]


def _nested_list_program(rng) -> str:
    """A helper building ``np.array`` of nested lists of numbers of its parameters (as a rotation or a
    Jacobian is written), and a function using the matrix in a product, a sum or by rows."""
    rows, cols = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
    matrix = ", ".join("[" + ", ".join(rng.choice(ENTRIES) for _ in range(cols)) + "]" for _ in range(rows))
    use = rng.choice(
        [
            "np.sum(m ** 3)",
            f"np.sum(np.tanh(m @ p[:{cols}]))",
            "np.sum(m[0] * m[-1]) + np.sum(m) * t",
            "np.sum(np.sin(m) * s)",
        ]
    )
    return (
        "import math\nimport numpy as np\n\n\n"
        f"def matrix(t, s):\n    return np.array([{matrix}])\n\n\n"
        f"def f(t, s, p):\n    m = matrix(t * s, s + 0.5)\n    return {use}\n"
    )


@pytest.mark.parametrize("seed", range(8))
def test_random_matrices_of_nested_lists_hessian_under_numba_is_right_or_refused(seed, tmp_path):
    """The generator the 0 Hessian of np.array([[t, t]]) in a helper (rows read back from their list) would
    have been found by: random helpers building a matrix of nested lists, each Hessian under Numba equal to
    the python target's, itself checked against central differences of its gradient, or refused at a line of
    the user's file."""
    import random

    rng = random.Random(seed)
    namespace = written(tmp_path, f"nested_rows_{seed}", _nested_list_program(rng))
    t, s, p = rng.uniform(0.3, 1.2), rng.uniform(0.3, 1.2), np.array([0.7, -0.4, 1.1])
    python = adcompiler.hessian(namespace["f"], argnums=(0, 1))(t, s, p)
    g = adcompiler.grad(namespace["f"], argnums=(0, 1))
    for j, (dt, ds) in enumerate([(1e-5, 0.0), (0.0, 1e-5)]):
        up, down = g(t + dt, s + ds, p), g(t - dt, s - ds, p)
        for i in range(2):
            assert python[i][j] == pytest.approx((up[i] - down[i]) / 2e-5, rel=1e-5, abs=1e-6)
    compiled = adcompiler.differentiate(namespace["f"], backend="numba")
    try:
        got = adcompiler.hessian(compiled, argnums=(0, 1))(t, s, p)
    except UnsupportedSyntaxError as e:
        assert e.filename.endswith(f"nested_rows_{seed}.py") and "numba" in str(e)
        return
    np.testing.assert_allclose(np.array(got, dtype=float), np.array(python, dtype=float), rtol=1e-10, atol=1e-12)


def test_float32_hessians_through_matrix_products_numba(tmp_path):
    """float32 arguments: the Hessian's unit tangents and the output's cotangent are float32, so the
    second-order code multiplies float32 by float32 (they were float64: Numba's @ of float64 and float32 was
    refused, "pass arrays of one dtype", though the user passed float32 only)."""
    text = (
        "def quadratic(x, W):\n    return x @ W @ x\n\n\n"
        "def layers(x, W):\n    h = x\n    for _ in range(3):\n        h = np.tanh(W @ h).astype(x.dtype)\n"
        "    return np.sum(h ** 2)\n"
    )
    funcs = written(tmp_path, "float32_hessians", "import numpy as np\n\n\n" + text)
    x = np.array([0.3, -0.5, 0.9], np.float32)
    W = np.array([[0.2, -0.7, 0.4], [0.5, 0.3, -0.2], [-0.1, 0.8, 0.25]], np.float32)
    for name in ("quadratic", "layers"):
        got = adcompiler.hessian(adcompiler.differentiate(funcs[name], backend="numba"))(x, W)
        want = autograd.hessian(funcs[name])(x.astype(float), W.astype(float))  # (autograd: float64 NumPy code)
        assert got.dtype == np.float32, (name, got.dtype)
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
