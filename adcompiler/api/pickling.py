"""A ``Differentiable`` pickled by reference, its generated code left behind: a process that unpickles
it generates its own (so ``multiprocessing``, ``concurrent.futures`` and joblib can use ``f.grad``)."""

from __future__ import annotations

import importlib
import sys
from typing import Any


def reduce(obj, fn, options: tuple, derived: bool) -> tuple:
    """``obj.__reduce__()``: a decorated module function as the module's name for it, ``differentiate(f)``
    as ``f`` (itself by reference) with its ``options``; derivative code (``derived``) is refused."""
    if derived:
        raise TypeError(f"the derivative code of {fn.__qualname__} cannot be pickled: pickle what it came from")
    if by_reference(fn.__module__, fn.__qualname__) is obj:
        return (by_reference, (fn.__module__, fn.__qualname__))
    return (type(obj), (fn, *options))


def by_reference(module: str, qualname: str):
    """The object a module binds under a dotted qualified name (None if it binds none)."""
    obj: Any = sys.modules.get(module) or importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj
