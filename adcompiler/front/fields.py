"""What adcompiler treats as a record, and its items by key: dicts with string keys, NamedTuples,
dataclasses and instances of user classes (a method's ``self``).  Plain data: the standard library only."""

from __future__ import annotations

import dataclasses
import types


def record_fields(value) -> dict | None:
    """A record's items by key: a dict with string keys, a NamedTuple, a dataclass whose fields are all
    set by its constructor (so a gradient of the same type can be made), an instance of a user class
    (its attributes, ``vars``: a method's ``self``); None for anything else."""
    if type(value) is dict:
        return value if all(type(k) is str for k in value) else None
    fields = getattr(type(value), "_fields", None)
    if isinstance(value, tuple) and isinstance(fields, tuple):
        return dict(zip(fields, value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        named = dataclasses.fields(value)
        if not all(f.init for f in named):
            return None
        return {f.name: getattr(value, f.name) for f in named}
    attributes = getattr(value, "__dict__", None)
    if _array_like(value):  # an array of another library (arrays="any"): not its attributes
        return None
    if type(attributes) is dict and not isinstance(value, _NOT_RECORDS) and all(type(k) is str for k in attributes):
        return attributes
    return None


_NOT_RECORDS = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _array_like(value) -> bool:
    """An array of an array library other than NumPy (the array API's ``__array_namespace__``, Dask)."""
    t = type(value)
    return hasattr(t, "__array_namespace__") or t.__module__.startswith(("dask.", "cupy", "jax", "torch"))
