"""Differentiated functions made once a process and kept, as a user keeps them (and as JAX's port keeps
its jitted functions): the nested evals (particle, saddle) solve many times with the same code."""

import adcompiler

_KEPT: dict = {}


def differentiated(fn, wrt, backend):
    """``adcompiler.differentiate(fn, wrt=wrt, backend=backend)``, made at the first call and kept."""
    key = (fn, wrt, backend)
    if key not in _KEPT:
        _KEPT[key] = adcompiler.differentiate(fn, wrt=wrt, backend=backend)
    return _KEPT[key]
