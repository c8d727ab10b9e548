def recipe_reverse(x, y, ct=1.0):
    """Reverse mode of recipe: (value, cotangents)."""
    # line 8: p = 7 * x
    p = 7 * x
    # line 9: r = 1 / y
    r = 1 / y
    # line 10: q = p * x * 5
    q = p * x * 5
    # line 11: v = 2 * p * q + 3 * r
    t2 = 2 * p
    v = t2 * q + 3 * r
    # adjoints, last line first
    # line 11: v = 2 * p * q + 3 * r
    d_r = 3 * ct
    d_q = t2 * ct
    d_p_2 = 2 * (q * ct)
    # line 10: q = p * x * 5
    d_t1 = 5 * d_q
    d_p_1 = x * d_t1
    d_x_2 = p * d_t1
    # line 9: r = 1 / y
    d_y = -(r / y * d_r)
    # line 8: p = 7 * x
    d_p = d_p_1 + d_p_2
    d_x_1 = 7 * d_p
    d_x = d_x_1 + d_x_2
    return (v, (d_x, d_y))
