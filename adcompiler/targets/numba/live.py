"""The Numba target's runtime helpers (``runtime.NUMBA_HELPERS``) defined once, in this module, for every
derivative this process compiles.

Numba compiles an overload for each distinct set of argument types it is called with, and keeps what it
compiled with the overload: a helper defined here is compiled for float64 vectors once, whichever
derivative calls it first, where a copy defined in each generated module was typed and compiled again
for every derivative (two thirds of a typical derivative's compile time went to its helpers' copies).
The code ``differentiate(f, backend="numba")`` compiles imports the helpers from here by name
(``translate(..., shared=True)``); the module ``adc compile --target numba`` writes, which must stand
alone, still holds its own copies.  This module is importable in any process, so the code Numba caches
on disk (``targets.numba.cache``) is loaded in another one as it is.
"""

from __future__ import annotations

import numba
import numpy

from .runtime import NUMBA_HELPERS

__all__ = sorted(NUMBA_HELPERS)
MODULES = (numba, numpy)  # the names the helpers' texts read

for _name in __all__:  # each helper's stub and its overload (the helpers call each other by these names)
    exec(compile(NUMBA_HELPERS[_name], f"<adcompiler numba helper {_name}>", "exec"), globals())
del _name
