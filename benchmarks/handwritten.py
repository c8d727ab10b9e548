"""Hand-written derivatives of the benchmark programs.

These are the baselines the harness compares adcompiler (and the peer AD
tools) against: what a careful programmer would write by hand.  Each program
has

* ``<name>_grad(*args)``: the gradient of the scalar output, one per
  differentiated parameter, as ``f.grad`` returns it (``rotate_vec_by_quat_jac``:
  the rows of the 3x7 Jacobian).  This is the reverse-mode baseline the
  tables divide by, so it is as fast as it can be written in the primal's
  own style (plain-Python loops for the list programs, NumPy for the array
  ones): no value it does not need, no multiplication by a seed of 1.0,
  comprehensions rather than appends, a first contribution stored rather
  than added to zeros, one primal sweep and a seed-folded reverse sweep per
  output for the Jacobian.  bench_scalar.py times each against the
  reference harness's ``handgrad.py`` for the same program.
* ``<name>_vjp(args, ct) -> (value, cotangents)``: the adjoint for a general
  cotangent, one cotangent per parameter, mirroring ``f.vjp``;
* ``<name>_jvp(args, tangents) -> (value, tangent)``: the tangent (forward
  mode), mirroring ``f.jvp``.

bench_scalar.py checks all of them against central finite differences of
the primal at start-up before timing anything.  ``orbits`` (bench_memory.py,
which measures reverse mode only) has two adjoints, a plain and a
checkpointed one, and no tangent; bench_memory.py checks them the same way.
"""

import math

# ---------------------------------------------------------------- x * y


def mul_vjp(args, ct):
    x, y = args
    return x * y, (y * ct, x * ct)


def mul_grad(x, y):
    """d(x y) = (y, x)."""
    return y, x


def mul_jvp(args, tangents):
    x, y = args
    tx, ty = tangents
    return x * y, tx * y + x * ty


# ---------------------------------------------------------------- rotate_vec_by_quat


def rotate_vec_by_quat_vjp(args, ct):
    qw, qx, qy, qz, vx, vy, vz = args
    gx, gy, gz = ct
    # primal
    u_dot_v = qx * vx + qy * vy + qz * vz
    u_dot_u = qx * qx + qy * qy + qz * qz
    cx = qy * vz - qz * vy
    cy = qz * vx - qx * vz
    cz = qx * vy - qy * vx
    a = 2.0 * u_dot_v
    b = qw * qw - u_dot_u
    c = 2.0 * qw
    value = (
        a * qx + b * vx + c * cx,
        a * qy + b * vy + c * cy,
        a * qz + b * vz + c * cz,
    )
    # adjoints of the three coefficients
    ga = gx * qx + gy * qy + gz * qz
    gb = gx * vx + gy * vy + gz * vz
    gc = gx * cx + gy * cy + gz * cz
    gcx = c * gx
    gcy = c * gy
    gcz = c * gz
    g_udv = 2.0 * ga
    g_udu = -gb
    # accumulate: direct uses, dot products, cross product
    g_qw = 2.0 * qw * gb + 2.0 * gc
    g_qx = a * gx + 2.0 * qx * g_udu + vx * g_udv - vz * gcy + vy * gcz
    g_qy = a * gy + 2.0 * qy * g_udu + vy * g_udv + vz * gcx - vx * gcz
    g_qz = a * gz + 2.0 * qz * g_udu + vz * g_udv - vy * gcx + vx * gcy
    g_vx = b * gx + qx * g_udv + qz * gcy - qy * gcz
    g_vy = b * gy + qy * g_udv - qz * gcx + qx * gcz
    g_vz = b * gz + qz * g_udv + qy * gcx - qx * gcy
    return value, (g_qw, g_qx, g_qy, g_qz, g_vx, g_vy, g_vz)


def rotate_vec_by_quat_jac(qw, qx, qy, qz, vx, vy, vz):
    """The 3x7 Jacobian as three rows (d r_k / d (qw, qx, qy, qz, vx, vy, vz)): one primal sweep,
    then ``rotate_vec_by_quat_vjp``'s reverse sweep once per output with its unit seed folded in
    (the zero terms dropped, the ones not multiplied)."""
    cx = qy * vz - qz * vy
    cy = qz * vx - qx * vz
    cz = qx * vy - qy * vx
    a = 2.0 * (qx * vx + qy * vy + qz * vz)
    b = qw * qw - (qx * qx + qy * qy + qz * qz)
    c = 2.0 * qw
    # seed e_x: g_udv = 2 qx, 2 g_udu = -2 vx, g_cx = c
    g_udv, w = 2.0 * qx, -2.0 * vx
    row_x = (
        c * vx + 2.0 * cx,
        a + qx * w + vx * g_udv,
        qy * w + vy * g_udv + vz * c,
        qz * w + vz * g_udv - vy * c,
        b + qx * g_udv,
        qy * g_udv - qz * c,
        qz * g_udv + qy * c,
    )
    # seed e_y
    g_udv, w = 2.0 * qy, -2.0 * vy
    row_y = (
        c * vy + 2.0 * cy,
        qx * w + vx * g_udv - vz * c,
        a + qy * w + vy * g_udv,
        qz * w + vz * g_udv + vx * c,
        qx * g_udv + qz * c,
        b + qy * g_udv,
        qz * g_udv - qx * c,
    )
    # seed e_z
    g_udv, w = 2.0 * qz, -2.0 * vz
    row_z = (
        c * vz + 2.0 * cz,
        qx * w + vx * g_udv + vy * c,
        qy * w + vy * g_udv - vx * c,
        a + qz * w + vz * g_udv,
        qx * g_udv - qy * c,
        qy * g_udv + qx * c,
        b + qz * g_udv,
    )
    return [row_x, row_y, row_z]


def rotate_vec_by_quat_jvp(args, tangents):
    qw, qx, qy, qz, vx, vy, vz = args
    dqw, dqx, dqy, dqz, dvx, dvy, dvz = tangents
    u_dot_v = qx * vx + qy * vy + qz * vz
    u_dot_u = qx * qx + qy * qy + qz * qz
    cx = qy * vz - qz * vy
    cy = qz * vx - qx * vz
    cz = qx * vy - qy * vx
    a = 2.0 * u_dot_v
    b = qw * qw - u_dot_u
    c = 2.0 * qw
    d_udv = dqx * vx + qx * dvx + dqy * vy + qy * dvy + dqz * vz + qz * dvz
    d_udu = 2.0 * (qx * dqx + qy * dqy + qz * dqz)
    dcx = dqy * vz + qy * dvz - dqz * vy - qz * dvy
    dcy = dqz * vx + qz * dvx - dqx * vz - qx * dvz
    dcz = dqx * vy + qx * dvy - dqy * vx - qy * dvx
    da = 2.0 * d_udv
    db = 2.0 * qw * dqw - d_udu
    dc = 2.0 * dqw
    value = (
        a * qx + b * vx + c * cx,
        a * qy + b * vy + c * cy,
        a * qz + b * vz + c * cz,
    )
    tangent = (
        da * qx + a * dqx + db * vx + b * dvx + dc * cx + c * dcx,
        da * qy + a * dqy + db * vy + b * dvy + dc * cy + c * dcy,
        da * qz + a * dqz + db * vz + b * dvz + dc * cz + c * dcz,
    )
    return value, tangent


# ---------------------------------------------------------------- dot product (lists)


def dot_vjp(args, ct):
    xs, ys = args
    s = 0.0
    for x, y in zip(xs, ys):
        s += x * y
    return s, ([y * ct for y in ys], [x * ct for x in xs])


def dot_grad(xs, ys):
    """d/d xs = ys and d/d ys = xs: two copies."""
    return [y for y in ys], [x for x in xs]


def dot_jvp(args, tangents):
    xs, ys = args
    txs, tys = tangents
    s = 0.0
    ds = 0.0
    for x, y, tx, ty in zip(xs, ys, txs, tys):
        s += x * y
        ds += tx * y + x * ty
    return s, ds


# ---------------------------------------------------------------- sum of a matrix-vector product


def sum_mat_vec_vjp(args, ct):
    """sum_i sum_j rows[i][j] * v[j]: d rows[i][j] = v[j] ct, d v[j] = sum_i rows[i][j] ct."""
    rows, v = args
    n = len(v)
    total = 0.0
    d_v = [0.0] * n
    for row in rows:
        s = 0.0
        for j in range(n):
            s += row[j] * v[j]
            d_v[j] += row[j]
        total += s
    d_row = [vj * ct for vj in v]
    return total, ([list(d_row) for _ in rows], [g * ct for g in d_v])


def sum_mat_vec_grad(rows, v):
    """d rows[i] = v (a copy per row), d v = the sum of the rows (the first row stored, not added to zeros)."""
    n = len(v)
    if not rows:
        return [], [0.0] * n
    d_v = [r for r in rows[0]]
    for i in range(1, len(rows)):
        row = rows[i]
        for j in range(n):
            d_v[j] = d_v[j] + row[j]
    return [[vj for vj in v] for _ in rows], d_v


def sum_mat_vec_jvp(args, tangents):
    rows, v = args
    d_rows, d_v = tangents
    n = len(v)
    total = 0.0
    d_total = 0.0
    for row, d_row in zip(rows, d_rows):
        s = 0.0
        for j in range(n):
            s += row[j] * v[j]
            d_total += d_row[j] * v[j] + row[j] * d_v[j]
        total += s
    return total, d_total


# ---------------------------------------------------------------- dense network + safe softmax
#
# neural(layers, x):          sum_i softmax(h)_i          (always 1: gradient ~0)
# neural_weighted(layers, x, out_w): sum_i out_w[i] softmax(h)_i, differentiated
#                             with respect to (layers, x) only
# with h = relu(W_L ... relu(W_1 x + b_1) ... + b_L) and the paper's safe
# softmax: exp(h_i - m) / sum_k exp(h_k - m), m = max(0, max_i h_i).


def _net_forward(layers, x):
    """Inputs of every layer and their pre-activations, and the final h."""
    h = x
    saved = []
    for w, b in layers:
        z = []
        for row, b_i in zip(w, b):
            s = 0.0
            for w_ij, h_j in zip(row, h):
                s += w_ij * h_j
            z.append(s + b_i)
        saved.append((h, z))
        h = [0.0 if zi < 0.0 else zi for zi in z]
    return saved, h


def _softmax_parts(h):
    """The running max (0.0 to start, as in the paper), its index (-1 if the
    max is the initial 0.0), the exponentials and their sum."""
    m, arg = 0.0, -1
    for i in range(len(h)):
        if h[i] > m:
            m, arg = h[i], i
    exps = [math.exp(hi - m) for hi in h]
    return m, arg, exps, sum(exps)


def _net_backward(layers, saved, exps, total, arg, g_p):
    """Cotangents of (layers, x) given the cotangent g_p of the softmax output."""
    # p_i = e_i / T
    g_e = [g / total for g in g_p]
    g_total = -sum(g * e for g, e in zip(g_p, exps)) / (total * total)
    g_e = [g + g_total for g in g_e]
    # e_i = exp(h_i - m); m = h[arg]
    g_h = [e * g for e, g in zip(exps, g_e)]
    if arg >= 0:
        g_h[arg] -= sum(g_h)
    d_layers = [None] * len(layers)
    for l in range(len(layers) - 1, -1, -1):
        w, _ = layers[l]
        h_in, z = saved[l]
        g_z = [0.0 if zi < 0.0 else g for zi, g in zip(z, g_h)]  # relu'(0) = 1, as relu() has it
        d_w = [[gz * hj for hj in h_in] for gz in g_z]
        g_h = [0.0] * len(h_in)
        for i in range(len(w)):
            gz = g_z[i]
            if gz != 0.0:
                row = w[i]
                for j in range(len(h_in)):
                    g_h[j] += row[j] * gz
        d_layers[l] = (d_w, list(g_z))
    return d_layers, g_h


def _softmax(h):
    """The paper's safe softmax of h (shifted by max(0, max h))."""
    m = 0.0
    for h_i in h:
        if h_i > m:
            m = h_i
    exps = [math.exp(h_i - m) for h_i in h]
    total = sum(exps)
    return [e / total for e in exps]


def _net_grad(layers, x, out_w):
    """Gradient of sum_i out_w[i] softmax(h)_i (out_w None: all ones) wrt (layers, x).  The softmax
    shift has a zero derivative and is left out; a dead unit's row of d W is zeros and adds nothing
    to the cotangent of the layer's input."""
    saved, h = _net_forward(layers, x)
    p = _softmax(h)
    if out_w is None:
        inner = 1.0 - sum(p)
        g_h = [p_i * inner for p_i in p]
    else:
        inner = 0.0
        for w_i, p_i in zip(out_w, p):
            inner += w_i * p_i
        g_h = [p_i * (w_i - inner) for p_i, w_i in zip(p, out_w)]
    d_layers = [None] * len(layers)
    for l in range(len(layers) - 1, -1, -1):
        h_in, z = saved[l]
        n_in = len(h_in)
        g_z = [0.0 if z_i < 0.0 else g for z_i, g in zip(z, g_h)]
        d_w = []
        g_in = [0.0] * n_in
        for row, gz in zip(layers[l][0], g_z):
            if gz == 0.0:
                d_w.append([0.0] * n_in)
                continue
            d_w.append([gz * h_j for h_j in h_in])
            for j in range(n_in):
                g_in[j] = g_in[j] + row[j] * gz
        d_layers[l] = (d_w, g_z)
        g_h = g_in
    return d_layers, g_h


def neural_grad(layers, x):
    """Gradient of ``neural`` wrt (layers, x)."""
    return _net_grad(layers, x, None)


def neural_weighted_grad(layers, x, out_w):
    """Gradient of ``neural_weighted`` wrt (layers, x); out_w is data."""
    return _net_grad(layers, x, out_w)


def _net_tangent(layers, x, d_layers, d_x):
    """Output h of the network, its tangent, and the softmax pieces."""
    h = list(x)
    dh = list(d_x)
    for (w, b), (dw, db) in zip(layers, d_layers):
        z, dz = [], []
        for i in range(len(w)):
            row, drow = w[i], dw[i]
            s = 0.0
            ds = 0.0
            for j in range(len(h)):
                s += row[j] * h[j]
                ds += drow[j] * h[j] + row[j] * dh[j]
            z.append(s + b[i])
            dz.append(ds + db[i])
        h = [0.0 if zi < 0.0 else zi for zi in z]
        dh = [0.0 if zi < 0.0 else d for zi, d in zip(z, dz)]
    m, arg, exps, total = _softmax_parts(h)
    dm = dh[arg] if arg >= 0 else 0.0
    d_exps = [e * (d - dm) for e, d in zip(exps, dh)]
    d_total = sum(d_exps)
    d_p = [de / total - e * d_total / (total * total) for e, de in zip(exps, d_exps)]
    return exps, total, d_p


def neural_vjp(args, ct):
    layers, x = args
    saved, h = _net_forward(layers, x)
    _, arg, exps, total = _softmax_parts(h)
    value = sum([e / total for e in exps])
    return value, _net_backward(layers, saved, exps, total, arg, [ct] * len(exps))


def neural_jvp(args, tangents):
    layers, x = args
    exps, total, d_p = _net_tangent(layers, x, *tangents)
    return sum([e / total for e in exps]), sum(d_p)


def neural_weighted_vjp(args, ct):
    layers, x, out_w = args
    saved, h = _net_forward(layers, x)
    _, arg, exps, total = _softmax_parts(h)
    value = 0.0
    for i in range(len(exps)):
        value += out_w[i] * (exps[i] / total)
    return value, _net_backward(layers, saved, exps, total, arg, [w * ct for w in out_w])


def neural_weighted_jvp(args, tangents):
    """Tangents for (layers, x) only: out_w is data."""
    layers, x, out_w = args
    exps, total, d_p = _net_tangent(layers, x, *tangents)
    value = 0.0
    for i in range(len(exps)):
        value += out_w[i] * (exps[i] / total)
    return value, sum(w * d for w, d in zip(out_w, d_p))


# ---------------------------------------------------------------- particles
#
# For each particle, n explicit-Euler steps of
#     a = (-0.5 p - 0.2 v) / mass,  p' = p + dt v,  v' = v + dt a
# then the sum over particles of x * y of the final positions.  The step is
# linear, so the adjoint needs no tape: it applies the transposed step n times
# to the cotangent of the final state.

_DT = 0.05
_MASS = 1.0


def _particles_args(args):
    ps, vs = args[0], args[1]
    return ps, vs, (args[2] if len(args) > 2 else 1000)


def particles_vjp(args, ct):
    ps, vs, n = _particles_args(args)
    dt, mass = _DT, _MASS
    kp, kv = -0.5 / mass, -0.2 / mass
    total = 0.0
    d_ps, d_vs = [], []
    for (px, py), (vx, vy) in zip(ps, vs):
        for _ in range(n):
            ax = (-0.5 * px - 0.2 * vx) / mass
            ay = (-0.5 * py - 0.2 * vy) / mass
            px, py, vx, vy = px + dt * vx, py + dt * vy, vx + dt * ax, vy + dt * ay
        total += px * py
        gpx, gpy, gvx, gvy = py * ct, px * ct, 0.0, 0.0
        for _ in range(n):
            gax, gay = dt * gvx, dt * gvy
            gpx, gvx = gpx + kp * gax, gvx + dt * gpx + kv * gax
            gpy, gvy = gpy + kp * gay, gvy + dt * gpy + kv * gay
        d_ps.append([gpx, gpy])
        d_vs.append([gvx, gvy])
    return total, (d_ps, d_vs)


def particles_grad(ps, vs, n_steps=1000):
    """Gradient wrt (ps, vs).  The step p' = p + dt v, v' = kp p + kv v is linear: the reverse sweep
    applies its transpose n times to the cotangent (y, x) of the final (x, y), and needs nothing
    else from the forward sweep."""
    dt = _DT
    kp, kv = -0.5 * dt / _MASS, 1.0 - 0.2 * dt / _MASS
    d_ps, d_vs = [], []
    for (px, py), (vx, vy) in zip(ps, vs):
        for _ in range(n_steps):
            px, py, vx, vy = px + dt * vx, py + dt * vy, kp * px + kv * vx, kp * py + kv * vy
        gpx, gpy, gvx, gvy = py, px, 0.0, 0.0
        for _ in range(n_steps):
            gpx, gpy, gvx, gvy = gpx + kp * gvx, gpy + kp * gvy, dt * gpx + kv * gvx, dt * gpy + kv * gvy
        d_ps.append([gpx, gpy])
        d_vs.append([gvx, gvy])
    return d_ps, d_vs


def particles_jvp(args, tangents):
    ps, vs, n = _particles_args(args)
    d_ps, d_vs = tangents[0], tangents[1]
    dt, mass = _DT, _MASS
    total = 0.0
    d_total = 0.0
    for (px, py), (vx, vy), (dpx, dpy), (dvx, dvy) in zip(ps, vs, d_ps, d_vs):
        for _ in range(n):
            ax = (-0.5 * px - 0.2 * vx) / mass
            ay = (-0.5 * py - 0.2 * vy) / mass
            dax = (-0.5 * dpx - 0.2 * dvx) / mass
            day = (-0.5 * dpy - 0.2 * dvy) / mass
            px, py, vx, vy = px + dt * vx, py + dt * vy, vx + dt * ax, vy + dt * ay
            dpx, dpy, dvx, dvy = dpx + dt * dvx, dpy + dt * dvy, dvx + dt * dax, dvy + dt * day
        total += px * py
        d_total += dpx * py + px * dpy
    return total, d_total


# ---------------------------------------------------------------- orbits (bench_memory.py)
#
# Per particle, n explicit-Euler steps in the field -p / r, r = sqrt(|p|^2 + 1),
# with drag: a = -p / r - c v, p' = p + dt v, v' = v + dt a.  The step is
# nonlinear in p only, so the adjoint of step i needs the position before it
# and nothing else.  Reverse mode only (bench_memory.py measures gradients):
#
# * ``orbits_vjp`` keeps the whole trajectory of positions (two lists of n
#   floats, one particle at a time): O(n) memory, the plain hand-written adjoint;
# * ``orbits_checkpointed_vjp`` keeps one snapshot (px, py, vx, vy) every
#   k = isqrt(n) steps and, going backwards, re-runs one segment at a time to
#   recover its positions: O(sqrt n) memory, the hand-written counterpart of
#   ``differentiate(orbits, checkpoint=True)``.

_ORBIT_DT = 0.01
_ORBIT_DRAG = 0.01


def _orbit_run(px, py, vx, vy, n):
    """The state after n steps from (px, py, vx, vy)."""
    dt, c = _ORBIT_DT, _ORBIT_DRAG
    for _ in range(n):
        r = math.sqrt(px * px + py * py + 1.0)
        ax = -px / r - c * vx
        ay = -py / r - c * vy
        px, py, vx, vy = px + dt * vx, py + dt * vy, vx + dt * ax, vy + dt * ay
    return px, py, vx, vy


def _orbit_record(px, py, vx, vy, n, xs, ys):
    """``_orbit_run``, appending the position before each step to xs and ys."""
    dt, c = _ORBIT_DT, _ORBIT_DRAG
    for _ in range(n):
        xs.append(px)
        ys.append(py)
        r = math.sqrt(px * px + py * py + 1.0)
        ax = -px / r - c * vx
        ay = -py / r - c * vy
        px, py, vx, vy = px + dt * vx, py + dt * vy, vx + dt * ax, vy + dt * ay
    return px, py, vx, vy


def _orbit_back(xs, ys, gpx, gpy, gvx, gvy):
    """The cotangents of the state before the recorded steps, given those after them:
    the adjoints of the steps whose starting positions are xs, ys, last step first."""
    dt, c = _ORBIT_DT, _ORBIT_DRAG
    for i in range(len(xs) - 1, -1, -1):
        px, py = xs[i], ys[i]
        r = math.sqrt(px * px + py * py + 1.0)
        gax, gay = dt * gvx, dt * gvy
        q = (gax * px + gay * py) / (r * r * r)  # d(-p/r)/dp = -I/r + p p^T / r^3
        gpx, gpy, gvx, gvy = (
            gpx - gax / r + px * q,
            gpy - gay / r + py * q,
            gvx + dt * gpx - c * gax,
            gvy + dt * gpy - c * gay,
        )
    return gpx, gpy, gvx, gvy


def orbits_vjp(args, ct):
    ps, vs, n = args
    total = 0.0
    d_ps, d_vs = [], []
    for (px, py), (vx, vy) in zip(ps, vs):
        xs, ys = [], []
        px, py, vx, vy = _orbit_record(px, py, vx, vy, n, xs, ys)
        total += px * py
        g = _orbit_back(xs, ys, py * ct, px * ct, 0.0, 0.0)
        d_ps.append([g[0], g[1]])
        d_vs.append([g[2], g[3]])
    return total, (d_ps, d_vs)


def orbits_checkpointed_vjp(args, ct):
    ps, vs, n = args
    k = math.isqrt(n) or 1
    total = 0.0
    d_ps, d_vs = [], []
    for (px, py), (vx, vy) in zip(ps, vs):
        snapshots = []
        for start in range(0, n, k):
            snapshots.append((px, py, vx, vy))
            px, py, vx, vy = _orbit_run(px, py, vx, vy, min(k, n - start))
        total += px * py
        g = (py * ct, px * ct, 0.0, 0.0)
        for start in reversed(range(0, n, k)):
            xs, ys = [], []
            _orbit_record(*snapshots.pop(), min(k, n - start), xs, ys)
            g = _orbit_back(xs, ys, *g)
        d_ps.append([g[0], g[1]])
        d_vs.append([g[2], g[3]])
    return total, (d_ps, d_vs)


# ================================================================ NumPy versions
#
# Hand-written adjoints and tangents of samples/paper_numpy.py (the same
# programs on arrays), vectorised as one would write them in NumPy.

import numpy as np  # noqa: E402

# ---------------------------------------------------------------- dot_np: np.dot(x, y)


def dot_np_vjp(args, ct):
    x, y = args
    return np.dot(x, y), (y * ct, x * ct)


def dot_np_grad(x, y):
    """d/dx = y, d/dy = x (copies)."""
    return y.copy(), x.copy()


def dot_np_jvp(args, tangents):
    x, y = args
    dx, dy = tangents
    return np.dot(x, y), np.dot(dx, y) + np.dot(x, dy)


# ---------------------------------------------------------------- sum_mat_vec_np: np.sum(m @ v)


def sum_mat_vec_np_vjp(args, ct):
    """d m[i, j] = v[j] ct, d v[j] = sum_i m[i, j] ct."""
    m, v = args
    d_m = np.empty_like(m)
    d_m[...] = v * ct
    return np.sum(m @ v), (d_m, m.sum(axis=0) * ct)


def sum_mat_vec_np_grad(m, v):
    """d m = v in every row, d v = the column sums of m."""
    d_m = np.empty_like(m)
    d_m[...] = v
    return d_m, m.sum(axis=0)


def sum_mat_vec_np_jvp(args, tangents):
    m, v = args
    dm, dv = tangents
    return np.sum(m @ v), np.sum(dm @ v) + np.sum(m @ dv)


# ---------------------------------------------------------------- neural_np / neural_weighted_np
#
# h = relu(W_L ... relu(W_1 x + b_1) ... + b_L), relu'(0) = 1 (np.maximum(z, 0.0)
# sends the derivative to z on a tie), p = the paper's safe softmax of h.  The
# shift m = max(0, max h) cancels from the derivative of the softmax, so the
# softmax adjoint is p * (g - <g, p>).


def _net_np_forward(layers, x):
    """Inputs of every layer and their pre-activations, and the softmax output p (array methods
    rather than np.max / np.sum: on 50-element arrays a call's overhead is most of its cost)."""
    saved = []
    h = x
    for w, b in layers:
        z = w @ h + b
        saved.append((h, z))
        h = np.maximum(z, 0.0)
    e = np.exp(h - max(0.0, h.max()))
    return saved, e / e.sum()


def _net_np_backward(layers, saved, p, g_p):
    g_h = p * (g_p - np.dot(g_p, p))
    d_layers = [None] * len(layers)
    for l in range(len(layers) - 1, -1, -1):
        w, _ = layers[l]
        h_in, z = saved[l]
        g_z = np.where(z < 0.0, 0.0, g_h)
        d_layers[l] = (np.outer(g_z, h_in), g_z)
        g_h = w.T @ g_z
    return d_layers, g_h


def _net_np_tangent(layers, x, d_layers, d_x):
    h, dh = x, d_x
    for (w, b), (dw, db) in zip(layers, d_layers):
        z = w @ h + b
        dz = dw @ h + w @ dh + db
        h, dh = np.maximum(z, 0.0), np.where(z < 0.0, 0.0, dz)
    m = max(0.0, float(np.max(h)))
    e = np.exp(h - m)
    p = e / np.sum(e)
    return p, p * (dh - np.dot(p, dh))


def _net_np_grad(layers, x, out_w):
    """Gradient of sum(out_w * softmax(h)) (out_w None: all ones) wrt (layers, x)."""
    saved, p = _net_np_forward(layers, x)
    g_h = p * (1.0 - p.sum()) if out_w is None else p * (out_w - out_w @ p)
    d_layers = [None] * len(layers)
    for l in range(len(layers) - 1, -1, -1):
        h_in, z = saved[l]
        g_z = np.where(z < 0.0, 0.0, g_h)
        d_layers[l] = (g_z[:, None] * h_in, g_z)  # the outer product, without np.outer's wrapping
        g_h = g_z @ layers[l][0]
    return d_layers, g_h


def neural_np_grad(layers, x):
    """Gradient of ``neural_np`` wrt (layers, x)."""
    return _net_np_grad(layers, x, None)


def neural_weighted_np_grad(layers, x, out_w):
    """Gradient of ``neural_weighted_np`` wrt (layers, x); out_w is data."""
    return _net_np_grad(layers, x, out_w)


def neural_np_vjp(args, ct):
    layers, x = args
    saved, p = _net_np_forward(layers, x)
    return np.sum(p), _net_np_backward(layers, saved, p, np.full_like(p, ct))


def neural_np_jvp(args, tangents):
    layers, x = args
    p, dp = _net_np_tangent(layers, x, *tangents)
    return np.sum(p), np.sum(dp)


def neural_weighted_np_vjp(args, ct):
    """Cotangents of (layers, x) only: out_w is data."""
    layers, x, out_w = args
    saved, p = _net_np_forward(layers, x)
    return np.sum(out_w * p), _net_np_backward(layers, saved, p, out_w * ct)


def neural_weighted_np_jvp(args, tangents):
    layers, x, out_w = args
    p, dp = _net_np_tangent(layers, x, *tangents)
    return np.sum(out_w * p), np.dot(out_w, dp)


# ---------------------------------------------------------------- particles_np
#
# All particles at once on (n, 2) arrays; the step is linear, so the adjoint
# applies the transposed step n times to the cotangent of the final state.


def particles_np_vjp(args, ct):
    ps, vs, n = _particles_args(args)
    dt, mass = _DT, _MASS
    kp, kv = -0.5 / mass, -0.2 / mass
    p, v = ps, vs
    for _ in range(n):
        a = (-0.5 * p - 0.2 * v) / mass
        p, v = p + dt * v, v + dt * a
    value = np.sum(p[:, 0] * p[:, 1])
    g_p = p[:, ::-1] * ct  # d (x y) = (y, x)
    g_v = np.zeros_like(v)
    for _ in range(n):
        g_a = dt * g_v
        g_p, g_v = g_p + kp * g_a, g_v + dt * g_p + kv * g_a
    return value, (g_p, g_v)


def particles_np_grad(ps, vs, n_steps=1000):
    """Gradient wrt (ps, vs): ``particles_grad`` on all particles at once."""
    dt = _DT
    kp, kv = -0.5 * dt / _MASS, 1.0 - 0.2 * dt / _MASS
    p, v = ps, vs
    for _ in range(n_steps):
        p, v = p + dt * v, kp * p + kv * v
    g_p = p[:, ::-1].copy()  # d (x y) = (y, x)
    g_v = np.zeros_like(v)
    for _ in range(n_steps):
        g_p, g_v = g_p + kp * g_v, dt * g_p + kv * g_v
    return g_p, g_v


def particles_np_jvp(args, tangents):
    ps, vs, n = _particles_args(args)
    dps, dvs = tangents[0], tangents[1]
    dt, mass = _DT, _MASS
    p, v, dp, dv = ps, vs, dps, dvs
    for _ in range(n):
        a = (-0.5 * p - 0.2 * v) / mass
        da = (-0.5 * dp - 0.2 * dv) / mass
        p, v = p + dt * v, v + dt * a
        dp, dv = dp + dt * dv, dv + dt * da
    return np.sum(p[:, 0] * p[:, 1]), np.sum(dp[:, 0] * p[:, 1] + p[:, 0] * dp[:, 1])
