"""Records at the API boundary: a call's dicts, NamedTuples and dataclasses become the tuples that
generated code holds (items in key order), and the results become records of the same types again.

Generated code never sees a dict: the analysis knows each record's keys from its abstract value
(``values.record``) and reads ``params["W"]`` or ``p.a`` at the key's position, so the code for a
signature is the code for tuples.  Gradients, tangents and cotangents of a record are records of the
same keys and type, as JAX and autograd give them.  A record matches another of the same keys
whatever their order (a tangent ``{"b": tb, "a": ta}`` for ``{"a": a, "b": b}``): items are read by key.

Integers have no derivative: an int, a bool, a NumPy integer or bool scalar, or an integer or bool
array inside a record, list or tuple gets None as its gradient and cotangent (as a string does),
and its tangent is zero (``None`` or ``0`` may be given for it); see ``integral``.
"""

from __future__ import annotations

import dataclasses

from ..analysis import values as V
from ..front.fields import record_fields


def flatten(value, aval):
    """``value`` with every record in it (where ``aval`` says there is one) as the tuple of its items;
    ``aval`` may be a tuple of abstract values (a function's several outputs)."""
    if isinstance(aval, tuple):
        return tuple(flatten(v, a) for v, a in zip(value, aval))
    if not (isinstance(aval, V.Seq) and V.has_records(aval)):
        return value
    if aval.keys is not None:
        fields = record_fields(value)
        if fields is None or len(fields) != len(aval.keys) or any(k not in fields for k in aval.keys):
            keys = tuple(fields) if fields is not None else type(value).__name__
            raise ValueError(f"expected a record with the keys {aval.keys}, not {keys}")
        return tuple(flatten(fields[k], a) for k, a in zip(aval.keys, aval.items))
    items = aval.items if aval.items is not None else (aval.elem,) * len(value)
    out = [flatten(v, a) for v, a in zip(value, items)]
    return out if isinstance(value, list) else tuple(out)


def unflatten(value, aval, derivative=False):
    """The inverse of ``flatten``: tuples where ``aval`` has records made records of its keys and type
    again (a dict, the NamedTuple, the dataclass).  ``aval`` may be a tuple of abstract values (a
    function's several outputs).  A ``derivative`` of a value with none (None, a string) is None."""
    if isinstance(aval, tuple):
        return tuple(unflatten(v, a, derivative) for v, a in zip(value, aval))
    if derivative and (isinstance(aval, V.Static) or integral(aval)):
        return None
    if derivative and aval == V.FLOAT and type(value) is not float and hasattr(value, "dtype") and value.ndim == 0:
        return float(value)  # a float's cotangent is a float (where a float32 array's reached it)
    if not isinstance(aval, V.Seq) or value is None:
        return value
    if not converts((aval,), derivative) and not (derivative and any(x == V.FLOAT for x, _ in _leaf_avals(aval, True))):
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
    for a derivative, a value with none (None, a string, an integer in a list: its derivative is
    None, not a zero), or floats in lists beside values of a narrower float type (``narrow_floats``)."""
    return any(V.has_records(a) or derivative and _static(a) for a in avals) or derivative and narrow_floats(avals)


def narrow_floats(avals) -> bool:
    """Whether Python floats inside lists, tuples or records meet NumPy values of a narrower float type
    (float32): their cotangents, added up from those, are made floats at the boundary."""
    leaves = [x for a in avals for x in _leaf_avals(a, False)]
    nested = any(x == V.FLOAT and inside for x, inside in leaves)
    return nested and any(x.dtype in ("float32", "float16") for x, _ in leaves if isinstance(x, (V.Num, V.Arr)))


def _leaf_avals(a, inside: bool):
    """(abstract value, whether inside a sequence) of each leaf of ``a``."""
    if isinstance(a, V.Seq):
        for i in a.items if a.items is not None else (a.elem,):
            yield from _leaf_avals(i, True)
    else:
        yield a, inside


def _static(a, inside=False) -> bool:
    """Whether ``a`` holds a value whose derivative is None: a static value, or an integer inside a
    record, list or tuple (a whole integer argument is left out of wrt, or refused: ``arguments``)."""
    if isinstance(a, V.Seq):
        return any(_static(i, True) for i in (a.items if a.items is not None else (a.elem,)))
    return isinstance(a, V.Static) or inside and integral(a)


def integral(a) -> bool:
    """Whether values of abstract value ``a`` are integers: a Python int or bool, a NumPy integer or
    bool scalar, an integer or bool array.  They have no derivative (JAX refuses them as inputs of
    grad): a constant by default, None as a gradient."""
    if not isinstance(a, (V.Num, V.Arr)) or a.dtype is None:
        return False
    return a.dtype in ("int", "bool") or a.dtype.startswith(("int", "uint", "bool"))


def all_integral(a) -> bool:
    """Whether every number a value of abstract value ``a`` holds is an integer (and it holds one)."""
    if isinstance(a, V.Seq):
        parts = [i for i in (a.items if a.items is not None else (a.elem,)) if i is not V.BOTTOM]
        return bool(parts) and all(all_integral(i) for i in parts)
    return integral(a)


def constant_argument(a) -> bool:
    """Whether an argument of abstract value ``a`` is a constant by default: integers (``all_integral``), or
    a string (choosing a branch).  (None stays a parameter, its gradient None: an optional argument.)"""
    return all_integral(a) or isinstance(a, V.Static) and a.what == "str"


def zero_integers(tangent, value, aval, where: str):
    """A tangent given by the user (records as tuples already) with each integer leaf's tangent made
    the zero the generated code takes (0.0, or float zeros of an integer array's shape); that leaf's
    tangent must be None or zero (a ValueError that says ``where`` otherwise)."""
    if isinstance(aval, V.Seq) and isinstance(value, (list, tuple)) and isinstance(tangent, (list, tuple)):
        items = aval.items if aval.items is not None else (aval.elem,) * len(value)
        if len(tangent) != len(value) or not any(_static(i, True) for i in items):
            return tangent  # (a tangent of another length: tangent_mismatch says so)
        keys = aval.keys or range(len(items))
        out = [zero_integers(t, v, a, f"{where}[{k!r}]") for k, t, v, a in zip(keys, tangent, value, items)]
        return out if isinstance(tangent, list) else tuple(out)
    if not integral(aval):
        return tangent
    if tangent is not None and not _zero(tangent):
        raise ValueError(f"{where} is an integer, which has no derivative: its tangent is None or 0, not {tangent!r}")
    if hasattr(value, "shape") and getattr(value, "ndim", 0):
        import numpy

        return numpy.zeros(value.shape)
    return 0.0


def none_as_zero(ct, aval):
    """An output cotangent given by the user (records as tuples already) with None where the output
    has no derivative (None, a string, an integer) made 0.0, what the generated code adds up."""
    if isinstance(aval, (tuple, V.Seq)) and isinstance(ct, (list, tuple)):
        items = aval if isinstance(aval, tuple) else aval.items if aval.items is not None else (aval.elem,) * len(ct)
        if len(items) != len(ct):  # (ct_mismatch says so)
            return ct
        out = [none_as_zero(c, a) for c, a in zip(ct, items)]
        return out if isinstance(ct, list) else tuple(out)
    return 0.0 if ct is None and (isinstance(aval, V.Static) or integral(aval)) else ct


def _zero(t) -> bool:
    try:
        return bool((t == 0).all() if hasattr(t, "all") else t == 0)
    except (TypeError, ValueError):
        return False
