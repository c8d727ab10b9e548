"""Primal programs used by the benchmark harness (bench_scalar.py).

They are plain Python in a real file so that ``adcompiler.differentiate`` can
read their source with ``inspect``.  ``rotate_vec_by_quat`` is the sample in
samples/quaternion.py, imported from there so there is a single copy.

The later Table-1 programs (sum of a matrix-vector product, the dense
network with safe softmax, the particle simulation) are the ones in
samples/paper_programs.py, imported from there for the same reason.
"""

import math
import os
import sys

_SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples")
if _SAMPLES not in sys.path:
    sys.path.insert(0, _SAMPLES)

from paper_programs import (  # noqa: E402  (samples/paper_programs.py)
    neural,
    neural_weighted,
    particles,
    particles_input,
    sum_mat_vec,
)
from quaternion import rotate_vec_by_quat  # noqa: E402  (samples/quaternion.py)


def mul(x, y):
    """Scalar multiplication, the smallest program of the Table-1 suite."""
    return x * y


def dot(xs, ys):
    """Dot product of two lists of floats, written with a loop (the same as
    samples/paper_programs.py's ``dot``)."""
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * ys[i]
    return s


def scalar_loop(x, n):
    """n iterations of s = s * x + sin(x) (bench_scaling.py): the cost of
    reverse mode should grow linearly with n, like the primal's."""
    s = 0.0
    for _ in range(n):
        s = s * x + math.sin(x)
    return s


def random_layers(rng, sizes):
    """Dense layers [(W, b), ...] for ``neural``: W has len(sizes[k+1]) rows of
    len(sizes[k]) entries, drawn N(0, 1/n_in); biases N(0, 0.1^2).
    ``rng`` is a ``random.Random`` (the tests build their small networks with
    this same function)."""
    layers = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        scale = 1.0 / n_in**0.5
        w = [[rng.gauss(0.0, scale) for _ in range(n_in)] for _ in range(n_out)]
        b = [rng.gauss(0.0, 0.1) for _ in range(n_out)]
        layers.append((w, b))
    return layers


def neural_inputs(seed, sizes):
    """(layers, x, out_w) for ``neural`` / ``neural_weighted`` with layer sizes
    ``sizes`` (the paper: [50, 100, 50]), from ``random.Random(seed)``."""
    import random

    rng = random.Random(seed)
    layers = random_layers(rng, sizes)
    x = [rng.gauss(0.0, 1.0) for _ in range(sizes[0])]
    out_w = [rng.uniform(-1.0, 1.0) for _ in range(sizes[-1])]
    return layers, x, out_w


def orbits(ps, vs, n_steps):
    """Particles in the nonlinear central field F(p) = -p / sqrt(|p|^2 + 1) with
    drag -0.01 v, ``n_steps`` explicit-Euler steps of dt = 0.01, then the sum
    over particles of x * y of the final positions (bench_memory.py).

    Unlike ``particles`` (a linear step, whose adjoint needs nothing from the
    primal), every step's adjoint here needs that step's position, so plain
    reverse mode tapes O(n_steps) values: the program checkpointing is for.
    It is tests/checkpoint_funcs.py's ``orbits`` with a smaller step and drag
    (there dt = 0.05, drag 0.2): over 100000 steps those damp the state, and
    so the gradient, to denormal floats, which would make the gradient check
    vacuous; here the gradient entries stay between about 1 and 100.
    """
    dt = 0.01
    drag = 0.01
    total = 0.0
    for k in range(len(ps)):
        px = ps[k][0]
        py = ps[k][1]
        vx = vs[k][0]
        vy = vs[k][1]
        for _ in range(n_steps):
            r = math.sqrt(px * px + py * py + 1.0)
            ax = -px / r - drag * vx
            ay = -py / r - drag * vy
            px = px + dt * vx
            py = py + dt * vy
            vx = vx + dt * ax
            vy = vy + dt * ay
        total = total + px * py
    return total


__all__ = [
    "mul",
    "rotate_vec_by_quat",
    "dot",
    "sum_mat_vec",
    "neural",
    "neural_weighted",
    "particles",
    "particles_input",
    "neural_inputs",
    "scalar_loop",
    "orbits",
]


# ---------------------------------------------------------------------------
# NumPy versions of the Table-1 programs (samples/paper_numpy.py): the same
# programs on arrays (np.dot, np.sum(m @ v), the network with layers as a list
# of (W, b) array tuples, the particles as (4, 2) arrays).

import numpy as np  # noqa: E402

from paper_numpy import (  # noqa: E402  (samples/paper_numpy.py)
    dot_np,
    neural_np,
    neural_weighted_np,
    particles_input_np,
    particles_np,
    sum_mat_vec_np,
)


def neural_inputs_np(seed, sizes):
    """``neural_inputs(seed, sizes)`` as arrays: the same numbers, W of shape
    (n_out, n_in), b, x and out_w 1-D, so the list and array cases compare."""
    layers, x, out_w = neural_inputs(seed, sizes)
    return [(np.array(w), np.array(b)) for w, b in layers], np.array(x), np.array(out_w)


__all__ += [
    "dot_np",
    "sum_mat_vec_np",
    "neural_np",
    "neural_weighted_np",
    "particles_np",
    "particles_input_np",
    "neural_inputs_np",
]
