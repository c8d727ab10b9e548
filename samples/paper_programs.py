"""The benchmark programs of Smeding & Vakar, "Parallel Dual-Numbers Reverse AD"
(Section 13, Table 1), written as plain scalar-style Python.

The paper differentiates six small Haskell programs (their definitions are in
bench/Main.hs of https://github.com/tomsmeding/ad-dualrev-th).  Here they are
as ordinary Python on floats and (nested) lists of floats, using loops,
``if`` and ``math`` only, so that adcompiler can differentiate every one of
them in both modes:

1. ``scalar_mul(x, y)``            x * y
2. ``dot(xs, ys)``                 dot product of two lists (paper: N = 1000 .. 100000)
3. ``sum_mat_vec(rows, v)``        sum of the matrix-vector product M v, M a list of rows
4. ``rotate_vec_by_quat(...)``     rotate a 3-vector by a quaternion (3 outputs)
5. ``neural(layers, x)``           dense ReLU network + safe softmax, outputs summed
   ``neural_weighted(layers, x, out_w)``   the same, outputs weighted by ``out_w``
6. ``particles(ps, vs)``           4 particles, 1000 explicit-Euler steps

``neural`` sums a softmax, which is identically 1, so its gradient is zero up
to rounding: it is the paper's program (useful for timing) but a poor
derivative test.  ``neural_weighted`` is the same network with a weighted sum
at the end (differentiate it with ``wrt=("layers", "x")``; ``out_w`` is data),
whose gradient is not trivial.

    adc compile samples/paper_programs.py -o paper_programs_ad.py

writes ``<name>_forward`` and ``<name>_reverse`` for every function below.
This file imports only ``math``: running it needs nothing else, and the
derivative demo at the bottom is skipped when adcompiler is not installed.
"""

import math

# ------------------------------------------------------------- 1. x * y


def scalar_mul(x, y):
    """Table 1, "scalar mult.": a single multiplication."""
    return x * y


# ------------------------------------------------------------- 2. dot product


def dot(xs, ys):
    """Table 1, "dot product": sum_i xs[i] * ys[i] for two lists of equal length.

    The paper writes it as ``sum (zipWith (*) xs ys)``; here it is the same
    fold as an explicit loop.
    """
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * ys[i]
    return s


# ------------------------------------------------------------- 3. sum of M v


def sum_mat_vec(rows, v):
    """Table 1, "sum-mat-vec": sum_i sum_j rows[i][j] * v[j].

    ``rows`` is the matrix as a list of rows (each a list of len(v) floats);
    the paper computes ``sum (map (dotp v) rows)``: one dot product per row,
    then the sum of the resulting vector.
    """
    total = 0.0
    for i in range(len(rows)):
        s = 0.0  # (M v)[i], the dot product of row i with v
        for j in range(len(v)):
            s = s + rows[i][j] * v[j]
        total = total + s
    return total


# ------------------------------------------------------------- 4. rotate_vec_by_quat


def rotate_vec_by_quat(qw, qx, qy, qz, vx, vy, vz):
    """Table 1, "rotate_vec_by_quat" (Krawiec et al. 2022): rotate (vx, vy, vz)
    by the quaternion (qw, qx, qy, qz).  Three outputs, so the paper runs three
    reverse passes for the full 3x7 Jacobian.

    A copy of samples/quaternion.py's function (this file imports only math):
    with u = (qx, qy, qz) and s = qw,

        v' = 2 (u . v) u + (s^2 - u . u) v + 2 s (u x v).
    """
    u_dot_v = qx * vx + qy * vy + qz * vz
    u_dot_u = qx * qx + qy * qy + qz * qz
    cx = qy * vz - qz * vy
    cy = qz * vx - qx * vz
    cz = qx * vy - qy * vx
    a = 2.0 * u_dot_v
    b = qw * qw - u_dot_u
    c = 2.0 * qw
    rx = a * qx + b * vx + c * cx
    ry = a * qy + b * vy + c * cy
    rz = a * qz + b * vz + c * cz
    return rx, ry, rz


# ------------------------------------------------------------- 5. neural network


def relu(x):
    """ReLU as an ``if`` on a scalar, as in the paper (``if x < 0 then 0 else x``)."""
    if x < 0.0:
        return 0.0
    return x


def network_outputs(layers, x):
    """Dense layers with ReLU, then the paper's safe softmax.

    ``layers`` is a list of ``(W, b)`` tuples, ``W`` a list of rows (``len(W)``
    outputs, each row as long as the layer's input) and ``b`` a list of
    ``len(W)`` biases; ``x`` is the input vector.  Layer ``l`` computes
    ``h'[i] = relu(sum_j W[i][j] * h[j] + b[i])``.

    The softmax subtracts a running maximum that starts at 0.0 (the paper's
    ``maximum``-with-accumulator), i.e. ``max(0, max_i h_i)``; any shift gives
    the same softmax, the shift only keeps ``exp`` from overflowing.

    Kept for reference and for the demo: it returns a list, and helpers that
    return lists may not be differentiable in reverse mode yet, so ``neural``
    and ``neural_weighted`` below repeat this body inline.
    """
    h = list(x)
    for l in range(len(layers)):
        w = layers[l][0]
        b = layers[l][1]
        out = []
        for i in range(len(w)):
            s = 0.0
            for j in range(len(h)):
                s = s + w[i][j] * h[j]
            out.append(relu(s + b[i]))
        h = out
    m = 0.0
    for i in range(len(h)):
        if h[i] > m:
            m = h[i]
    exps = [math.exp(hi - m) for hi in h]
    total = sum(exps)
    return [e / total for e in exps]


def neural(layers, x):
    """Table 1, "neural": a dense ReLU network (the paper: 50 -> 100 -> 50),
    safe softmax, and the sum of the softmax outputs (always 1 up to rounding,
    so the gradient is ~0: see ``neural_weighted`` for a derivative test).

    The same computation as ``network_outputs`` (written inline, see there).
    """
    h = list(x)
    for l in range(len(layers)):
        w = layers[l][0]
        b = layers[l][1]
        out = []
        for i in range(len(w)):
            s = 0.0
            for j in range(len(h)):
                s = s + w[i][j] * h[j]
            out.append(relu(s + b[i]))
        h = out
    # safe softmax: running max starting at 0.0, as in the paper
    m = 0.0
    for i in range(len(h)):
        if h[i] > m:
            m = h[i]
    exps = [math.exp(hi - m) for hi in h]
    total = sum(exps)
    probs = [e / total for e in exps]
    return sum(probs)


def neural_weighted(layers, x, out_w):
    """``neural`` with the outputs weighted: sum_i out_w[i] * softmax(h)[i].

    ``out_w`` (one weight per output) is data, not a parameter to
    differentiate: use ``adcompiler.differentiate(neural_weighted,
    wrt=("layers", "x"))``.
    """
    h = list(x)
    for l in range(len(layers)):
        w = layers[l][0]
        b = layers[l][1]
        out = []
        for i in range(len(w)):
            s = 0.0
            for j in range(len(h)):
                s = s + w[i][j] * h[j]
            out.append(relu(s + b[i]))
        h = out
    m = 0.0
    for i in range(len(h)):
        if h[i] > m:
            m = h[i]
    exps = [math.exp(hi - m) for hi in h]
    total = sum(exps)
    r = 0.0
    for i in range(len(exps)):
        r = r + out_w[i] * (exps[i] / total)
    return r


# ------------------------------------------------------------- 6. particles


def particles(ps, vs, n_steps=1000):
    """Table 1, "particles": simulate particles in the force field
    F(p) = -0.5 p with friction -0.2 v for ``n_steps`` explicit-Euler steps
    of dt = 0.05, and return sum over particles of x * y of the final
    positions.

    ``ps[k] = [x, y]`` and ``vs[k] = [vx, vy]`` are the initial position and
    velocity of particle k (the paper's input is a list of (p, v) pairs; the
    benchmark uses 4 particles and 1000 steps).  Each step is

        a  = (-0.5 p - 0.2 v) / mass
        p' = p + dt v
        v' = v + dt a

    with ``a`` computed from the old ``p`` and ``v``.  The particles are
    independent (the paper simulates them in parallel); here they are simply
    one after the other.  ``n_steps`` is an int: leave it out of ``wrt``.

    dt and mass are locals, as in the paper's ``let``s.
    """
    dt = 0.05  # time step
    mass = 1.0  # every particle has mass 1
    total = 0.0
    for k in range(len(ps)):
        px = ps[k][0]
        py = ps[k][1]
        vx = vs[k][0]
        vy = vs[k][1]
        for _ in range(n_steps):
            ax = (-0.5 * px - 0.2 * vx) / mass
            ay = (-0.5 * py - 0.2 * vy) / mass
            px = px + dt * vx
            py = py + dt * vy
            vx = vx + dt * ax
            vy = vy + dt * ay
        total = total + px * py
    return total


# ------------------------------------------------------------- inputs


def particles_input(n=4):
    """The paper's particle input: p_k = (0.5 k, 0.1), v_k = (1, 1), k = 1..n."""
    return [[0.5 * k, 0.1] for k in range(1, n + 1)], [[1.0, 1.0] for _ in range(n)]


if __name__ == "__main__":
    import random

    rng = random.Random(0)

    def rand_matrix(n_out, n_in):
        scale = 1.0 / math.sqrt(n_in)
        return [[rng.gauss(0.0, scale) for _ in range(n_in)] for _ in range(n_out)]

    sizes = [50, 100, 50]
    layers = [
        (rand_matrix(n_out, n_in), [rng.gauss(0.0, 0.1) for _ in range(n_out)]) for n_in, n_out in zip(sizes, sizes[1:])
    ]
    x = [rng.gauss(0.0, 1.0) for _ in range(sizes[0])]
    out_w = [rng.uniform(-1.0, 1.0) for _ in range(sizes[-1])]
    ps, vs = particles_input()

    print("scalar_mul(1.5, -2.25)    =", scalar_mul(1.5, -2.25))
    print("dot([1, 2, 3], [4, 5, 6]) =", dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]))
    print("sum_mat_vec([[1, 2], [3, 4]], [1, 1]) =", sum_mat_vec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]))
    print("rotate_vec_by_quat        =", rotate_vec_by_quat(0.9, 0.1, -0.3, 0.3, 1.0, 2.0, -0.5))
    print("neural (50-100-50)        =", neural(layers, x))
    print("neural_weighted           =", neural_weighted(layers, x, out_w))
    print("particles (4 x 1000)      =", particles(ps, vs))

    try:
        import adcompiler
    except ImportError:
        print("adcompiler is not installed; skipping the derivative demo")
    else:
        g_dot = adcompiler.differentiate(dot).grad([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
        print("d dot / d (xs, ys)        =", g_dot)
        g_net = adcompiler.differentiate(neural_weighted, wrt=("layers", "x"))
        _, (d_layers, d_x) = g_net.vjp((layers, x, out_w), 1.0)
        print("d neural_weighted / d x[:3] =", d_x[:3])
        g_part = adcompiler.differentiate(particles, wrt=("ps", "vs"))
        d_ps, d_vs = g_part.grad(ps, vs)
        print("d particles / d ps        =", d_ps)
        print("d particles / d vs        =", d_vs)
