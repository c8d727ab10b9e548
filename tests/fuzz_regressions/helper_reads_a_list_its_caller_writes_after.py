# fuzz: {'params': [('float', 'x'), ('list', 'xs', 3)], 'outputs': 1, 'point': [-0.814582, [0.102889, -1.427464, -0.318626]]}
# found: python -m adcompiler.testing.fuzz --mode scalar --programs 300 --seed 77 (the call_then_write generator,
# programs 5 and 151: a helper's reverse sweep read ws[-1] again after its caller wrote into the list); minimised
import math


def h0(a, b, ws):
    if True:
        b *= ws[-1]
    return b


def f(x, xs):
    zs6 = xs
    t7 = h0(0.5, x, zs6)
    x, t7 = (t7, x)
    zs6[len(zs6) - 1] = 0.5
    return x
