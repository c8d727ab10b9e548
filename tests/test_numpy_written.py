"""The NumPy functions of issue 37's held-out set: corrcoef, the nan-reductions, meshgrid, delete,
ufunc ``outer``, eigvalsh, np.float64/np.float32, einsum(optimize=True), reshape(order=) and
np.sum(where=): both modes against central differences and the dot test (``check_both_modes``, which
also checks every cotangent's structure, shape and dtype), gradients against autograd or analytic
ones, second order where it applies, and the located refusals."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
import numpy_written_funcs as F
from adcompiler.errors import MissingRuleError, UnsupportedSyntaxError
from adcompiler.testing.oracle import check_both_modes, check_second_order

RNG = np.random.default_rng(370)


def test_corrcoef_against_autograd_of_its_formula():
    x = RNG.normal(size=(3, 6))
    check_both_modes(F.correlations, (x,))

    def oracle(x):
        c = x - anp.mean(x, axis=1, keepdims=True)
        cov = anp.dot(c, c.T)
        d = anp.sqrt(anp.diag(cov))
        return anp.sum(cov / anp.outer(d, d) * anp.arange(9.0).reshape(3, 3))

    np.testing.assert_allclose(adcompiler.grad(F.correlations)(x), autograd.grad(oracle)(x), rtol=1e-9, atol=1e-12)
    assert adcompiler.differentiate(F.correlations).vjp((x,), 1.0)[0] == pytest.approx(F.correlations(x), rel=1e-13)


def test_corrcoef_of_two_arrays_by_columns():
    check_both_modes(F.correlations_of_two, (RNG.normal(size=(6, 2)), RNG.normal(size=(6, 1))))


def test_nan_reductions_send_nothing_to_the_nans():
    x = np.array([[1.0, np.nan, 2.5], [2.0, 3.0, np.nan]])
    g = adcompiler.grad(F.nan_reductions)(x)
    # nanmean: 1/4 per entry; nansum over axis 0 squared: 2 * column sum; nanmax * sum(row nanmins)
    col = np.array([3.0, 3.0, 2.5])
    expected = 0.25 + 2 * col[None, :] + np.array([[1.0 * 3.0, 0, 0], [3.0, 0, 0]])
    expected[1, 1] += 1.0 + 2.0  # the largest entry: d/dmax (max * (1 + 2)) = 3
    expected = np.where(np.isnan(x), 0.0, expected)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    filled = np.nan_to_num(x, nan=0.5)  # the dot test and differences away from the NaNs
    check_both_modes(F.nan_reductions, (filled,))
    check_both_modes(F.nan_means_by_row, (filled,))


def test_nanmax_of_a_slice_of_nans_is_nan_as_numpys():
    x = np.array([[np.nan, np.nan], [1.0, 2.0]])
    value, _ = adcompiler.differentiate(F.nan_reductions).vjp((x,), 1.0)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected = F.nan_reductions(x)
    assert np.isnan(value) and np.isnan(expected)


def test_meshgrid_both_indexings():
    x, y, z = RNG.normal(size=3), RNG.normal(size=2), RNG.normal(size=4)
    check_both_modes(F.grid, (x, y))
    gx, gy = adcompiler.differentiate(F.grid).grad(x, y)
    np.testing.assert_allclose(gx, np.cos(x) * np.sum(y**2), rtol=1e-12)
    np.testing.assert_allclose(gy, 2 * y * np.sum(np.sin(x)), rtol=1e-12)
    check_both_modes(F.grid_ij, (x, y, z))


def test_delete_by_index_and_along_an_axis():
    x = RNG.normal(size=5)
    expected = [2 * x[0], 3.0, 2 * x[2], 2 * x[3] + 3.0, 2 * x[4] + 3.0]
    np.testing.assert_allclose(adcompiler.grad(F.deleted)(x), expected, rtol=1e-14)
    check_both_modes(F.deleted, (x,))
    check_both_modes(F.deleted_rows, (RNG.normal(size=(3, 2)),))


def test_ufunc_outer_against_autograd_by_broadcasting():
    a, b = RNG.normal(size=3), RNG.normal(size=(2, 2))
    check_both_modes(F.outers, (a, b))

    def oracle(a, b):
        A = a[:, None, None]
        return anp.sum((A * b) ** 2) + anp.sum((A - b) ** 3) + anp.sum((A + b) * anp.maximum(A, b))

    got = adcompiler.differentiate(F.outers).grad(a, b)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], autograd.grad(oracle, k)(a, b), rtol=1e-10)


def test_eigvalsh_against_autograds_eigh():
    B = RNG.normal(size=(3, 3))
    A = B + B.T
    check_both_modes(F.eigenvalues, (A,))

    def oracle(A):  # autograd's eigh reads the lower triangle, as NumPy's does
        return anp.sum(anp.linalg.eigh(A)[0] ** 3)

    np.testing.assert_allclose(adcompiler.grad(F.cubed_eigenvalues)(A), autograd.grad(oracle)(A), rtol=1e-9, atol=1e-12)
    check_second_order(F.eigenvalues, (A,))


def test_float_constructors():
    d = adcompiler.differentiate(F.floats)
    g = d.grad(0.3)
    assert isinstance(g, float) and g == pytest.approx(2 * 0.3 + 2.0)
    check_both_modes(F.floats, (0.3,))
    x = RNG.normal(size=3)
    g = adcompiler.grad(F.float32_array)(x)
    assert g.dtype == np.float64 and g.shape == (3,)
    np.testing.assert_allclose(g, 2.0)


def test_einsum_optimize_reshape_order_and_sum_where():
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 2))
    check_both_modes(F.einsum_optimized, (a, b))
    np.testing.assert_allclose(adcompiler.grad(F.einsum_optimized)(a, b), 2 * (a @ b) @ b.T, rtol=1e-12)
    x = RNG.normal(size=(2, 3))
    check_both_modes(F.reshaped_fortran, (x,))
    v = RNG.normal(size=6)
    check_both_modes(F.summed_where, (v,))


@pytest.mark.parametrize(
    "fn, arg, error, match",
    [
        (F.reshape_order_a, np.ones(6), UnsupportedSyntaxError, "order='A'"),
        (F.outer_of_arctan2, np.ones(2), MissingRuleError, r"np\.arctan2\.outer, which has no derivative rule"),
        (F.meshgrid_of_four, np.ones(2), UnsupportedSyntaxError, "np.meshgrid of 4 arrays"),
        # a value computed in the call is named by its place there, not by the code's temporary (t1)
        (F.polyval_of_squares, np.ones(2), MissingRuleError, r"np\.polyval, .* with a derivative \(its argument 1\)"),
        (F.polyval_at_a_keyword, 0.5, MissingRuleError, r"with a derivative \(its argument x=\)"),
    ],
)
def test_what_is_refused_is_refused_at_the_users_line(fn, arg, error, match):
    with pytest.raises(error, match=r"numpy_written_funcs\.py:\d+.*" + match):
        adcompiler.grad(fn)(arg)


def test_a_stack_of_matrices_solved_against_one_vector():
    """NumPy 2: np.linalg.solve(A, b) of A (k, n, n) and b (n,) solves each matrix against b."""
    B = RNG.normal(size=(2, 3, 3))
    A, b = B + 3 * np.eye(3), RNG.normal(size=3)
    check_both_modes(F.stacked_solve, (A, b))

    def oracle(A, b):
        x = anp.stack([anp.linalg.solve(A[k], b) for k in range(2)])
        return anp.sum(x**2 * anp.arange(1.0, 7.0).reshape(2, 3))

    got = adcompiler.differentiate(F.stacked_solve).grad(A, b)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], autograd.grad(oracle, k)(A, b), rtol=1e-10)
    check_second_order(F.stacked_solve, (A, b))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_interp_in_each_argument(backend):
    """np.interp(x, xp, fp) (MissingRuleError before): NumPy's values, inside, at the knots and outside them
    (its end values), and the derivatives in x, xp and fp against central differences where no x sits on a
    knot (np.interp's slope is one-sided there)."""
    if backend == "numba":
        pytest.importorskip("numba")
    xp, fp = np.array([0.0, 1.0, 2.5, 4.0]), np.array([1.0, -0.5, 2.0, 0.3])
    x = np.array([-1.0, 0.3, 1.7, 2.2, 3.9, 5.0])
    d = adcompiler.differentiate(F.interpolated, backend=backend)
    assert d.value(x, xp, fp) == pytest.approx(F.interpolated(x, xp, fp), rel=1e-14)
    knots = np.array([0.0, 1.0, 2.5, 4.0])  # the values at the knots themselves
    assert d.value(knots, xp, fp) == pytest.approx(F.interpolated(knots, xp, fp), rel=1e-14)
    grads = d.grad(x, xp, fp)
    for k, (a, g) in enumerate(zip((x, xp, fp), grads)):
        assert g.shape == a.shape and g.dtype == a.dtype
        args = [x, xp, fp]
        for i in range(a.size):
            e = np.zeros_like(a)
            e[i] = 1e-6
            up = F.interpolated(*[v + e if j == k else v for j, v in enumerate(args)])
            down = F.interpolated(*[v - e if j == k else v for j, v in enumerate(args)])
            assert g[i] == pytest.approx((up - down) / 2e-6, rel=1e-5, abs=1e-6)
