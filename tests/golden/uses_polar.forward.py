def uses_polar_forward(a, b, da, db):
    """Forward mode of uses_polar: (value, tangent)."""
    # line 26: u, v = polar(a, b)
    (u, v), (du, dv) = polar_forward(a, b, da, db)
    # line 27: return math.hypot(u, v) + u
    t1 = math.hypot(u, v)
    dt1 = (u / t1 if t1 else 0.0) * du + (v / t1 if t1 else 0.0) * dv
    t2 = t1 + u
    dt2 = dt1 + du
    return (t2, dt2)


def polar_forward(r, theta, dr, dtheta):
    """Forward mode of polar: (value, tangent)."""
    # line 22: return r * math.cos(theta), r * math.sin(theta)
    t1 = math.cos(theta)
    dt1 = -(math.sin(theta) * dtheta)
    t2 = r * t1
    dt2 = t1 * dr + r * dt1
    t3 = math.sin(theta)
    dt3 = math.cos(theta) * dtheta
    t4 = r * t3
    dt4 = t3 * dr + r * dt3
    return ((t2, t4), (dt2, dt4))
