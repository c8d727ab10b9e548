"""The shadow of a copy of a list of numbers or arrays is zeros of its own (modes/primal.py), and so is each
element of the shadow of ``[r] * n`` where a shadow's zeros are arrays (Numba): a shadow that shared the
list's elements counted twice what was added into one of them in place (under Numba the copy's adjoint, in
a checkpointed loop the adjoints the list already had).  A copy of a list of lists still shares its lists.
Gradients against central differences, on both backends."""

import numpy as np
import pytest

import adcompiler
import copied_list_funcs as F
from oracle import central_grad

X = np.array([0.3, -1.2, 0.7])
CASES = [
    (F.copied, X),
    (F.copied_and_stacked, X),
    (F.repeated, X),
    (F.copied_in_a_loop, X),
    (F.numbers_copied_in_a_loop, 1.5),
]


def _check(f, x, **options):
    got = adcompiler.differentiate(f, **options).grad(x)
    np.testing.assert_allclose(got, central_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, x", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("checkpoint", [None, 2])
def test_python_gradient_against_differences(f, x, checkpoint):
    _check(f, x, checkpoint=checkpoint)


@pytest.mark.parametrize("f, x", CASES, ids=[c[0].__name__ for c in CASES])
def test_numba_gradient_against_differences(f, x):
    pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")
    _check(f, x, backend="numba")


def test_a_copy_of_lists_shares_them():
    _check(F.rows_copied, 0.7)
