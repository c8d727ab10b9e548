"""Under Numba, the shape ``unbroadcast`` reads is taken from the operands of the arithmetic that made the
array (``targets.numba.operand_shapes``), so the arithmetic folds into its other use and is one loop:
GradBench kmeans' ``t9 = p2[:, None] + c2[None, :]`` no longer an n x k array of its own.

Oracles: central differences, the python target (the same numbers), Numba's count of the arrays a call
makes (one fewer a call than with the rewrite left out), the text of the generated code.
"""

import numpy as np
import pytest

import adcompiler
from oracle import central_grad

numba = pytest.importorskip("numba")
from adcompiler.targets.numba import backend, live  # noqa: E402
from test_numba_kmeans import kmeans_matmul as nearest  # noqa: E402  (GradBench's JAX formulation of k-means)

RNG = np.random.default_rng(37)


def scaled(a, b):
    """A sum of the user's (a name the folding keeps: nothing to gain) and an operand that is arithmetic
    (read again, it would be computed again): left as they were."""
    t = np.exp(a) + b
    return np.sum(t * t) + np.sum(np.sin(a * 3.0 + b))


def mixed(a, w):
    """A number and an array, arrays of two ndims: the shape NumPy broadcasts them to."""
    u = 2.0 * a
    v = u[None, :] * w
    return np.sum(np.sin(v) * u)


ARGS = {
    nearest: (RNG.normal(size=(40, 3)), RNG.normal(size=(5, 3))),
    scaled: (RNG.normal(size=(4, 6)), RNG.normal(size=6)),
    mixed: (RNG.normal(size=5), RNG.normal(size=(3, 5))),
}


@pytest.mark.parametrize("fn", list(ARGS))
def test_gradients_against_python_and_differences(fn):
    args = ARGS[fn]
    got = adcompiler.differentiate(fn, backend="numba").grad(*args)
    want = adcompiler.differentiate(fn).grad(*args)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == args[k].shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(g, central_grad(fn, args, k), rtol=1e-5, atol=1e-7)


def test_the_sum_folds_into_its_use():
    d = adcompiler.differentiate(nearest, wrt=("centroids",), backend="numba")
    d.grad(*ARGS[nearest])
    code = str(d.source("reverse"))
    assert "dist2 = p2[t3, None] + t8 - 2.0 * t11" in code and "shape_like(p2[t3, None], t8)" in code, code
    d = adcompiler.differentiate(scaled, backend="numba")
    d.grad(*ARGS[scaled])
    assert "shape_like" not in str(d.source("reverse")), d.source("reverse")


def test_one_array_fewer_a_call(monkeypatch):
    """Numba's count of the arrays one call of the gradient makes: one fewer (t9) than without the rewrite."""
    from numba.core.runtime import _nrt_python, rtsys

    def made(fn):
        d = adcompiler.differentiate(nearest, wrt=("centroids",), backend="numba")
        d.grad(*ARGS[nearest])
        _nrt_python.memsys_enable_stats()
        before = rtsys.get_allocation_stats().alloc
        d.grad(*ARGS[nearest])
        return rtsys.get_allocation_stats().alloc - before

    with_it = made(nearest)
    monkeypatch.setattr(backend, "shapes_from_operands", lambda body, *rest: body)
    monkeypatch.setenv("ADCOMPILER_CACHE_DIR", "")
    without = made(nearest)
    assert with_it == without - 1, (with_it, without)


@numba.njit
def _like(x, y):
    return live.shape_like(x, y).shape


@numba.njit
def _like3(x, y, z):
    return live.shape_like(x, y, z).shape


def test_shape_like_broadcasts_as_numpy():
    """shape_like of arrays of any ndims and numbers: the shape NumPy broadcasts them to; a mismatch is
    NumPy's ValueError."""
    cases = [((3, 1), (1, 4)), ((2, 3), (3,)), ((3,), (2, 1, 3)), ((1,), (5,)), ((0, 2), (1, 2))]
    for a, b in cases:
        assert _like(np.zeros(a), np.zeros(b)) == np.broadcast_shapes(a, b)
    assert _like(2.0, np.zeros(5)) == (5,) and _like(np.zeros((2, 2)), 1.0) == (2, 2)
    assert _like3(np.zeros((3, 1)), 1.0, np.zeros(4)) == (3, 4)
    with pytest.raises(ValueError):
        _like(np.zeros(3), np.zeros(4))


def test_the_gradient_code_differentiated_again():
    """The Hessian-vector product (forward mode over the gradient code, which then holds its own shape_like)
    against the python target's, and the gradient's forward mode against its reverse mode."""
    points, centroids = ARGS[nearest]
    v = RNG.normal(size=centroids.shape)
    got = adcompiler.hvp(adcompiler.differentiate(nearest, wrt=("centroids",), backend="numba"), wrt="centroids")
    want = adcompiler.hvp(adcompiler.differentiate(nearest, wrt=("centroids",)), wrt="centroids")
    np.testing.assert_allclose(got((points, centroids), v), want((points, centroids), v), rtol=1e-12, atol=1e-12)
    d = adcompiler.differentiate(mixed, backend="numba")
    a, w = ARGS[mixed]
    u, t = RNG.normal(size=a.shape), RNG.normal(size=w.shape)
    _, jv = d.jvp((a, w), (u, t))
    ga, gw = d.grad(a, w)
    np.testing.assert_allclose(jv, np.sum(ga * u) + np.sum(gw * t), rtol=1e-12)
