def recipe_forward(x, y, dx, dy):
    """Forward mode of recipe: (value, tangent)."""
    # line 8: p = 7 * x
    p = 7 * x
    dp = 7 * dx
    # line 9: r = 1 / y
    r = 1 / y
    dr = -(r / y * dy)
    # line 10: q = p * x * 5
    t1 = p * x
    dt1 = x * dp + p * dx
    q = t1 * 5
    dq = 5 * dt1
    # line 11: v = 2 * p * q + 3 * r
    t2 = 2 * p
    dt2 = 2 * dp
    t3 = t2 * q
    dt3 = q * dt2 + t2 * dq
    t4 = 3 * r
    dt4 = 3 * dr
    v = t3 + t4
    dv = dt3 + dt4
    # line 12: return v
    return (v, dv)
