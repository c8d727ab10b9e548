# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.3, -0.5, 1.2]]}
# was refused on b8d74a2 ("writing into an array while a view of it taken earlier is still used"): u[2] of a 1-D array is a float, not a view; accepted since f0ba913
# found: python -m adcompiler.fuzz --mode mixed --seed 302 on b8d74a2 (program 134: t23 = u21[3], then u21[i26] = ... in a nested loop); minimised by hand
import numpy as np


def f(x):
    u = np.ones(3)
    for i in range(2):
        t = u[2]
        for j in range(3):
            u[j] = t * x[j]
    return np.sum(u)
