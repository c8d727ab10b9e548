"""Values the adjoint sweep computes again where it needs them instead of popping them from the tape
(the plan's ``rereadable``), hoisted out of the adjoint loops they do not change, and values taped
once per run of an outer loop instead of once per iteration of an inner one."""

from __future__ import annotations

from ..ir import expr as E
from ..ir.nodes import Assign, Eq, Var
from ..ir.printing import global_expr, prim_expr
from .plan import TapePlan
from .shadows import Shadows


class Rereads:
    """The adjoint loops being built (outermost first) and what is computed again in them."""

    def __init__(self, plan: TapePlan, shadows: Shadows, looped):
        self.plan, self.shadows, self.looped = plan, shadows, looped  # looped(name): defined inside a loop
        self.frames: list = []  # per adjoint loop: its target, the reads hoisted before it, their names
        self.floor = 0  # the shallowest loop depth a value read again may be hoisted to
        self.outer_saved: dict = {}  # loop site -> values from outside it its adjoint needs: taped once per run

    def reread(self, name: str):
        """How the adjoint sweep computes ``name`` again, or None: (expression, names it needs first)."""
        plan = self.plan
        found, alias = plan.rereadable.get(name), plan.alias
        if found is not None and found[0] == "global":
            return global_expr(found[1]), []  # (an item of a dict a closure holds: by its path)
        if found is not None and found[0] == "expr":
            e = found[1]
            ins = tuple(Var(alias.get(a.name, a.name)) if isinstance(a, Var) else a for a in e.ins)
            return prim_expr(Eq(e.outs, e.prim, ins, e.line, e.param)), [a.name for a in ins if isinstance(a, Var)]
        if found is not None:
            kind, xs, *index = found
            needs = [alias.get(a.name, a.name) for a in [xs, *index] if isinstance(a, Var)]
            if kind == "len":
                return E.Call("len", (plan.ref(xs),)), needs
            return E.Subscript(plan.ref(xs), plan.ref(index[0])), needs
        row = self.shadows.owner.get(name)
        if row is not None and row in plan.rereadable and plan.rereadable[row][0] == "getitem":
            _, xs, index = plan.rereadable[row]  # the shadow of a row: a row of the shadow
            parent = self.shadows.of(xs.name)
            needs = [parent] + ([alias.get(index.name, index.name)] if isinstance(index, Var) else [])
            return E.Subscript(E.Name(parent), plan.ref(index)), needs
        return None

    def rereads(self, names, out: list) -> tuple:
        """Assignments computing ``names`` again (what they need first), added to ``out`` or hoisted;
        returns the names left to tape and the names computed again in ``out``.

        A value that does not change across the iterations of enclosing adjoint loops (its list and
        index are fixed there: a row ``rows[i]`` inside a loop over ``j``) is computed once before the
        outermost such loop (loop-invariant code motion), under a test that the loop runs at all, so
        it is read only when the primal read it too."""
        depth = len(self.frames)
        segment: dict = {"names": set()}

        def level(n) -> int:
            for k in range(depth - 1, -1, -1):
                if self.frames[k]["target"] == n:
                    return k + 1
            if n in self.plan.targets:
                return depth
            if not self.looped(n):
                return 0
            if self.reread(n) is not None:
                return emit(n)
            if n not in taped:  # a list only appended to, rebound by an enclosing loop: taped itself
                taped.append(n)
            return depth

        def emit(n) -> int:
            value, needs = self.reread(n)
            at = max([self.floor] + [level(m) for m in needs])
            frame = self.frames[at] if at < depth else segment
            if n not in frame["names"]:
                frame["names"].add(n)
                (frame["hoisted"] if at < depth else out).append(Assign((n,), value))
            return at

        taped = [n for n in names if self.reread(n) is None]
        for n in names:
            if n not in taped:
                level(n)
        return taped, segment["names"]

    def taped_outside(self, name: str, block: tuple) -> bool:
        """Whether ``name``, needed by the adjoint of a run of lines in ``block``, is defined outside the
        innermost loop around them (in an enclosing loop's body): then the loop just inside its home
        tapes it once, after that loop runs, instead of every iteration taping it again."""
        loop_of, parent_loop = self.plan.loop_of, self.plan.parent_loop
        inner = loop_of.get(block)
        home = self._home_of(name)
        if inner is None or home is None or home not in loop_of:
            return False
        outer = loop_of[home]
        if inner == outer:
            return False
        loop = inner
        while parent_loop.get(loop) != outer:
            loop = parent_loop.get(loop)
            if loop is None:
                return False
        found = self.outer_saved.setdefault(loop, [])
        if name not in found:
            found.append(name)
        return True

    def _home_of(self, name: str):
        """The block that defines ``name``: a value's, or for a shadow list that of its list."""
        if name in self.plan.home:
            return self.plan.home[name]
        owner = self.shadows.owner.get(name)
        return self.plan.home.get(owner) if owner is not None else None
