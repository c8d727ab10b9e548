"""Abstract values: what a value is, known from the arguments' full structure, never guessed.

A specialisation of the generated code is keyed on the *abstract signature* of
its arguments (``signature``): for every leaf of nested lists and tuples its
kind (a Python or NumPy number with its dtype, a NumPy array with its ndim and
dtype), the length of every tuple, and which arguments share a list (the same
object passed twice).  A list is described by the join of *all* its elements,
each one looked at, so "uniform" is a fact, not an assumption.

The lattice::

    Num(dtype)        a Python number, or a NumPy scalar (dtype "float32", ...)
    Arr(ndim, dtype)  a NumPy array (None: not known)
    Numeric(dtype)    a number or an array, not known which (a join of the two)
    Seq(kind, items, elem)  a list or tuple: the value at each position when
                      known (tuples), and the join of every element; a record
                      (dict, NamedTuple, dataclass) is a tuple with its keys
    Static            a value with no derivative: None, a slice, a string, a range
    TOP               anything (a join of a list and a number); BOTTOM: no value yet

Passes ask these; where one says ``Numeric`` the emitted code is the generic
one, decided at run time.  Everything here is plain data: it imports nothing
but the standard library, and NumPy only when a value is a NumPy value.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from operator import countOf

from ..front.fields import record_fields

MAX_ITEMS = 16  # a longer tuple is described by its elements' join (its length is then not part of the key)
MAX_DEPTH = 6  # deeper nesting (recursive structures) is widened to TOP


class Aval:
    """Base of the abstract values."""

    def __or__(self, other: "Aval") -> "Aval":
        return join(self, other)


@dataclass(frozen=True)
class Num(Aval):
    dtype: str = "float"  # "float" (Python float or NumPy float64), "int", "bool", or a NumPy scalar's dtype


@dataclass(frozen=True)
class Arr(Aval):
    ndim: int | None = None
    dtype: str | None = None


@dataclass(frozen=True)
class Numeric(Aval):
    """A number or an array: code for it must be right for both."""

    dtype: str | None = None


@dataclass(frozen=True)
class Seq(Aval):
    kind: str | None  # "list", "tuple", or None (either)
    items: tuple | None  # the value at each position, when the length is known
    elem: Aval  # the join of every element (BOTTOM for an empty sequence)
    keys: tuple | None = None  # a record's keys (a dict's, a NamedTuple's or dataclass's fields), one per item
    cls: type | None = None  # a record's type: dict, the NamedTuple or the dataclass (see ``records``)


@dataclass(frozen=True)
class Static(Aval):
    """None, a slice, a string, a range, a function: no derivative, never an operand of arithmetic."""

    what: str = ""  # "none", "slice", "ellipsis", "range", "str", "dtype", or "" (one of these)
    bounds: tuple | None = None  # a slice's (start, stop, step) where they are constants
    dtype: str | None = None  # a dtype's name (``x.dtype`` of an array whose dtype is known)


def is_slice(a: Aval) -> bool:
    return isinstance(a, Static) and a.what == "slice"


@dataclass(frozen=True)
class Top(Aval):
    """Could be anything: code that reads it as a number or a list is refused with its location."""


@dataclass(frozen=True)
class Bottom(Aval):
    """No value yet (where a fixed point starts)."""


TOP, BOTTOM, STATIC = Top(), Bottom(), Static()
NONE, SLICE = Static("none"), Static("slice")
FLOAT, INT, BOOL = Num("float"), Num("int"), Num("bool")
NUMERIC = Numeric()


def seq(kind: str | None, items, keys: tuple | None = None, cls: type | None = None, exact: bool = False) -> Seq:
    """A sequence of known items (widened to its elements' join past MAX_ITEMS unless ``exact``: a tuple
    the code builds, whose length its text fixes), or a record."""
    items = tuple(items)
    elem = BOTTOM
    for a in items:
        elem = join(elem, a)
    return Seq(kind, items if len(items) <= MAX_ITEMS or keys or exact else None, elem, keys, cls)


def record(items, keys: tuple, cls: type) -> Seq:
    """A record: a dict (``cls`` dict), a NamedTuple or a dataclass, whose items are known by key (never
    widened: its keys are how code reads it).  Generated code holds it as the tuple of its items."""
    return seq("tuple", items, tuple(keys), cls)


def is_record(a: Aval) -> bool:
    return isinstance(a, Seq) and a.keys is not None


def has_records(a: Aval) -> bool:
    """Whether a value holds a record anywhere (the API then converts it at the boundary)."""
    if not isinstance(a, Seq):
        return False
    return a.keys is not None or any(has_records(i) for i in (a.items if a.items is not None else (a.elem,)))


def uniform(kind: str | None, elem: Aval) -> Seq:
    """A sequence of unknown length, every element at most ``elem``."""
    return Seq(kind, None, elem)


# ---- questions passes ask ---------------------------------------------------------------------


def is_array(a: Aval) -> bool:
    return isinstance(a, Arr)


def is_numeric(a: Aval) -> bool:
    """A number or an array or one of the two (what arithmetic takes)."""
    return isinstance(a, (Num, Arr, Numeric))


def maybe_array(a: Aval) -> bool:
    """Whether the value may be an array (code for it must not assume a number)."""
    return isinstance(a, (Arr, Numeric, Top))


def is_seq(a: Aval) -> bool:
    return isinstance(a, Seq)


def item(a: Aval, index) -> Aval:
    """The element of a sequence at ``index`` (an int constant, or None for an index known only at run time)."""
    if not isinstance(a, Seq):
        return TOP
    if isinstance(index, str):  # a record's field, by key (``records`` checks the access is Python's)
        return a.items[a.keys.index(index)] if a.keys is not None and index in a.keys else TOP
    if isinstance(index, int) and not isinstance(index, bool) and a.items is not None:
        if -len(a.items) <= index < len(a.items):
            return a.items[index]
        return BOTTOM  # an IndexError at run time: no value
    return a.elem  # BOTTOM for a list nothing was put in yet: the fixed point comes back to it


def depth(a: Aval) -> int:
    if isinstance(a, Seq):
        return 1 + max([depth(a.elem)] + [depth(i) for i in a.items or ()])
    return 0


def leaves_may_be_arrays(a: Aval) -> bool:
    """Whether any leaf of a (nested) sequence may be an array."""
    if isinstance(a, Seq):  # each position where they are known, else what every element is at most
        return any(leaves_may_be_arrays(i) for i in (a.items if a.items is not None else (a.elem,)))
    return maybe_array(a)


def may_carry_derivative(a: Aval) -> bool:
    """Whether a value, or a leaf of a (nested) sequence, may be a float or a float array: something a
    derivative can flow through (a list of ints or of ranges cannot)."""
    if isinstance(a, Seq):
        return any(may_carry_derivative(i) for i in (a.items if a.items is not None else (a.elem,)))
    if isinstance(a, Num):
        return a.dtype not in ("int", "bool")
    if isinstance(a, (Arr, Numeric)):
        return a.dtype is None or not str(a.dtype).startswith(("int", "uint", "bool"))
    return isinstance(a, Top)


# ---- join ---------------------------------------------------------------------------------------


def join(a: Aval, b: Aval) -> Aval:
    """The least abstract value both ``a`` and ``b`` are."""
    if a == b or isinstance(b, Bottom):
        return a
    if isinstance(a, Bottom):
        return b
    if isinstance(a, Top) or isinstance(b, Top):
        return TOP
    if isinstance(a, Num) and isinstance(b, Num):
        return Num(_join_dtype(a.dtype, b.dtype) or "float")
    if isinstance(a, Arr) and isinstance(b, Arr):
        return Arr(a.ndim if a.ndim == b.ndim else None, a.dtype if a.dtype == b.dtype else None)
    if is_numeric(a) and is_numeric(b):
        return Numeric(_join_dtype(getattr(a, "dtype", None), getattr(b, "dtype", None)))
    if isinstance(a, Seq) and isinstance(b, Arr) or isinstance(a, Arr) and isinstance(b, Seq):
        return _read_as_array(a if isinstance(a, Seq) else b, b if isinstance(a, Seq) else a)
    if isinstance(a, Seq) and isinstance(b, Seq):
        if (a.keys, a.cls) != (b.keys, b.cls):  # two records of other keys, or a record and a tuple
            return TOP
        kind = a.kind if a.kind == b.kind else None
        items = None
        if a.items is not None and b.items is not None and len(a.items) == len(b.items):
            items = tuple(join(x, y) for x, y in zip(a.items, b.items))
        out = Seq(kind, items, join(a.elem, b.elem), a.keys if items is not None else None, a.cls)
        return out if depth(out) <= MAX_DEPTH else Seq(kind, None, TOP)
    if isinstance(a, Static) and isinstance(b, Static):
        if a.what == b.what == "dtype":  # (x.dtype of two arrays: the one dtype, or a dtype not known)
            return a if a == b else Static("dtype")
        return Static(a.what) if a.what == b.what else STATIC  # two slices, or two kinds of static value
    return TOP


def _read_as_array(s: Seq, a: Arr) -> Aval:
    """A list of numbers in a place that also holds arrays (``h = x`` then ``h = np.tanh(...)``): NumPy
    reads it as an array, and so does the derivative (its cotangent reaches the list's shadow)."""
    nd, leaf = 0, s
    while isinstance(leaf, Seq):
        nd, leaf = nd + 1, leaf.elem
    if not isinstance(leaf, (Num, Arr)):
        return TOP
    if isinstance(leaf, Arr):
        nd = None if leaf.ndim is None else nd + leaf.ndim
    return Arr(nd if nd == a.ndim else None, a.dtype)


def _join_dtype(a, b):
    if a == b:
        return a
    if {a, b} <= {"int", "bool"}:  # (True + 2 is an int)
        return "int"
    if {a, b} <= {"float", "int", "bool", "float64"}:
        return "float"
    return None


# ---- describing run-time values -------------------------------------------------------------------

_FLAT = {}  # frozenset of element types -> the Seq for a list of only those (the common case, no walk)


def describe(value, _depth: int = 0) -> Aval:
    """The abstract value of a run-time value: every element of a list looked at (at C speed for flat lists
    of Python numbers), tuples item by item.  Equal structures give one (cached) object: quick to compare."""
    t = type(value)
    if t is float:
        return FLOAT
    if t is int:
        return INT
    if t is bool:
        return BOOL
    if t is list or t is tuple:
        kind = "list" if t is list else "tuple"
        if _depth >= MAX_DEPTH:
            return Seq(kind, None, TOP)
        if t is list or len(value) > MAX_ITEMS:
            if value and type(value[0]) is float and countOf(map(type, value), float) == len(value):
                types = _FLOAT_TYPES  # the common case, a fifth quicker than collecting the types
            else:
                types = frozenset(map(type, value))
            if types <= _NUMBER_TYPES:  # a flat list of Python numbers: no walk in Python
                key = (kind, types)
                found = _FLAT.get(key)
                if found is None:
                    elem = BOTTOM
                    for e in types:
                        elem = join(elem, describe(e()))
                    found = _FLAT.setdefault(key, Seq(kind, None, elem))  # the first thread's, if two race
                return found
            items = [describe(e, _depth + 1) for e in value]
            first = items[0] if items else BOTTOM
            if all(i is first for i in items):  # rows of one kind (the same cached object): no join
                return _cached((kind, "uniform", id(first)), (first,), lambda: Seq(kind, None, first))
            if len(items) <= MAX_ITEMS:  # [W, b]: a list used as a record keeps each position's value
                return _cached((kind, tuple(map(id, items))), items, lambda: seq(kind, items))
            elem = BOTTOM
            for i in items:
                elem = join(elem, i)
            return Seq(kind, None, elem)
        items = [describe(e, _depth + 1) for e in value]
        return _cached((kind, tuple(map(id, items))), items, lambda: seq(kind, items))
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if t is numpy.ndarray:
            key = (value.ndim, value.dtype.char)
            found = _ARRAYS.get(key)
            if found is None:
                found = _ARRAYS.setdefault(key, Arr(value.ndim, value.dtype.name))
            return found
        if isinstance(value, numpy.generic) and isinstance(value, numpy.number | numpy.bool_):
            return Num("float" if t is numpy.float64 else value.dtype.name)
    if hasattr(t, "__array_namespace__") or t.__module__.startswith("dask.array"):  # arrays="any": arrays_backend
        return Arr(value.ndim, getattr(value.dtype, "name", None) or str(value.dtype).rpartition(".")[2])
    if t is dict or hasattr(t, "_fields") and isinstance(value, tuple) or hasattr(value, "__dict__"):
        fields = record_fields(value)
        if fields is None or _depth >= MAX_DEPTH:
            return TOP
        items = [describe(v, _depth + 1) for v in fields.values()]
        keys = tuple(fields)
        return _cached(("record", t, keys, tuple(map(id, items))), items, lambda: record(items, keys, t))
    if value is None:
        return NONE
    if value is Ellipsis:
        return Static("ellipsis")
    if t in (slice, str, range):
        return Static(t.__name__)
    return TOP


_ARRAYS: dict = {}  # (ndim, dtype character) -> its Arr
_SEQS: dict = {}  # (kind, ids of the items' abstract values) -> (the Seq, the items, kept alive)


def _cached(key, items, make) -> Aval:
    """The Seq for ``key``, made once: items are cached objects, so their ids name their structure.
    ``describe`` runs in the entries, outside any lock: ``setdefault`` keeps the first of two threads'
    objects, so equal structures stay one object (their ids name them in later keys)."""
    found = _SEQS.get(key)
    if found is None:
        found = _SEQS.setdefault(key, (make(), tuple(items)))
    return found[0]


_NUMBER_TYPES = frozenset((float, int, bool))
_FLOAT_TYPES = frozenset({float})


@dataclass(frozen=True)
class Sig:
    """The abstract signature of a call: one abstract value per argument, and which arguments may be
    (or share) the same list: ``alias[i]`` is the first argument in ``i``'s class.  ``lengths``: for a
    target that holds short rows as numbers (Numba), the length of each argument's rows where the
    code is built for it (None elsewhere; ``()``: none), see ``lower.small_arrays``."""

    avals: tuple
    alias: tuple = ()
    lengths: tuple = ()
    repeated: tuple = ()  # the arguments that reach one list twice (rows = [row, row], [[0.0] * m] * n)

    def __post_init__(self):
        if not self.alias:
            object.__setattr__(self, "alias", tuple(range(len(self.avals))))

    def aliased(self, i: int) -> bool:
        return any(j != i and self.alias[j] == self.alias[i] for j in range(len(self.alias)))


def entry_testable(a: Aval) -> bool:
    """Whether a fast entry (``adcompiler.api.entries``) can test an argument for this abstract value: a
    float by its type, a float array by its type, ndim and dtype, a list or tuple whole."""
    if isinstance(a, Seq):
        return not has_records(a)  # a record is converted to a tuple at the boundary (the checking path)
    return a == FLOAT or isinstance(a, Arr) and (a.dtype or "").startswith("float")


def signature(args) -> Sig:
    """The abstract signature of run-time arguments (see ``Sig``)."""
    avals = tuple(describe(a) for a in args)
    repeated = tuple(i for i, (v, a) in enumerate(zip(args, avals)) if nested_lists(a) and repeats_a_list(v, a))
    if sum(1 for a in avals if holds_list(a)) < 2:
        return Sig(avals, repeated=repeated)
    return Sig(avals, alias_pattern(args, avals), repeated=repeated)


def nested_lists(a: Aval) -> bool:
    """Whether a value of this abstract value may hold a list inside a list or tuple (one row twice possible)."""
    return isinstance(a, Seq) and any(
        isinstance(i, Seq) and (i.kind != "tuple" or nested_lists(i)) for i in (a.items or ()) + (a.elem,)
    )


def repeats_a_list(value, aval) -> bool:
    """Whether ``value`` reaches one list twice (``[row, row]``: a change through one is a change of the other)."""
    ids: set = set()
    count = _count_lists(value, aval, ids)
    return count != len(ids)


def _count_lists(value, aval, ids: set) -> int:
    """The lists a nested list/tuple structure reaches, counted with repeats (their ids added to ``ids``)."""
    count = 0
    if type(value) is list:
        count += 1
        if id(value) in ids:
            return count  # (its inside counted once)
        ids.add(id(value))
    if aval.keys is not None:
        value = tuple(record_fields(value).values())
    if aval.items is not None:
        for e, a in zip(value, aval.items):
            if isinstance(a, Seq):
                count += _count_lists(e, a, ids)
    elif isinstance(aval.elem, Seq):
        for e in value:
            count += _count_lists(e, aval.elem, ids)
    return count


def alias_pattern(args, avals) -> tuple:
    """For each argument, the first argument that reaches a list it reaches (itself if none): a list's
    abstract value says where it holds lists, so a flat list is looked at as one object."""
    holders = [i for i, a in enumerate(avals) if holds_list(a)]
    alias = list(range(len(args)))
    if len(holders) < 2:
        return tuple(alias)
    seen: dict = {}  # id of a list -> the first argument reaching it
    for i in holders:
        for ident in _list_ids(args[i], avals[i]):
            j = seen.setdefault(ident, i)
            if alias[j] != alias[i]:
                old, new = alias[i], alias[j]
                alias = [new if a == old else a for a in alias]
    return tuple(alias)


def flat(a: Aval) -> bool:
    """Whether a sequence of this abstract value holds numbers only (no list, tuple or array)."""
    return isinstance(a, Seq) and all(isinstance(i, Num) for i in (a.items or (a.elem,)) if i is not BOTTOM)


def holds_list(a: Aval) -> bool:
    """Whether a value of this abstract value is a list or a tuple reaching one (what aliasing is about)."""
    if not isinstance(a, Seq):
        return False
    if a.kind != "tuple":
        return True
    return any(holds_list(i) for i in (a.items or (a.elem,)))


def _list_ids(value, aval, out=None) -> set:
    """The ids of every list reachable in a nested list/tuple structure (tuples are not changed in place)."""
    out = set() if out is None else out
    if type(value) is list:
        if id(value) in out:
            return out
        out.add(id(value))
    if aval.keys is not None:  # a record: its items in key order
        value = tuple(record_fields(value).values())
    if aval.items is not None:
        for e, a in zip(value, aval.items):
            if isinstance(a, Seq):
                _list_ids(e, a, out)
    elif isinstance(aval.elem, Seq):
        for e in value:
            _list_ids(e, aval.elem, out)
    return out
