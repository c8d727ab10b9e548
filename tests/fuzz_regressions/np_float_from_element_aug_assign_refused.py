# fuzz: {'params': [('array', 'y', (3,))], 'outputs': 1, 'point': [[0.3, -0.5, 1.2]]}
# xfail: t = y[1]; t -= 0.5 * y[0] is refused ("an in-place change (+=, *=, ...) of a view of another array ... is not supported"): y[1] of a 1-D array is a float, not a view, and -= on a float rebinds it; README supports augmented assignment (with x = y[1] * 0.95 the refusal says "an array that a list also holds")
# found: python -m adcompiler.fuzz --numpy --seed 105 on edf6250 (programs 22, 85, 114); minimised by hand
import numpy as np


def f(y):
    t = y[1]
    t -= 0.5 * y[0]
    return t
