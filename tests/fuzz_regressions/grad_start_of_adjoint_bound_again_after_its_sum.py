# fuzz: {'params': [('float', 'x'), ('float', 'y')], 'outputs': 1, 'point': [-0.36, -1.02]}
# found: a red-team session's random scalar programs (2026-12-02); minimised by hand
# grad raised UnboundLocalError (d_y_1): with the cotangent 1.0 folded, the start of y's adjoint (d_y_1 = 0.0) was
# taken for bound again before anything read it, as `d_y_1 += 1.0` (which reads it) did not count as a read
# (optimize.constants._rebound); a loop between them kept the sum from being folded into the start
def f(x, y):
    a = [x, y]
    for i in range(3):
        y = 2.0 * y
    y = x * y
    return y + sum(a)
