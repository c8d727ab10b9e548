"""An array another module holds, for red_team_funcs.py (read as ``red_team_weights.W``)."""

import numpy as np

W = np.array([0.5, -1.0, 2.0])

S = 2.0


def weighted(x):
    """Reads this module's S and W: the code holds them (bound anew here, it is built again)."""
    return S * np.sum(W * x * x)


D = {"W": np.array([1.0, 2.0, 3.0]), "s": 0.5}


def by_its_dict(x):
    """Reads this module's dict D (the caller's module has a D of its own)."""
    return D["s"] * np.sum(D["W"] * x * x)
