"""Values a generated function no longer reads, let go (``del``) before the loops that follow them.

A local name keeps its value, and the memory it takes, until it is bound again or the function
returns.  Reverse code runs its primal sweep, then adjoint loops that may be long: the arrays of the
straight-line code between them (the final sum's adjoints, the last step's state) would be held
through every step.  The gradient of the paper's particles on NumPy held them through its 1000-step
adjoint loop at 2.5x the hand-written gradient's peak memory; let go, 1.8x.

A name is let go just before a statement of the function's own block (not a nested one) that holds
a loop, where it is

- bound by a statement of that block before it (so surely bound: ``del`` of an unbound name raises);
- dead there: no later statement reads it before binding it again (``analysis.liveness``);
- not surely small (``small``: numbers, slices, None): naming those would make the code longer and
  free a few bytes.

The values do not change: only names nothing reads again are let go.
"""

from __future__ import annotations

from ..analysis.liveness import live_before
from ..ir.nodes import Assign, ForS, IfS, Release, WhileS, every_statement


def release_dead(body: tuple, small: frozenset) -> tuple:
    """``body`` (a function's block) with the names it no longer reads let go before each of its
    statements that holds a loop."""
    if not any(_holds_loop(s) for s in body):
        return body
    live = live_before(list(body), set(), None)
    out, bound = [], {}  # name -> True while bound and not let go (in the order they were bound)
    for i, s in enumerate(body):
        if _holds_loop(s):
            dead = tuple(n for n in bound if n not in live[i])
            if dead:
                out.append(Release(dead))
                for n in dead:
                    del bound[n]
        out.append(s)
        for n in _bound_by(s):
            if n not in small:
                bound[n] = True
    return tuple(out)


def _holds_loop(s) -> bool:
    """Whether statement ``s`` is a loop or holds one."""
    if isinstance(s, (ForS, WhileS)):
        return True
    return isinstance(s, IfS) and any(isinstance(x, (ForS, WhileS)) for x in every_statement(s.body + s.orelse))


def _bound_by(s) -> list:
    """The plain names statement ``s`` of the block surely binds (an assignment's; a branch's or a
    loop's may not run)."""
    if not isinstance(s, Assign):
        return []
    names = []
    for t in s.targets:
        for x in t if isinstance(t, tuple) else (t,):
            if isinstance(x, str):
                names.append(x)
    return names
