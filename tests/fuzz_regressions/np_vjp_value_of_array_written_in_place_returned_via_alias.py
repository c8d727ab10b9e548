# fuzz: {'params': [('array', 'x', (4,))], 'outputs': 1, 'point': [[0.6, 0.2, -0.8, -1.2]]}
# found: python -m adcompiler.fuzz --numpy --seed 312 --jobs 1 (program 97: return np.squeeze(np.expand_dims(u2, 1), axis=1), ... after u2[1] -= ...; program 28: return (u3 if math.sin(t5) <= 0.75 else u3), ... after u3[i4] = ... in a loop; vjp value all zeros); minimised by hand (also fails: u.reshape(4), u.ravel(), np.expand_dims(u, 1), and if c: return u / return u; passes: return u)
import numpy as np


def f(x):
    u = np.zeros(4)
    u[0] = 0.5
    return u[:]
