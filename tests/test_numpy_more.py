"""The NumPy functions of issue 18's second batch beyond their systematic cases: cumprod's gradient
at zeros against the product rule written out, split pieces unpacked and looped over against
differences, and the located refusals (lstsq's residuals, returned=True, computed sections) and the
runtime error for a rank-deficient lstsq."""

import numpy as np
import pytest

import adcompiler
import numpy_more_funcs as F
from adcompiler.errors import UnsupportedSyntaxError
from adcompiler.testing.oracle import check_both_modes


def test_cumprod_gradient_at_zeros_is_the_product_rule():
    x = np.array([0.5, 0.0, 2.0, 0.0, 3.0])
    # d/dx_j sum_i prod_{k<=i} x_k = sum_{i>=j} prod_{k<=i, k!=j} x_k
    expected = [sum(np.prod(np.delete(x[: i + 1], j)) for i in range(j, 5)) for j in range(5)]
    np.testing.assert_allclose(adcompiler.differentiate(F.cumprod_sum).grad(x), expected)
    np.testing.assert_allclose(adcompiler.differentiate(F.cumprod_sum).jvp((x,), (np.ones(5),))[1], sum(expected))


def test_split_pieces_unpacked_and_iterated():
    check_both_modes(F.pieces, (np.random.default_rng(3).uniform(-1, 1, (6, 2)),))


def test_lstsq_solution_of_an_unpacked_result():
    rng = np.random.default_rng(4)
    check_both_modes(F.lstsq_solution, (rng.normal(size=(5, 3)), rng.normal(size=5)))


def test_lstsq_residuals_are_refused_with_their_location():
    rng = np.random.default_rng(5)
    with pytest.raises(UnsupportedSyntaxError, match="residuals or singular values of np.linalg.lstsq"):
        adcompiler.differentiate(F.lstsq_residuals).grad(rng.normal(size=(5, 3)), rng.normal(size=5))


def test_lstsq_of_a_rank_deficient_matrix_says_why():
    a = np.ones((4, 2))
    with pytest.raises(ValueError, match="without full rank"):
        adcompiler.differentiate(F.lstsq_solution).grad(a, np.arange(4.0))


def test_average_returned_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="returned not one of the constants False"):
        adcompiler.differentiate(F.average_returned).grad(np.ones(3), np.ones(3))


def test_split_sections_must_be_constants():
    with pytest.raises(UnsupportedSyntaxError, match="indices_or_sections not one of the constants"):
        adcompiler.differentiate(F.split_computed).grad(np.ones((4, 2)))


def test_transpose_method_with_axes_as_arguments_against_autograd():
    import autograd
    import autograd.numpy as anp

    T = np.random.default_rng(5).normal(size=(2, 3, 4))

    def oracle(T):
        return anp.sum(anp.transpose(T, (1, 0, 2)) * anp.arange(24.0).reshape(3, 2, 4)) + anp.sum(
            anp.tanh(anp.transpose(T, (2, 0, 1)))
        )

    np.testing.assert_allclose(adcompiler.grad(F.transposed_by_method)(T), autograd.grad(oracle)(T), rtol=1e-12)
    check_both_modes(F.transposed_by_method, (T,))


def test_where_with_one_argument_gives_indices():
    x = np.array([0.5, -1.0, 2.0, -0.3, 0.7])
    g = adcompiler.grad(F.positive_part_by_indices)(x)
    np.testing.assert_allclose(g, np.where(x > 0, 2 * x + 1.0, 0.0), rtol=1e-15)
    check_both_modes(F.positive_part_by_indices, (x,))
