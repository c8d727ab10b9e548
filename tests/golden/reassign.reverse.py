def reassign_reverse(x, y, ct=1.0):
    """Reverse mode of reassign: (value, cotangents)."""
    # line 16: x = x * y
    x_1 = x * y
    # line 17: x += math.sin(x)
    x_2 = x_1 + math.sin(x_1)
    # line 18: return x * x
    t2 = x_2 * x_2
    # adjoints, last line first
    # line 18: return x * x
    d_x_5 = 2 * (x_2 * ct)
    # line 17: x += math.sin(x)
    d_x_3 = math.cos(x_1) * d_x_5
    # line 16: x = x * y
    d_x_1 = d_x_3 + d_x_5
    d_x = y * d_x_1
    d_y = x * d_x_1
    return (t2, (d_x, d_y))
