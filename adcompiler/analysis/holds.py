"""A quick test that a run-time value has one abstract value, written out from that value.

A fast entry tests each list or tuple argument against the abstract value its code was made for;
``values.describe`` finds the argument's abstract value by looking at every element (a call per
element, a few microseconds for the paper's network ``[(W1, b1), (W2, b2)]``, a tenth of its
gradient's time).  Where the abstract value is made of lists and tuples of arrays and of lists of
floats (rows of a matrix), the test is written out instead::

    def holds(v):
        if type(v) is not list or not v:
            return False
        for e0 in v:
            if type(e0) is not tuple or len(e0) != 2:
                return False
            if not (type(e0[0]) is ndarray and e0[0].ndim == 2 and e0[0].dtype is dtype_float64):
                return False
            ...
        return True

which says the same of the value in a sixth of the time.

The test is sound, not complete: when it says yes, ``describe`` would give an abstract value equal
to the one it was written from; when it says no, the entry asks ``describe`` (an array of a
byte-swapped dtype, a list of NumPy floats: rare, slower, still right).  Where the abstract value
holds anything else (flat lists of numbers, which ``describe`` reads at C speed, records, unknown
parts), there is no written test and the entry calls ``describe``.

Two more tests are written out the same way, for a value already known to have the abstract value:
``written_ids`` (the ids of the lists it reaches, which tell whether two arguments share a list, where
``values.alias_pattern`` walks them with a call per list) and ``written_tangent_test`` (that a
tangent has the value's structure, where ``entries.tangent_mismatch`` makes a call per row).
"""

from __future__ import annotations

from operator import countOf

from . import values as V

_KINDS = "fciub"  # dtype kinds whose character names one dtype (describe keys arrays by it)


def written_test(aval: V.Aval):
    """A function of one value, true only if ``describe`` gives it an abstract value equal to ``aval``;
    None where ``aval`` is not made of lists and tuples of arrays (``describe`` is then as quick)."""
    if not (isinstance(aval, V.Seq) and _writable(aval, 0) and _as_described(aval) == aval):
        return None
    space: dict = {}
    text = "\n".join(["def holds(v):", *_lines("v", aval, space, "    ", [0]), "    return True", ""])
    exec(compile(text, "<adcompiler structure test>", "exec"), space)  # noqa: S102 (text written here)
    holds = space["holds"]
    holds.text = text  # for a reader (and a test) to see
    return holds


def written_ids(aval: V.Aval):
    """For a value of abstract value ``aval``: a function giving the set of the ids of the lists it
    reaches, the set ``values._list_ids`` gives; None where ``aval`` holds records or unknown parts."""
    if not _walkable(aval, 0):
        return None
    space = {"set": set, "id": id, "map": map}
    lines = ["def ids(v):", "    out = set()", "    add = out.add", *_id_lines("v", aval, "    ", [0])]
    return _made("\n".join([*lines, "    return out", ""]), "ids", space)


def written_tangent_test(aval: V.Aval):
    """For a value of abstract value ``aval``: a function of the value and a tangent, true only where
    ``entries.tangent_mismatch`` finds nothing wrong (lists and tuples of the value's lengths, arrays of
    its shapes); None where ``aval`` holds records or unknown parts.  Where it says no, the entry
    asks the checking method, which says what is wrong."""
    if not (isinstance(aval, V.Seq) and _walkable(aval, 0)):
        return None
    space = {"list": list, "tuple": tuple, "len": len, "zip": zip, "type": type}
    lines = _tangent_lines("v", "t", aval, space, "    ", [0])
    return _made("\n".join(["def matches(v, t):", *lines, "    return True", ""]), "matches", space)


def _made(text: str, name: str, space: dict):
    """The function ``name`` defined by ``text`` (written here), with its text for a reader to see."""
    exec(compile(text, f"<adcompiler {name} test>", "exec"), space)  # noqa: S102 (text written here)
    fn = space[name]
    fn.text = text
    return fn


def _walkable(aval: V.Aval, depth: int) -> bool:
    """Whether ``aval`` is made of lists and tuples of numbers and arrays only (no record, no unknown
    part), of a depth ``describe`` gives."""
    if isinstance(aval, (V.Arr, V.Num)):
        return True
    if not isinstance(aval, V.Seq) or aval.keys is not None or aval.kind not in ("list", "tuple"):
        return False
    if depth + 1 >= V.MAX_DEPTH:
        return False
    parts = aval.items if aval.items is not None else (aval.elem,)
    return all(a is V.BOTTOM or _walkable(a, depth + 1) for a in parts)


def _id_lines(v: str, aval: V.Aval, indent: str, count: list) -> list:
    """The statements adding to ``out`` the ids of the lists the value spelt ``v`` reaches."""
    if not V.holds_list(aval):
        return []
    out = [f"{indent}add(id({v}))"] if aval.kind == "list" else []
    if aval.items is not None:
        for k, a in enumerate(aval.items):
            out += _id_lines(f"{v}[{k}]", a, indent, count)
        return out
    elem = aval.elem
    if isinstance(elem, V.Seq) and elem.kind == "list" and not _reaches_list(elem):
        return out + [f"{indent}out.update(map(id, {v}))"]  # rows: their ids at C speed
    if not V.holds_list(elem):
        return out
    e = f"e{count[0]}"
    count[0] += 1
    return out + [f"{indent}for {e} in {v}:", *_id_lines(e, elem, indent + "    ", count)]


def _reaches_list(aval: V.Seq) -> bool:
    """Whether an element of a sequence of this abstract value reaches a list."""
    return any(V.holds_list(a) for a in (aval.items if aval.items is not None else (aval.elem,)))


def _tangent_lines(v: str, t: str, aval: V.Aval, space: dict, indent: str, count: list) -> list:
    """The statements that return False unless tangent ``t`` has the structure of value ``v``."""
    if isinstance(aval, V.Arr):
        space.setdefault("ndarray", type(_numpy().empty(0)))
        return [f"{indent}if type({t}) is not ndarray or {t}.shape != {v}.shape:", f"{indent}    return False"]
    if not isinstance(aval, V.Seq):  # a number's tangent: anything but a list or tuple (vector tangents)
        return [f"{indent}if type({t}) is list or type({t}) is tuple:", f"{indent}    return False"]
    if aval.items is not None:
        out = [f"{indent}if type({t}) is not list and type({t}) is not tuple or len({t}) != {len(aval.items)}:"]
        out.append(f"{indent}    return False")
        for k, a in enumerate(aval.items):
            out += _tangent_lines(f"{v}[{k}]", f"{t}[{k}]", a, space, indent, count)
        return out
    out = [f"{indent}if type({t}) is not list and type({t}) is not tuple or len({t}) != len({v}):"]
    out.append(f"{indent}    return False")
    if not isinstance(aval.elem, (V.Seq, V.Arr)):  # numbers: the length is enough
        return out
    a, b = f"a{count[0]}", f"b{count[0]}"
    count[0] += 1
    out.append(f"{indent}for {a}, {b} in zip({v}, {t}):")
    return out + _tangent_lines(a, b, aval.elem, space, indent + "    ", count)


def _writable(aval: V.Aval, depth: int) -> bool:
    """Whether ``aval`` is made of lists and tuples of NumPy arrays of dtypes named by their character,
    shallower than ``describe`` looks (no records, no numbers, no unknown part)."""
    if isinstance(aval, V.Arr):
        return isinstance(aval.ndim, int) and aval.dtype is not None and _dtype(aval.dtype) is not None
    if not isinstance(aval, V.Seq) or aval.keys is not None or depth + 1 >= V.MAX_DEPTH:
        return False
    if aval.kind == "tuple":
        return (
            aval.items is not None
            and len(aval.items) <= V.MAX_ITEMS
            and all(_writable(a, depth + 1) for a in aval.items)
        )
    if aval.kind != "list":
        return False
    if aval.items is None and aval.elem == V.FLOAT:  # a list of floats: their types counted at C speed
        return True
    if aval.items is not None:  # a list used as a record ([W, b]): describe keeps positions only for unequal items
        distinct = len(set(aval.items)) > 1
        return distinct and len(aval.items) <= V.MAX_ITEMS and all(_writable(a, depth + 1) for a in aval.items)
    return _writable(aval.elem, depth + 1)


def _as_described(aval: V.Aval) -> V.Aval:
    """``aval`` made again the way ``describe`` makes it from its parts (a signature's abstract values
    are ``describe``'s, but the test is only written where that is seen to hold)."""
    if isinstance(aval, V.Arr):
        return V.Arr(aval.ndim, aval.dtype)
    if not isinstance(aval, V.Seq):
        return aval
    if aval.items is not None:
        return V.seq(aval.kind, [_as_described(a) for a in aval.items])
    return V.Seq(aval.kind, None, _as_described(aval.elem))


def _lines(v: str, aval: V.Aval, space: dict, indent: str, count: list) -> list:
    """The statements that return False unless the value spelt ``v`` has abstract value ``aval``."""
    if isinstance(aval, V.Arr):
        space.setdefault("ndarray", type(_numpy().empty(0)))
        dtype = f"dtype_{aval.dtype}"
        space[dtype] = _dtype(aval.dtype)
        test = f"type({v}) is ndarray and {v}.ndim == {aval.ndim} and {v}.dtype is {dtype}"
        return [f"{indent}if not ({test}):", f"{indent}    return False"]
    if aval.items is not None:
        out = [
            f"{indent}if type({v}) is not {aval.kind} or len({v}) != {len(aval.items)}:",
            f"{indent}    return False",
        ]
        for k, a in enumerate(aval.items):
            out += _lines(f"{v}[{k}]", a, space, indent, count)
        return out
    if aval.elem == V.FLOAT:  # (describe says the same of any non-empty list of Python floats)
        space.update(countOf=countOf, float=float, list=list)
        test = f"type({v}) is not list or not {v} or countOf(map(type, {v}), float) != len({v})"
        return [f"{indent}if {test}:", f"{indent}    return False"]
    e = f"e{count[0]}"
    count[0] += 1  # a name of its own for each loop: an inner one may read the outer one's
    # a list of alike elements, none missing: an empty list's element is BOTTOM
    out = [f"{indent}if type({v}) is not list or not {v}:", f"{indent}    return False", f"{indent}for {e} in {v}:"]
    return out + _lines(e, aval.elem, space, indent + "    ", count)


def _dtype(name: str):
    """The NumPy dtype named ``name`` if its kind names it by one character, else None."""
    try:
        dtype = _numpy().dtype(name)
    except TypeError:
        return None
    return dtype if dtype.kind in _KINDS and dtype.isnative else None


def _numpy():
    import numpy

    return numpy
