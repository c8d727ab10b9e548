# fuzz: {'params': [('float', 'p')], 'outputs': 2, 'point': [0.686363]}
# xfail: forward mode, a float output that another path returns as an array gets its tangent through array_like(dp, result), float32 for a Python float result: jvp's tangent is np.float32, rounded to 7 digits (the forward twin of np_float_param_cotangent_float32)
# found: python -m adcompiler.fuzz --numpy --seed 103 (program 190, a duality miss of 3e-8); minimised with --minimise
import numpy as np


def f(p):
    u0 = np.ones(3)
    for i1 in range(u0.size):
        return (1.0 + p, 0.5)
    return (u0, 0.5)
