"""A Python float's cotangent is a Python float, as its primal is: the entry points' cotangents of
float parameters made floats where a number of another type may reach them.

Three ways one does.  The gradient folds its seed 1.0 into the adjoint (``1.0 * n`` is ``n``), so the
cotangent of ``x`` in ``x * n`` with ``n`` an int is ``n`` itself, an int; a NumPy float32 scalar
times a float is a float32 (NumPy's rule for Python numbers), so ``d_x = s * ct`` is one; and NumPy's
functions of numbers give 0-d arrays (``np.where(t1 > x, 0.0, d_t2)``, the adjoint of
``np.maximum(x, y)`` of floats).  Arrays' cotangents are shaped by ``array_like``, which makes a float
parameter's cotangent a float too.
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
    other_numbers = any(isinstance(a, V.Num) and a.dtype not in ("float", "int", "bool") for a in avals.values())
    other_numbers = other_numbers or any(_numpy_call(e) for s in every_statement(body) for e in _expressions(s))
    avals = dict(avals)
    for s in every_statement(body):  # adjoints that are products of integers (d_y = m * k)
        if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str):
            if s.targets[0] not in avals and _integers(s.value, avals):
                avals[s.targets[0]] = V.INT
    out = []
    for p, c in zip(params, cotangents, strict=True):
        if avals.get(p) == V.FLOAT and not isinstance(c, E.Num) and (other_numbers or _integers(c, avals)):
            c = E.Call("float", (c,))
        out.append(c)
    return out


def _expressions(s) -> list:
    """The expressions of a generated statement (its value, test, targets)."""
    parts = (getattr(s, f, None) for f in ("value", "test", "iterable"))
    return [p for p in parts if isinstance(p, E.Expr)]


def _numpy_call(e) -> bool:
    """Whether ``e`` calls NumPy (a 0-d array of numbers may come out)."""
    if isinstance(e, E.Call) and e.func.startswith("numpy."):
        return True
    return any(_numpy_call(p) for p in E.parts(e))


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
