"""LogSumExp (GradBench eval ``lse``): ``a + log(sum(exp(x - a)))`` with ``a = max(x)``."""

import numpy as np


def logsumexp(x):
    """log(sum(exp(x))), computed stably by shifting by the largest entry."""
    a = np.max(x)
    return a + np.log(np.sum(np.exp(x - a)))
