"""A user's file read without running any of it: the module ``adc compile`` and ``adc check`` see.

The file is parsed and compiled as an import would compile it, and its top-level statements are
taken in order; none of them runs.  What each binds is worked out from its source:

- ``import`` and ``from ... import``: a module next to the file, or in its package, is the user's
  and is read the same way (recursively, never imported); any other module is a library and is
  imported (``math``, ``numpy``, ``scipy``, ``numba``, ``adcompiler``, ...).
- assignments: their values when ``front.static_values`` computes them without running anything
  (literals, arithmetic, displays and comprehensions of data, pure library functions such as
  ``np.array`` or ``math.sqrt`` called with data).
- ``def`` and ``class``, ``lambda``: made from their source (``front.static_definitions``), their
  defaults and annotations computed as above, their decorators recognised, never called when they
  are the user's.
- ``adcompiler.defrule(f, ...)``, ``f.defvjp(fwd, bwd)``: rules, given.
- ``if`` with a test computed as above (``if __name__ == "__main__":`` is false), ``try`` (its
  handler when an import in it fails).

Everything else (a call of the file's own code or of a library outside the pure ones, a loop, a
``with``, a ``try`` whose body does not all run) is skipped: the names it would bind, and the values
it may change (``front.static_effects``), become *unresolved*, each with where and why.  A function
that reads an unresolved name gets a located error naming ``--import`` (``unset_refusal``); a name
nothing reads costs nothing.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import os
import sys
import types
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from . import static_effects
from .static_module import (
    REMEDY,
    ReadError,
    StaticModule,
    UnreadDefinitionError,
    Unresolved,
    source_text,
)
from .static_values import Unresolvable

__all__ = [
    "Definitions",
    "ReadError",
    "UnreadDefinitionError",
    "Unresolved",
    "read_definitions",
    "source_text",
    "unread_functions",
    "unset_refusal",
]


@dataclass
class Definitions:
    """The module read from a file, its unresolved names, and the statements skipped (line, why)."""

    module: types.ModuleType
    skipped: list = field(default_factory=list)
    unset: dict = field(default_factory=dict)  # name -> Unresolved


def read_definitions(path: str | Path) -> Definitions:
    """The file's module as the reader makes it (see the module docstring); a failure that importing
    the file would also have (an import that fails, a syntax error) is a ``ReadError`` at its line."""
    reader = Reader(Path(path).resolve())
    module = reader.main()
    return Definitions(module.module, module.skipped, module.unset)


def unset_refusal(globals_: dict, name: str, filename: str) -> tuple | None:
    """(construct, remedy) of the located error for reading ``name`` where the reader left it unresolved."""
    found = globals_.get("__adc_unset__", {}).get(name)
    if found is None:
        return None
    return (
        f"the global {name!r}, whose value adc compile does not know without running the file ({found.phrase(filename)})",
        REMEDY,
    )


def unread_functions(module: types.ModuleType) -> dict:
    """The top-level functions the reader could not make: name -> Unresolved."""
    return {n: u for n, u in vars(module).get("__adc_unset__", {}).items() if u.definition == "function"}


# ---------------------------------------------------------------------- the reader


class Reader:
    """The files of one ``adc`` run: the main file and the modules of the user's it imports, by path."""

    def __init__(self, main: Path):
        self.main_path = main
        self.roots = [main.parent]
        top = main.parent
        while (top / "__init__.py").is_file():
            top = top.parent
        if top != main.parent:
            self.roots.append(top)
        self.own_package = self._dotted(main).split(".")[0] if top != main.parent else None
        self.by_name: dict = {}  # dotted name -> StaticModule
        self.by_module: dict = {}  # id(module object) -> StaticModule
        self.made: dict = {}  # id -> object made from the user's files (kept alive while the ids are used)

    def main(self) -> "StaticModule":
        dotted = self._dotted(self.main_path)
        package = self.main_path.name == "__init__.py"
        module = StaticModule(self, self.main_path, f"_adc_user_{self.main_path.stem}", dotted, True, package)
        sys.modules[module.name] = module.module
        self.by_name[dotted] = module
        module.run()
        return module

    def _dotted(self, path: Path) -> str:
        """A file's module name: its name, after those of the packages (folders with ``__init__.py``) it is in."""
        parts = [] if path.name == "__init__.py" else [path.stem]
        here = path.parent
        while (here / "__init__.py").is_file():
            parts.insert(0, here.name)
            here = here.parent
        return ".".join(parts) or path.parent.name

    # ------------------------------------------------------------------ objects

    def remember(self, obj) -> None:
        self.made[id(obj)] = obj

    def is_user(self, obj) -> bool:
        return id(obj) in self.made

    def member(self, module, name: str, node):
        return self.by_module[id(module)].lookup(name, node)

    # ------------------------------------------------------------------ imports

    def load(self, dotted: str, node) -> types.ModuleType:
        """The module ``dotted`` (and its parents): the user's, read; a library's, imported."""
        parts = dotted.split(".")
        if not self._is_users(parts[0]):
            with self._library_path():
                return importlib.import_module(dotted)
        parent = None
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            found = self.by_name.get(name)
            if found is None:
                found = self._read_module(name, parent)
            if parent is not None and parts[i - 1] not in parent.ns:
                parent.ns[parts[i - 1]] = found.module
                parent.unset.pop(parts[i - 1], None)
            parent = found
        return parent.module

    def _is_users(self, top: str) -> bool:
        """Whether the top-level module ``top`` is the user's, looked for as Python running the file would:
        in the file's own folder first (before any library), then among the libraries, then in the folder
        above the file's package (its own package, for relative imports), or as a folder there (a
        namespace package)."""
        if top in sys.builtin_module_names:  # found before any folder (math, sys, ...)
            return False
        if top in self.by_name or top == self.own_package:
            return True
        here = self.roots[0]
        if (here / f"{top}.py").is_file() or (here / top / "__init__.py").is_file():
            return True
        if top in sys.modules:
            return False
        with self._library_path():
            try:
                spec = importlib.util.find_spec(top)
            except (ImportError, ValueError):
                spec = None
        if spec is not None:
            return False
        return any((root / f"{top}.py").is_file() or (root / top).is_dir() for root in self.roots)

    def _read_module(self, name: str, parent) -> "StaticModule":
        leaf = name.rpartition(".")[2]
        dirs = [Path(d) for d in parent.module.__path__] if parent is not None else self.roots
        for d in dirs:
            if (d / leaf / "__init__.py").is_file():
                return self._new(d / leaf / "__init__.py", name, package=True)
            if (d / f"{leaf}.py").is_file():
                return self._new(d / f"{leaf}.py", name, package=False)
        for d in dirs:
            if (d / leaf).is_dir():  # a namespace package: a folder without __init__.py
                module = types.ModuleType(name)
                module.__path__ = [str(d / leaf)]
                record = StaticModule.empty(self, module, name)
                self.by_name[name] = record
                self.by_module[id(module)] = record
                self.remember(module)
                return record
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    def _new(self, path: Path, name: str, package: bool) -> "StaticModule":
        module = StaticModule(self, path, name, name, package=package)
        self.by_name[name] = module
        module.run()
        return module

    def import_into(self, into, stmt) -> None:
        """Bind what ``stmt`` (an import of ``into``'s) binds: the user's modules read, libraries imported."""
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                module = self.load(alias.name, stmt)
                if alias.asname:
                    into.bind(alias.asname, module)
                else:
                    top = alias.name.split(".")[0]
                    into.bind(top, self.load(top, stmt) if "." in alias.name else module)
            return
        if stmt.module == "__future__":
            return
        base = self._absolute(into, stmt)
        module = self.load(base, stmt)
        record = self.by_module.get(id(module))
        for alias in stmt.names:
            if alias.name == "*":
                self._star(into, module, record)
                continue
            target = alias.asname or alias.name
            if record is not None:
                if alias.name in record.ns:
                    into.bind(target, record.ns[alias.name])
                elif alias.name in record.unset:
                    into.ns.pop(target, None)
                    into.unset[target] = record.unset[alias.name]
                elif "__getattr__" in record.defs and record.package == record.dotted.rpartition(".")[0]:
                    why = (
                        f"{alias.name}, which {base}'s __getattr__ gives (its own code, which adc compile does not run)"
                    )
                    into.forget(target, into.record(stmt, why))  # (a module's hook, PEP 562: not run)
                else:
                    try:
                        into.bind(target, self.load(f"{base}.{alias.name}", stmt))
                    except ModuleNotFoundError:
                        raise ImportError(f"cannot import name {alias.name!r} from {base!r}", name=base) from None
                continue
            try:
                into.bind(target, getattr(module, alias.name))
            except AttributeError:
                try:
                    into.bind(target, self.load(f"{base}.{alias.name}", stmt))
                except ModuleNotFoundError:
                    raise ImportError(f"cannot import name {alias.name!r} from {base!r}", name=base) from None

    def _absolute(self, into, stmt: ast.ImportFrom) -> str:
        if not stmt.level:
            return stmt.module
        parts = into.package.split(".") if into.package else []
        if stmt.level - 1 > len(parts) or not into.package:
            raise ImportError("attempted relative import with no known parent package")
        base = ".".join(parts[: len(parts) - (stmt.level - 1)])
        return f"{base}.{stmt.module}" if stmt.module else base

    def _star(self, into, module, record) -> None:
        if record is None:
            names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
            for n in names:
                if hasattr(module, n):
                    into.bind(n, getattr(module, n))
            return
        names = record.ns.get("__all__")
        if not (isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names)):
            names = [n for n in list(record.ns) + list(record.unset) if not n.startswith("_")]
        for n in names:
            if n in record.ns:
                into.bind(n, record.ns[n])
            elif n in record.unset:
                into.ns.pop(n, None)
                into.unset[n] = record.unset[n]

    @contextmanager
    def _library_path(self):
        """``sys.path`` without the working directory and the user's roots, while a library is imported:
        the user's own modules are read, never imported (nor found by a library's import)."""
        saved = list(sys.path)
        cwd = os.getcwd()
        roots = {str(r) for r in self.roots}
        sys.path[:] = [p for p in saved if p not in ("", ".", cwd) and os.path.abspath(p) not in roots]
        try:
            yield
        finally:
            sys.path[:] = saved

    # ------------------------------------------------------------------ effects of skipped statements

    def value(self, module: "StaticModule", expr):
        """``expr``'s static value in ``module`` (None when it has none): for the effects walk."""
        try:
            return module.evaluator.value(expr)
        except Unresolvable:
            return None
        except RecursionError:
            return None

    def source(self, obj):
        """(node, module) of a function or class made from the user's files."""
        obj = getattr(obj, "py_func", obj)
        for module in self.by_name.values():
            for node in module.defs.values():
                bound = module.ns.get(node.name)
                if bound is obj or getattr(bound, "py_func", None) is obj:
                    return node, module
        return None

    def definition(self, module: "StaticModule", name: str):
        """The def or class node that bound ``name`` in ``module`` (None if it was bound otherwise since)."""
        node = module.defs.get(name)
        return node if node is not None and name not in module.ns else None

    def methods(self, name: str) -> list:
        return [
            (stmt, module)
            for module in self.by_name.values()
            for node in module.defs.values()
            if isinstance(node, ast.ClassDef)
            for stmt in node.body
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name
        ]

    def user_module(self, value) -> bool:
        return isinstance(value, types.ModuleType) and id(value) in self.by_module

    def module_record(self, value) -> "StaticModule":
        return self.by_module[id(value)]

    def forget(self, stmt: ast.stmt, module: "StaticModule", record: Unresolved) -> None:
        """Forget what ``stmt``, which is not run, may bind or change (``front.static_effects``)."""
        found = static_effects.Walker(self).statement(stmt, module)
        for where, names in found.bound.items():
            for name in names:
                where.forget(name, record)
        spelt = ast.unparse(stmt).splitlines()[0]
        spelt = spelt if len(spelt) <= 50 else spelt[:47] + "..."
        if found.everything:
            record = dataclasses.replace(record, why=f"{spelt} may rebind any name, and adc compile does not run it")
        else:
            record = dataclasses.replace(record, why=f"{spelt} may change it in place, and adc compile does not run it")
        objects = [id(o) for o in found.objects]
        for where, names in found.stored.items():  # W[0] = ..., f.__defaults__ = ...: whatever W and f are
            objects += [id(where.ns[n]) for n in names if n in where.ns and not _immutable(where.ns[n])]
        for where, names in found.changed.items():  # handed to a call that may change it: arrays, lists, dicts
            objects += [id(where.ns[n]) for n in names if n in where.ns and _mutable_data(where.ns[n])]
        for where in list(self.by_name.values()):
            for name, value in list(where.ns.items()):
                if name.startswith("__") and name.endswith("__"):
                    continue
                if found.everything or objects and _holds(value, set(objects)):
                    where.forget(name, record)


def _holds(value, ids: set, depth: int = 0) -> bool:
    """Whether ``value`` is, or (in a list, tuple, dict or set) holds, an object of ``ids``."""
    if id(value) in ids:
        return True
    if depth > 20:
        return False
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_holds(v, ids, depth + 1) for v in list(value)[:100_000])
    if isinstance(value, dict):
        return any(_holds(v, ids, depth + 1) for v in list(value.values())[:100_000])
    return False


def _immutable(value) -> bool:
    """A number, a string, or a tuple of such: nothing is stored into it."""
    if isinstance(value, (int, float, complex, str, bytes, bool, type(None))):
        return True
    return isinstance(value, (tuple, frozenset)) and all(_immutable(v) for v in list(value)[:100_000])


def _mutable_data(value, depth: int = 0) -> bool:
    """A list, dict, set, bytearray or array, or a tuple holding one: what a call may change in place
    (a function, a class or a module changes only where the statement stores into it)."""
    if isinstance(value, (list, dict, set, bytearray)) or type(value).__name__ == "ndarray":
        return True
    if isinstance(value, tuple) and depth < 20:
        return any(_mutable_data(v, depth + 1) for v in list(value)[:100_000])
    return False
