# fuzz: {'params': [('array', 'x', (2,)), ('array', 'y', (3,))], 'outputs': 1, 'point': [[1.313856, 1.035491], [-0.366565, 0.572541, -0.719434]]}
# found: python -m adcompiler.testing.fuzz --mode numpy --seed 1 (program 207: y = y * (np.expand_dims(x, 1) - ...) in every branch of an if, y unread after, u8 = y returned); minimised with --minimise, then by hand (no parameter needed)
# was: reverse mode crashed (IndexError in unbroadcast): the adjoint of the dead z is the number 0.0, so 0.0 * x[:, None] has x[:, None]'s shape (2, 1), not z's (2, 3); unbroadcast now aligns g from the last axis and spreads it over x's other axes
import numpy as np


def f(x, y):
    z = y * 1.0
    u = z
    if x[0] < 5.0:
        z = z * x[:, None]
    return u
