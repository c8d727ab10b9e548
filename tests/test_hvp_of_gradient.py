"""adcompiler.hvp as the tangent of the generated gradient code (python target): the reverse code's
tangent also carried the tangent of the function's value, computed and dropped; against analytic
Hessians, and the cases that keep the reverse code (gradient code with ``del``, array outputs)."""

import numpy as np
import pytest

import adcompiler
from adcompiler.api.hvp import hvp_of


def wavy(x, y):
    return np.sum(np.sin(x) * x * y)


def kmeans_cost(points, centroids):
    diff = points[:, None, :] - centroids[None, :, :]
    return np.sum(np.min(np.sum(diff * diff, axis=2), axis=1))


def elementwise(x):
    return np.sin(x)


def test_the_product_is_the_tangent_of_the_gradient_code():
    d = adcompiler.differentiate(wavy)
    hvp = hvp_of(d)
    rng = np.random.default_rng(0)
    x, y, u, v = (rng.normal(size=5) for _ in range(4))
    hx, hy = hvp((x, y), (u, v))
    # d/dx = (cos x * x + sin x) y, d/dy = sin x * x
    np.testing.assert_allclose(
        hx, (2 * np.cos(x) - x * np.sin(x)) * y * u + (np.cos(x) * x + np.sin(x)) * v, rtol=1e-13
    )
    np.testing.assert_allclose(hy, (np.cos(x) * x + np.sin(x)) * u, rtol=1e-13)
    (made,) = [g for key, g in d.derived.items() if key[0] == "grad"]
    assert made is not None and made.fn is d._built.function("grad", d._sig)


def test_kmeans_direction_against_the_analytic_hessian_diagonal():
    """GradBench kmeans' J / H: H is diagonal, 2 (the number of points nearest each centroid) per entry."""
    rng = np.random.default_rng(1)
    points, centroids = rng.normal(size=(300, 3)), rng.normal(size=(5, 3))
    d = adcompiler.differentiate(kmeans_cost, wrt=("centroids",))
    hvp = adcompiler.hvp(d, wrt="centroids")
    nearest = np.argmin(np.sum((points[:, None, :] - centroids[None]) ** 2, axis=2), axis=1)
    counts = np.bincount(nearest, minlength=5)[:, None] * np.ones((1, 3))
    for _ in range(2):
        h = hvp((points, centroids), np.ones_like(centroids))
        np.testing.assert_array_equal(h, 2.0 * counts)


def test_an_array_output_is_refused_and_hessian_gives_each_outputs():
    """hvp and hessian_matrix of an array output gave the Hessian of the sum of its entries, with no error
    (a silent surprise: JAX's hessian gives each output's); refused, saying what to take, and
    ``adcompiler.hessian`` gives each output's Hessian (out.shape + in.shape + in.shape, as JAX's)."""
    d = adcompiler.differentiate(elementwise)
    x, v = np.linspace(0.1, 1.0, 4), np.array([1.0, -2.0, 0.5, 3.0])
    with pytest.raises(TypeError, match=r"one number out; elementwise returns a 1-D float64 array: take adcompiler"):
        hvp_of(d)((x,), (v,))
    with pytest.raises(TypeError, match=r"one number out"):
        adcompiler.hessian_matrix(elementwise)(x)
    H = adcompiler.hessian(elementwise)(x)
    assert H.shape == (4, 4, 4)
    expected = np.zeros((4, 4, 4))
    expected[np.arange(4), np.arange(4), np.arange(4)] = -np.sin(x)  # (elementwise is np.sin of x, entry by entry)
    np.testing.assert_allclose(H, expected, atol=1e-14)
