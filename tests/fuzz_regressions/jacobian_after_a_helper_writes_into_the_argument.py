# jacobian(mode='reverse') ran the primal to count the outputs, then one vjp per row, all on the
# same list, which the helper h1 had changed (ws[1] = 0.5): the row was computed at the changed
# point. Each pass now runs from a copy of the arguments when the function writes into them.
# mismatch: u^T jacobian(mode='reverse') = [0.0, 0.017733958120329338] but vjp(u=[0.02254944273721704]) = [0.0, 0.008623919528979557]
# fuzz: {'params': [('list', 'xs', 2)], 'outputs': 1, 'point': [[0.622764, 1.060478]]}
import math


def h0(a):
    return (a, 0.5)


def h1(ws, c=0.5):
    ws[1] = 0.5
    return 0.5


def f(xs):
    t5, t6 = h0(xs[1])
    return h1(xs) + math.tanh(t5)
