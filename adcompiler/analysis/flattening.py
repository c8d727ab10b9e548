"""Records at a fast entry, written out from an abstract value: the flattening of an argument that holds
dicts, NamedTuples, dataclasses or objects into the tuples generated code takes, and the rebuilding of
a gradient into records again (what ``trees.flatten`` and ``trees.gradient_of`` do, walking the value
and its abstract value together at every call).  For ``{"w": w, "b": b}`` the flattening is::

    def flat(v):
        if type(v) is not dict or tuple(v) != keys1:
            return None
        a0 = v["w"]
        if not (type(a0) is ndarray and a0.ndim == 1 and a0.dtype is dtype0):
            return None
        a1 = v["b"]
        ...
        return ((a0, a1),)

so the structure is described once per distinct structure (when the entry is made), and each call
pays a type test per part.  The test is sound, not complete, as ``holds.written_test`` is: when it
gives a value, ``values.describe`` of the argument equals the abstract value; when it gives None, the
entry asks the checking method.
"""

from __future__ import annotations

import sys

from . import values as V
from .holds import written_test


def written_flatten(aval: V.Aval):
    """A function of one value: ``(flattened,)``, the value with its records as tuples, if it has the
    abstract value ``aval``, else None; None (no function) where ``aval`` has a part not written out
    here.  For an ``aval`` without records the function tests the value and gives it as it is."""
    space: dict = {"describe": V.describe, "dict": dict, "len": len, "type": type, "list": list, "tuple": tuple}
    numpy = sys.modules.get("numpy")
    space["ndarray"] = getattr(numpy, "ndarray", None)
    space["float64"] = getattr(numpy, "float64", float)
    lines: list = []
    try:
        result = _flat("v", aval, space, lines, "    ", [0], 0)
    except _Unwritten:
        return None
    text = "\n".join(["def flat(v):", "    try:", *("    " + line for line in lines), f"        return ({result},)"])
    text += "\n    except (KeyError, IndexError, AttributeError, TypeError):\n        return None\n"
    return _made(text, "flat", space)


def written_rebuild(avals: list):
    """A function of a generated gradient (one cotangent, or a tuple of them for several ``avals``):
    each record argument's part a record of its keys and type again, None for a value with no
    derivative, a float's cotangent a float (``trees.gradient_of``)."""
    space: dict = {"hasattr": hasattr, "float": float, "type": type, "dict": dict}
    lines: list = []
    count = [0]
    if len(avals) == 1:
        result = _rebuilt("g", avals[0], space, lines, "    ", count)
    else:
        parts = [_rebuilt(f"g[{k}]", a, space, lines, "    ", count) for k, a in enumerate(avals)]
        result = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return _made("\n".join(["def rebuild(g):", *lines, f"    return {result}", ""]), "rebuild", space)


class _Unwritten(Exception):
    """A part of an abstract value the flattening is not written out for."""


def _fresh(count: list, base: str = "a") -> str:
    count[0] += 1
    return f"{base}{count[0]}"


def _flat(v: str, aval: V.Aval, space: dict, lines: list, indent: str, count: list, depth: int) -> str:
    """Statements (into ``lines``) testing the value spelt ``v`` and the expression of it flattened."""
    if depth >= V.MAX_DEPTH:
        raise _Unwritten
    if isinstance(aval, V.Seq) and aval.keys is not None:
        return _flat_record(v, aval, space, lines, indent, count, depth)
    if isinstance(aval, V.Seq) and V.has_records(aval):
        return _flat_sequence(v, aval, space, lines, indent, count, depth)
    test = _leaf_test(v, aval, space, count)
    lines += [f"{indent}if not ({test}):", f"{indent}    return None"]
    return v


def _flat_record(v, aval, space, lines, indent, count, depth) -> str:
    cls, n = aval.cls, len(aval.keys)
    kind = _fresh(count, "cls")
    space[kind] = cls
    keys = _fresh(count, "keys")
    space[keys] = tuple(aval.keys)
    if cls is dict:  # its keys in their order (describe's, which the gradient's keys follow)
        lines += [f"{indent}if type({v}) is not dict or tuple({v}) != {keys}:", f"{indent}    return None"]
        reads = [f"{v}[{k!r}]" for k in aval.keys]
    elif hasattr(cls, "_fields"):
        lines += [f"{indent}if type({v}) is not {kind}:", f"{indent}    return None"]
        reads = [f"{v}[{i}]" for i in range(n)]
    elif hasattr(cls, "__dataclass_fields__"):
        lines += [f"{indent}if type({v}) is not {kind}:", f"{indent}    return None"]
        reads = [f"{v}.{k}" for k in aval.keys]
    else:  # an object: its attributes, all of them (as describe reads them)
        attributes = _fresh(count, "d")
        lines += [
            f"{indent}if type({v}) is not {kind}:",
            f"{indent}    return None",
            f"{indent}{attributes} = {v}.__dict__",
        ]
        lines += [f"{indent}if tuple({attributes}) != {keys}:", f"{indent}    return None"]
        reads = [f"{attributes}[{k!r}]" for k in aval.keys]
    parts = []
    for read, item in zip(reads, aval.items):
        name = _fresh(count)
        lines.append(f"{indent}{name} = {read}")
        parts.append(_flat(name, item, space, lines, indent, count, depth + 1))
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _flat_sequence(v, aval, space, lines, indent, count, depth) -> str:
    kind = aval.kind
    if kind not in ("list", "tuple"):
        raise _Unwritten
    if aval.items is not None:
        lines += [f"{indent}if type({v}) is not {kind} or len({v}) != {len(aval.items)}:", f"{indent}    return None"]
        parts = []
        for k, item in enumerate(aval.items):
            name = _fresh(count)
            lines.append(f"{indent}{name} = {v}[{k}]")
            parts.append(_flat(name, item, space, lines, indent, count, depth + 1))
        closing = "," if kind == "tuple" and len(parts) == 1 else ""
        return ("[" if kind == "list" else "(") + ", ".join(parts) + closing + ("]" if kind == "list" else ")")
    out, element = _fresh(count, "out"), _fresh(count, "e")
    lines += [f"{indent}if type({v}) is not {kind} or not {v}:", f"{indent}    return None", f"{indent}{out} = []"]
    lines.append(f"{indent}for {element} in {v}:")
    body: list = []
    flat = _flat(element, aval.elem, space, body, indent + "    ", count, depth + 1)
    lines += body + [f"{indent}    {out}.append({flat})"]
    return out if kind == "list" else f"tuple({out})"


def _leaf_test(v: str, aval: V.Aval, space: dict, count: list) -> str:
    """The test that the value spelt ``v`` (no record in it) has the abstract value ``aval``."""
    if aval == V.FLOAT:
        return f"type({v}) is float or type({v}) is float64"
    if aval == V.INT:
        return f"type({v}) is int"
    if isinstance(aval, V.Arr) and aval.ndim is not None and aval.dtype is not None and space["ndarray"] is not None:
        dtype = _fresh(count, "dtype")
        space[dtype] = sys.modules["numpy"].dtype(aval.dtype)
        return f"type({v}) is ndarray and {v}.ndim == {aval.ndim} and {v}.dtype is {dtype}"
    known = _fresh(count, "aval")
    space[known] = aval
    holds = written_test(aval) if isinstance(aval, V.Seq) else None
    if holds is not None:
        name = _fresh(count, "holds")
        space[name] = holds
        return f"{name}({v}) or describe({v}) == {known}"
    return f"describe({v}) == {known}"


def _rebuilt(g: str, aval: V.Aval, space: dict, lines: list, indent: str, count: list) -> str:
    """Statements (into ``lines``) and the expression of the gradient spelt ``g`` rebuilt for ``aval``."""
    if isinstance(aval, V.Static) or _integral(aval):
        return "None"
    if aval == V.FLOAT:
        name = _fresh(count, "x")
        lines.append(f"{indent}{name} = {g}")
        return f"({name} if type({name}) is float or not hasattr({name}, 'ndim') or {name}.ndim else float({name}))"
    if not isinstance(aval, V.Seq) or not _changes(aval):
        return g
    value = _fresh(count, "r")
    lines.append(f"{indent}{value} = {g}")
    if aval.items is None:  # a list of unknown length: each element rebuilt by a function of its own
        element = _fresh(count, "each")
        inner: list = []
        made = _rebuilt("e", aval.elem, space, inner, "    ", count)
        space[element] = _made("\n".join([f"def {element}(e):", *inner, f"    return {made}", ""]), element, space)
        listed = f"[{element}(e) for e in {value}]"
        return listed if aval.kind == "list" else f"tuple({listed})"
    parts = [_rebuilt(f"{value}[{k}]", item, space, lines, indent, count) for k, item in enumerate(aval.items)]
    if aval.keys is None:
        closing = "," if aval.kind == "tuple" and len(parts) == 1 else ""
        return (
            ("[" if aval.kind == "list" else "(") + ", ".join(parts) + closing + ("]" if aval.kind == "list" else ")")
        )
    kind = _fresh(count, "cls")
    space[kind] = aval.cls
    if aval.cls is dict:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(aval.keys, parts)) + "}"
    if hasattr(aval.cls, "_fields"):
        return f"{kind}({', '.join(parts)})"
    if hasattr(aval.cls, "__dataclass_fields__"):
        return f"{kind}({', '.join(f'{k}={p}' for k, p in zip(aval.keys, parts))})"
    obj = _fresh(count, "obj")  # an object of a user class: its attributes set, its __init__ not run
    lines.append(f"{indent}{obj} = {kind}.__new__({kind})")
    lines.append(f"{indent}{obj}.__dict__.update({{{', '.join(f'{k!r}: {p}' for k, p in zip(aval.keys, parts))}}})")
    return obj


def _changes(aval: V.Seq) -> bool:
    """Whether rebuilding a derivative of this abstract value changes anything (records, values with no
    derivative, floats)."""
    parts = aval.items if aval.items is not None else (aval.elem,)
    if aval.keys is not None:
        return True
    return any(
        isinstance(a, V.Static) or _integral(a) or a == V.FLOAT or isinstance(a, V.Seq) and _changes(a) for a in parts
    )


def _integral(a) -> bool:
    if not isinstance(a, (V.Num, V.Arr)) or a.dtype is None:
        return False
    return a.dtype in ("int", "bool") or a.dtype.startswith(("int", "uint", "bool"))


def _made(text: str, name: str, space: dict):
    """The function ``name`` defined by ``text`` (written here), with its text for a reader to see."""
    exec(compile(text, f"<adcompiler {name} of records>", "exec"), space)  # noqa: S102 (text written here)
    fn = space[name]
    fn.text = text
    return fn
