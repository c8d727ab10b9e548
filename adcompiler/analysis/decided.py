"""Tests the arguments decide, folded: ``if bias is not None:`` with ``bias=None``, ``if x.ndim == 1:`` with a
matrix, keep only the branch Python takes, so the other (which adds None to a number, or makes a matrix of a
vector that is one already) is neither analysed nor generated, and what follows has one kind of value (an
array of one ndim: ``np.linalg.solve`` of it has its rule, compiled code one type).

A parameter's abstract value says whether it is None (``Static("none")``) or surely not (a number,
an array, a list or a record), and so does a record's item read at a constant key; an array's says its number of
dimensions (``x.ndim``, ``np.ndim(x)``, ``len(x.shape)``: 0 for a number).  Slots (names assigned in several
places) are followed in program order: a write of a value known this way is known until a branch joins two
different answers or a loop writes the slot.  Only a test whose answer is known this way is folded (``is``,
``is not``, a comparison of a known ndim with a constant, ``not`` of one); every other test stays a run-time test.
"""

from __future__ import annotations

from . import values as V
from ..ir.nodes import Const, Eq, For, Function, If, Var, While, walk
from ..lower.dup import DUP


def fold_decided_tests(fn: Function, sig: V.Sig) -> Function:
    """``fn`` with each ``if`` on a test the signature decides replaced by the branch taken."""
    if not any(isinstance(s, Eq) and s.prim in _DECIDING for s in walk(fn.body)):
        return fn
    state = _State(dict(zip(fn.params, sig.avals)))
    state.slots = {p: a for p, a in zip(fn.params, sig.avals) if p in fn.slots}  # their values on entry
    body = state.block(fn.body)
    return fn.with_body(body) if state.folded else fn  # (no test decided: the function itself)


_DECIDING = ("is_", "is_not", "numpy.ndim", "numpy.shape")  # what a decided test starts from
_COMPARED = {  # a comparison of a known number with a constant
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}


def _ndim(a) -> int | None:
    """The number of dimensions of a value of abstract value ``a`` (0 for a number), or None if not known."""
    if isinstance(a, V.Num):
        return 0
    return a.ndim if isinstance(a, V.Arr) else None


def _none(a) -> bool | None:
    """Whether a value of abstract value ``a`` is None (True), surely not (False), or not known (None)."""
    if isinstance(a, V.Static) and a.what == "none":
        return True
    if isinstance(a, (V.Num, V.Arr, V.Numeric, V.Seq)):
        return False
    return None


class _State:
    """What is known, at one point of the program, of variables (their abstract values, from the
    parameters) and of slots (their values' abstract values, while known), the numbers known (an ndim) and
    the tests already answered."""

    def __init__(self, avals: dict):
        self.avals = avals  # variable -> abstract value (parameters, their copies, items read out of them)
        self.slots: dict = {}  # slot -> the abstract value of what it holds, while known
        self.numbers: dict = {}  # variable -> the int it surely holds (an ndim)
        self.lengths: dict = {}  # variable -> the length of the tuple it surely holds (a shape)
        self.answers: dict = {}  # variable holding a test's answer -> that answer
        self.folded = False  # whether an if was replaced by its branch

    def aval(self, atom):
        """The abstract value of what ``atom`` holds, where known (None: not known)."""
        if isinstance(atom, Const):
            return V.describe(atom.value)
        return self.avals.get(atom.name)

    def known(self, atom) -> bool | None:
        return _none(self.aval(atom))

    def number(self, atom) -> int | None:
        if isinstance(atom, Const):
            return atom.value if type(atom.value) is int else None
        return self.numbers.get(atom.name)

    def block(self, stmts) -> tuple:
        out: list = []
        for s in stmts:
            if isinstance(s, Eq):
                self.eq(s)
                out.append(s)
            elif isinstance(s, If) and isinstance(s.test, Var) and s.test.name in self.answers:
                out.extend(self.block(s.body if self.answers[s.test.name] else s.orelse))
                self.folded = True
            elif isinstance(s, If):
                before = dict(self.slots)
                body = self.block(s.body)
                after_body, self.slots = self.slots, dict(before)
                orelse = self.block(s.orelse)
                self.slots = {k: v for k, v in self.slots.items() if after_body.get(k, object()) == v}  # (both)
                out.append(If(s.test, body, orelse, s.line))
            elif isinstance(s, (For, While)):
                written = {e.outs[0].name for e in walk([s]) if isinstance(e, Eq) and e.prim == "write"}
                for name in written:  # a loop may run any number of times: its slots are not known
                    self.slots.pop(name, None)
                if isinstance(s, For):
                    out.append(For(s.target, s.start, s.stop, s.step, self.block(s.body), s.line, s.parallel))
                else:
                    out.append(While(self.block(s.header), s.test, self.block(s.body), s.line))
                for name in written:
                    self.slots.pop(name, None)
            else:
                out.append(s)
        return tuple(out)

    def eq(self, e: Eq) -> None:
        ins = e.ins
        if e.prim == DUP and isinstance(ins[0], Var) and ins[0].name in self.avals:
            for v in e.outs:
                self.avals[v.name] = self.avals[ins[0].name]
        elif e.prim == "write":
            self.slots[e.outs[0].name] = self.aval(ins[0])  # (None: not known)
        elif e.prim == "read" and self.slots.get(ins[0].name) is not None:
            self.avals[e.outs[0].name] = self.slots[ins[0].name]
        elif e.prim == "getitem" and isinstance(ins[0], Var) and isinstance(ins[1], Const):
            container = self.avals.get(ins[0].name)
            if isinstance(container, V.Seq):
                self.avals[e.outs[0].name] = V.item(container, ins[1].value)
        elif e.prim in ("is_", "is_not") and any(isinstance(a, Const) and a.value is None for a in ins):
            other = ins[1] if isinstance(ins[0], Const) and ins[0].value is None else ins[0]
            answer = self.known(other)
            if answer is not None:
                self.answers[e.outs[0].name] = answer if e.prim == "is_" else not answer
        elif e.prim in ("numpy.ndim", "numpy.shape") and _ndim(self.aval(ins[0])) is not None:
            known = self.numbers if e.prim == "numpy.ndim" else self.lengths  # (x.shape: a tuple of ndim ints)
            known[e.outs[0].name] = _ndim(self.aval(ins[0]))
        elif e.prim == "len" and isinstance(ins[0], Var) and ins[0].name in self.lengths:
            self.numbers[e.outs[0].name] = self.lengths[ins[0].name]  # len(x.shape)
        elif e.prim in _COMPARED and all(self.number(a) is not None for a in ins):
            self.answers[e.outs[0].name] = _COMPARED[e.prim](*(self.number(a) for a in ins))
        elif e.prim == "not" and isinstance(ins[0], Var) and ins[0].name in self.answers:
            self.answers[e.outs[0].name] = not self.answers[ins[0].name]
