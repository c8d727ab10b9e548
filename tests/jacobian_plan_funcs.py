"""Functions whose Jacobians tests/test_jacobian_plans.py takes twice: the second call runs the plan the
first made (no primal run, no np.random state saved unless the function may draw)."""

import numpy as np


def project(cam, X, w, feat):
    """GradBench ba's reprojection error, shortened: arrays and a float in, an array of 2 out."""
    p = X - cam[3:6]
    proj = p[0:2] / p[2]
    return w * (proj * cam[6] + cam[7:9] - feat)


def pair(x, y):
    """A tuple of an array and a float out: rows of both."""
    return np.sin(x) * y, np.sum(x * x)


def noisy(x):
    """A draw in the body: every pass of one Jacobian sees the call's one draw."""
    return x * np.random.randn(3)


def positives(x):
    """An output whose shape depends on the values: the plan's cotangents do not fit other values."""
    return 2.0 * x[x > 0.0]


def helper(x):
    return np.sin(x)


def other_helper(x):
    return np.cos(x)


def through_helper(x):
    """Calls a module-level helper, which a test replaces between two Jacobians."""
    return 2.0 * helper(x)


def energy(x):
    """A scalar of an array: its Hessian is one forward pass over the reverse code per direction."""
    return np.sum(np.sin(x)) + np.sum(x) ** 2


def noisy_energy(x):
    return np.sum(np.random.randn(3) * x * x)


def weight_error(w):
    """GradBench ba's weight error."""
    return 1.0 - w * w
