# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.3, -0.5, 1.2]]}
# xfail: forward mode crashes (TypeError: 'float' object is not subscriptable): x is reassigned a constant in a loop, so at run time its tangent is the float 0.0, and the tangent of x[1:] indexes that float (np_jvp_element_write_into_reassigned_zeros fixed writes into such a tangent, not reads); the same with x @ np.ones(3): 'matmul: Input operand 0 does not have enough dimensions' (seed 105, program 2)
# found: python -m adcompiler.fuzz --numpy --seed 104 (program 193: A = np.arange(4.0).reshape(2, 2) in a loop, then np.vstack([A, A[1:]])); minimised with --minimise, then by hand
import numpy as np


def f(x):
    for i in range(2):
        x = np.ones(3)
    return x[1:]
