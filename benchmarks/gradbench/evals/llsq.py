"""Linear least squares objective (GradBench eval ``llsq``, cmpad's ``llsq_obj``).

y(x) = 1/2 sum_i (s_i - x_0 - x_1 t_i - x_2 t_i^2 - ...)^2 with t_i = -1 + 2 i / (n - 1) and
s_i = sign(t_i).
"""

import numpy as np


def llsq(x, n):
    """The objective at coefficients ``x`` (length m) over ``n`` sample points."""
    t = -1.0 + np.arange(n) * 2.0 / (n - 1)
    s = np.sign(t)
    powers = np.vander(t, len(x), increasing=True)  # powers[i, j] = t_i ** j
    r = s - powers @ x
    return 0.5 * np.sum(r * r)
