"""Programs for tests/test_release.py (and tests/test_numba.py): NumPy loops whose gradients let go of
the arrays they no longer read."""

import numpy as np


def particles_np(state, steps):
    """Slices of an array (Table 1's particles, NumPy variant)."""
    P = state[:, 0:2]
    V = state[:, 2:4]
    for step in range(steps):
        A = -0.5 * P - 0.2 * V
        P = P + 0.05 * V
        V = V + 0.05 * A
    return np.sum(P[:, 0] * P[:, 1])
