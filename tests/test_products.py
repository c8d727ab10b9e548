"""NumPy's products of two arrays as records (rules/products.py: np.dot, np.matmul, np.inner, np.outer,
np.cross, np.tensordot, np.kron, np.einsum, and np.average's weights): each record's rules are its function's
derivative in both arguments, in both modes, against central differences of NumPy itself (the module's
functions of one array are in tests/test_moves.py)."""

import importlib.util

import numpy as np
import pytest

import adcompiler
from shared import two_operand_check, written
from adcompiler.rules.families import family

# (the call, of x and y; x's shape; y's shape): each record with operands of several ndims
CASES = {
    "dot": [("np.dot(x, y)", (2, 3), (3,)), ("x.dot(y)", (3,), (3, 2)), ("np.dot(x, y)", (2, 3), (3, 2))],
    "matmul": [("np.matmul(x, y)", (2, 2, 3), (3, 2)), ("np.matmul(x, y)", (3,), (3,)), ("x @ y", (2, 3), (3,))],
    "inner": [("np.inner(x, y)", (2, 3), (4, 3)), ("np.inner(x, y)", (3,), (3,))],
    "outer": [("np.outer(x, y)", (3,), (2,)), ("np.outer(x, y)", (2, 2), (3,))],
    "cross": [("np.cross(x, y)", (2, 3), (3,)), ("np.cross(x, y)", (3,), (3,))],
    "tensordot": [("np.tensordot(x, y, axes=1)", (2, 3), (3, 2)), ("np.tensordot(x, y)", (2, 3), (2, 3))],
    "kron": [("np.kron(x, y)", (2, 2), (3,)), ("np.kron(x, y)", (2,), (2, 3))],
    "average": [("np.average(x, axis=0, weights=y)", (3, 2), (3,)), ("np.average(x, weights=y)", (2, 3), (2, 3))],
    "einsum": [
        ("np.einsum('ij,jk->ik', x, y)", (2, 3), (3, 4)),
        ("np.einsum('ij,ij', x, y)", (2, 3), (2, 3)),  # (the output implicit: a number)
        ("np.einsum('ii,i->i', x, y)", (3, 3), (3,)),  # (a diagonal read)
        ("np.einsum('i,j,j->i', x, y, y)", (3,), (2,)),  # (y twice: three operands)
    ],
}
ONE_ARRAY = ("cumprod", "take", "take_along_axis", "sort", "median", "percentile", "quantile")  # (tests/test_moves.py)


def test_every_product_record_has_its_cases():
    differentiated = [p.numpy_name for f in ("products", "orders") for p in family(f) if not (p.inactive or p.expanded)]
    assert sorted({*CASES, *ONE_ARRAY}) == sorted(differentiated)  # (argsort, argmax: tests/test_constructors.py;
    # multi_dot, written as np.dot: tests/test_expansions.py)


@pytest.mark.parametrize("case", [(e, x, y) for cases in CASES.values() for e, x, y in cases], ids=str)
def test_each_product_record_differentiates_its_function(tmp_path, case):
    """grad in both operands and jvp against central differences of NumPy's own product, forward against
    reverse, each cotangent of its operand's shape and dtype."""
    expression, x_shape, y_shape = case
    rng = np.random.default_rng(sum(map(ord, expression)) + len(x_shape))
    x, y = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    namespace = written(
        tmp_path, "product", f"import numpy as np\n\n\ndef f(x, y, w):\n    return np.sum(np.sin({expression}) * w)\n"
    )
    f = namespace["f"]
    w = rng.standard_normal(np.shape(eval(expression, {"np": np, "x": x, "y": y})))
    d = adcompiler.differentiate(f, wrt=("x", "y"))
    two_operand_check(f, d, x, y, w, expression, rng)


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="needs numba")
def test_average_with_weights_of_its_arrays_shape_under_numba():
    """np.average(a, weights=w) with w of a's shape: the Numba target's helpers (weights_like, weights_vjp)
    give the python target's numbers, in both modes (Numba's np.average takes no axis)."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((3, 4)), rng.random((3, 4)) + 0.5

    def f(x, w):
        return np.sin(np.average(x * x, weights=w))

    python, numba = (adcompiler.differentiate(f, backend=b) for b in ("python", "numba"))
    for want, got in zip(python.grad(x, w), numba.grad(x, w)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    u, v = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    assert numba.jvp((x, w), (u, v))[1] == pytest.approx(python.jvp((x, w), (u, v))[1], rel=1e-12)
