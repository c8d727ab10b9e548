"""``np.linalg.svd(a)`` (full_matrices=True) of a matrix that is not square (issue 32, item 17): its
singular values were refused with a ValueError from generated code, as if u and vh were used.  Their
derivative is that of the reduced svd's (the extra columns of u, rows of vh, do not enter them); u of a
wide matrix and vh of a tall one are square, the reduced ones, and differentiated too; the extra columns
(rows) alone have no unique derivative and are refused, saying so.  Central differences and autograd."""

import numpy as np
import pytest

import adcompiler
import full_svd_funcs as F
from adcompiler.testing.oracle import check_both_modes

RNG = np.random.default_rng(7)
WIDE, TALL = RNG.normal(size=(3, 5)), RNG.normal(size=(5, 3))


@pytest.mark.parametrize("a", [WIDE, TALL, TALL[None].repeat(2, axis=0)], ids=["wide", "tall", "stack"])
def test_singular_values_of_a_full_svd(a):
    check_both_modes(F.singular_values, (a,))
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    expected = autograd.grad(lambda a: anp.sum(anp.linalg.svd(a, full_matrices=False)[1] ** 3))(a)
    assert np.allclose(adcompiler.differentiate(F.singular_values).grad(a), expected, rtol=1e-10)


def test_second_order_of_a_full_svd_says_what_to_write():
    """The reverse code reads u and vh's first k columns and rows: differentiated again, their tangents
    are of the full factors, whose extra ones have none; the reduced svd has them (documented)."""
    with pytest.raises(ValueError, match="pass full_matrices=False"):
        adcompiler.hessian(F.singular_values)(WIDE)


@pytest.mark.parametrize("fn, a", [(F.left_vectors, WIDE), (F.right_vectors, TALL)])
def test_the_square_factor_of_a_full_svd(fn, a):
    check_both_modes(fn, (a,))


@pytest.mark.parametrize("fn, a", [(F.left_vectors, TALL), (F.right_vectors, WIDE)])
def test_extra_columns_are_refused_saying_why(fn, a):
    with pytest.raises(ValueError, match="no unique derivative: pass full_matrices=False"):
        adcompiler.differentiate(fn).grad(a)
