def reassign_forward(x, y, dx, dy):
    """Forward mode of reassign: (value, tangent)."""
    # line 16: x = x * y
    x_1 = x * y
    dx_1 = y * dx + x * dy
    # line 17: x += math.sin(x)
    x_2 = x_1 + math.sin(x_1)
    dx_2 = dx_1 + math.cos(x_1) * dx_1
    # line 18: return x * x
    return (x_2 * x_2, 2 * (x_2 * dx_2))
