# fuzz: {'params': [('float', 'x')], 'outputs': 1, 'point': [-0.236345]}
# found: CI seed 20240601 (programs 22: argmin, 30: argmax); minimised with --minimise, then by hand
import math


def f(x):
    ys = [x, 0.5 * x + 0.2]
    return max(ys)
