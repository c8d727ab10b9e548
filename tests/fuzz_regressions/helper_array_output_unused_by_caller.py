# fuzz: {'params': [('array', 'A', (3, 3))], 'outputs': 1, 'point': [[[1.283343, 0.84119, -0.886174], [1.346366, 0.923805, -0.118031], [0.667376, -0.542837, 0.239084]]]}
# found: seed 2313 (numpy, program 122): the caller used only the number a helper returned beside a
# stacked array, so its reverse sweep got the number 0.0 as the array's cotangent and unstacked it
# along axis 1; minimised by hand
import numpy as np


def h0(a):
    return np.stack([np.sin(a[0]), np.cos(a[1])], axis=1), np.sum(a * a)


def f(A):
    u, t = h0(A)
    return 2.0 * t
