"""Writes into a new array whose old entries nothing reads: ``out = np.zeros(n); out[:] = W @ x``, a row made
anew each iteration and filled, a mask made by a comparison and changed (``np.delete``'s ``keep[obj] = False``).
What such a write overwrites is read by nothing (no other name reaches the new array, and no entry of it is read
before the write), so reverse mode keeps none of it on the tape and puts none of it back
(``modes.plan.TapePlan.unread_writes``).
"""

from __future__ import annotations

from ..ir.nodes import IN_PLACE, Eq, Var, blocks, walk
from ..lower.dup import DUP

_FRESH = tuple(f"numpy.{name}" for name in ("zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like", "copy"))
_FRESH += ("add", "sub", "mul", "truediv", "neg", "lt", "le", "gt", "ge", "eq", "ne")  # (arithmetic and comparisons
# make a new array of arrays, not a view; ``x += v`` keeps x's: not these)
_FOR_SHAPE = ("numpy.shape", "numpy.ndim", "numpy.size", "len")  # (what reads an array and none of its entries)


def unread_writes(fn) -> frozenset:
    """The arrays (their names in the writes ``x[i] = v``) written in place whose old entries nothing reads: a
    new array (``np.zeros(n)``: no other name reaches it) written before anything reads an entry of it, in the
    block that makes it.  The adjoint sweep need not put back what such a write overwrote (nothing earlier
    reads it), so the primal sweep keeps none of it: a helper's ``out = np.zeros(n); out[:] = W @ x`` tapes
    nothing, and its reverse sweep writes into no array it unpacks from its residuals (which second order
    refuses)."""
    found: set = set()
    todo = [fn.body]
    while todo:
        block = todo.pop()
        made: dict = {}  # a name of a new array made in this block (and its copies) -> the name it was made as
        read: set = set()  # those arrays an entry of which may have been read
        for s in block:
            if not isinstance(s, Eq):
                todo.extend(blocks(s))
                read.update(made[n] for n in _names_in(s) if n in made)  # (read inside: not followed)
                continue
            ins = [a.name for a in s.ins if isinstance(a, Var)]
            if s.prim in _FRESH and s.param != IN_PLACE and s.outs:
                read.update(made[n] for n in ins if n in made)  # (y = x * b reads b's entries: np.copy(b) too)
                made[s.outs[0].name] = s.outs[0].name
            elif s.prim in (DUP, "read") and ins and ins[0] in made:  # a copy, a slot read in the same block
                made.update((v.name, made[ins[0]]) for v in s.outs)
            elif s.prim == "write":  # a slot bound (in this block) to the new array, or to another value
                if ins and ins[0] in made:
                    made[s.outs[0].name] = made[ins[0]]
                else:
                    made.pop(s.outs[0].name, None)
            elif s.prim == "setitem" and ins and ins[0] in made and isinstance(s.ins[0], Var):
                read.update(made[n] for n in ins[1:] if n in made)  # (x[i] = x[j]: a read first)
                if made[ins[0]] not in read:
                    found.add(ins[0])
            elif s.prim not in _FOR_SHAPE:
                read.update(made[n] for n in ins if n in made)
    return frozenset(found)


def _names_in(stmt) -> set:
    """Every variable a compound statement (and the statements inside it) reads."""
    names = set()
    for s in walk([stmt]):
        if isinstance(s, Eq):
            names.update(a.name for a in s.ins if isinstance(a, Var))
        for atom_ in (getattr(s, "test", None), getattr(s, "start", None), getattr(s, "stop", None)):
            if isinstance(atom_, Var):
                names.add(atom_.name)
    return names
