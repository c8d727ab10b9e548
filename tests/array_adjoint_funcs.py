"""NumPy programs whose adjoints need no unbroadcast where an operand is a number
(tests/test_array_adjoints.py)."""

import numpy as np

K, STEP = 0.5, 0.05


def springs(state, damping):
    P = state[:, 0:2]
    V = state[:, 2:4]
    for step in range(30):
        A = -K * P - damping * V
        P = P + STEP * V
        V = V + STEP * A
    return np.sum(P[:, 0] * P[:, 1])


def mixed(x, s, z):
    """x an array, s a float, z a 0-d array: every product has x's shape."""
    y = s * x + z * x - x / s
    return np.sum(y**2.0 * z)


def broadcast_rows(a, b):
    """b (1, n) broadcast against a (m, n): its cotangent must be summed back."""
    return np.sum((a + 2.0 * b) * a)
