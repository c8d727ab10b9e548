# fuzz: {'params': [('array', 'x', (3,))], 'outputs': 1, 'point': [[0.358318, 0.60374, 0.438446]]}
# xfail: reverse mode crashes (IndexError in unjoin): u is returned only in the branch not taken, so its adjoint is the number 0.0, 0.5 * 0.0 reaches the adjoint of np.concatenate as a float, and unjoin cannot split a float into the pieces (without the 0.5 * it works: the still-zero adjoint is skipped); the same with np.squeeze / reshape: u = 0.5 * np.squeeze(x[None, :]) raises 'cannot reshape array of size 1' (seed 104, program 30)
# found: python -m adcompiler.fuzz --numpy --seed 102 (program 82); minimised with --minimise, then by hand
import numpy as np


def f(x):
    u = 0.5 * np.concatenate([x, x])
    return x if x[0] > 0.0 else u
