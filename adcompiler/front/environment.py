"""What the names of a function refer to, and what generated code depends on in the user's modules.

Generated code runs in the user's module: every global it reads (a constant, an array, a helper
it calls, ``np``) is looked up in the module's own dictionary when the code runs, as the primal
looks it up, never in a copy taken when the code was built.  The names generated code defines
itself (its functions, the runtime helpers, the builtins it calls) are not put in that dictionary:
``back.load`` hands them to the code as closure variables.  A ``Scope`` is how the passes see
such a function's names: those fixed ones first, then its module's globals.

What the code was built from is recorded as it is read (``Read``): a helper it calls is compiled
into it, an integer may have chosen an index, a number's or array's kind chose the code.  Each read
becomes a ``Dependency``, a test of the module's dictionary as it is now (the same object, the
same kind, the same integer, a builtin still not shadowed); when one fails, the derivative is
built again (``api.Differentiable``), so it always sees what the primal sees.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass
import types
import weakref


class Scope(Mapping):
    """The names a generated function sees: those its module of generated code defines or was
    handed (``own``: fixed when it was loaded), then ``parent``, the user's module globals (read
    when the code runs, never written)."""

    def __init__(self, own: dict, parent: dict):
        self.own = own
        self.parent = parent

    def __getitem__(self, name):
        if name in self.own:
            return self.own[name]
        return self.parent[name]

    def __contains__(self, name) -> bool:
        return name in self.own or name in self.parent

    def __iter__(self):
        yield from self.own
        yield from (n for n in self.parent if n not in self.own)

    def __len__(self) -> int:
        return len(self.own) + sum(1 for n in self.parent if n not in self.own)

    def live(self, name: str):
        """The dictionary ``name`` is read from when the code runs (None: a fixed name)."""
        return None if name in self.own else live_dict(self.parent, name)


class Closure(Mapping):
    """The names a closure (a function a factory returned) reads from outside: its cells, read each time
    they are asked for (so a captured value changed since is seen, as the closure sees it), then
    ``parent``, its module's globals.  Generated code reads a cell's name from the same cell (``back.load``)."""

    def __init__(self, cells: dict, parent: Mapping):
        self.cells = cells  # name -> the closure's cell
        self.parent = parent
        self.aliases: dict = {}  # another name the code reads a cell by -> its own (``Program.cell_name``: k_1)

    def __getitem__(self, name):
        name = self.aliases.get(name, name)
        if name in self.cells:
            try:
                return self.cells[name].cell_contents
            except ValueError:  # a cell not yet set (the factory has not assigned it)
                raise KeyError(name) from None
        return self.parent[name]

    def __contains__(self, name) -> bool:
        try:
            self[name]
        except KeyError:
            return False
        return True

    def __iter__(self):
        yield from self.cells
        yield from (n for n in self.parent if n not in self.cells)

    def __len__(self) -> int:
        return len(self.cells) + sum(1 for n in self.parent if n not in self.cells)

    def live(self, name: str):
        """Where ``name`` is read when the code runs: this closure for a cell, else as its module says."""
        return self if self.aliases.get(name, name) in self.cells else live_dict(self.parent, name)


_CLOSURES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # function -> its Closure


def namespace_of(fn) -> Mapping:
    """The names ``fn``'s body reads as globals: the module's dictionary, a ``Closure`` for a function
    with captured variables, or for generated code its ``Scope`` (whose own names are closure variables
    of the code)."""
    scope = getattr(fn, "__adc_scope__", None)
    if scope is not None:
        return scope
    if not getattr(fn, "__closure__", None):
        return fn.__globals__
    if fn not in _CLOSURES:
        _CLOSURES[fn] = Closure(dict(zip(fn.__code__.co_freevars, fn.__closure__)), fn.__globals__)
    return _CLOSURES[fn]


def module_of(namespace: Mapping) -> Mapping:
    """The module dictionary under a namespace (a ``Scope``'s or a ``Closure``'s parent, to the end)."""
    while isinstance(namespace, (Scope, Closure)):
        namespace = namespace.parent
    return namespace


def closure_of(namespace: Mapping):
    """The ``Closure`` a namespace reads cells from (itself, or a ``Scope``'s), or None."""
    while isinstance(namespace, Scope):
        namespace = namespace.parent
    return namespace if isinstance(namespace, Closure) else None


def cells_of(namespace: Mapping) -> dict:
    """The closure cells a namespace reads names from (those of a ``Closure``, or of a ``Scope``'s)."""
    if isinstance(namespace, Scope):
        return cells_of(namespace.parent)
    return dict(namespace.cells) if isinstance(namespace, Closure) else {}


def live_dict(namespace: Mapping, name: str):
    """The dictionary generated code reads ``name`` from at run time (None: a name fixed at load)."""
    return namespace.live(name) if isinstance(namespace, (Scope, Closure)) else namespace


class _Absent:
    """The value of a name that is not in the module: the code read the builtin of that name."""

    def __repr__(self) -> str:
        return "<absent>"


ABSENT = _Absent()


@dataclass(frozen=True)
class Read:
    """A function read ``name`` in ``namespace`` as ``value`` (``ABSENT``: the builtin) while it was lowered."""

    namespace: object
    name: str
    value: object
    held: bool = False  # the code holds ``value`` itself (another module's array, handed to it): the same object


@dataclass(frozen=True)
class Dependency:
    """A test that the module dictionary ``where`` still holds, under ``name``, what the code was built
    for.  ``kind`` is "absent" (the name is still not there), "same" (the same object), "function" (the
    same function, running the same code with the same defaults: ``f.__code__`` or ``f.__defaults__``
    replaced is a change), "object" (the same object of a user class, of the same class), "code" (the
    function ``value[0]`` itself, held by what depends on it, runs the same code with the same defaults:
    ``where`` is not read), "type" (a
    number of the same type: its value is read when the code runs), "int" (the same integer: it
    may have chosen an index or a length), "array" (an array of the same ndim and dtype) or
    "sequence" (a list or tuple of the same lengths and leaf types: its numbers read when the code runs), or
    "frozen" (a number, an array or a list of them equal to ``value``, a copy taken when the code was built:
    code that has the value compiled into it, as Numba compiles a global's)."""

    where: dict
    name: str
    kind: str
    value: object = None  # the object, the type, the integer, or (ndim, dtype) of the array

    def holds(self) -> bool:
        """Whether the module still holds what the code was built for."""
        if self.kind == "absent":
            return self.name not in self.where
        if self.kind == "code":
            return function_state(self.value[0]) == self.value
        try:
            now = self.where[self.name]
        except KeyError:
            return False
        if self.kind == "same":
            return now is self.value
        if self.kind == "object":
            return now is self.value[0] and type(now) is self.value[1]
        if self.kind == "function":
            return now is self.value[0] and function_state(now) == self.value
        if self.kind == "type":
            return type(now) is self.value
        if self.kind == "int":
            return type(now) is int and now == self.value
        if self.kind == "sequence":
            return structure(now) == self.value
        if self.kind == "frozen":
            return same_values(now, self.value)
        return type(now).__name__ == "ndarray" and (now.ndim, now.dtype) == self.value


def dependency(read: Read, frozen: bool = False) -> Dependency | None:
    """The test that keeps code built from ``read`` valid (None: a name fixed with the generated code);
    ``frozen``: the code has the values of numbers, arrays and lists compiled into it (Numba's), so that one
    changed since, in place too, is a change."""
    where = live_dict(read.namespace, read.name)
    if where is None or where is vars(builtins):
        return None
    value = read.value
    if read.held and not frozen:  # (an array handed to the code: bound anew there, the code holds the old one)
        return _same(where, read.name, value)
    if value is ABSENT:
        return Dependency(where, read.name, "absent")
    if type(value) is int:
        return Dependency(where, read.name, "int", value)
    if frozen and _valued(value):
        return Dependency(where, read.name, "frozen", frozen_copy(value))
    if isinstance(value, float):  # a float, or a NumPy float64 (a subclass): read when the code runs
        return Dependency(where, read.name, "type", type(value))
    if type(value).__name__ == "ndarray" and type(value).__module__ == "numpy":
        return Dependency(where, read.name, "array", (value.ndim, value.dtype))
    if isinstance(value, (list, tuple)):
        return Dependency(where, read.name, "sequence", structure(value))
    if isinstance(value, types.FunctionType):
        return Dependency(where, read.name, "function", function_state(value))
    return _same(where, read.name, value)


def _same(where: dict, name: str, value) -> Dependency:
    """The test that ``where[name]`` is still ``value``: for an object of a user class, of that class still (its
    ``__class__`` set since: its methods and class attributes are another class's)."""
    if type(value).__module__ != "builtins" and hasattr(value, "__dict__") and not isinstance(value, type):
        return Dependency(where, name, "object", (value, type(value)))
    return Dependency(where, name, "same", value)


def function_state(fn) -> tuple:
    """A function with what its code was built from: the code it runs and its defaults (compared by identity)."""
    return (fn, fn.__code__, fn.__defaults__, fn.__kwdefaults__)


def structure(value):
    """A list's or tuple's type, length and leaves' types, nested (what code built for it depends on); a
    string or a function leaf itself (``for k in KEYS``, ``for f in FS``: the code has each in it)."""
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(structure(v) for v in value))
    if type(value) is str or isinstance(value, types.FunctionType):
        return (type(value), value)
    return type(value)


def _valued(value) -> bool:
    """Whether ``value`` is a number, a NumPy array or a list or tuple of them: what a value test compares."""
    if isinstance(value, (list, tuple)):
        return all(map(_valued, value))
    return isinstance(value, (int, float, complex)) or type(value).__name__ in ("ndarray", "float64", "float32")


@dataclass(frozen=True)
class _Entries:
    """An array as it was: its type, shape, dtype and bytes (compared as bytes: a pass of memcpy's speed,
    where numpy.array_equal takes microseconds for a short array)."""

    kind: type
    shape: tuple
    dtype: object
    data: bytes


def frozen_copy(value):
    """What ``same_values`` compares ``value`` with later: its numbers, an array's entries as bytes."""
    if isinstance(value, (list, tuple)):
        items = map(frozen_copy, value)
        return value._make(items) if hasattr(value, "_make") else type(value)(items)  # (a NamedTuple's too)
    if type(value).__name__ == "ndarray":
        return _Entries(type(value), value.shape, value.dtype, value.tobytes())
    return value


def same_values(now, was) -> bool:
    """Whether ``now`` holds what ``was`` (a ``frozen_copy``) held: the same types and shapes, and the same
    numbers (an array's bit for bit; a number equal, or NaN where it was NaN)."""
    if type(was) is _Entries:
        return type(now) is was.kind and now.shape == was.shape and now.dtype == was.dtype and now.tobytes() == was.data
    if type(now) is not type(was):
        return False
    if isinstance(was, (list, tuple)):
        return len(now) == len(was) and all(map(same_values, now, was))
    return now == was or now != now and was != was


def dependencies(reads, frozen: bool = False) -> list:
    """The tests for ``reads``, one per dictionary and name (the first read of each); ``frozen``: see
    ``dependency``."""
    found: dict = {}
    for read in reads:
        dep = dependency(read, frozen)
        if dep is not None:
            key = (id(dep.where), dep.name)
            if read.held and not frozen or key not in found:  # (held by the code: its test, the strictest, wins)
                found[key] = dep
    return list(found.values())


__all__ = [
    "Closure",
    "cells_of",
    "structure",
    "ABSENT",
    "Dependency",
    "Read",
    "Scope",
    "dependencies",
    "dependency",
    "function_state",
    "live_dict",
    "namespace_of",
]
