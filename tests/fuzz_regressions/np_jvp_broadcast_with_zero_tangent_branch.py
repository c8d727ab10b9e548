# fuzz: {'params': [('array', 'y', (3,)), ('float', 'p')], 'outputs': 1, 'point': [[1.43147, 0.869526, -0.297908], 0.5]}
# xfail: forward mode silently wrong (jvp -0.48, finite differences -1.45, i.e. 3x): u is active (y in one branch) but the branch taken assigns the constant np.ones(3), so u's tangent is the float 0.0 there, and the tangent of u + p stays the float dp, which np.sum does not multiply by 3; the fix of np_jvp_scalar_tangent_of_broadcast covers operands known to be inactive, not a zero tangent at run time
# found: python -m adcompiler.fuzz --numpy --seed 101 (program 86: (np.log10(...y...) if c else const[0, :]) + 0.48 * math.atan(p)); minimised by hand
import numpy as np


def f(y, p):
    if p > 0.0:
        u = np.ones(3)
    else:
        u = y
    return np.sum(u + p)
