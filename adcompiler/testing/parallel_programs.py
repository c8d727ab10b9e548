"""Three programs written with ``prange`` the way a Numba user writes them, for ``bench_parallel.py``
and ``tests/test_prange.py``: the paper's particles (each particle's trajectory its own), a Gaussian
mixture's log-likelihood over data points, and a Monte Carlo price over paths.  Each ``prange`` is
Numba's when Numba is installed (``adcompiler.prange`` otherwise: ``range``)."""

import math

import numpy as np

try:
    from numba import prange
except ImportError:  # pragma: no cover - the programs still run, in order
    from adcompiler import prange


def particles(centres, strengths, x0, v0, targets):
    """Each particle moves for 40 steps in the field of the centres (leapfrog); the loss is the squared
    distance of its end point to its target, summed over the particles (the paper's particles, each
    independent of the others)."""
    n = x0.shape[0]
    loss = 0.0
    for p in prange(n):
        x = x0[p]
        v = v0[p]
        for t in range(40):
            force = np.zeros(2)
            for c in range(centres.shape[0]):
                d = centres[c] - x
                r2 = d[0] * d[0] + d[1] * d[1] + 0.1
                force = force + strengths[c] * d / (r2 * math.sqrt(r2))
            v = v + 0.01 * force
            x = x + 0.01 * v
        e = x - targets[p]
        loss += e[0] * e[0] + e[1] * e[1]
    return loss


def gmm(alphas, means, log_scales, points):
    """The negative log-likelihood of a diagonal Gaussian mixture, a data point an iteration: each
    point's log-sum-exp over the components."""
    n, k = points.shape[0], means.shape[0]
    total = 0.0
    for i in prange(n):
        q = np.zeros(k)
        for j in range(k):
            z = (points[i] - means[j]) * np.exp(-log_scales[j])
            q[j] = alphas[j] - np.sum(log_scales[j]) - 0.5 * np.sum(z * z)
        m = np.max(q)
        total += m + np.log(np.sum(np.exp(q - m)))
    m = np.max(alphas)
    return n * (m + np.log(np.sum(np.exp(alphas - m)))) - total


def monte_carlo(s0, rate, vol, strike, normals):
    """A European call's price by Monte Carlo, a path an iteration (geometric Brownian motion over the
    path's normal draws), with a smoothed payoff so that its derivative is the pathwise one."""
    paths, steps = normals.shape
    dt = 1.0 / steps
    total = 0.0
    for i in prange(paths):
        log_s = math.log(s0)
        for t in range(steps):
            log_s = log_s + (rate - 0.5 * vol * vol) * dt + vol * math.sqrt(dt) * normals[i, t]
        excess = math.exp(log_s) - strike
        total += 0.5 * (excess + math.sqrt(excess * excess + 0.01))
    return math.exp(-rate) * total / paths


def inputs(name: str, size: int, seed: int = 0) -> tuple:
    """Arguments of the program ``name`` for ``size`` particles, points or paths."""
    rng = np.random.default_rng(seed)
    if name == "particles":
        return (
            rng.random((4, 2)) * 2 - 1,
            rng.random(4) + 0.5,
            rng.random((size, 2)) * 2 - 1,
            rng.random((size, 2)) * 0.1,
            rng.random((size, 2)),
        )
    if name == "gmm":
        return (rng.random(5), rng.random((5, 4)), rng.random((5, 4)) * 0.3, rng.random((size, 4)))
    if name == "monte_carlo":
        return (100.0, 0.03, 0.2, 105.0, rng.standard_normal((size, 50)))
    raise ValueError(name)


PROGRAMS = {"particles": particles, "gmm": gmm, "monte_carlo": monte_carlo}
