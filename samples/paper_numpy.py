"""The benchmark programs of Smeding & Vakar, "Parallel Dual-Numbers Reverse AD"
(Section 13, Table 1), written with NumPy arrays.

samples/paper_programs.py has the same programs in scalar style (floats,
lists and loops); here they are the array code one would write in NumPy:

1. ``dot_np(x, y)``                     np.dot of two 1-D arrays (paper: N = 1000 .. 100000)
2. ``sum_mat_vec_np(m, v)``             np.sum(m @ v), m an (N, N) array (paper: N = 100, 300)
3. ``neural_np(layers, x)``             dense ReLU network (50 -> 100 -> 50) + safe softmax,
                                        outputs summed
   ``neural_weighted_np(layers, x, out_w)``   the same, outputs weighted by ``out_w``
4. ``particles_np(ps, vs)``             4 particles x 1000 explicit-Euler steps on (4, 2) arrays

``layers`` is a list of ``(W, b)`` tuples of arrays: ``W`` of shape
(n_out, n_in), ``b`` of shape (n_out,).  As in the scalar version, ``neural_np``
sums a softmax, which is identically 1, so its gradient is zero up to
rounding; ``neural_weighted_np`` (differentiate with ``wrt=("layers", "x")``:
``out_w`` is data) has a non-trivial one.

    adc compile samples/paper_numpy.py -o paper_numpy_ad.py

writes ``<name>_forward`` and ``<name>_reverse`` for every function below.
This file imports only numpy and math; the derivative demo at the bottom is
skipped when adcompiler is not installed.
"""

import math

import numpy as np

# ------------------------------------------------------------- 1. dot product


def dot_np(x, y):
    """Table 1, "dot product": sum_i x[i] * y[i] of two 1-D arrays."""
    return np.dot(x, y)


# ------------------------------------------------------------- 2. sum of M v


def sum_mat_vec_np(m, v):
    """Table 1, "sum-mat-vec": the sum of the entries of the matrix-vector
    product m @ v, m of shape (N, N) and v of shape (N,)."""
    return np.sum(m @ v)


# ------------------------------------------------------------- 3. neural network


def safe_softmax_np(h):
    """The paper's safe softmax: exp(h - m) / sum(exp(h - m)) with
    m = max(0.0, max(h)) (a running maximum that starts at 0.0, as the
    paper's Haskell code has it).  Any shift gives the same softmax; the
    shift keeps ``exp`` from overflowing."""
    m = max(0.0, np.max(h))
    e = np.exp(h - m)
    return e / np.sum(e)


def neural_np(layers, x):
    """Table 1, "neural": dense layers ``h' = relu(W h + b)`` (ReLU as
    ``np.maximum(., 0.0)``), the safe softmax, and the sum of its outputs
    (always 1 up to rounding, so the gradient is ~0)."""
    h = x
    for l in range(len(layers)):
        w = layers[l][0]
        b = layers[l][1]
        h = np.maximum(w @ h + b, 0.0)
    m = max(0.0, np.max(h))
    e = np.exp(h - m)
    p = e / np.sum(e)
    return np.sum(p)


def neural_weighted_np(layers, x, out_w):
    """``neural_np`` with the outputs weighted: sum_i out_w[i] * softmax(h)[i].
    ReLU is written with ``np.where`` here (the same function as
    ``np.maximum(z, 0.0)``, with relu'(0) = 1 in both)."""
    h = x
    for l in range(len(layers)):
        w = layers[l][0]
        b = layers[l][1]
        z = w @ h + b
        h = np.where(z < 0.0, 0.0, z)
    p = safe_softmax_np(h)
    return np.sum(out_w * p)


# ------------------------------------------------------------- 4. particles


def particles_np(ps, vs, n_steps=1000):
    """Table 1, "particles": ``ps`` and ``vs`` are (n_particles, 2) arrays of
    initial positions and velocities.  ``n_steps`` explicit-Euler steps of

        a  = (-0.5 p - 0.2 v) / mass
        p' = p + dt v
        v' = v + dt a

    (dt = 0.05, mass = 1) on all particles at once, then the sum over
    particles of x * y of the final positions.  ``n_steps`` is an int: leave
    it out of ``wrt``."""
    dt = 0.05
    mass = 1.0
    p = ps
    v = vs
    for _ in range(n_steps):
        a = (-0.5 * p - 0.2 * v) / mass
        p = p + dt * v
        v = v + dt * a
    return np.sum(p[:, 0] * p[:, 1])


# ------------------------------------------------------------- inputs


def particles_input_np(n=4):
    """The paper's particle input as (n, 2) arrays: p_k = (0.5 k, 0.1) and
    v_k = (1, 1) for k = 1..n (the same numbers as paper_programs.particles_input)."""
    ps = np.stack([0.5 * np.arange(1, n + 1), np.full(n, 0.1)], axis=1)
    vs = np.ones((n, 2))
    return ps, vs


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    # a 50 -> 100 -> 50 network: W ~ N(0, 1/n_in), b ~ N(0, 0.1^2)
    layers = [
        (rng.standard_normal((n_out, n_in)) / math.sqrt(n_in), 0.1 * rng.standard_normal(n_out))
        for n_in, n_out in [(50, 100), (100, 50)]
    ]
    x = rng.standard_normal(50)
    out_w = rng.uniform(-1.0, 1.0, 50)
    ps, vs = particles_input_np()
    a, b = rng.standard_normal(1000), rng.standard_normal(1000)
    m, v = rng.standard_normal((100, 100)), rng.standard_normal(100)

    print("dot_np (N = 1000)         =", dot_np(a, b))
    print("sum_mat_vec_np (N = 100)  =", sum_mat_vec_np(m, v))
    print("neural_np (50-100-50)     =", neural_np(layers, x))
    print("neural_weighted_np        =", neural_weighted_np(layers, x, out_w))
    print("particles_np (4 x 1000)   =", particles_np(ps, vs))

    try:
        import adcompiler
    except ImportError:
        print("adcompiler is not installed; skipping the derivative demo")
    else:
        d_a, d_b = adcompiler.differentiate(dot_np).grad(a, b)
        print("d dot_np / d x[:3]        =", d_a[:3])
        g_net = adcompiler.differentiate(neural_weighted_np, wrt=("layers", "x"))
        _, (d_layers, d_x) = g_net.vjp((layers, x, out_w), 1.0)
        print("d neural_weighted_np / d x[:3] =", d_x[:3])
        g_part = adcompiler.differentiate(particles_np, wrt=("ps", "vs"))
        d_ps, d_vs = g_part.grad(ps, vs)
        print("d particles_np / d ps     =", d_ps.tolist())
        print("d particles_np / d vs     =", d_vs.tolist())
