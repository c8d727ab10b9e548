"""Arrays surely of another array's shape: what an adjoint reads of a value only for its shape (the second
argument of ``unbroadcast``, ``unreduce``, ``array_like``) it may read of that other array instead.

Abstract values hold an array's ndim and dtype, not its shape; but elementwise arithmetic of one array and
numbers (``X * costheta``, ``rot / theta``, ``np.sin(x)``), or of arrays that are all one value's copies
(``rot * rot``), gives an array of that array's shape, and a copy (dup) has its value's; a slot (a name a
loop or a branch binds again) is left out, its value's shape may change from one binding to the next.  Each such array's
*representative* is the first array of that chain, when both have one dtype and one ndim (the helpers read
the dtype too).  An adjoint that reads the representative instead keeps one array alive where it kept
several, and lets the intermediate values of the primal fold into one expression (under Numba, one array:
rodrigues's ``X * costheta + np.cross(w, X) * sintheta``, whose terms were each kept for their shapes).
"""

from __future__ import annotations

from . import values as V
from ..ir.nodes import Const, Eq, Var, walk
from ..lower.dup import DUP
from ..rules.arrays import UNARY

ARITHMETIC = ("add", "sub", "mul", "truediv", "pow", "neg", "pos")
ELEMENTWISE = ARITHMETIC + tuple(f"numpy.{name}" for name in UNARY)


def representatives(fn, of) -> dict:
    """name -> the name of an array of its shape, dtype and ndim defined before it, for the arrays of ``fn``
    (dup form) that have one (``of``: an atom's abstract value)."""
    rep: dict = {}
    slots = set(fn.slots)  # (bound again and again, by write: no value of theirs keeps one shape)
    for eq in walk(fn.body):
        if not isinstance(eq, Eq) or len(eq.outs) != 1 and eq.prim != DUP:
            continue
        if any(isinstance(a, Var) and a.name in slots for a in eq.ins + eq.outs):
            continue
        if eq.prim == DUP and isinstance(eq.ins[0], Var):
            source = rep.get(eq.ins[0].name, eq.ins[0].name)
            for v in eq.outs:
                if _alike(of(v), of(Var(source))):
                    rep[v.name] = source
        elif eq.prim in ELEMENTWISE:
            arrays = {rep.get(a.name, a.name) for a in eq.ins if isinstance(a, Var) and isinstance(of(a), V.Arr)}
            numbers = all(_number(a, of) for a in eq.ins if not (isinstance(a, Var) and isinstance(of(a), V.Arr)))
            if len(arrays) == 1 and numbers and _alike(of(eq.outs[0]), of(Var(next(iter(arrays))))):
                rep[eq.outs[0].name] = next(iter(arrays))
    return rep


def _alike(a, b) -> bool:
    """Two arrays of one known ndim (>= 1) and one known dtype."""
    return (
        isinstance(a, V.Arr)
        and isinstance(b, V.Arr)
        and isinstance(a.ndim, int)
        and a.ndim >= 1
        and a.ndim == b.ndim
        and a.dtype is not None
        and a.dtype == b.dtype
    )


def _number(a, of) -> bool:
    """A number: it broadcasts to any shape and changes none."""
    if isinstance(a, Const):
        return type(a.value) in (int, float, bool)
    return isinstance(of(a), V.Num)
