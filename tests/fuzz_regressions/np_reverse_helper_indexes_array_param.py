# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.4, -0.2, 0.3]]}
# found: python -m adcompiler.fuzz --numpy --seed 3 (program 11: h2(a, b) returning np.tanh(b[:, None] * a).dot(...)), and by hand; minimised by hand
import numpy as np


def h(b):
    return b[0] * 2.0


def f(x):
    return h(x)
