"""The shape ``unbroadcast`` reads, taken from the operands of the arithmetic that made the array, so that
the arithmetic folds into its one other use and Numba fuses it into one loop.

The adjoint of ``t9 = p2[:, None] + t8`` reads ``t9`` for its shape, ``unbroadcast(d_t9, t9)``; ``t9`` is
also an operand of the next line (``dist2 = t9 - 2.0 * t11``, GradBench kmeans), so it is read twice,
stays a line of its own, and Numba makes an array of it (an n x k array written and read again).  Its
shape is that of its operands broadcast together: ``unbroadcast(d_t9, shape_like(p2[:, None], t8))``
reads the same shape, ``t9`` is read once, and the Numba target's folding (``backend._folded``) writes it
into ``dist2``, one loop.  Only for ``+ - * /`` of operands that are cheap to read again (names, numbers,
and reads at integers, ``None`` and slices, which make views), the binding earlier in the same block with
nothing it reads bound again since.  The numbers are the same: only where a shape is read from changes.
"""

from __future__ import annotations

from ...ir import expr as E
from ...optimize.earlier import rewritten

ARITHMETIC = ("+", "-", "*", "/")
PIECES = 4  # unjoin(g, kind, axis, i, *pieces): the pieces from this argument on, read for their shapes


def shapes_from_operands(body: tuple, foldable) -> tuple:
    """``body`` with the rewrite above (the caller makes sure the module defines ``shape_like``);
    ``foldable(name)``: whether the folding may fold the name (no other is worth reading less)."""

    def shape(x, bound: dict):
        """``shape_like`` of the operands of the arithmetic ``x`` names, or ``x``."""
        value = bound.get(x.id, (None,))[0] if isinstance(x, E.Name) and foldable(x.id) else None
        if isinstance(value, E.BinOp) and value.op in ARITHMETIC and not value.lists:
            operands = (value.left, value.right)
        elif isinstance(value, E.Unary) and value.op == "-":
            operands = (value.operand,)
        else:
            return x
        return E.Call("@shape_like", operands) if all(_cheap(o, bound) for o in operands) else x

    def rule(e, bound: dict, ctx):
        if not isinstance(e, E.Call) or e.keywords:
            return e
        if e.func == "@unbroadcast" and len(e.args) == 2:
            g, x = e.args
            shaped = shape(x, bound)
            return e if shaped is x else E.Call(e.func, (g, shaped))
        if e.func == "@unjoin" and len(e.args) > PIECES:  # (g, kind, axis, i, *pieces): the pieces' shapes
            pieces = tuple(shape(x, bound) for x in e.args[PIECES:])
            return E.Call(e.func, e.args[:PIECES] + pieces) if pieces != e.args[PIECES:] else e
        return e

    return rewritten(body, {}, rule)


def _cheap(e, bound: dict) -> bool:
    """Whether reading ``e`` again makes nothing: a name, a number, or a read at integers, ``None`` and slices
    (a view)."""
    if isinstance(e, (E.Name, E.Num)):
        return True
    if isinstance(e, E.Subscript) and isinstance(e.value, E.Name) and not e.lists:
        parts = e.index.elts if isinstance(e.index, E.Tuple) else (e.index,)
        return all(_basic(p, bound) for p in parts)
    return False


def _basic(p, bound: dict) -> bool:
    if isinstance(p, E.Num):
        return p.value is None or type(p.value) is int
    if isinstance(p, E.Slice):
        return all(x is None or isinstance(x, (E.Num, E.Name)) for x in vars(p).values())
    if isinstance(p, E.Name):  # a name bound to slice(...) earlier in the block
        value = bound.get(p.id, (None,))[0]
        return isinstance(value, E.Call) and value.func == "slice"
    return False
