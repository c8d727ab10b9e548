"""Values the adjoint sweep can compute again instead of taping them (to-be-recorded analysis: only
what is overwritten and needed is taped), found once for the tape plan (``plan.tape_plan``).

``t = xs[i]`` -> ("getitem", xs, i) and ``n = len(xs)`` -> ("len", xs), for a list that nothing in
the function changes, itself known in the adjoint sweep (defined outside loops, or rereadable: rows
of a nested list), at an index that is known there too (a constant, a value defined outside loops,
a loop index, or rereadable).  A module's array read by its name -> ("global", name); arithmetic of
values known there -> ("expr", equation).  A number or row read from a numeric array nothing writes
in place, at an index known there, is read again too (x[i, t], the row x[c]), even where the array
itself is made in the loop (``d = centres[c] - x``, then ``d[0]``, ``d[1]``): the adjoint then tapes
the array, which its own adjoint mostly needs anyway, instead of each number read from it (issue 36:
particles' inner loop taped ten values an iteration, now three).

A number read at a non-negative index of a list that is only ever appended to is read again too: an
element, once there, never changes.  Such a list rebound by an enclosing loop (a layer's input
``h``, then ``h = out``) is taped itself, once per run of the innermost loop around the read, instead
of every element it gives (see ``rereads``).
"""

from __future__ import annotations

from ..analysis import values as V
from ..analysis.activity import Classes
from ..analysis.facts import mutable_arrays
from ..analysis.memory import SAME_OBJECT, VIEWS
from ..ir.nodes import Eq, For, Var, blocks, walk
from ..lower.dup import DUP
from ..rules import CHANGES

_IN_PLACE = ("setitem", "pop", "custom", "library")  # equations that may change a list other than by appending
_ARITHMETIC = ("neg", "pos", "add", "sub", "mul", "truediv")


def rereadable(lay, facts, program, split: bool) -> dict:
    """name -> how the adjoint sweep computes it again, for the function ``lay`` walked (plan._Layout)."""
    fn, containers, alias = lay.fn, facts.containers, lay.alias
    classes = Classes(fn, containers, facts.linked(fn))
    eqs = [e for e in walk(fn.body) if isinstance(e, Eq)]
    facts_of = _Found(lay, program)

    def touched(prims) -> set:
        return {classes.find(a.name) for e in eqs if e.prim in prims for a in e.ins if isinstance(a, Var)}

    changed = touched(("setitem", "pop", "call", "custom", "library") + CHANGES)
    appended = touched(("append",))
    found: dict = {}

    def known(a) -> bool:
        name = alias.get(a.name, a.name) if isinstance(a, Var) else None
        return name is None or name not in lay.in_loop or name in lay.targets or name in found

    written = None  # arrays the function writes in place (and the copies sharing them), found on first use
    for e in eqs:
        if e.prim == "global":  # a module's array, read by its name: the same object all along
            found[e.outs[0].name] = ("global", e.param)
            continue
        if _arithmetic_of_knowns(e, known, facts, fn) or _index_of_knowns(e, known, facts):
            found[e.outs[0].name] = ("expr", e)  # 1.0 / MASS in a loop, (i, t): computed again, not taped
            continue
        if e.prim == "getitem" and not split and _number_of_array(e, facts, fn) and known(e.ins[1]):
            if written is None:
                written = {alias.get(n, n) for pair in mutable_arrays(fn, facts.arrays).items() for n in pair}
                written = _with_views(eqs, written, alias, facts)
            if not {alias.get(e.ins[0].name, e.ins[0].name), alias.get(e.outs[0].name, e.outs[0].name)} & written:
                # x[i, t], or the row x[c], of an array nothing writes: the same values read again (the
                # array taped where the adjoint sweep does not know it: rereads)
                found[e.outs[0].name] = ("getitem", e.ins[0], e.ins[1])
            continue
        if e.prim not in ("getitem", "len") or not isinstance(e.ins[0], Var) or e.ins[0].name not in containers:
            continue
        xs, out = e.ins[0], e.outs[0].name
        cls = classes.find(xs.name)
        if out in facts.arrays or xs.name in fn.slots or cls in changed:
            continue
        if split and not (e.prim == "getitem" and facts_of.non_negative(e.ins[1]) and facts_of.lists_only_grow()):
            continue  # what the caller may do to the list between the two sweeps: see lists_only_grow
        if cls not in appended and known(xs):
            if e.prim == "len":
                found[out] = ("len", xs)
            elif known(e.ins[1]):
                found[out] = ("getitem", xs, e.ins[1])
        elif e.prim == "getitem" and out not in containers and facts_of.grown_only(e, xs) and known(e.ins[1]):
            found[out] = ("getitem", xs, e.ins[1])
    return found


def _with_views(eqs: list, written: set, alias, facts) -> set:
    """``written`` with every array that may share memory with one of them: a view of one (a slice, a row ``B[i]``,
    a reshape, ``.T``: ``analysis.memory.VIEWS``) or a copy of the name, however deep.  A value read out of such a
    view changes when the array is written, so the adjoint sweep, which reads again at the top of the iteration,
    after the iteration's writes and before it puts them back, would read the new entries (``v = B[i, :]``,
    ``e = v[1]``, then ``B[i] = ...``: e read again as the entry written)."""
    out, grown = set(written), True
    while grown:
        grown = False
        for e in eqs:
            if not e.ins or not isinstance(e.ins[0], Var) or alias.get(e.ins[0].name, e.ins[0].name) not in out:
                continue
            if e.prim in VIEWS + SAME_OBJECT or e.prim == "numpy.diag":
                for v in e.outs:
                    if v.name in facts.arrays and alias.get(v.name, v.name) not in out:
                        out.add(alias.get(v.name, v.name))
                        grown = True
    return out


def _arithmetic_of_knowns(e: Eq, known, facts, fn) -> bool:
    """Whether ``e`` computes a number by arithmetic or ``math`` from constants (module numbers
    among them: generated code reads them live, and nothing the function runs rebinds them) and
    values the adjoint sweep knows where it needs ``e``'s (``known``), none of them a slot."""
    if len(e.outs) != 1 or not (e.prim in _ARITHMETIC or e.prim.startswith("math.")):
        return False
    if facts.avals.get(e.outs[0].name) not in (V.FLOAT, V.INT):  # (i + 1: an index, read again at it)
        return False
    return all(not isinstance(a, Var) or known(a) and a.name not in fn.slots for a in e.ins)


def _index_of_knowns(e: Eq, known, facts) -> bool:
    """Whether ``e`` builds a tuple of integers the adjoint sweep knows (``(i, t)``, an index)."""
    if e.prim != "tuple" or len(e.outs) != 1:
        return False
    return all(
        facts.avals.get(a.name) == V.INT and known(a) if isinstance(a, Var) else type(a.value) is int for a in e.ins
    )


def _number_of_array(e: Eq, facts, fn) -> bool:
    """Whether ``e`` reads a float or a row of floats out of a numeric array at an index of integers
    (the caller checks that nothing writes either in place)."""
    xs, out = e.ins[0], facts.avals.get(e.outs[0].name)
    if not isinstance(xs, Var) or xs.name not in facts.numeric_arrays or xs.name in fn.slots:
        return False
    index = facts.avals.get(e.ins[1].name) if isinstance(e.ins[1], Var) else V.INT
    if not (index == V.INT or isinstance(index, V.Seq) and all(i == V.INT for i in index.items or ())):
        return False
    return out == V.FLOAT or isinstance(out, V.Arr) and out.dtype == "float64"


class _Found:
    """Facts the search asks of the walk, each found on first use."""

    def __init__(self, lay, program):
        self.lay, self.program = lay, program
        self._reassigned = None  # names an equation other than a dup assigns, dup copies resolved
        self._grow_only = None  # whether no code of the program changes a list but by appending
        self._defined_inside: dict = {}

    def lists_only_grow(self) -> bool:
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

    def grown_only(self, e: Eq, xs: Var) -> bool:
        """Whether ``e``, reading a list only ever appended to, reads an element that stays where it is
        (a non-negative index) of a list object the adjoint sweep can have: one the innermost loop
        around the read does not rebind (taped per run of that loop), in a sweep that is not split
        (for a split sweep, see ``lists_only_grow``)."""
        loop = self.lay.loop_of.get(self.lay.home.get(e.outs[0].name))
        if loop is None or not self.non_negative(e.ins[1]):
            return False
        name = self.lay.alias.get(xs.name, xs.name)
        return name not in self.defined_inside(loop)

    def non_negative(self, a) -> bool:
        """Whether an index is surely >= 0: a constant, or the target of a loop counting up from one."""
        if isinstance(a, Var):
            alias = self.lay.alias
            name = alias.get(a.name, a.name)
            if self._reassigned is None:  # once the dup copies are all known
                self._reassigned = {alias.get(v, v) for v in self.lay.assigned}
            return self.lay.counts_up.get(name, False) and name not in self._reassigned
        return type(a.value) is int and a.value >= 0

    def defined_inside(self, site) -> set:
        """The names (dup copies resolved) the body of the loop at ``site`` assigns, however deep, dup
        copies aside."""
        if site not in self._defined_inside:
            names, alias = set(), self.lay.alias
            for s in (s for b in blocks(self.lay.loops[site]) for s in walk(b)):
                if isinstance(s, Eq) and s.prim != DUP:
                    names.update(alias.get(v.name, v.name) for v in s.outs)
                elif isinstance(s, For):
                    names.add(s.target.name)
            self._defined_inside[site] = names
        return self._defined_inside[site]
