# fuzz: {'params': [('float', 'x')], 'outputs': 1, 'point': [0.3]}
# found: python -m adcompiler.testing.fuzz --mode mixed --seed 501 --small (program 186, by the nested check's campaign); minimised by hand
# grad raised UnboundLocalError (d_t_1): the folding of the cotangent 1.0 dropped the start of t's adjoint, which
# nothing reads, and kept the sum into it, whose value pops the shadow list (optimize.constants._drop_unread)
import math


def f(x):
    t = 0.5
    ys = []
    for i in range(2):
        ys.append(t)
    if x > 0:
        t = x
    return ys[0] + x
