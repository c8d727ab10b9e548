def recipe_forward(x, y, dx, dy):
    """Forward mode of recipe: (value, tangent)."""
    # line 8: p = 7 * x
    p = 7 * x
    dp = 7 * dx
    # line 9: r = 1 / y
    r = 1 / y
    dr = -(r / y * dy)
    # line 10: q = p * x * 5
    q = p * x * 5
    dq = 5 * (x * dp + p * dx)
    # line 11: v = 2 * p * q + 3 * r
    t2 = 2 * p
    v = t2 * q + 3 * r
    dv = q * (2 * dp) + t2 * dq + 3 * dr
    # line 12: return v
    return (v, dv)
