# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.3, -0.5, 1.2]]}
# xfail: t = u[2] then u[j] = t * x[j] in a loop is refused ("writing into an array while a view of it taken earlier is still used"): u[2] of a 1-D array is a float, not a view (outside a loop the same lines are accepted); see also np_element_write_after_conditional_element_read_refused
# found: python -m adcompiler.fuzz --mode mixed --seed 302 on b8d74a2 (program 134: t23 = u21[3], then u21[i26] = ... in a nested loop); minimised by hand
import numpy as np


def f(x):
    u = np.ones(3)
    for i in range(2):
        t = u[2]
        for j in range(3):
            u[j] = t * x[j]
    return np.sum(u)
