"""What a generator knows at a program point: variables in scope with their bounds, helpers it may call.

Env (floats, ints, loop indices, lists) and NpEnv (and arrays), with the scopes of loops and branches:
a loop body's scope (loop_scope), and what is known after a loop (after_loop) or a branch (merge);
Helper and ArrayHelper.
"""

from __future__ import annotations

import dataclasses

from .config import LOOP_CAP


@dataclasses.dataclass
class ListInfo:
    minlen: int
    bound: float


@dataclasses.dataclass
class Idx:
    hi: int  # every value is in [0, hi)
    tied: str | None  # the loop is over range(len(tied))


class Env:
    """What the generator knows at a program point: names in scope and bounds."""

    def __init__(self):
        self.floats: dict[str, float] = {}  # name -> |value| bound
        self.readonly: set[str] = set()  # loop variables: never reassigned
        self.ints: dict[str, int] = {}  # int name -> max value
        self.idx: dict[str, Idx] = {}  # loop indices
        self.lists: dict[str, ListInfo] = {}
        self.caps: dict[str, float] = {}  # floats assigned inside the current loop stay below
        self.in_loop = False
        self.appending: set[str] = set()  # lists not to read by index (being grown)

    def copy(self) -> "Env":
        e = type(self).__new__(type(self))  # NpEnv extends this copy
        e.floats = dict(self.floats)
        e.readonly = set(self.readonly)
        e.ints = dict(self.ints)
        e.idx = dict(self.idx)
        e.lists = dict(self.lists)  # ListInfo shared: aliases and bound updates
        e.caps = dict(self.caps)
        e.in_loop = self.in_loop
        e.appending = set(self.appending)
        return e

    def readable_lists(self) -> list[str]:
        """The lists that may be read by index (not those being grown)."""
        return sorted(n for n in self.lists if n not in self.appending)

    def assignable(self) -> list[str]:
        """The floats that may be assigned (not loop variables)."""
        return sorted(n for n in self.floats if n not in self.readonly)

    def loop_scope(self) -> "Env":
        """The scope of a loop body: what it assigns stays below a cap, ints grow."""
        e = self.copy()
        e.in_loop = True
        for name, b in self.floats.items():
            if name not in e.readonly:
                cap = e.caps.get(name, max(b, LOOP_CAP))
                e.caps[name] = cap
                e.floats[name] = cap
        for name in e.ints:
            e.ints[name] = 20
        return e

    def after_loop(self, body: "Env") -> None:
        """After a loop: the largest bounds of before and of the body."""
        for name in self.floats:
            self.floats[name] = max(self.floats[name], body.floats.get(name, 0.0))
        for name in self.ints:
            self.ints[name] = max(self.ints[name], body.ints.get(name, 0))

    def merge(self, branches: list["Env"], exhaustive: bool) -> None:
        """After a branch: variables in scope before keep the largest bound."""
        for name in list(self.floats):
            bs = [br.floats.get(name, self.floats[name]) for br in branches]
            if not exhaustive:
                bs.append(self.floats[name])
            self.floats[name] = max(bs)


@dataclasses.dataclass
class Helper:
    name: str
    nfloat: int  # float parameters (the last may have a default)
    has_default: bool
    list_param: bool  # a list parameter after the floats
    outputs: int  # 1, or 2 for a tuple (called only via unpacking)
    bound: float  # bound of each output
    recursive: bool = False


@dataclasses.dataclass
class ArrInfo:
    """An array variable: its shape (fixed for the variable's life), a bound on |entries|, and ownership.

    writable: the array is a fresh object this function made (a constructor, a copy, arithmetic), and no
    other name refers to it, so element writes and ``+=`` change nothing else. Parameters and views
    (slices, ``.T``, reshapes) are never writable: README supports writes into local arrays only, and
    says nothing of arrays that alias.
    """

    shape: tuple
    bound: float
    writable: bool


class NpEnv(Env):
    """Env plus the array variables in scope."""

    def __init__(self):
        super().__init__()
        self.arrays: dict[str, ArrInfo] = {}
        self.acaps: dict[str, float] = {}  # arrays assigned inside the current loop stay below
        # parameters of a shape that broadcasts up ((), (1,), (k, 1), ...): name -> (shape, bound). Never
        # read before their first assignment broadcasts them (see numpy_rebind); shared by every copy, so
        # the first assignment, on whatever path, takes the name out and no other path reads it
        self.small: dict[str, tuple] = {}

    def copy(self) -> "NpEnv":
        e = super().copy()
        e.arrays = {k: dataclasses.replace(v) for k, v in self.arrays.items()}
        e.acaps = dict(self.acaps)
        e.small = self.small
        return e

    def arrays_of(self, shape: tuple) -> list[str]:
        return [n for n, a in self.arrays.items() if a.shape == shape]

    def loop_scope(self) -> "NpEnv":
        e = super().loop_scope()
        for name, info in e.arrays.items():
            cap = e.acaps.get(name, max(info.bound, LOOP_CAP))
            e.acaps[name] = cap
            info.bound = cap
        return e

    def after_loop(self, body: "Env") -> None:
        super().after_loop(body)
        for name, info in self.arrays.items():
            if name in body.arrays:
                info.bound = max(info.bound, body.arrays[name].bound)

    def merge(self, branches: list["Env"], exhaustive: bool) -> None:
        super().merge(branches, exhaustive)
        for name, info in self.arrays.items():
            bs = [br.arrays[name].bound for br in branches if name in br.arrays]
            if not exhaustive:
                bs.append(info.bound)
            info.bound = max(bs + [0.0])


@dataclasses.dataclass
class ArrayHelper:
    """A helper taking arrays: params ("array", name, shape) | ("float", name); outs: None (a float) or a shape."""

    name: str
    params: list
    default: bool  # the float parameter (always last) has a default
    outs: list
    bound: float
