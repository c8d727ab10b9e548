"""A gradient inside a differentiated function (``gf = adcompiler.grad(f)`` at module level, then ``g(x) =
np.sum(gf(x) ** 2)``: a gradient penalty, a physics-informed loss), taken in reverse mode (reverse over reverse)
and forward mode (forward over reverse), on both targets, for the NumPy operations such code is made of.  Oracle:
autograd's ``grad(grad)`` of the same source run on ``autograd.numpy``.  Before 2026-12-03 every ``np.dot``, ``np.max`` and ``np.var`` among
them was refused in reverse mode ("reverse mode over generated NumPy derivative code (dot_vjp_b)")."""

import pytest

np = pytest.importorskip("numpy")
autograd = pytest.importorskip("autograd")

import adcompiler  # noqa: E402
from shared import defined  # noqa: E402

INNER = {  # f(x) of a vector of three; W, M, V, V6 constants of the module
    "dot_tanh": "h = np.tanh(np.dot(W, x))\n    return np.dot(h, h)",
    "matvec_sin": "return np.sum(np.sin(W @ x)) + np.dot(x, V) ** 2",
    "inner_exp": "return np.inner(x, x) * np.sum(np.exp(x))",
    "outer": "return np.sum(np.outer(x, x) * M) + np.sum(np.outer(x, np.sin(x)))",
    "norm": "return np.linalg.norm(x) ** 3 + np.sqrt(np.sum(x * x) + 1.0)",
    "softmax": "e = np.exp(x - 1.0)\n    return np.sum(e / np.sum(e) * V)",
    "logsumexp": "return np.log(np.sum(np.exp(x * V)))",
    "shifted": "return np.sum(x[1:] * x[:-1] * x[1:]) + x[0] ** 3",
    "concatenate": "return np.dot(np.concatenate([x, x ** 2]), V6) ** 2",
    "einsum": "return np.sum(np.tanh(np.einsum('ij,j->i', W, x)) ** 2)",
    "tensordot": "return np.sum(np.tensordot(W, x, axes=1) ** 3)",
    "reductions": "return np.mean(x ** 3) * np.prod(x + 2.0)",
    "where": "return np.sum(np.where(x > 0.0, x ** 3, np.sin(x)))",
    "cumsum": "return np.dot(np.cumsum(x * x), V)",
    "reshape": "A = np.reshape(np.concatenate([x, x * x]), (2, 3))\n    return np.sum((A.T @ A) ** 2)",
    "trace": "return np.trace(np.outer(x, x) @ M) * np.sum(x)",
    "max": "return np.max(x ** 2 + x) * np.sum(x) + np.max(W @ x)",
    "max_axis": "return np.sum(np.max(np.outer(x, x) + M, axis=1) ** 2)",
    "var_std": "return np.mean(x ** 3) * np.var(x) + np.var(W @ x) + np.std(x * V)",
    "sum_axis": "return np.sum(np.sum(np.outer(x, x) * M, axis=0) ** 2) + np.sum(np.mean(np.outer(x, V), axis=1))",
}
HEAD = (
    "W = np.array([[0.5, 1.5, -2.0], [0.3, -0.7, 1.1]])\n"
    "M = np.array([[1.0, 0.2, 0.0], [0.2, 2.0, -0.5], [0.0, -0.5, 0.7]])\n"
    "V = np.array([0.4, -1.1, 0.6])\n"
    "V6 = np.array([0.4, -1.1, 0.6, 0.2, 0.9, -0.3])\n\n\n"
)


def _load(tmp_path, name: str, case: str, numpy_module: str, grad: str):
    head = f"import {numpy_module} as np\nfrom {grad.rsplit('.', 1)[0]} import {grad.rsplit('.', 1)[1]} as grad\n\n"
    body = f"def f(x):\n    {INNER[case]}\n\n\ngf = grad(f)\n\n\n"
    return defined(
        tmp_path, name, HEAD + body + "def g(x):\n    d = gf(x)\n    return np.sum(d * d) + np.dot(d, V)\n", head
    )


X, U = np.array([0.6, -0.4, 0.9]), np.array([0.3, -0.2, 0.7])


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("case", sorted(INNER))
def test_gradient_of_a_function_of_a_gradient(tmp_path, backend, case):
    if backend == "numba":
        pytest.importorskip("numba")
    ours = _load(tmp_path, f"gg_{case}", case, "numpy", "adcompiler.grad")
    theirs = _load(tmp_path, f"gg_{case}_autograd", case, "autograd.numpy", "autograd.grad")
    want = autograd.grad(theirs.g)(X)
    d = adcompiler.differentiate(ours.g, backend=backend)
    if backend == "numba" and case in ("einsum", "tensordot"):  # (Numba has neither: a first derivative is refused)
        for derivative in (d, adcompiler.differentiate(ours.f, backend=backend)):
            with pytest.raises(adcompiler.UnsupportedSyntaxError, match=f"numpy.{case}"):
                derivative.grad(X)
        return
    np.testing.assert_allclose(d.grad(X), want, rtol=1e-9, atol=1e-10)
    value, tangent = d.jvp((X,), (U,))
    assert value == pytest.approx(float(theirs.g(X)), rel=1e-12)
    assert tangent == pytest.approx(float(want @ U), rel=1e-9, abs=1e-10)
