"""What a call's arguments, tangents and cotangents must look like: the checks behind the API's
clear errors, and the tangent a zero becomes."""

from __future__ import annotations

import sys

from .analysis import values as V
from .entries import tangent_mismatch


def zeros_for(value, tangent):
    """The tangent 0 of an array as zeros of its shape: the number would broadcast (np.dot(0, y) is an array)."""
    if type(value).__name__ == "ndarray" and not hasattr(tangent, "shape"):
        return sys.modules["numpy"].zeros_like(value, dtype=float) + tangent
    return tangent


def tangent_like(value, tangent, aval) -> bool:
    """Whether a tangent is what the fast entry of jvp takes for a parameter of abstract value
    ``aval``: a float for a float, an array of the same shape for an array, a list or tuple of the
    same structure for a list (the entry checks that as the method does, with ``tangent_mismatch``)."""
    if isinstance(aval, V.Arr):
        return type(tangent) is type(value) and tangent.shape == value.shape
    if isinstance(aval, V.Seq):
        return not tangent_mismatch(value, tangent)
    return isinstance(tangent, float)


def all_floats(values) -> bool:
    """Whether every value is a float (the arguments of the fast paths: nothing to check or refuse)."""
    for v in values:
        if type(v) is not float:
            return False
    return True


def ct_mismatch(out, ct) -> str:
    """Why ``ct`` cannot be a cotangent of an output of abstract value ``out`` (tuples for the tuples a
    function returns, a list or tuple for a list, a number or an array for a number or an array), or ""."""
    if isinstance(out, tuple):
        if not isinstance(ct, (tuple, list)) or len(ct) != len(out):
            return f"the function returns a tuple of {len(out)} values, so ct must be a tuple of {len(out)} cotangents, not {ct!r}"
        return next((p for p in (ct_mismatch(o, c) for o, c in zip(out, ct)) if p), "")
    if isinstance(out, V.Seq) and not isinstance(ct, (list, tuple)):
        return f"the output is {V.show(out)}, so its cotangent is a list of the same length, not {ct!r}"
    if isinstance(out, (V.Num, V.Arr)) and isinstance(ct, (list, tuple)):
        return f"the output is {V.show(out)}, so its cotangent is a number or an array, not {ct!r}"
    return ""
