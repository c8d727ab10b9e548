def reassign_forward(x, y, dx, dy):
    """Forward mode of reassign: (value, tangent)."""
    # line 16: x = x * y
    x_1 = x * y
    dx_1 = y * dx + x * dy
    # line 17: x += math.sin(x)
    t1 = math.sin(x_1)
    dt1 = math.cos(x_1) * dx_1
    x_2 = x_1 + t1
    dx_2 = dx_1 + dt1
    # line 18: return x * x
    t2 = x_2 * x_2
    dt2 = 2 * (x_2 * dx_2)
    return (t2, dt2)
