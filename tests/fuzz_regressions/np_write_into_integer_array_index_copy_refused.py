# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.3, -0.5, 1.2]]}
# xfail: u = x[np.array([0, 2])]; u[1] = x[1] is refused ("writing into a view of another array (a slice, row, .T or reshape shares its memory)"): indexing with an integer array (README: "integer arrays") makes a copy, not a view, so u is a local array and README supports writes into it (+= on it is refused the same way)
# found: python -m adcompiler.fuzz --numpy --seed 106 on b8d74a2 (programs 23, 90, 119); minimised by hand
import numpy as np


def f(x):
    u = x[np.array([0, 2])]
    u[1] = x[1]
    return np.sum(u * u)
