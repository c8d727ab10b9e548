"""Abstract interpretation: the abstract value (``values``) of every variable of a function in dup
form, given the abstract signature of its arguments.

Every primitive has a transfer function from its arguments' abstract values to its outputs'
(arithmetic broadcasts; a NumPy function gives an array of the ndim and dtype NumPy would; a list
primitive builds, reads or changes a list).  Lists are objects, so a store into one is seen through
every name for the same object: variables are grouped into *objects* (dup copies, slot reads and
writes, a callee's argument it returns), each with one abstract value, and an object read out of
another (a row ``r = rows[i]``) passes what is stored into it up to its container.  Slots and loops
make the equations cyclic, so the pass iterates to a fixed point (the lattice has finite height).

A call is analysed once per abstract signature of its arguments (the callee is specialised on
it, as the derivative code is); recursion iterates the recursive summaries to a fixed point.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import values as V
from .decided import fold_decided_tests
from .facts import Facts, call_key
from .transfer import transfer
from .methods import METHOD, as_call, refuse
from ..errors import at_line
from ..ir.nodes import Const, Eq, For, Function, Return, Var, flatten, walk
from ..ir.supplied import known

SAME_OBJECT = ("dup", "read", "write")


@dataclass
class Summary:
    """What a caller needs of a callee analysed for one signature."""

    out: object  # nested tuple of abstract values, shaped like the return value
    returned: tuple  # per output leaf: the parameter whose object it is, or None
    changed: tuple  # per parameter: its abstract value after the call (what was stored into it)
    written: tuple  # per parameter: whether its lists (or lists inside it) are changed
    listed: tuple = ()  # per parameter: whether it is used as a list (for an argument of unknown kind)


class Analyser:
    """Analyses functions per signature, memoised; ``dupform(fn)`` gives a function's dup form."""

    def __init__(self, dupform):
        self.dupform = dupform
        self.done: dict = {}  # (fn, sig) -> Facts
        self.current: dict = {}  # (fn, sig) -> the summary so far, while being analysed (recursion)
        self.stack: list = []
        self.depends: list = []  # per stack frame: the in-progress keys its result was computed from
        self.recursive: set = set()  # keys read while in progress

    def facts(self, fn, sig: V.Sig) -> Facts:
        """The abstract values of ``fn``'s variables for arguments of signature ``sig`` (a recursive
        function is interpreted again until its own summary stops growing)."""
        key = (fn, sig)
        if key in self.done:
            return self.done[key]
        self.stack.append(key)
        self.depends.append(set())
        self.current[key] = None
        while True:
            self.recursive.discard(key)
            result = _Interpreter(self, fold_decided_tests(self.dupform(fn), sig), sig).run()
            if self.current[key] is not None:
                result.summary = _join_summaries(self.current[key], result.summary)
            if key not in self.recursive or result.summary == self.current[key]:
                break
            self.current[key] = result.summary
        self.stack.pop()
        waiting = self.depends.pop() - {key}  # in-progress functions this result was computed from
        if self.depends:
            self.depends[-1] |= waiting
        if not waiting:
            self.done[key] = result
            self.current.pop(key, None)
        else:
            self.current[key] = result.summary
        return result

    def summary(self, fn, sig: V.Sig) -> Summary | None:
        """A callee's summary (None: still unknown, inside a recursion)."""
        key = (fn, sig)
        if key in self.stack:
            self.recursive.add(key)
            self.depends[-1].add(key)
            return self.current.get(key)
        return self.facts(fn, sig).summary


class _Objects:
    """Union-find over variable names: the classes of names that may hold the same object."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, n: str) -> str:
        while self.parent.get(n, n) != n:
            self.parent[n] = self.parent.get(self.parent[n], self.parent[n])
            n = self.parent[n]
        return n

    def union(self, a: str, b: str) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[ra] = rb
        return True


class _Interpreter:
    """One run of the abstract interpretation of one function (see the module docstring)."""

    def __init__(self, analyser: Analyser, fn: Function, sig: V.Sig):
        self.analyser, self.fn, self.sig = analyser, fn, sig
        if len(sig.avals) != len(fn.params):
            raise ValueError(f"{fn.name} takes {len(fn.params)} arguments, the signature has {len(sig.avals)}")
        self.avals: dict = dict(zip(fn.params, sig.avals))
        self.objects = _Objects()
        self.obj: dict = {}  # object class -> its abstract value (lists and tuples only)
        self.edges: set = set()  # (child name, parent name, index or None): child is an element of parent
        self.calls: dict = {}
        self.listed: dict = {}  # a call's outputs -> which of its arguments the callee uses as lists
        self.eqs = [s for s in walk(fn.body) if isinstance(s, Eq)]
        self.changed = True
        self.written: set = set()  # object classes stored into
        self.sharing: set = set()  # (a, b): lists whose elements are the same objects (a slice, a copy)
        for p, a in zip(fn.params, sig.avals):
            if isinstance(a, V.Seq):
                self.obj[p] = a
        for i, j in enumerate(sig.alias):  # the same list passed twice: one object
            if j != i and self.avals[fn.params[i]] == self.avals[fn.params[j]]:
                self._same(fn.params[i], fn.params[j])

    # ---- the fixed point ------------------------------------------------------------------

    def run(self) -> Facts:
        for s in walk(self.fn.body):
            if isinstance(s, For):
                self.set(s.target.name, V.INT)
        rounds = 0
        while self.changed:
            self.changed = False
            rounds += 1
            if rounds > 200:
                raise RuntimeError(f"abstract interpretation of {self.fn.name} does not converge")
            for eq in self.eqs:
                self.step(eq)
            for child, parent, index in list(self.edges):
                self.store(parent, self.get(child), index, count=False)
            for a, b in list(self.sharing):  # the same element objects: what is stored into one is in both
                xa, xb = self.get(a), self.get(b)
                if isinstance(xa, V.Seq) and isinstance(xb, V.Seq) and isinstance(xa.elem, V.Seq):
                    elem = V.join(xa.elem, xb.elem)  # (number elements are values, not shared objects)
                    self.store(a, elem, None, count=False)
                    self.store(b, elem, None, count=False)
        ret = next(s for s in reversed(self.fn.body) if isinstance(s, Return))
        leaves = flatten(ret.value)
        out_leaves = iter([self.of(a) for a in leaves])
        out = _rebuild(ret.value, out_leaves)
        returned = tuple(
            next((p for p in self.fn.params if isinstance(a, Var) and self.same(a.name, p)), None) for a in leaves
        )
        changed = tuple(self.get(p) for p in self.fn.params)
        written = tuple(self.reaches_written(p) for p in self.fn.params)
        avals = {
            n: (self.obj.get(self.objects.find(n), a) if isinstance(a, V.Seq) else a) for n, a in self.avals.items()
        }
        facts = Facts(self.fn, self.sig, avals, Summary(out, returned, changed, written), self.calls, self.listed)
        facts.summary.listed = tuple(p in facts.containers for p in self.fn.params)
        return facts

    def reaches_written(self, p: str) -> bool:
        """Whether a list in parameter ``p``'s structure is stored into (here or by a callee)."""
        todo, seen = [self.objects.find(p)], set()
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            if c in self.written:
                return True
            todo += [self.objects.find(ch) for ch, par, _ in self.edges if self.objects.find(par) == c]
        return False

    # ---- values of names ------------------------------------------------------------------

    def of(self, a) -> V.Aval:
        if isinstance(a, Var):
            return self.get(a.name)
        return V.describe(known(a))

    def get(self, n: str) -> V.Aval:
        a = self.avals.get(n, V.BOTTOM)
        if isinstance(a, V.Seq):
            return self.obj.get(self.objects.find(n), a)
        return a

    def set(self, n: str, a: V.Aval) -> None:
        old = self.avals.get(n, V.BOTTOM)
        new = V.join(old, a)
        if new != old:
            self.avals[n] = new
            self.changed = True
        if isinstance(new, V.Seq):
            c = self.objects.find(n)
            merged = V.join(self.obj.get(c, V.BOTTOM), new)
            if merged != self.obj.get(c):
                self.obj[c] = merged
                self.changed = True

    def same(self, a: str, b: str) -> bool:
        return self.objects.find(a) == self.objects.find(b)

    def _same(self, a: str, b: str) -> None:
        ca, cb = self.objects.find(a), self.objects.find(b)
        if ca == cb:
            return
        joined = V.join(self.obj.get(ca, V.BOTTOM), self.obj.get(cb, V.BOTTOM))
        written = ca in self.written or cb in self.written
        self.objects.union(a, b)
        root = self.objects.find(a)
        if not isinstance(joined, V.Bottom):
            self.obj[root] = joined
        if written:
            self.written.add(root)
        self.changed = True

    def store(self, xs: str, value: V.Aval, index=None, grow=False, count=True) -> None:
        """``value`` stored into the list ``xs`` (at a constant ``index``, or anywhere)."""
        c = self.objects.find(xs)
        if count and c not in self.written:
            self.written.add(c)
            self.changed = True
        old = self.obj.get(c)
        if not isinstance(old, V.Seq):
            return
        items = old.items
        if isinstance(index, str) and old.keys is not None and index in old.keys:  # a record's item, by key
            index = old.keys.index(index)
        if items is not None and (grow or index is None or not isinstance(index, int)):
            items = None if grow else tuple(V.join(i, value) for i in items)
        elif items is not None and -len(items) <= index < len(items):
            items = tuple(V.join(i, value) if k == index % len(items) else i for k, i in enumerate(items))
        keys = old.keys if items is not None else None  # a record stays one while its items are known
        new = V.Seq(old.kind, items, V.join(old.elem, value), keys, old.cls if keys is not None else None)
        if new != old:
            self.obj[c] = new
            self.changed = True

    # ---- transfer functions -----------------------------------------------------------------

    def step(self, eq: Eq) -> None:
        ins = [self.of(a) for a in eq.ins]
        prim = eq.prim
        if prim in SAME_OBJECT:
            for v in eq.outs:
                self._same(v.name, eq.ins[0].name) if isinstance(eq.ins[0], Var) else None
                self.set(v.name, ins[0])
            return
        if prim == "call":
            return self.call(eq, ins)
        if (prim == METHOD or prim == "getitem") and self.through_object(eq, ins) or prim == METHOD:
            return  # (a method not found yet: its receiver not known yet, or refused by specialise)
        if prim == "global":
            return self.set(eq.outs[0].name, V.describe(global_value(self.fn.source.globals, eq.param)))
        if prim in ("setitem", "append"):
            xs = eq.ins[0]
            if isinstance(xs, Var) and isinstance(ins[0], V.Seq):
                index = eq.ins[1].value if prim == "setitem" and isinstance(eq.ins[1], Const) else None
                self.store(xs.name, ins[-1], index, grow=prim == "append")
                value = eq.ins[-1]
                if isinstance(value, Var) and isinstance(ins[-1], V.Seq):
                    self.edges.add((value.name, xs.name, index if prim == "setitem" else None))
            return
        outs = transfer(eq, ins)
        for v, a in zip(eq.outs, outs, strict=True):
            self.set(v.name, a)
        sliced = prim == "getitem" and V.is_slice(ins[1])
        copied = ("list_copy", "add", "numpy.copy")  # numpy.copy of a list: xs.copy() (specialise: list_copy)
        if sliced or prim in copied and isinstance(self.get(eq.outs[0].name), V.Seq):
            for a in eq.ins[:1] if prim != "add" else eq.ins:  # a new list of the same element objects
                if isinstance(a, Var) and isinstance(self.get(a.name), V.Seq):
                    self.sharing.add((eq.outs[0].name, a.name))
        elif prim in ("getitem", "pop") and isinstance(eq.ins[0], Var) and isinstance(ins[0], V.Seq):
            if isinstance(self.get(eq.outs[0].name), V.Seq):  # a list read out of a list: stores reach its container
                index = eq.ins[1].value if prim == "getitem" and isinstance(eq.ins[1], Const) else None
                self.edges.add((eq.outs[0].name, eq.ins[0].name, index))
            if prim == "pop":
                self.store(eq.ins[0].name, V.BOTTOM, grow=True)
        if prim in ("list", "tuple", "list_repeat"):
            for k, a in enumerate(eq.ins[:1] if prim == "list_repeat" else eq.ins):
                if isinstance(a, Var) and isinstance(self.get(a.name), V.Seq):
                    self.edges.add((a.name, eq.outs[0].name, k if prim != "list_repeat" else None))

    def call(self, eq: Eq, ins: list) -> None:
        for k in getattr(eq.param, "__adc_arrays_only__", ()):  # a nested derivative's code for an array there
            if k < len(ins) and isinstance(ins[k], V.Seq):
                raise at_line(
                    self.fn.source,
                    eq.line,
                    f"a list passed as argument {k + 1} of a derivative taken inside a differentiated function,"
                    " whose code is made for a number or an array there unless the list is made in this function",
                    "pass np.array(xs), or a list of numbers made here: [xs[0], xs[1]] or list(xs); for a list of"
                    " arrays (layers), take the inner derivative with respect to each array",
                )
        sig = self.call_sig(eq, ins)
        self.calls[call_key(eq)] = sig
        summary = self.analyser.summary(eq.param, sig)
        if summary is None:  # a recursive call still being analysed: nothing known of it yet
            return
        self.listed[call_key(eq)] = summary.listed
        shape = _shape_of(summary.out)
        outs = flatten(summary.out) if shape is not None else [summary.out]
        for v, a, p in zip(eq.outs, outs, summary.returned, strict=True):
            self.set(v.name, a)
            if p is not None:
                arg = eq.ins[self.analyser.dupform(eq.param).params.index(p)]
                if isinstance(arg, Var):
                    self._same(v.name, arg.name)
        for arg, before, after, written in zip(eq.ins, ins, summary.changed, summary.written, strict=True):
            if isinstance(arg, Var) and isinstance(before, V.Seq) and written:
                c = self.objects.find(arg.name)
                if c not in self.written:
                    self.written.add(c)
                    self.changed = True
                if after != before:
                    self.set(arg.name, after)
                    self.obj[c] = V.join(self.obj.get(c, V.BOTTOM), after)

    def through_object(self, eq: Eq, ins: list) -> bool:
        """A call through an object (``layer(h)``, a property read; ``methods``) analysed as the call
        of its class's function; False where ``eq`` is none (yet)."""
        call = as_call(eq, ins)
        if call is None:
            return False
        call_ins = [self.of(a) for a in call.ins]
        if call.prim != "call":  # (a string's method: a library call, computed as the primal computes it)
            for v, a in zip(call.outs, transfer(call, call_ins), strict=True):
                self.set(v.name, a)
            return True
        summary = self.analyser.summary(call.param, self.call_sig(call, call_ins))
        if summary is not None and isinstance(summary.out, tuple):
            refuse(eq, ins, summary.out, self.fn.source)
        self.call(call, call_ins)
        return True

    def call_sig(self, eq: Eq, ins: list) -> V.Sig:
        """The callee's signature at this call: its arguments' values, and which of them share lists."""
        alias = list(range(len(ins)))
        for i, a in enumerate(eq.ins):
            for j in range(i):
                b = eq.ins[j]
                if isinstance(a, Var) and isinstance(b, Var) and self.shares(a.name, b.name):
                    if isinstance(ins[i], V.Seq) and isinstance(ins[j], V.Seq):
                        alias[i] = alias[j]
                        break
        return V.Sig(tuple(ins), tuple(alias))

    def shares(self, a: str, b: str) -> bool:
        """Whether two names may reach a common list (the same object, or one inside the other)."""

        def reach(n):
            found, todo = set(), [self.objects.find(n)]
            while todo:
                c = todo.pop()
                if c in found:
                    continue
                found.add(c)
                for ch, par, _ in self.edges:
                    if self.objects.find(par) == c:
                        todo.append(self.objects.find(ch))
                    if self.objects.find(ch) == c:
                        todo.append(self.objects.find(par))
            return found

        return bool(reach(a) & reach(b))


def _join_summaries(a: Summary, b: Summary) -> Summary:
    """The summary covering both (so recursive summaries only grow, and their fixed point is reached)."""
    return Summary(
        _join_tree(a.out, b.out),
        tuple(x if x == y else None for x, y in zip(a.returned, b.returned)),
        tuple(V.join(x, y) for x, y in zip(a.changed, b.changed)),
        tuple(x or y for x, y in zip(a.written, b.written)),
        tuple(x or y for x, y in zip(a.listed, b.listed)),
    )


def _join_tree(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return tuple(_join_tree(x, y) for x, y in zip(a, b))
    return V.join(a, b)


def _shape_of(out):
    return tuple(_shape_of(o) for o in out) if isinstance(out, tuple) else None


def _rebuild(value, leaves):
    if isinstance(value, tuple):
        return tuple(_rebuild(v, leaves) for v in value)
    return next(leaves)


def global_value(namespace, param):
    """The value a ``global`` equation reads now: the name's, or the item at its path (``printing.global_expr``)."""
    if isinstance(param, str):
        return namespace.get(param)
    value = namespace.get(param[0])
    for kind, key in param[1:]:
        value = value[key] if kind == "[]" else getattr(value, key)
    return value
