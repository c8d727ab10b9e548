"""The abstract value of a call of a library function with no derivative rule (``lower.expressions``'
``library`` equations: ``np.triu_indices(d, 1)``, ``np.vander(t, m)``, ``multigammaln(a, d)``).

Its source is never read, so what kind of value it returns is learnt from one call of it on *example*
arguments: each constant as it is, each other argument a small value of its abstract value (an int 3, a
float 2.5, an array of that ndim and dtype filled with them).  The answer is described as a run-time
value is, widened where a value may decide it (a list's length); where no example can be made, or the
example call fails, the result is a number or an array (``Numeric``), code for which is decided at run
time.  Only functions of libraries that compute values and change nothing (``PURE_LIBRARIES``: NumPy,
SciPy, math, a few builtins) are called at build time, and of those not the ones whose name says they
read or write files or change a setting (``np.save``, ``np.loadtxt``, ``np.seterr``, ...) or read memory
where their arguments say (``as_strided``, ``frombuffer``), nor SciPy's outside ``scipy.special`` (its
LAPACK routines, given a made-up pivot or factor, read and write out of bounds: ``lu_solve`` corrupted
the heap); another's result is a number or an array too.  Functions of ``np.random`` never come here
(``lower.expressions`` refuses them: they change a state).
"""

from __future__ import annotations

import re
import warnings

from . import values as V
from ..ir.nodes import Const
from ..ir.supplied import known
from ..lower.library import PURE_LIBRARIES

EXAMPLE_SIZE = 3  # the length of every axis and list of an example argument
EXAMPLE_INT, EXAMPLE_FLOAT = 3, 2.5


_NOT_CALLED = re.compile(r"save|load|write|read|file|open|memmap|print|seterr|setbuf|^set_|strided|buffer|ctypes", re.I)


def called_at_build(path: str) -> bool:
    """Whether the library function named ``path`` (``numpy.vander``) may be called on example arguments
    while the code is built (see the module docstring)."""
    parts = path.split(".")
    if parts[0] not in PURE_LIBRARIES or parts[0] == "scipy" and parts[1:2] != ["special"]:
        return False
    return not any(_NOT_CALLED.search(part) for part in parts[1:])


class _NoExample(Exception):
    """An abstract value no example stands for (a string, a function, anything)."""


def library_value(eq, ins: list) -> list:
    """The abstract value of a ``library`` equation's output, from a call on example arguments."""
    _, path, keys, target, _ = eq.param
    if not called_at_build(path):  # (time.time, np.save, scipy.linalg.lu_solve: not called at build time)
        return [V.NUMERIC]
    try:
        args = [_example_of(a, aval) for a, aval in zip(eq.ins, ins, strict=True)]
    except _NoExample:
        return [V.NUMERIC]
    n = len(args) - len(keys)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = target(*args[:n], **dict(zip(keys, args[n:])))
    except Exception:  # noqa: BLE001 - any failure on an example only says the example was not one it takes
        return [V.NUMERIC]
    return [_widened(V.describe(value))]


def _example_of(atom, aval: V.Aval):
    if isinstance(atom, Const):
        return known(atom)
    return _example(aval)


def _example(aval: V.Aval):
    """A small run-time value of abstract value ``aval``."""
    if isinstance(aval, V.Num):
        if aval.dtype == "int":
            return EXAMPLE_INT
        if aval.dtype == "bool":
            return True
        if aval.dtype == "float":
            return EXAMPLE_FLOAT
        import numpy

        return numpy.dtype(aval.dtype).type(EXAMPLE_INT if "int" in aval.dtype else EXAMPLE_FLOAT)
    if isinstance(aval, V.Arr) and aval.ndim is not None:
        import numpy

        dtype = numpy.dtype(aval.dtype or "float64")
        fill = True if dtype.kind == "b" else EXAMPLE_INT if dtype.kind in "iu" else EXAMPLE_FLOAT
        return numpy.full((EXAMPLE_SIZE,) * aval.ndim, fill, dtype=dtype)
    if isinstance(aval, V.Seq):
        if aval.items is not None:
            items = [_example(i) for i in aval.items]
        elif isinstance(aval.elem, V.Bottom):
            items = []
        else:
            items = [_example(aval.elem)] * EXAMPLE_SIZE
        return tuple(items) if aval.kind == "tuple" else items
    if isinstance(aval, V.Static) and aval.what == "none":
        return None
    if isinstance(aval, V.Static) and aval.what == "range":  # (sum(range(n)): a range of integers)
        return range(EXAMPLE_SIZE)
    raise _NoExample


def _widened(aval: V.Aval) -> V.Aval:
    """What the example's value says of every call's: a list's length is not known (a tuple's is)."""
    if isinstance(aval, V.Seq):
        if aval.kind == "list" or aval.items is None:
            return V.Seq(aval.kind, None, _widened(aval.elem), None, None)
        return V.seq(aval.kind, [_widened(i) for i in aval.items])
    return aval


__all__ = ["library_value"]
