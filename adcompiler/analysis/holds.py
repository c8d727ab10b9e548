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
