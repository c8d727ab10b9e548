"""What ``adc compile`` assumes of arguments it never sees: their abstract signature, from the
parameters' annotations, else from how the code uses each parameter.

``def f(x: float, xs: list[float], W: np.ndarray)`` says it outright.  Without annotations a
parameter the code indexes, measures or appends to is a list (of lists, as deep as it is indexed),
and a leaf is a number, or, in code that calls NumPy, a number or an array (``Numeric``: the
derivative code is then the shape-generic one, right for both).
"""

from __future__ import annotations

import inspect
import typing

from . import values as V
from ..ir.nodes import IN_PLACE
from ..ir.nodes import Const, Eq, Var, copies_of, walk

LIST_USES = ("getitem", "len", "append", "pop", "list_copy", "sum", "argmax", "argmin", "setitem")
BUILDS = ("call", "list", "tuple", "list_repeat")


def assumed_signature(program, fn) -> V.Sig:
    """The signature ``adc compile`` generates ``fn``'s derivatives for."""
    numeric = V.NUMERIC if _uses_numpy(program, fn, set()) else V.FLOAT
    function = program.dupform(fn)
    hints = _annotations(fn)
    texts = _string_defaults(fn)
    avals = []
    for p in function.params:
        if p in hints and hints[p] is not None:
            avals.append(hints[p])
            continue
        if p in texts:  # kind="mse": a string choosing a branch
            avals.append(V.describe(""))
            continue
        use = _use(program, function, {p}, {(function.name, p)})
        if not use.listed and _changed_in_place(function, p):  # p += ...: refused on an array, so a number
            avals.append(V.FLOAT)
        elif use.arith:  # (x * 2.0)[0]: an array
            avals.append(V.NUMERIC)
        elif numeric is V.NUMERIC and not (use.grown or use.records()):
            avals.append(numeric)  # indexed and measured alone: an array as much as a list; NumPy code takes it for one
        else:
            avals.append(use.aval(numeric))
    return V.Sig(tuple(avals))


def _string_defaults(fn) -> set:
    """The parameters whose default is a string (``kind="mse"``)."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return set()
    return {p for p, v in parameters.items() if isinstance(v.default, str)}


def _annotations(fn) -> dict:
    """Abstract values of the annotated parameters (None where the annotation says nothing usable)."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # an annotation that does not evaluate: no assumption from it
        hints = dict(getattr(fn, "__annotations__", {}))
    return {p: _from_annotation(h) for p, h in hints.items() if p != "return"}


def _from_annotation(hint):
    if hint in (float, "float"):
        return V.FLOAT
    if hint in (str, "str"):
        return V.describe("")
    if hint in (int, "int"):
        return V.INT
    if getattr(hint, "__name__", "") == "ndarray":
        return V.Arr(None, "float64")
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is list and len(args) == 1:
        inner = _from_annotation(args[0])
        return V.uniform("list", inner) if inner is not None else None
    if origin is tuple and args and args[-1] is not Ellipsis:
        items = [_from_annotation(a) for a in args]
        return V.seq("tuple", items) if None not in items else None
    return None


class _Use:
    """How the code uses a value: as a list (its elements' uses, at constant positions and at any
    position), grown as only a list is, or fed to arithmetic whose result is indexed."""

    def __init__(self):
        self.listed, self.grown, self.arith = False, False, False
        self.measured = False  # len() of it, or its elements counted out: a list of any length, not a record
        self.items: dict = {}  # constant index -> the use of the element there
        self.any = None  # the use of elements read at computed positions

    def merge(self, other: "_Use") -> None:
        self.listed |= other.listed
        self.grown |= other.grown
        self.measured |= other.measured
        self.arith |= other.arith
        for k, u in other.items.items():
            self.items.setdefault(k, _Use()).merge(u)
        if other.any is not None:
            self.any = self.any or _Use()
            self.any.merge(other.any)

    def unplaced(self) -> None:
        """The elements read at constant positions taken as read at computed ones (of a list also read
        through its slices, whose positions are not the list's)."""
        for u in self.items.values():
            self.any = self.any or _Use()
            self.any.merge(u)
        self.items = {}

    def records(self) -> bool:
        """Whether elements read at computed positions are read at constant ones (``W = layers[l][0]``, or
        ``for W, b in layers``): a list of records, where an array would be indexed ``A[i, 0]``."""
        return self.any is not None and (bool(self.any.items) or self.any.records())

    def aval(self, leaf) -> V.Aval:
        kind = "list" if self.grown else None  # only read: a list or a tuple alike
        if not self.listed:
            return leaf
        if (
            self.items
            and self.any is None
            and not self.measured
            and all(isinstance(k, int) and k >= 0 for k in self.items)
        ):
            n = max(self.items) + 1  # read only at constant positions: a record such as [W, b]
            return V.seq(kind, [self.items[k].aval(leaf) if k in self.items else leaf for k in range(n)])
        elem = _Use()
        for u in list(self.items.values()) + ([self.any] if self.any else []):
            elem.merge(u)
        return V.uniform(kind, elem.aval(leaf))


def _use(program, function, names: set, seen: set) -> _Use:
    """How the values ``names`` hold (with their copies) are used, here and in the functions they are
    handed to."""
    eqs = [eq for eq in walk(function.body) if isinstance(eq, Eq)]
    slices = copies_of(eqs, {v.name for eq in eqs if eq.prim == "slice" for v in eq.outs})
    copies, size = set(names), -1
    while size != len(copies):  # (a slice of it, xs[1:], is used as it is: a list of its elements)
        size = len(copies)
        copies = copies_of(eqs, copies)
        copies |= {v.name for eq in eqs if _sliced(eq, copies, slices) for v in eq.outs}
    use = _Use()
    derived, size = set(copies), -1  # what arithmetic computes from it: indexed, it is an array
    while size != len(derived):
        size = len(derived)
        for eq in eqs:
            if eq.prim not in LIST_USES + BUILDS and any(_var(a) in derived for a in eq.ins):
                derived |= {v.name for v in eq.outs}
    use.arith = any(eq.prim in LIST_USES and _var(eq.ins[0]) in derived - copies for eq in eqs)
    for eq in eqs:
        if eq.prim == "call":  # handed to a function: used as that function uses it
            callee = program.dupform(eq.param)
            for a, q in zip(eq.ins, callee.params):
                if _var(a) in copies and (callee.name, q) not in seen:
                    use.merge(_use(program, callee, {q}, seen | {(callee.name, q)}))
        elif eq.prim in LIST_USES and _var(eq.ins[0]) in copies:
            use.listed = True
            use.grown |= eq.prim in ("append", "pop", "list_copy")
            use.measured |= eq.prim == "len"
            if eq.prim in ("getitem", "pop") and eq.outs and not _sliced(eq, copies, slices):
                key = (function.name, eq.outs[0].name)  # (x = x[0] in a loop: its element is itself again)
                element = _use(program, function, {eq.outs[0].name}, seen | {key}) if key not in seen else _Use()
                k = eq.ins[1].value if eq.prim == "getitem" and isinstance(eq.ins[1], Const) else None
                if isinstance(k, int) and not isinstance(k, bool):
                    use.items.setdefault(k, _Use()).merge(element)
                else:
                    use.any = use.any or _Use()
                    use.any.merge(element)
                use.grown |= element.grown
    if any(_sliced(eq, copies, slices) for eq in eqs):
        use.unplaced()  # (xs[1:][0] is not xs[0]: the positions of reads of a part are not the list's)
    return use


def _sliced(eq, copies: set, slices: set) -> bool:
    """Whether ``eq`` is ``part = xs[s]`` of a value of ``copies`` and a slice (``xs = xs[4:]`` in a loop of
    generated code: the part is the list's kind, not an element)."""
    if eq.prim != "getitem" or _var(eq.ins[0]) not in copies:
        return False
    index = eq.ins[1]
    return _var(index) in slices or isinstance(index, Const) and isinstance(index.value, slice)


def reads_elements(program, fn, param: str, seen=None) -> bool:
    """Whether ``fn`` (or a function it hands ``param`` to) does more with parameter ``param`` than pass it
    on or measure it (``len``): indexes it, loops over it, sums it, computes with it."""
    function = program.dupform(fn)
    seen = (seen or set()) | {(fn, param)}
    names = _reads_of(function, param)
    for eq in walk(function.body):
        if not isinstance(eq, Eq) or eq.prim in ("dup", "read", "write", "len"):
            continue
        handed = (
            [q for a, q in zip(eq.ins, program.dupform(eq.param).params) if _var(a) in names]
            if eq.prim == "call"
            else []
        )
        if eq.prim == "call" and any(
            (eq.param, q) not in seen and reads_elements(program, eq.param, q, seen) for q in handed
        ):
            return True
        if eq.prim != "call" and any(_var(a) in names for a in eq.ins):
            return True
    return False


def _changed_in_place(function, param: str) -> bool:
    """Whether ``param`` (its value, read from its slot or copied) is changed by ``p += ...``."""
    names = _reads_of(function, param)
    return any(isinstance(eq, Eq) and eq.param == IN_PLACE and _var(eq.ins[0]) in names for eq in walk(function.body))


def _reads_of(function, param: str) -> set:
    """The names a parameter's value may be read into (copies, slots it is written to, their reads)."""
    return copies_of([eq for eq in walk(function.body) if isinstance(eq, Eq)], {param})


def _var(a):
    return a.name if isinstance(a, Var) else None


def _uses_numpy(program, fn, seen: set) -> bool:
    """Whether a function, or one it calls, calls NumPy or takes a matrix product (``d @ d``, of no Python
    number): only then may its parameters be arrays."""
    seen.add(fn)
    for s in walk(program.anf(fn).body):
        if isinstance(s, Eq) and (s.prim.startswith("numpy.") or s.prim == "matmul"):
            return True
        if isinstance(s, Eq) and s.prim == "call" and s.param not in seen and _uses_numpy(program, s.param, seen):
            return True
    return False


def read_by_key(program, fn) -> tuple | None:
    """``(parameter, key)`` for the first parameter of ``fn`` read by a string key (``d["a"]``, a record's
    field ``p.w`` reads as one too): a record, which no assumed signature holds (its keys come from a call),
    or None."""
    function = program.dupform(fn)
    eqs = [eq for eq in walk(function.body) if isinstance(eq, Eq)]
    names = {c: p for p in function.params for c in copies_of(eqs, {p})}
    for eq in eqs:
        if eq.prim == "getitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in names:
            key = eq.ins[1]
            if isinstance(key, Const) and isinstance(key.value, str):
                return names[eq.ins[0].name], key.value
    return None
