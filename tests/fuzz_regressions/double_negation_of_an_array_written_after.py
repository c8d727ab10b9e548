# fuzz: {'params': [('array', 'x', (2,))], 'outputs': 1, 'point': [[-0.789748, -0.815583]]}
# found: python -m adcompiler.testing.fuzz --mode numpy --seed 621 --small --nested-every 1 (program 255); minimised
# jvp's and vjp's value was [-0.5, 0.0] where f gives [0.0, 0.0]: folding cancelled the negations of
# u3 = --u1 into u3 = u1, the array itself, which the write into u1 then changed (optimize.inline._signs_out)
import math
import numpy as np


def f(x):
    u1 = np.zeros_like(x)
    u3 = --u1
    u1[-2] -= 0.5
    return u3
