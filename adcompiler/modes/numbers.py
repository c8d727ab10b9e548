"""A Python float's cotangent is a Python float, as its primal is: the entry points' cotangents of
float parameters made floats where a number of another type may reach them.

Two ways one does.  The gradient folds its seed 1.0 into the adjoint (``1.0 * n`` is ``n``), so the
cotangent of ``x`` in ``x * n`` with ``n`` an int is ``n`` itself, an int; and a NumPy float32 scalar
times a float is a float32 (NumPy's rule for Python numbers), so ``d_x = s * ct`` is one.  Arrays'
cotangents are shaped by ``array_like``, which makes a float parameter's cotangent a float too.
"""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E
from ..ir.nodes import Assign, every_statement

_OPERATORS = ("+", "-", "*", "/")


def float_cotangents(avals: dict, params: tuple, cotangents, body) -> list:
    """``cotangents`` (one per parameter in ``params``, computed by the statements ``body``) with each
    of a Python float's (``avals``: the abstract values of the function's variables) wrapped in
    ``float(...)`` where it may be a number of another type: an expression of integers (the seed
    folded in), or anything where the function holds NumPy scalars of another float type (an
    accumulator may have added one)."""
    numpy_scalars = any(isinstance(a, V.Num) and a.dtype not in ("float", "int", "bool") for a in avals.values())
    avals = dict(avals)
    for s in every_statement(body):  # adjoints that are products of integers (d_y = m * k)
        if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str):
            if s.targets[0] not in avals and _integers(s.value, avals):
                avals[s.targets[0]] = V.INT
    out = []
    for p, c in zip(params, cotangents, strict=True):
        if avals.get(p) == V.FLOAT and not isinstance(c, E.Num) and (numpy_scalars or _integers(c, avals)):
            c = E.Call("float", (c,))
        out.append(c)
    return out


def _integers(e, avals: dict) -> bool:
    """Whether ``e`` may be an int: a name of an integer, or arithmetic of such with no float in it."""
    if isinstance(e, E.Num):
        return type(e.value) is int
    if isinstance(e, E.Name):
        a = avals.get(e.id)
        return isinstance(a, V.Num) and a.dtype in ("int", "bool")
    if isinstance(e, E.Unary):
        return _integers(e.operand, avals)
    if isinstance(e, E.BinOp) and e.op in _OPERATORS:
        return e.op != "/" and _integers(e.left, avals) and _integers(e.right, avals)
    return False
