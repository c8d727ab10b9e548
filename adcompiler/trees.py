"""Records at the API boundary: a call's dicts, NamedTuples and dataclasses become the tuples that
generated code holds (items in key order), and the results become records of the same types again.

Generated code never sees a dict: the analysis knows each record's keys from its abstract value
(``values.record``) and reads ``params["W"]`` or ``p.a`` at the key's position, so the code for a
signature is the code for tuples.  Gradients, tangents and cotangents of a record are records of the
same keys and type, as JAX and autograd give them.
"""

from __future__ import annotations

import dataclasses

from .analysis import values as V
from .fields import record_fields


def flatten(value, aval):
    """``value`` with every record in it (where ``aval`` says there is one) as the tuple of its items;
    ``aval`` may be a tuple of abstract values (a function's several outputs)."""
    if isinstance(aval, tuple):
        return tuple(flatten(v, a) for v, a in zip(value, aval))
    if not (isinstance(aval, V.Seq) and V.has_records(aval)):
        return value
    if aval.keys is not None:
        fields = record_fields(value)
        if fields is None or tuple(fields) != aval.keys:
            keys = tuple(fields) if fields is not None else type(value).__name__
            raise ValueError(f"expected a record with the keys {aval.keys}, not {keys}")
        return tuple(flatten(v, a) for v, a in zip(fields.values(), aval.items))
    items = aval.items if aval.items is not None else (aval.elem,) * len(value)
    out = [flatten(v, a) for v, a in zip(value, items)]
    return out if isinstance(value, list) else tuple(out)


def unflatten(value, aval, derivative=False):
    """The inverse of ``flatten``: tuples where ``aval`` has records made records of its keys and type
    again (a dict, the NamedTuple, the dataclass).  ``aval`` may be a tuple of abstract values (a
    function's several outputs).  A ``derivative`` of a value with none (None, a string) is None."""
    if isinstance(aval, tuple):
        return tuple(unflatten(v, a, derivative) for v, a in zip(value, aval))
    if derivative and isinstance(aval, V.Static):
        return None
    if not (isinstance(aval, V.Seq) and converts((aval,), derivative)) or value is None:
        return value
    items = aval.items if aval.items is not None else (aval.elem,) * len(value)
    out = [unflatten(v, a, derivative) for v, a in zip(value, items)]
    if aval.keys is None:
        return out if isinstance(value, list) else tuple(out)
    return make(aval.cls, aval.keys, out)


def make(cls: type, keys: tuple, items):
    """A record of type ``cls`` (dict, a NamedTuple, a dataclass) with these items for these keys."""
    if cls is dict:
        return dict(zip(keys, items))
    if hasattr(cls, "_fields"):
        return cls(*items)
    if dataclasses.is_dataclass(cls):
        return cls(**dict(zip(keys, items)))
    obj = cls.__new__(cls)  # an instance of a user class: its attributes set, its __init__ not run
    obj.__dict__.update(zip(keys, items))
    return obj


def fields(value) -> dict | None:
    """A record's items by key (None for anything else)."""
    return record_fields(value)


def flatten_given(value, aval, where: str):
    """A tangent or cotangent given by the user, records as tuples; a ValueError that says ``where``
    when its structure is not its value's."""
    try:
        return flatten(value, aval)
    except (ValueError, TypeError, AttributeError) as e:
        raise ValueError(f"{where} does not match its value: {e}") from None


def unflatten_each(values, avals, derivative=False) -> tuple:
    """``unflatten`` of each value with its abstract value."""
    return tuple(unflatten(v, a, derivative) for v, a in zip(values, avals))


def gradient_of(g, avals: list):
    """A gradient (one cotangent, or a tuple of them) with each record argument's part a record of its
    keys and type again, and None for an argument with no derivative."""
    return unflatten(g, avals[0], True) if len(avals) == 1 else unflatten_each(g, avals, True)


def plain(value):
    """``value`` with every record in it as the tuple of its items, by its own structure."""
    return flatten(value, V.describe(value))


def any_records(avals) -> bool:
    """Whether any of these abstract values holds a record."""
    return any(V.has_records(a) for a in avals)


def converts(avals, derivative=True) -> bool:
    """Whether a result for these abstract values is converted at the boundary: it holds a record, or,
    for a derivative, a value with none (None, a string: its derivative is None, not a zero)."""
    return any(V.has_records(a) or derivative and _static(a) for a in avals)


def _static(a) -> bool:
    if isinstance(a, V.Seq):
        return any(_static(i) for i in (a.items if a.items is not None else (a.elem,)))
    return isinstance(a, V.Static)
