"""Loops whose arrays all have one shape, once a check at the loop's entry has passed.

Abstract values hold an array's ndim and dtype, not its shape, so the adjoint of a broadcasting
operation (``unbroadcast``, which sums a cotangent down to an operand's shape) needs the operand
itself, and inside a loop that means taping it every iteration.  A loop whose body is only
elementwise arithmetic on arrays and numbers (``P = P + dt * V``) keeps shapes fixed, under one
hypothesis checked when the loop starts: every array the body reads from outside itself (the
loop-carried slots, at their values on entry, and the arrays it only reads) has one shape S.
Elementwise arithmetic of arrays of shape S and numbers gives arrays of shape S, so each array
the body computes, and each it writes back into a slot (read again by the next iteration), has
shape S: by induction, every array of every iteration has shape S, and no ``unbroadcast`` of the
body changes a cotangent's shape.

Reverse mode (``modes.sweep``) builds the adjoint of such a loop twice: as it is, for runs where
the check fails, and with those ``unbroadcast`` calls dropped, for runs where it passes (with one
such array the check always passes, and only that version is built).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import values as V
from ..ir.nodes import Const, Eq, For, Var
from ..lower.dup import DUP

ELEMENTWISE = ("add", "sub", "mul", "truediv", "pow", "neg", "pos")  # their adjoints are arithmetic too
COPIES = (DUP, "read", "write")
FLOATS = {
    "float32": "float32",
    "float64": "float64",
    "float": "float64",
}  # "float": what arithmetic with a Python float gives


@dataclass(frozen=True)
class SameShape:
    """The shape facts of one loop: the arrays (by the names code uses for them at the loop's entry)
    whose shapes must agree, and every name of the body then surely holding an array of that shape."""

    entry: tuple
    arrays: frozenset


def same_shape_loop(loop, of, alias: dict) -> SameShape | None:
    """The shape facts of ``loop`` (a ``For`` of dup form), or None where they are not proven: a body
    of anything but elementwise arithmetic and copies, a value that is neither an array (of ndim >= 1,
    all of one float dtype and one ndim) nor a number, or no array at all.  Arrays of two ndims never
    have one shape: the check would always fail, and under Numba the version it guards would not
    type (a cotangent summed down to a lower ndim by the other version).  ``of`` gives an atom's abstract value;
    ``alias`` maps a dup copy to the name code uses for it."""
    if not isinstance(loop, For) or not loop.body:
        return None
    if not all(isinstance(s, Eq) and s.prim in ELEMENTWISE + COPIES for s in loop.body):
        return None
    defined = {v.name for s in loop.body if s.prim != "write" for v in s.outs} | {loop.target.name}
    entry: dict = {}  # name at the loop's entry -> None
    shaped: set = set()
    dtypes: set = set()
    ndims: set = set()

    def kind(a):
        """ "S" for an array (noted), "num" for a number, None for anything else."""
        aval = of(a)
        if isinstance(aval, V.Num) and not (isinstance(a, Const) and type(a.value) not in (float, int, bool)):
            return "num"
        if not isinstance(aval, V.Arr) or aval.dtype not in FLOATS or not isinstance(aval.ndim, int) or aval.ndim < 1:
            return None
        dtypes.add(FLOATS[aval.dtype])
        ndims.add(aval.ndim)
        return "S"

    for s in loop.body:
        for a in s.ins:
            k = kind(a)
            if k is None:
                return None
            outer = isinstance(a, Var) and (a.name not in defined or s.prim == "read")
            if k == "S" and outer:
                entry[alias.get(a.name, a.name)] = None
            if k == "S":
                shaped.update((a.name, alias.get(a.name, a.name)))
        for v in s.outs:
            k = kind(v)
            if k is None or (k == "S") != any(kind(a) == "S" for a in s.ins):
                return None  # a number from an array, or an array from numbers: not elementwise arithmetic
            if k == "S":
                shaped.update((v.name, alias.get(v.name, v.name)))
    if not entry or len(dtypes) != 1 or len(ndims) != 1:
        return None
    return SameShape(tuple(entry), frozenset(shaped))
