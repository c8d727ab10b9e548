def uses_polar_reverse(a, b, ct=1.0):
    """Reverse mode of uses_polar: (value, cotangents)."""
    # line 26: u, v = polar(a, b)
    (u, v), polar_res = polar_forward_sweep(a, b)
    # line 27: return math.hypot(u, v) + u
    t1 = math.hypot(u, v)
    t2 = t1 + u
    # adjoints, last line first
    # line 27: return math.hypot(u, v) + u
    d_u_1 = (u / t1 if t1 else 0.0) * ct
    d_v = (v / t1 if t1 else 0.0) * ct
    # line 26: u, v = polar(a, b)
    d_u = d_u_1 + ct
    d_a, d_b = polar_reverse_sweep(polar_res, (d_u, d_v))
    return (t2, (d_a, d_b))


def polar_forward_sweep(r, theta):
    """Forward sweep of polar: (value, residuals for polar_reverse_sweep)."""
    # line 22: return r * math.cos(theta), r * math.sin(theta)
    t1 = math.cos(theta)
    t3 = math.sin(theta)
    return ((r * t1, r * t3), (t3, r, theta, t1))


def polar_reverse_sweep(residuals, ct):
    """Reverse sweep of polar: cotangents of its number parameters."""
    t3, r, theta, t1 = residuals
    # line 22: return r * math.cos(theta), r * math.sin(theta)
    ct_t2, ct_t4 = ct
    d_r_2 = t3 * ct_t4
    d_theta_2 = math.cos(theta) * (r * ct_t4)
    d_r_1 = t1 * ct_t2
    d_theta_1 = -(math.sin(theta) * (r * ct_t2))
    d_theta = d_theta_1 + d_theta_2
    d_r = d_r_1 + d_r_2
    return (d_r, d_theta)
