"""NumPy random draws inside differentiated functions (issue 18), for test_random_draws.py: each draw
is made by the primal line once per call, its value a constant of the derivative."""

import numpy as np
import numpy.random as npr


def noisy_features(x):
    eps = npr.randn(3)
    z = np.random.normal(0.0, 1.0, size=(3,))
    return np.sum(np.sin(x * eps) * z) + np.random.uniform() * x[0]


def scalar_draws(x):
    a = npr.randn()
    unused = np.random.standard_normal(size=2)  # advances the generator as the primal does
    b = np.random.random()
    return x * a + x * x * b + 0.0 * len(unused)


def draws_in_a_loop(x, n):
    total = 0.0
    for _ in range(n):
        total = total + np.tanh(x * npr.randn())
    return total


def noise(scale):
    return scale * npr.randn()


def loop_calls_a_drawing_helper(x, n):
    total = 0.0
    for _ in range(n):
        total = total + np.sin(x * noise(1.5)) * x
    return total


def reparametrised(mu, log_sigma):
    eps = np.random.normal(size=4)
    w = mu + np.exp(log_sigma) * eps
    return np.sum(w**2) + np.sum(np.cos(w))


def draw_of_computed_parameters(mu):
    return np.sum(np.random.normal(mu, 1.0, size=3))
