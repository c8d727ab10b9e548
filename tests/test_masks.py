"""``&``, ``|``, ``^`` and ``~`` of masks (``(x > a) & (x < b)``, ``x[~m]``, ``keep &= ...``) and of integers:
no derivative of their own, the selections they make differentiated, on both targets (refused before as
"the operator '&'").  Both modes against central differences and the dot test (``check_both_modes``), the
Numba target against the python target, and the Hessian against differences of the gradient."""

import importlib.util

import numpy as np
import pytest

import adcompiler
import mask_funcs as F
from adcompiler.testing.oracle import check_both_modes, check_second_order

X = np.array([-0.5, 0.1, 0.5, 1.0, 2.0, 4.0])
Y = np.array([0.3, 1.5, 0.7, -0.2, 2.5, 0.9])


@pytest.mark.parametrize(
    "f, args", [(F.masked_pieces, (X,)), (F.masked_read, (X, Y))], ids=lambda v: getattr(v, "__name__", "")
)
def test_masks_in_both_modes(f, args):
    check_both_modes(f, args)
    check_second_order(f, args)
    if importlib.util.find_spec("numba") is not None:
        python, numba = (adcompiler.differentiate(f, backend=b) for b in ("python", "numba"))
        for got, want in zip(np.atleast_1d(numba.grad(*args)), np.atleast_1d(python.grad(*args))):
            np.testing.assert_allclose(got, want, rtol=1e-12)


def test_bits_of_an_integer_choose_a_branch():
    assert adcompiler.grad(F.flags_choose)(1.5, 3) == 3.0
    assert adcompiler.grad(F.flags_choose)(1.5, 2) == 3.0 and adcompiler.grad(F.flags_choose)(2.5, 1) == 5.0
