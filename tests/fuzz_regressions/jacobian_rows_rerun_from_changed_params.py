# jacobian(mode='reverse') reran the primal per row from parameters the first row's primal had
# changed (y = tanh(y) in a loop): the third row was wrong; fixed by restoring the arguments per row.
# mismatch: u^T jacobian(mode='reverse') = [-0.19013172509917142, 0.37160613565277023] but vjp(u=[0.02254944273721704, -0.19013172509917142, 0.5675971780695452]) = [-0.19013172509917142, 0.20334755158642892]
# fuzz: {'params': [('float', 'x'), ('float', 'y')], 'outputs': 3, 'point': [0.394403, -0.67787]}
import math


def f(x, y):
    for i8 in range(3, 0, -1):
        y = math.tanh(y)
    return (0.5, x, y)
