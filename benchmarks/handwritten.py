"""Hand-written derivatives of the benchmark programs.

These are the baselines the harness compares adcompiler (and the peer AD
tools) against: what a careful programmer would write by hand.  Each program
has

* ``<name>_vjp(args, ct) -> (value, cotangents)``: the adjoint (reverse mode),
  one cotangent per parameter, mirroring ``f.vjp``;
* ``<name>_jvp(args, tangents) -> (value, tangent)``: the tangent (forward
  mode), mirroring ``f.jvp``.

bench_scalar.py checks all of them against central finite differences of
the primal at start-up before timing anything.
"""

# ---------------------------------------------------------------- x * y


def mul_vjp(args, ct):
    x, y = args
    return x * y, (y * ct, x * ct)


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


def dot_jvp(args, tangents):
    xs, ys = args
    txs, tys = tangents
    s = 0.0
    ds = 0.0
    for x, y, tx, ty in zip(xs, ys, txs, tys):
        s += x * y
        ds += tx * y + x * ty
    return s, ds
