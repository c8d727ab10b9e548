"""A product's cotangent summed over its rows before the product (``optimize.sums_first``): the adjoint of
``(x - mu) @ B`` for a vector ``mu`` is ``unbroadcast(matmul_vjp_a(np.sum(g, axis=0), mu, B), mu)``, no n x d
product made only to be summed; only for float64 matrices and a float64 vector.

Oracles: autograd on the same code, central differences, the python target against the Numba target,
forward mode against reverse mode (``<u, J v> == <J^T u, v>``); the text of the generated code.
"""

import numpy as np
import pytest

import adcompiler
from oracle import central_grad
from shared import BACKENDS

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

RNG = np.random.default_rng(36)


def centred(x, mu, B):
    """Rows less a mean, through a matrix: GradBench gmm's ``(x - mu[j]) @ Q.T``."""
    z = (x - mu) @ B
    return np.sum(np.tanh(z) * z)


def centred_ag(x, mu, B):
    z = anp.dot(x - mu, B)
    return anp.sum(anp.tanh(z) * z)


def mixture(x, mus, Bs):
    """A mean and a matrix a component, in a loop (the cotangent a name read once, bound earlier)."""
    total = 0.0
    for j in range(mus.shape[0]):
        z = (x + mus[j]) @ Bs[j].T
        total = total + np.sum(np.exp(-0.5 * z * z))
    return total


def mixture_ag(x, mus, Bs):
    total = 0.0
    for j in range(mus.shape[0]):
        z = anp.dot(x + mus[j], Bs[j].T)
        total = total + anp.sum(anp.exp(-0.5 * z * z))
    return total


CASES = [
    (centred, centred_ag, (RNG.normal(size=(30, 4)), RNG.normal(size=4), RNG.normal(size=(4, 3)))),
    (centred, centred_ag, (RNG.normal(size=(30, 4)), RNG.normal(size=1), RNG.normal(size=(4, 3)))),  # (mu of one)
    (centred, centred_ag, (RNG.normal(size=(1, 4)), RNG.normal(size=4), RNG.normal(size=(4, 5)))),  # (one row)
    (centred, centred_ag, (RNG.normal(size=(30, 4)), RNG.normal(size=(1, 4)), RNG.normal(size=(4, 3)))),  # (2-D mu)
    (mixture, mixture_ag, (RNG.normal(size=(25, 3)), RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3, 3)))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, fn_ag, args", CASES)
def test_gradient_against_autograd_and_differences(fn, fn_ag, args, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    got = adcompiler.differentiate(
        fn, wrt=("x", fn.__code__.co_varnames[1], fn.__code__.co_varnames[2]), backend=backend
    )
    grads = got.grad(*args)
    for k, g in enumerate(grads):
        assert np.shape(g) == np.shape(args[k]) and np.asarray(g).dtype == np.float64
        np.testing.assert_allclose(g, autograd.grad(fn_ag, k)(*args), rtol=1e-11, atol=1e-12)
        np.testing.assert_allclose(g, central_grad(fn, args, k), rtol=1e-5, atol=1e-7)


def test_the_rows_are_summed_first_where_mu_is_a_vector():
    args = CASES[0][2]
    d = adcompiler.differentiate(centred, wrt=("mu",))
    d.grad(*args)
    code = str(d.source("reverse"))
    assert "matmul_vjp_a(np.sum(" in code and ", axis=0), mu, B), mu)" in code, code
    d = adcompiler.differentiate(centred, wrt=("mu",))
    d.grad(*CASES[3][2])  # (a 2-D mu: summed over rows and kept as a row, left as it was)
    assert "np.sum(d_" not in str(d.source("reverse")), d.source("reverse")
    ints = (RNG.normal(size=(3, 4)), np.ones(4), np.arange(8).reshape(4, 2))  # (an integer B: left as it was)
    d = adcompiler.differentiate(centred, wrt=("mu",))
    np.testing.assert_allclose(
        d.grad(*ints), central_grad(centred, tuple(np.asarray(a, float) for a in ints), 1), rtol=1e-5
    )
    assert "np.sum(d_" not in str(d.source("reverse")), d.source("reverse")


def test_forward_against_reverse():
    """<u, J v> == <J^T u, v> for the gradient's code (a Hessian-vector product against the Hessian)."""
    x, mu, B = CASES[0][2]
    d = adcompiler.differentiate(centred, wrt=("mu",))
    v = RNG.normal(size=mu.shape)
    _, jv = adcompiler.jvp(lambda m: centred(x, m, B), (mu,), (v,))
    np.testing.assert_allclose(jv, np.dot(d.grad(x, mu, B), v), rtol=1e-12)


@pytest.mark.parametrize("fn, args", [(c[0], c[2]) for c in CASES])
def test_numba_agrees_with_python(fn, args):
    pytest.importorskip("numba")
    names = fn.__code__.co_varnames[:3]
    py = adcompiler.differentiate(fn, wrt=names).grad(*args)
    nb = adcompiler.differentiate(fn, wrt=names, backend="numba").grad(*args)
    for a, b in zip(py, nb):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
