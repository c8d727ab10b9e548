"""What NumPy makes of abstract values: the ndim of an operand, the dtype NumPy's promotion gives a
result, and the array or NumPy scalar of a given ndim and dtype; ``infer_numpy``'s rules are built of these."""

from __future__ import annotations

import sys

from . import values as V


class Unknown:
    """A static argument computed at run time."""


UNKNOWN = Unknown()


def as_array(a: V.Aval):
    if isinstance(a, V.Arr):
        return a
    if isinstance(a, V.Num):
        return V.Arr(0, a.dtype)
    if isinstance(a, V.Seq):  # NumPy reads a list as an array: one dimension per level of nesting
        inner = as_array(a.elem) if not isinstance(a.elem, V.Bottom) else V.Arr(0, "float64")
        return V.Arr(None if inner is None or inner.ndim is None else inner.ndim + 1, getattr(inner, "dtype", None))
    if isinstance(a, V.Numeric):
        return V.Arr(None, a.dtype)
    return None


def ndim_of(a):
    a = as_array(a) if not isinstance(a, V.Arr) else a
    return None if a is None else a.ndim


def minus(nd, k):
    return None if nd is None else max(nd - k, 0)


def array_of(ndim, dtype) -> V.Aval:
    return V.Arr(ndim, None if dtype in (None, "float") else dtype) if dtype != "float" else V.Arr(ndim, "float64")


def result_dtype(avals) -> str | None:
    """NumPy's result dtype for these operands (Python numbers weak), or None if unknown."""
    numpy = sys.modules.get("numpy")
    operands = []
    for a in avals:
        if isinstance(a, V.Seq):
            a = as_array(a)
        d = getattr(a, "dtype", None)
        if isinstance(a, V.Num) and d in ("float", "int", "bool"):
            operands.append({"float": 1.0, "int": 1, "bool": True}[d])
        elif d is None or numpy is None:
            return None
        else:
            operands.append(numpy.dtype(d))
    if not operands or numpy is None:
        return "float64"
    try:
        return numpy.result_type(*operands).name
    except TypeError:
        return None


def float_dtype(avals) -> str | None:
    """The dtype of a floating function (sin, mean, sqrt) of these: integers become float64."""
    d = result_dtype([a for a in avals if not isinstance(a, V.Static)])
    if d is None:
        return None
    return d if d.startswith(("float", "complex")) else "float64"


def dtype_name(dtype) -> str | None:
    if dtype is UNKNOWN or dtype is None:
        return None
    numpy = sys.modules.get("numpy")
    try:
        return numpy.dtype(dtype).name
    except TypeError:
        return None
