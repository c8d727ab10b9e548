# fuzz: {'params': [('array', 'y', (3,))], 'outputs': 1, 'point': [[0.3, -0.5, 1.2]]}
# found: python -m adcompiler.fuzz --numpy --seed 105 on edf6250 (programs 22, 85, 114); minimised by hand
import numpy as np


def f(y):
    t = y[1]
    t -= 0.5 * y[0]
    return t
