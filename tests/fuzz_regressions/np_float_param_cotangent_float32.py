# fuzz: {'params': [('array', 'x', (3,)), ('float', 'p')], 'outputs': 1, 'point': [[0.3, -0.5, 1.2], 0.7]}
# found: python -m adcompiler.fuzz --numpy --seed 3 (program 44, a duality miss of 4e-9) and --seed 1 (program 8); minimised with --minimise, then by hand
import numpy as np


def f(x, p):
    return p if p > 0.0 else x
