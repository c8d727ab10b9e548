# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.4, -0.2, 0.3]]}
# xfail: reverse mode crashes (TypeError: h_forward_sweep() missing 1 required positional argument: 'd_b_1'): a helper that indexes its array parameter (b[0], b[1:], b[:, None]) has it taken for a list: its forward sweep wants a shadow adjoint list the caller does not pass, and its reverse sweep returns no cotangent for b
# found: python -m adcompiler.fuzz --numpy --seed 3 (program 11: h2(a, b) returning np.tanh(b[:, None] * a).dot(...)), and by hand; minimised by hand
import numpy as np


def h(b):
    return b[0] * 2.0


def f(x):
    return h(x)
