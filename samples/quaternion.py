"""Rotating a 3-vector by a quaternion.

This is the ``rotate_vec_by_quat`` program from the benchmark suite of
Smeding & Vakar, "Parallel Dual-Numbers Reverse AD" (Table 1): seven scalar
inputs (a quaternion ``q = (qw, qx, qy, qz)`` and a vector
``v = (vx, vy, vz)``) and three scalar outputs, so its full Jacobian is 3x7.

With ``u = (qx, qy, qz)`` the vector part of ``q`` and ``s = qw`` its scalar
part, the rotated vector is

    v' = 2 (u . v) u + (s^2 - u . u) v + 2 s (u x v)

which equals ``q v q*`` for a unit quaternion (for a non-unit quaternion the
result is additionally scaled by ``|q|^2``).

Everything here is straight-line float code that only uses ``math``, so the
file can be run through ``adc compile samples/quaternion.py`` as it is.
"""

import math


def rotate_vec_by_quat(qw, qx, qy, qz, vx, vy, vz):
    """Rotate (vx, vy, vz) by the quaternion (qw, qx, qy, qz); returns a 3-tuple."""
    # u . v and u . u
    u_dot_v = qx * vx + qy * vy + qz * vz
    u_dot_u = qx * qx + qy * qy + qz * qz
    # u x v
    cx = qy * vz - qz * vy
    cy = qz * vx - qx * vz
    cz = qx * vy - qy * vx
    # the three terms of the rotation formula
    a = 2.0 * u_dot_v
    b = qw * qw - u_dot_u
    c = 2.0 * qw
    rx = a * qx + b * vx + c * cx
    ry = a * qy + b * vy + c * cy
    rz = a * qz + b * vz + c * cz
    return rx, ry, rz


def quat_from_axis_angle(ax, ay, az, angle):
    """Unit quaternion for a rotation by ``angle`` radians about axis (ax, ay, az).

    The axis does not need to be normalised.
    """
    norm = math.sqrt(ax * ax + ay * ay + az * az)
    half = 0.5 * angle
    s = math.sin(half) / norm
    return math.cos(half), ax * s, ay * s, az * s


def rotation_error(angle, ax, ay, az, vx, vy, vz, tx, ty, tz):
    """Squared distance between v rotated about axis a by ``angle`` and a target t.

    A typical least-squares loss: differentiating it with respect to ``angle``
    (and the axis) gives the direction in which to turn to hit the target.
    It calls the two functions above, one of which returns a tuple.
    """
    qw, qx, qy, qz = quat_from_axis_angle(ax, ay, az, angle)
    rx, ry, rz = rotate_vec_by_quat(qw, qx, qy, qz, vx, vy, vz)
    dx = rx - tx
    dy = ry - ty
    dz = rz - tz
    return dx * dx + dy * dy + dz * dz


if __name__ == "__main__":
    # Rotating the x axis by 90 degrees about z gives the y axis.
    q = quat_from_axis_angle(0.0, 0.0, 1.0, math.pi / 2)
    print("rotate (1, 0, 0) by 90deg about z:", rotate_vec_by_quat(*q, 1.0, 0.0, 0.0))

    try:
        import adcompiler
    except ImportError:
        print("adcompiler is not installed; skipping the derivative demo")
    else:
        err = adcompiler.differentiate(wrt=("angle",))(rotation_error)
        args = (1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0)
        value, d_angle = err.value_and_grad(*args)
        print(f"rotation_error = {value:.6f}, d/d angle = {d_angle:.6f}")

        # One row of the 3x7 Jacobian of rotate_vec_by_quat by reverse mode,
        # one column by forward mode.
        rot = adcompiler.differentiate(rotate_vec_by_quat)
        point = (*q, 1.0, 2.0, 3.0)
        _, row_x = rot.vjp(point, (1.0, 0.0, 0.0))
        print("d rx / d (qw, qx, qy, qz, vx, vy, vz) =", row_x)
        _, col_qw = rot.jvp(point, (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
        print("d (rx, ry, rz) / d qw =", col_qw)
