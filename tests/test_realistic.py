"""Programs written the way users write them, in both modes against finite differences, the
dot-product identity and each cotangent's structure (adcompiler.testing.oracle), and against autograd
where it differentiates the same source."""

import numpy as np
import pytest

import realistic_funcs as R
from adcompiler.testing.oracle import check_both_modes

RNG = np.random.default_rng(0)


def n(*shape):
    return RNG.normal(size=shape)


CASES = [
    (R.logistic_loss, (n(3), 0.1, n(5, 3), (RNG.uniform(size=5) > 0.5).astype(float)), ("w", "b")),
    (R.rnn, ((n(2, 2), n(2, 3), n(2)), [n(3) for _ in range(4)], n(2)), None),
    (R.simulate, (n(2), n(2), 5), ("pos", "vel")),
    (R.poly_fit, ([0.1, 0.2, 0.3], [0.5, 1.0, 1.5], [1.0, 2.0, 2.5]), None),
    (R.gram_schmidt_len, ([[1.0, 0.2, 0.3], [0.1, 1.0, 0.4], [0.3, 0.2, 1.0]],), None),
    (R.attention, (n(3, 4), n(5, 4), n(5, 2)), None),
    (R.batched, (n(3, 4), n(6, 4)), None),
    (R.piecewise, ([0.7, 0.1, -0.9, 0.3],), None),
    (R.gd_inner, (0.7, 5), ("x",)),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_realistic(f, args, wrt):
    check_both_modes(f, args, wrt=wrt)
