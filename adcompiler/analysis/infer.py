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

import sys
from dataclasses import dataclass

from . import values as V
from .facts import Facts
from ..ir.nodes import Const, Eq, For, Function, Return, Var, flatten, walk

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
            result = _Interpreter(self, self.dupform(fn), sig).run()
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
        return V.describe(a.value)

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
        if items is not None and (grow or index is None or not isinstance(index, int)):
            items = None if grow else tuple(V.join(i, value) for i in items)
        elif items is not None and -len(items) <= index < len(items):
            items = tuple(V.join(i, value) if k == index % len(items) else i for k, i in enumerate(items))
        new = V.Seq(old.kind, items, V.join(old.elem, value))
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
        if prim == "global":
            return self.set(eq.outs[0].name, V.describe(self.fn.source.globals.get(eq.param)))
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
        if sliced or prim in ("list_copy", "add") and isinstance(self.get(eq.outs[0].name), V.Seq):
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
        sig = self.call_sig(eq, ins)
        self.calls[eq.outs] = sig
        summary = self.analyser.summary(eq.param, sig)
        if summary is None:  # a recursive call still being analysed: nothing known of it yet
            return
        self.listed[eq.outs] = summary.listed
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


# ---- transfer functions of primitives ------------------------------------------------------------

ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
INT_RESULTS = ("math.floor", "math.ceil", "math.trunc", "int", "len", "argmax", "argmin", "revolve")
LIKE_ARGUMENT = {  # runtime helpers of generated code: their result is shaped like this argument
    "unbroadcast": 1,
    "unreduce": 1,
    "extreme_vjp": 1,
    "extreme_jvp": 2,
    "scatter_add": 1,
    "matmul_vjp_a": 1,
    "matmul_vjp_b": 2,
    "dot_vjp_a": 1,
    "dot_vjp_b": 2,
    "prod_vjp": 1,
    "prod_vjp_jvp": 2,
    "inner_vjp_a": 1,
    "inner_vjp_b": 2,
    "zeros_like": 0,
    "like": 1,
    "like_arrays": 1,
}


def transfer(eq: Eq, ins: list) -> list:
    """The abstract values of an equation's outputs (one per output)."""
    prim = eq.prim
    n = len(eq.outs)
    if any(isinstance(a, V.Bottom) for a in ins) and prim not in ("list", "tuple", "list_repeat"):
        return [V.BOTTOM] * n  # an argument not known yet: the fixed point comes back
    if prim in ("list", "tuple"):
        return [V.seq(prim, ins)]
    if prim == "list_repeat":
        return [V.uniform("list", ins[0])]
    if prim == "list_copy":
        src = ins[0]
        if isinstance(src, V.Seq):
            return [V.Seq("list", src.items, src.elem)]
        if isinstance(src, V.Arr):  # list(array): its rows (or numbers)
            return [V.uniform("list", _row(src))]
        return [V.TOP]
    if prim in ("getitem", "pop"):
        return [getitem(ins[0], eq.ins[1] if prim == "getitem" else None, ins[1] if prim == "getitem" else None)]
    if prim == "len" or prim in INT_RESULTS:
        return [V.INT] * n
    if prim == "sum":
        src = ins[0]
        if isinstance(src, V.Seq):
            return [_number_sum(src.elem)]
        if isinstance(src, V.Arr):
            return [_row(src)]
        return [V.NUMERIC if isinstance(src, V.Numeric) else V.TOP]
    if prim == "range":
        return [V.Static("range")]
    if prim == "slice":  # with its bounds where they are constants (a record's slice keeps its items)
        const = all(isinstance(a, Const) and (a.value is None or type(a.value) is int) for a in eq.ins)
        return [V.Static("slice", tuple(a.value for a in eq.ins)) if const else V.SLICE]
    if prim in COMPARISONS or prim == "not":
        return [_broadcast(ins, "bool")]
    if prim in ARITHMETIC:
        return [arithmetic(prim, ins)]
    if prim in ("neg", "pos", "abs", "math.fabs"):
        return [ins[0] if V.is_numeric(ins[0]) else V.TOP] if prim != "math.fabs" else [V.FLOAT]
    if prim in ("max", "min"):
        return [V.join(ins[0], ins[1])]
    if prim in ("float",):
        return [V.FLOAT]
    if prim in ("round",):
        return [V.INT if len(ins) == 1 else V.FLOAT]
    if prim.startswith("math."):
        return [V.FLOAT]
    if prim == "custom":
        return [V.NUMERIC]
    if prim == "reject_ints":
        return [V.STATIC] * n
    if prim in LIKE_ARGUMENT:
        like = ins[LIKE_ARGUMENT[prim]]
        if prim == "unbroadcast" and isinstance(like, V.Num):
            return [like]
        return [like]
    if prim == "linspace_vjp":
        return [ins[2 + eq.ins[1].value] if isinstance(eq.ins[1], Const) else V.NUMERIC]
    if prim == "array_like":
        return [ins[1] if isinstance(ins[1], V.Arr) else V.join(ins[0], ins[1])]
    if prim == "unjoin":
        return [ins[4 + eq.ins[3].value] if isinstance(eq.ins[3], Const) else V.Arr()]
    if prim == "einsum_vjp":
        return [ins[3 + eq.ins[1].value] if isinstance(eq.ins[1], Const) else V.Arr()]
    if prim == "take_and_clear":
        return [ins[1], V.NUMERIC][:n]
    if prim.startswith("numpy."):
        from .infer_numpy import numpy_transfer

        return numpy_transfer(eq, ins)
    return [V.TOP] * n


def getitem(xs: V.Aval, index_atom, index: V.Aval | None) -> V.Aval:
    """``xs[index]``: an element of a list or tuple, or an array's element, row or slice."""
    if isinstance(xs, V.Seq):
        if V.is_slice(index):  # a slice of a list: its items where they and the bounds are known
            kind = "list" if xs.kind != "tuple" else "tuple"
            if xs.items is not None and index.bounds is not None:
                return V.seq(kind, xs.items[slice(*index.bounds)])
            return V.Seq(kind, None, xs.elem)
        k = index_atom.value if isinstance(index_atom, Const) else None
        return V.item(xs, k)
    if isinstance(xs, (V.Arr, V.Numeric)):
        from .infer_numpy import array_getitem

        return array_getitem(xs, index_atom, index)
    return V.TOP


def _row(a: V.Arr) -> V.Aval:
    """What iterating over an array gives: rows, or NumPy numbers of a 1-D array."""
    if a.ndim == 1:
        return V.Num("float" if a.dtype in (None, "float64") else a.dtype)
    return V.Arr(None if a.ndim is None else a.ndim - 1, a.dtype)


def _number_sum(elem: V.Aval) -> V.Aval:
    """``sum(xs)``: 0 + xs[0] + ... (an empty list gives the int 0)."""
    if isinstance(elem, V.Bottom):
        return V.INT
    return elem if V.is_numeric(elem) else V.TOP


def arithmetic(prim: str, ins: list) -> V.Aval:
    a, b = ins
    if isinstance(a, V.Seq) or isinstance(b, V.Seq):
        if prim == "add" and isinstance(a, V.Seq) and isinstance(b, V.Seq):  # list concatenation
            items = a.items + b.items if a.items is not None and b.items is not None else None
            kind = a.kind if a.kind == b.kind else None
            return V.Seq(kind, items if items is None or len(items) <= V.MAX_ITEMS else None, V.join(a.elem, b.elem))
        if prim == "mul" and any(isinstance(x, V.Num) and x.dtype in ("int", "bool") for x in ins):  # repetition
            s = a if isinstance(a, V.Seq) else b
            return V.uniform(s.kind, s.elem)
        other = b if isinstance(a, V.Seq) else a
        if isinstance(other, V.Arr):  # NumPy reads the list as an array
            return V.Arr(None, other.dtype)
        return V.TOP
    if not (V.is_numeric(a) and V.is_numeric(b)):
        return V.TOP
    if prim == "matmul":  # a @ b: numpy.matmul's result (two vectors give a number)
        from .infer_numpy import numpy_matmul

        return numpy_matmul(ins)
    if prim == "truediv":
        return _broadcast(ins, "float")
    if prim == "pow" and isinstance(a, V.Num) and isinstance(b, V.Num) and "int" in (a.dtype, b.dtype):
        return V.Num("float") if b.dtype != "int" or a.dtype != "int" else V.Num("float")
    return _broadcast(ins, None)


def _broadcast(ins: list, dtype) -> V.Aval:
    """The value of an elementwise operation: a number of numbers, an array if any argument is one."""
    numeric = [a for a in ins if V.is_numeric(a)]
    if len(numeric) != len(ins):
        return V.TOP
    arrays = [a for a in numeric if isinstance(a, V.Arr)]
    unknown = [a for a in numeric if isinstance(a, V.Numeric)]
    out_dtype = dtype or _result_dtype(numeric)
    if arrays:
        dims = [a.ndim for a in arrays]
        ndim = None if None in dims or unknown else max(dims)
        return V.Arr(ndim, "bool" if dtype == "bool" else out_dtype)
    if unknown:
        return V.Numeric(out_dtype)
    if dtype == "bool":
        return V.BOOL
    return V.Num(out_dtype or "float")


def _result_dtype(avals: list):
    """The dtype NumPy gives an elementwise result (Python numbers are weak, as NumPy 2 has it)."""
    numpy = sys.modules.get("numpy")
    dtypes = [a.dtype for a in avals]
    if all(d in ("float", "int", "bool") for d in dtypes):
        return "int" if all(d in ("int", "bool") for d in dtypes) and "int" in dtypes else "float"
    if numpy is None or None in dtypes:
        return None
    try:
        operands = [
            {"float": 1.0, "int": 1, "bool": True}[d] if d in ("float", "int", "bool") else numpy.dtype(d)
            for d in dtypes
        ]
        name = numpy.result_type(*operands).name
    except (TypeError, KeyError):
        return None
    return "float" if name == "float64" and all(isinstance(a, V.Num) for a in avals) else name
