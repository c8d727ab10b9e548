"""What the adjoint sweep reads of the primal: which values are taped, and which can be read again instead."""

from __future__ import annotations

from ..ir import expr as E
from ..ir.printing import global_expr, prim_expr
from ..analysis import values as V
from ..rules import CHANGES
from ..lower.dup import DUP, value_reads
from ..ir.nodes import (
    Assign,
    Const,
    Eq,
    For,
    Var,
    While,
    blocks,
    walk,
)

_IN_PLACE = ("setitem", "pop", "custom")  # equations that may change a list other than by appending to it


class Taping:
    """The taping analysis of reverse mode, mixed into ``Sweeps``: run once before the sweeps are built (``analyse``),
    it fills ``pushes``, ``decisions``, ``loops`` and ``tapes``; ``rereads`` serves the adjoint sweep."""

    def analyse(self) -> None:
        """Where each variable is defined and used; which live in loops; which need accumulators."""
        self.home: dict = {p: id(self.fn.body) for p in self.fn.params}
        self.in_loop: set = set()
        self.targets: set = set()
        used_in: dict = {}

        self.loop_of: dict = {}  # id(block) -> the innermost loop around it (None outside loops)
        self.parent_loop: dict = {}  # id(loop) -> the loop around it
        self.outer_saved: dict = {}  # id(loop) -> values from outside it its adjoint needs: taped once per run
        self.counts_up: dict = {}  # loop target -> whether its loop counts up from a constant >= 0
        self._defined_inside: dict = {}
        self.assigned: set = set()  # names an equation other than a dup assigns
        self._reassigned = None  # the same, dup copies resolved (made on first use)
        self._grow_only = None  # whether no code of the program changes a list but by appending (on first use)

        def visit(stmts, looped, loop=None):
            self.loop_of[id(stmts)] = loop
            for stmt in stmts:
                for v in value_reads(stmt):
                    used_in.setdefault(v.name, set()).add(id(stmts))
                if isinstance(stmt, Eq) and stmt.prim == DUP:
                    for v in stmt.outs:
                        self.alias[v.name] = self.alias.get(stmt.ins[0].name, stmt.ins[0].name)
                        self.shared[v.name] = self.shared.get(stmt.ins[0].name, stmt.ins[0].name)
                if isinstance(stmt, Eq) and stmt.prim != "write":
                    if stmt.prim != DUP:
                        self.assigned.update(v.name for v in stmt.outs)
                    for v in stmt.outs:
                        self.home[v.name] = id(stmts)
                        if looped:
                            self.in_loop.add(v.name)
                if isinstance(stmt, For):
                    self.home[stmt.target.name] = id(stmt.body)
                    self.targets.add(stmt.target.name)
                    up = all(
                        isinstance(a, Const) and type(a.value) is int and a.value >= low
                        for a, low in ((stmt.start, 0), (stmt.step, 1))
                    )
                    self.counts_up[stmt.target.name] = up and self.counts_up.get(stmt.target.name, True)
                if isinstance(stmt, (For, While)):
                    self.parent_loop[id(stmt)] = loop
                for b in blocks(stmt):
                    # a split sweep returns its residuals, so values a branch may not define go on the tape too
                    visit(
                        b,
                        looped or isinstance(stmt, (For, While)) or self.split,
                        stmt if isinstance(stmt, (For, While)) else loop,
                    )

        visit(self.fn.body, False)
        self.accumulated = {v for v, homes in used_in.items() if homes - {self.home.get(v)}} | set(self.fn.slots)
        self.accumulated -= self.containers
        self.written = {
            eq.ins[0].name
            for eq in walk(self.fn.body)
            if isinstance(eq, Eq)
            and eq.prim == "setitem"
            and isinstance(eq.ins[0], Var)
            and eq.ins[0].name in self.arrays
        }
        self.accumulated |= set(self.mutable)  # cleared and refilled in place: never an alias
        self.rereadable = self._rereadable()
        self.defined_in: dict = {}
        for v, home in self.home.items():
            self.defined_in.setdefault(home, []).append(v)

    def _rereadable(self) -> dict:
        """Values the adjoint sweep can compute again instead of taping them (to-be-recorded analysis:
        only what is overwritten and needed is taped): ``t = xs[i]`` -> ("getitem", xs, i) and
        ``n = len(xs)`` -> ("len", xs), for a list that nothing in the function changes, itself known in
        the adjoint sweep (defined outside loops, or rereadable: rows of a nested list), at an index
        that is known there too (a constant, a value defined outside loops, a loop index, or rereadable).

        A number read at a non-negative index of a list that is only ever appended to is read again
        too: an element, once there, never changes.  Such a list rebound by an enclosing loop (a
        layer's input ``h``, then ``h = out``) is taped itself, once per run of the innermost loop
        around the read, instead of every element it gives (see ``rereads``)."""
        from ..analysis.activity import Classes

        classes = Classes(self.fn, self.containers, self.facts.shared)
        eqs = [e for e in walk(self.fn.body) if isinstance(e, Eq)]

        def touched(prims) -> set:
            return {classes.find(a.name) for e in eqs if e.prim in prims for a in e.ins if isinstance(a, Var)}

        changed = touched(("setitem", "pop", "call", "custom") + CHANGES)
        appended = touched(("append",))
        found: dict = {}

        def known(a) -> bool:
            name = self.alias.get(a.name, a.name) if isinstance(a, Var) else None
            return name is None or name not in self.in_loop or name in self.targets or name in found

        for e in eqs:
            if e.prim == "global":  # a module's array, read by its name: the same object all along
                found[e.outs[0].name] = ("global", e.param)
                continue
            if self._arithmetic_of_knowns(e, known):  # 1.0 / MASS in a loop: computed again, not taped
                found[e.outs[0].name] = ("expr", e)
                continue
            if (
                e.prim not in ("getitem", "len")
                or not isinstance(e.ins[0], Var)
                or e.ins[0].name not in self.containers
            ):
                continue
            xs, out = e.ins[0], e.outs[0].name
            cls = classes.find(xs.name)
            if out in self.arrays or xs.name in self.fn.slots or cls in changed:
                continue
            if self.split and not (e.prim == "getitem" and self._non_negative(e.ins[1]) and self._lists_only_grow()):
                continue  # what the caller may do to the list between the two sweeps: see _lists_only_grow
            if cls not in appended and known(xs):
                if e.prim == "len":
                    found[out] = ("len", xs)
                elif known(e.ins[1]):
                    found[out] = ("getitem", xs, e.ins[1])
            elif e.prim == "getitem" and out not in self.containers and self._grown_only(e, xs) and known(e.ins[1]):
                found[out] = ("getitem", xs, e.ins[1])
        return found

    def _lists_only_grow(self) -> bool:
        """Whether no function of the program (each it generates code for, and each they call) changes a
        list in place other than by appending to it.  A split sweep's caller runs on between the two
        sweeps: a write it makes into a list after the call, whose old value its own adjoint does not
        need, is not undone before the reverse sweep runs, so the reverse sweep may read again only an
        element that no code can change (at a non-negative index: an append moves none), and never a
        length (an append changes it)."""
        if self._grow_only is None:
            todo, seen, self._grow_only = [key[1] for key in self.program.specs], set(), True
            while todo and self._grow_only:
                fn = todo.pop()
                if fn in seen or not callable(fn):
                    continue
                seen.add(fn)
                for s in walk(self.program.anf(fn).body):
                    if isinstance(s, Eq) and (s.prim in _IN_PLACE or s.prim in CHANGES):
                        self._grow_only = False
                    elif isinstance(s, Eq) and s.prim == "call":
                        todo.append(s.param)
        return self._grow_only

    def _arithmetic_of_knowns(self, e: Eq, known) -> bool:
        """Whether ``e`` computes a number by arithmetic or ``math`` from constants (module numbers
        among them: generated code reads them live, and nothing the function runs rebinds them) and
        values the adjoint sweep knows where it needs ``e``'s (``known``), none of them a slot."""
        if len(e.outs) != 1 or not (e.prim in _ARITHMETIC or e.prim.startswith("math.")):
            return False
        if self.facts.avals.get(e.outs[0].name) != V.FLOAT:
            return False
        return all(not isinstance(a, Var) or known(a) and a.name not in self.fn.slots for a in e.ins)

    def _grown_only(self, e: Eq, xs: Var) -> bool:
        """Whether ``e``, reading a list only ever appended to, reads an element that stays where it is
        (a non-negative index) of a list object the adjoint sweep can have: one the innermost loop
        around the read does not rebind (taped per run of that loop), in a sweep that is not split
        (for a split sweep, see ``_lists_only_grow``)."""
        loop = self.loop_of.get(self.home.get(e.outs[0].name))
        if loop is None or not self._non_negative(e.ins[1]):
            return False
        name = self.alias.get(xs.name, xs.name)
        return name not in self.defined_inside(loop)

    def _non_negative(self, a) -> bool:
        """Whether an index is surely >= 0: a constant, or the target of a loop counting up from one."""
        if isinstance(a, Var):
            name = self.alias.get(a.name, a.name)
            if self._reassigned is None:  # once the dup copies are all known
                self._reassigned = {self.alias.get(v, v) for v in self.assigned}
            return self.counts_up.get(name, False) and name not in self._reassigned
        return type(a.value) is int and a.value >= 0

    def defined_inside(self, loop) -> set:
        """The names (dup copies resolved) a loop's body assigns, however deep, dup copies aside."""
        if id(loop) not in self._defined_inside:
            names = set()
            for s in (s for b in blocks(loop) for s in walk(b)):
                if isinstance(s, Eq) and s.prim != DUP:
                    names.update(self.alias.get(v.name, v.name) for v in s.outs)
                elif isinstance(s, For):
                    names.add(s.target.name)
            self._defined_inside[id(loop)] = names
        return self._defined_inside[id(loop)]

    def reread(self, name: str):
        """How the adjoint sweep computes ``name`` again, or None: (expression, names it needs first)."""
        if name in self.rereadable and self.rereadable[name][0] == "global":
            return global_expr(self.rereadable[name][1]), []
        if name in self.rereadable and self.rereadable[name][0] == "expr":
            e = self.rereadable[name][1]
            ins = tuple(Var(self.alias.get(a.name, a.name)) if isinstance(a, Var) else a for a in e.ins)
            return prim_expr(Eq(e.outs, e.prim, ins, e.line, e.param)), [a.name for a in ins if isinstance(a, Var)]
        if name in self.rereadable:
            kind, xs, *index = self.rereadable[name]
            needs = [self.alias.get(a.name, a.name) for a in [xs, *index] if isinstance(a, Var)]
            if kind == "len":
                return E.Call("len", (self.ref(xs),)), needs
            return E.Subscript(self.ref(xs), self.ref(index[0])), needs
        row = next((c for c, d in self.shadow.items() if d == name and c in self.rereadable), None)
        if row is not None and self.rereadable[row][0] == "getitem":  # the shadow of a row: a row of the shadow
            _, xs, index = self.rereadable[row]
            parent = self.shadow_of(xs.name)
            needs = [parent] + ([self.alias.get(index.name, index.name)] if isinstance(index, Var) else [])
            return E.Subscript(E.Name(parent), self.ref(index)), needs
        return None

    def rereads(self, names, out: list) -> list:
        """Assignments computing ``names`` again (what they need first); returns the names left to tape.

        A value that does not change across the iterations of enclosing adjoint loops (its list and
        index are fixed there: a row ``rows[i]`` inside a loop over ``j``) is computed once before the
        outermost such loop (loop-invariant code motion), under a test that the loop runs at all, so
        it is read only when the primal read it too."""
        depth = len(self.frames)

        def level(n) -> int:
            for k in range(depth - 1, -1, -1):
                if self.frames[k]["target"] == n:
                    return k + 1
            if n in self.targets:
                return depth
            if n not in self.in_loop:
                return 0
            if self.reread(n) is not None:
                return emit(n)
            if n not in taped:  # a list only appended to, rebound by an enclosing loop: taped itself
                taped.append(n)
            return depth

        def emit(n) -> int:
            value, needs = self.reread(n)
            at = max([self.floor] + [level(m) for m in needs])
            frame = self.frames[at] if at < depth else self.segment
            if n not in frame["names"]:
                frame["names"].add(n)
                (frame["hoisted"] if at < depth else out).append(Assign((n,), value))
            return at

        self.segment = {"names": set()}
        taped = [n for n in names if self.reread(n) is None]
        for n in names:
            if n not in taped:
                level(n)
        return taped

    def taped_outside(self, name: str, stmts) -> bool:
        """Whether ``name``, needed by the adjoint of a run of lines in ``stmts``, is defined outside the
        innermost loop around them (in an enclosing loop's body): then the loop just inside its home
        tapes it once, after that loop runs, instead of every iteration taping it again."""
        inner = self.loop_of.get(id(stmts))
        home = self._home_of(name)
        if inner is None or home is None or home not in self.loop_of:
            return False
        outer = self.loop_of[home]
        if inner is outer:
            return False
        loop = inner
        while self.parent_loop.get(id(loop)) is not outer:
            loop = self.parent_loop.get(id(loop))
            if loop is None:
                return False
        found = self.outer_saved.setdefault(id(loop), [])
        if name not in found:
            found.append(name)
        return True

    def _home_of(self, name: str):
        """The block that defines ``name``: a value's, or for a shadow list that of its list."""
        if name in self.home:
            return self.home[name]
        owner = next((c for c, d in self.shadow.items() if d == name), None)
        return self.home.get(owner) if owner is not None else None


_ARITHMETIC = ("neg", "pos", "add", "sub", "mul", "truediv")
