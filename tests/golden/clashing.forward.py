def clashing_forward(dx, d_x, dup, ct, ddx, dd_x, ddup, dct):
    """Forward mode of clashing: (value, tangent)."""
    # line 31: t1 = dx * d_x
    t1 = dx * d_x
    dt1 = d_x * ddx + dx * dd_x
    # line 32: _t0 = t1 + dup
    _t0 = t1 + dup
    d_t0 = dt1 + ddup
    # line 33: return _t0 * ct
    return (_t0 * ct, ct * d_t0 + _t0 * dct)
