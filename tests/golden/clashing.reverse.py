def clashing_reverse(dx, d_x, dup, ct, ct_1=1.0):
    """Reverse mode of clashing: (value, cotangents)."""
    # line 31: t1 = dx * d_x
    t1 = dx * d_x
    # line 32: _t0 = t1 + dup
    _t0 = t1 + dup
    # line 33: return _t0 * ct
    t2 = _t0 * ct
    # adjoints, last line first
    # line 33: return _t0 * ct
    d__t0 = ct * ct_1
    d_ct = _t0 * ct_1
    # line 31: t1 = dx * d_x
    d_dx = d_x * d__t0
    d_d_x = dx * d__t0
    return (t2, (d_dx, d_d_x, d__t0, d_ct))
