# fuzz: {'params': [('float', 'x')], 'outputs': 1, 'point': [-0.3]}
# found: CI seed 20240601 (program 38), NameError 'dc'; minimised with --minimise, then by hand
import math


def h0(a, c=0.5):
    if a > 0.0:
        c = c * a
    return c


def f(x):
    return h0(x)
