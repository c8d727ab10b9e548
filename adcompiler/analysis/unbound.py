"""Reads of a variable that may not be bound where they run: ``if x > 10: y = x`` then ``return y * 2.0``.

Python raises ``UnboundLocalError`` there when the branch was not taken, and so must the derivative.  A slot
(a variable assigned in several places, ``ir.nodes.Function.slots``) is read by a ``read`` equation; the reads
of a slot that some path from the function's entry reaches without a ``write`` of it are the ones found here,
with the copies ``dup`` makes of what they read.  ``Facts.may_raise`` says such a read, and the primal line
using it, may raise: derivative code then runs that line even where its value is not needed (a gradient,
which needs no value, returned 0.0 where the function raises).
"""

from __future__ import annotations

from ..ir.nodes import Break, Continue, Eq, For, Function, If, Return, While
from ..lower.dup import DUP

_JUMPED = None  # the bound names after a jump: no path goes on, so every name counts as bound


def unbound_reads(fn: Function) -> frozenset:
    """The variables holding what a read of a slot that may be unbound there gave (and their dup copies)."""
    if not fn.slots:
        return frozenset()
    found: set = set()

    def block(stmts, bound):
        for s in stmts:
            if bound is _JUMPED:
                return _JUMPED
            if isinstance(s, Eq):
                if s.prim == "read" and s.ins[0].name in fn.slots and s.ins[0].name not in bound:
                    found.update(v.name for v in s.outs)
                elif s.prim == DUP and getattr(s.ins[0], "name", None) in found:
                    found.update(v.name for v in s.outs)
                elif s.prim == "write":
                    bound = bound | {s.outs[0].name}
            elif isinstance(s, If):
                body, orelse = block(s.body, bound), block(s.orelse, bound)
                bound = orelse if body is _JUMPED else body if orelse is _JUMPED else body & orelse
            elif isinstance(s, For):  # it may not run: what it binds is not bound after it
                block(s.body, bound)
            elif isinstance(s, While):  # its header runs at least once; it ends after the header (or breaks later)
                header = block(s.header, bound)
                if header is not _JUMPED:
                    block(s.body, header)
                bound = header
            elif isinstance(s, (Return, Break, Continue)):
                return _JUMPED
        return bound

    block(fn.body, frozenset(fn.params))
    return frozenset(found)
