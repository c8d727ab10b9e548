"""Activity analysis: which variables need derivative code.

A variable is *varied* when it depends differentiably on an active input, and
*useful* when the output depends differentiably on it.  Derivative code is
emitted only for variables that are both: constants, integer bookkeeping,
branch conditions and dead values get none.  Loops and slots make the
dependence cyclic, so both analyses iterate to a fixed point.
"""

from __future__ import annotations

from . import rules
from .dup import DUP
from .ir import Eq, Function, Return, Var, flatten, walk

STRUCTURAL = ("call", DUP, "read", "write")


def slots(eq: Eq) -> tuple:
    """For each input of an equation, whether the outputs may depend on it differentiably."""
    if eq.prim in STRUCTURAL:
        return (True,) * len(eq.ins)
    return rules.differentiable_slots(eq.prim, len(eq.ins))


def _eqs(fn: Function) -> list:
    return [s for s in walk(fn.body) if isinstance(s, Eq)]


def varied(fn: Function, active_params, callee_outputs) -> set:
    """Names that depend on the active parameters; ``callee_outputs(fn, mask)`` answers for calls."""
    seen = {p for p in fn.params if p in active_params}
    eqs = _eqs(fn)
    size = -1
    while size != len(seen):
        size = len(seen)
        for stmt in eqs:
            mask = tuple(
                isinstance(a, Var) and a.name in seen and s for a, s in zip(stmt.ins, slots(stmt), strict=True)
            )
            if not any(mask):
                continue
            outs = callee_outputs(stmt.param, mask) if stmt.prim == "call" else (True,) * len(stmt.outs)
            seen.update(v.name for v, on in zip(stmt.outs, outs, strict=True) if on)
    return seen


def useful(fn: Function) -> set:
    """Names the return value depends on differentiably."""
    ret = next(s for s in walk(fn.body) if isinstance(s, Return))
    needed = {a.name for a in flatten(ret.value) if isinstance(a, Var)}
    eqs = _eqs(fn)[::-1]
    size = -1
    while size != len(needed):
        size = len(needed)
        for stmt in eqs:
            if any(v.name in needed for v in stmt.outs):
                needed.update(a.name for a, s in zip(stmt.ins, slots(stmt), strict=True) if isinstance(a, Var) and s)
    return needed


def active(fn: Function, active_params, callee_outputs) -> set:
    return varied(fn, active_params, callee_outputs) & useful(fn)
