"""Records in generated code: an item of a dict, NamedTuple or dataclass read by key (``params["W"]``,
``p.a``) becomes a read at the key's position in the tuple generated code holds (see ``trees`` and
``lower.records``), and what Python would not do with a record is refused with its location: a dict
iterated over or indexed by position (Python gives its keys), an attribute of a dict, a NamedTuple or
dataclass indexed by a string, a key the record does not have, a record changed in place."""

from __future__ import annotations

from . import values as V
from .show import show
from ..errors import MissingKeyError, at_line
from ..ir.nodes import Const, Eq
from ..lower.dup import DUP

# what may be done with a dict or a dataclass besides reading an item by key: move it, store it, pass it
# on, take its length, list its values (``d.values()`` of an argument)
MOVES = (DUP, "read", "write", "tuple", "list", "append", "call", "len")


def resolve(e: Eq, ins: list, source) -> Eq:
    """``e`` with a record's key read as its position; refused where Python would not do the same."""
    if e.prim == "getitem" and isinstance(e.ins[1], Const) and isinstance(e.ins[1].value, str):
        return _by_key(e, ins[0], source)
    if e.prim == "list_copy" and e.param == "values" and not (V.is_record(ins[0]) and ins[0].cls is dict):
        raise at_line(source, e.line, f".values() of {show(ins[0])}", "call it on a dict")
    if e.prim == "setitem" and V.is_record(ins[0]):
        raise at_line(
            source,
            e.line,
            f"changing {show(ins[0])} in place",
            "build a new one: d2 = dict(d, W=...) in the function",
        )
    for i, a in enumerate(ins):
        if _opaque(a) and not (e.prim in MOVES or e.prim == "list_copy" and e.param == "values"):
            if e.prim == "getitem" and i == 0 and isinstance(ins[1], V.Static) and ins[1].what == "str":
                what, remedy = "an item read with a key computed at run time", "read items with constant keys: d['W']"
            elif e.prim == "getitem" and i == 0:
                what = "iterating over it or reading it by position (Python gives a dict's keys)"
                remedy = "read items by key (d['W']) or iterate over d.values()"
            elif e.prim in ("is_", "is_not"):  # node is None: a linked list or a tree of objects
                what = f"testing it with '{'is' if e.prim == 'is_' else 'is not'}' (an object that may be None)"
                remedy = (
                    "hand the function the numbers it walks (a list of the nodes' weights) or a depth to count down"
                )
            else:
                what, remedy = f"using it in {e.prim}", "read its items by key and use those"
            raise at_line(source, e.line, f"{show(a)}: {what}", remedy)
    return e


def _by_key(e: Eq, record: V.Aval, source) -> Eq:
    """``d["W"]`` or ``p.W``: the item at W's position."""
    key, attribute = e.ins[1].value, e.ins[1].text == "." + e.ins[1].value
    written = f".{key}" if attribute else f"[{key!r}]"
    if not V.is_record(record) and attribute:
        remedy = "use .T .shape .ndim .size of arrays, and the fields of NamedTuples and dataclasses"
        raise at_line(source, e.line, f"the attribute {written} of {show(record)}", remedy)
    if not V.is_record(record):
        raise at_line(source, e.line, f"the index {written} of {show(record)}", "index lists and tuples by number")
    if attribute and record.cls is dict:
        raise at_line(source, e.line, f"the attribute {written} of a dict", f"read d[{key!r}]")
    if not attribute and record.cls is not dict:
        raise at_line(source, e.line, f"{written} of {show(record)}", f"read its field as p.{key}")
    if key not in record.keys:  # (a KeyError, as the primal raises: located)
        if attribute:
            cls = record.cls.__name__
            construct = f"reading {written} of {show(record)}, which has no such attribute (Python raises AttributeError: {key!r})"
            if hasattr(record.cls, key):  # a class attribute no name of the module reaches (methods.as_call)
                construct = (
                    f"reading {written}, an attribute of the class {cls} that the function's module does not name"
                )
                raise at_line(source, e.line, construct, f"read it as {cls}.{key} in a module that imports {cls}")
        else:
            construct = f"reading {written} of {show(record)}, which has no such key (Python raises KeyError: {key!r})"
        raise at_line(source, e.line, construct, "check its spelling", MissingKeyError)
    return Eq(e.outs, e.prim, (e.ins[0], Const(record.keys.index(key))), e.line, e.param)


def _opaque(a: V.Aval) -> bool:
    """A dict or dataclass, which Python does not iterate over or index as the tuple code holds."""
    return V.is_record(a) and not hasattr(a.cls, "_fields")
