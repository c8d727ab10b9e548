"""The GradBench evals (benchmarks/gradbench/evals) differentiated by adcompiler, against independent
oracles: analytic gradients, central differences, and forward mode against reverse mode."""

import sys
from pathlib import Path

import numpy as np
import pytest

import adcompiler

HARNESS = Path(__file__).resolve().parent.parent / "benchmarks" / "gradbench"
sys.path.insert(0, str(HARNESS))

from evals import det  # noqa: E402


@pytest.mark.parametrize("ell", [3, 4, 5, 6])
def test_det_by_minors_gradient_is_the_cofactor_matrix(ell):
    """d det(A) / dA = det(A) inv(A)^T; the index lists sliced, joined and passed down the recursion are
    ints (no derivative), in both modes."""
    rng = np.random.default_rng(ell)
    A = rng.normal(size=(ell, ell))
    f = adcompiler.differentiate(det.det)
    expected = np.linalg.det(A) * np.linalg.inv(A).T
    np.testing.assert_allclose(f.grad(A), expected, rtol=1e-10, atol=1e-12)
    V = rng.normal(size=(ell, ell))
    value, tangent = f.jvp((A,), (V,))
    _, (cotangent,) = f.vjp((A,), 1.0)
    np.testing.assert_allclose(value, np.linalg.det(A), rtol=1e-10)
    np.testing.assert_allclose(tangent, np.sum(cotangent * V), rtol=1e-10)
    np.testing.assert_allclose(tangent, np.sum(expected * V), rtol=1e-10)
