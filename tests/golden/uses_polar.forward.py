def uses_polar_forward(a, b, da, db):
    """Forward mode of uses_polar: (value, tangent)."""
    # line 26: u, v = polar(a, b)
    (u, v), (du, dv) = polar_forward(a, b, da, db)
    # line 27: return math.hypot(u, v) + u
    t1 = math.hypot(u, v)
    return (t1 + u, (u / t1 if t1 else 0.0) * du + (v / t1 if t1 else 0.0) * dv + du)


def polar_forward(r, theta, dr, dtheta):
    """Forward mode of polar: (value, tangent)."""
    # line 22: return r * math.cos(theta), r * math.sin(theta)
    t1 = math.cos(theta)
    t3 = math.sin(theta)
    return (
        (r * t1, r * t3),
        (
            t1 * dr + r * -(math.sin(theta) * dtheta),
            t3 * dr + r * (math.cos(theta) * dtheta),
        ),
    )
