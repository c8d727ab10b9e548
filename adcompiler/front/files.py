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
import builtins
import dataclasses
import importlib
import importlib.util
import io
import os
import sys
import tokenize
import types
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UnsupportedSyntaxError
from . import static_effects
from .static_definitions import Maker, code_index
from .static_values import Evaluator, Unresolvable, bind, is_data, _check_binary, _BINARY

IMPORT_ERRORS = (ImportError, SyntaxError, OSError, UnicodeError)  # what reading an import can raise, as Python's would
REMEDY = (
    "run adc compile with --import to import the file whole (it then runs the file's top-level code), "
    "or give it a value adc compile reads without running anything (numbers, literals, NumPy arrays of numbers)"
)


@dataclass
class Unresolved:
    """A module name whose value the reader does not know: where that was decided, and why."""

    filename: str
    line: int
    col: int
    why: str
    text: str | None = None
    definition: str = ""  # "function" or "class": a definition the reader could not make (a decorator, a default)

    def phrase(self, here: str | None = None) -> str:
        """``line N: why`` (with the file's name when it is not ``here``)."""
        where = (
            f"line {self.line}"
            if here is None or _same(here, self.filename)
            else f"{Path(self.filename).name}, line {self.line}"
        )
        return f"{where}: {self.why}"

    def error(self, name: str) -> "UnreadDefinitionError":
        """The located error of a definition that could not be made, at its cause."""
        return UnreadDefinitionError(
            f"the {self.definition or 'name'} {name} ({self.why})",
            "run adc compile with --import to import the file whole (it then runs the file's top-level code)",
            self.filename,
            self.line,
            self.col,
            self.text,
        )


class UnreadDefinitionError(UnsupportedSyntaxError):
    """A function (or class) of the file that adc compile cannot make without running the file."""


class ReadError(Exception):
    """Reading the file failed where importing it would have: ``line`` of the file, and the exception."""

    def __init__(self, filename: str, line: int, exc: BaseException):
        super().__init__(f"{filename}:{line}: {exc}")
        self.filename = filename
        self.line = line
        self.exc = exc


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


def source_text(path: Path) -> str:
    """A Python file's text, decoded as Python decodes it (a PEP 263 coding line, else UTF-8)."""
    data = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


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
                if module.ns.get(node.name) is obj:
                    return node, module
        return None

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
        for where, names in found.changed.items():
            for name in names:
                value = where.ns.get(name)
                if name in where.ns and not isinstance(value, (int, float, complex, str, bytes, bool, type(None))):
                    if not (isinstance(value, tuple) and is_data(value)) and not _library_module(value, self):
                        objects.append(id(value))
        for where in list(self.by_name.values()):
            for name, value in list(where.ns.items()):
                if name.startswith("__") and name.endswith("__"):
                    continue
                if found.everything or objects and _holds(value, set(objects)):
                    where.forget(name, record)


class StaticModule:
    """One file of the user's as the reader makes it: its module object, namespace, unresolved names."""

    def __init__(self, reader: Reader, path: Path, name: str, dotted: str, is_main=False, package=False):
        self.reader = reader
        self.path = path
        self.name = name
        self.dotted = dotted
        self.is_main = is_main
        self.filename = str(path)
        self.module = types.ModuleType(name)
        self.module.__file__ = str(path)
        if package:
            self.module.__path__ = [str(path.parent)]
        self.package = dotted if package else dotted.rpartition(".")[0]
        self.module.__package__ = self.package
        self.ns = vars(self.module)
        self.ns["__builtins__"] = builtins.__dict__
        self.unset: dict = {}
        self.ns["__adc_unset__"] = self.unset
        self.skipped: list = []
        self.defs: dict = {}  # name -> the def or class node the file binds it with (made or not)
        self.skips = 0
        reader.by_module[id(self.module)] = self
        reader.remember(self.module)
        self.evaluator = Evaluator(self.lookup, reader.member, reader.is_user, self._lambda)
        self.maker = None

    @classmethod
    def empty(cls, reader: Reader, module: types.ModuleType, name: str) -> "StaticModule":
        """A namespace package's record: no file, nothing to read."""
        record = cls.__new__(cls)
        record.reader, record.path, record.name, record.dotted, record.is_main = reader, None, name, name, False
        record.filename, record.module, record.package = name, module, name
        record.ns, record.unset, record.skipped, record.defs, record.skips = vars(module), {}, [], {}, 0
        record.ns["__adc_unset__"] = record.unset
        record.evaluator = Evaluator(record.lookup, reader.member, reader.is_user, record._lambda)
        return record

    # ------------------------------------------------------------------ reading

    def run(self) -> None:
        text = source_text(self.path)
        self.text = text
        self.lines = text.splitlines()
        tree = ast.parse(text, filename=self.filename)
        code = compile(text, self.filename, "exec", dont_inherit=True)  # as an import compiles it: nothing runs
        lazy = any(
            isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names)
            for s in tree.body
        )
        self.maker = Maker(self.ns, code_index(code), text, self.filename, self.evaluator, self.reader.remember, lazy)
        if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant):
            self.ns["__doc__"] = tree.body[0].value.value
        for stmt in tree.body:
            if not self.is_main:
                self.statement(stmt)
                continue
            try:
                self.statement(stmt)
            except IMPORT_ERRORS as exc:
                raise ReadError(self.filename, stmt.lineno, exc) from exc

    def block(self, body: list) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self._import(stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._define(stmt, self.maker.function)
        elif isinstance(stmt, ast.ClassDef):
            self._define(stmt, self.maker.klass)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._assign(stmt)
        elif isinstance(stmt, ast.Expr):
            self._expression(stmt)
        elif isinstance(stmt, ast.If):
            self._if(stmt)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self._try(stmt)
        elif isinstance(stmt, (ast.Pass, ast.Global, ast.Nonlocal)):
            pass
        elif isinstance(stmt, ast.Delete) and all(isinstance(t, ast.Name) for t in stmt.targets):
            for t in stmt.targets:
                self.ns.pop(t.id, None)
                self.unset.pop(t.id, None)
        else:
            self.skip(stmt, f"{_statement_kind(stmt)}, which adc compile does not run")

    def lookup(self, name: str, node):
        """A module-level name's value, as the reader knows it."""
        if name in self.ns:
            return self.ns[name]
        if name in self.unset:
            raise Unresolvable(node, f"it reads {name} ({self.unset[name].phrase(self.filename)})")
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise Unresolvable(node, f"the name {name} is not defined")

    def bind(self, name: str, value) -> None:
        self.ns[name] = value
        self.unset.pop(name, None)

    def forget(self, name: str, record: Unresolved) -> None:
        self.ns.pop(name, None)
        if name in ("__adc_unset__", "__builtins__"):
            return
        node = self.defs.get(name)
        if node is not None and not record.definition:  # a def or class the statement may have replaced
            record = dataclasses.replace(record, definition="class" if isinstance(node, ast.ClassDef) else "function")
        self.unset[name] = record

    def record(self, node, why: str, definition="") -> Unresolved:
        line = getattr(node, "lineno", 1)
        text = self.lines[line - 1] if 0 < line <= len(getattr(self, "lines", [])) else None
        return Unresolved(self.filename, line, getattr(node, "col_offset", 0), why, text, definition)

    def skip(self, stmt: ast.stmt, why: str, node=None) -> None:
        """``stmt`` is not run: forget what it may bind or change."""
        self.skips += 1
        self.skipped.append((stmt.lineno, why))
        self.reader.forget(stmt, self, self.record(node if node is not None else stmt, why))

    # ------------------------------------------------------------------ statements

    def _import(self, stmt) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                module = self.reader.load(alias.name, stmt)
                if alias.asname:
                    self.bind(alias.asname, module)
                else:
                    top = alias.name.split(".")[0]
                    self.bind(top, self.reader.load(top, stmt) if "." in alias.name else module)
            return
        if stmt.module == "__future__":
            return
        base = self._absolute(stmt)
        module = self.reader.load(base, stmt)
        record = self.reader.by_module.get(id(module))
        for alias in stmt.names:
            if alias.name == "*":
                self._star(module, record)
                continue
            target = alias.asname or alias.name
            if record is not None:
                if alias.name in record.ns:
                    self.bind(target, record.ns[alias.name])
                elif alias.name in record.unset:
                    self.ns.pop(target, None)
                    self.unset[target] = record.unset[alias.name]
                else:
                    self.bind(target, self.reader.load(f"{base}.{alias.name}", stmt))
                continue
            try:
                self.bind(target, getattr(module, alias.name))
            except AttributeError:
                try:
                    self.bind(target, self.reader.load(f"{base}.{alias.name}", stmt))
                except ModuleNotFoundError:
                    raise ImportError(f"cannot import name {alias.name!r} from {base!r}", name=base) from None

    def _absolute(self, stmt: ast.ImportFrom) -> str:
        if not stmt.level:
            return stmt.module
        parts = self.package.split(".") if self.package else []
        if stmt.level - 1 > len(parts) or not self.package:
            raise ImportError("attempted relative import with no known parent package")
        base = ".".join(parts[: len(parts) - (stmt.level - 1)])
        return f"{base}.{stmt.module}" if stmt.module else base

    def _star(self, module, record) -> None:
        if record is None:
            names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
            for n in names:
                if hasattr(module, n):
                    self.bind(n, getattr(module, n))
            return
        names = record.ns.get("__all__")
        if not (isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names)):
            names = [n for n in list(record.ns) + list(record.unset) if not n.startswith("_")]
        for n in names:
            if n in record.ns:
                self.bind(n, record.ns[n])
            elif n in record.unset:
                self.ns.pop(n, None)
                self.unset[n] = record.unset[n]

    def _define(self, stmt, make) -> None:
        self.defs[stmt.name] = stmt
        try:
            obj = make(stmt)
        except Unresolvable as exc:
            self.skips += 1
            kind = "class" if isinstance(stmt, ast.ClassDef) else "function"
            self.forget(stmt.name, self.record(exc.node, exc.why, definition=kind))
            return
        self.bind(stmt.name, obj)

    def _assign(self, stmt) -> None:
        try:
            if isinstance(stmt, ast.AnnAssign):
                if stmt.value is None:
                    return
                value, targets = self.evaluator.value(stmt.value), [stmt.target]
            elif isinstance(stmt, ast.AugAssign):
                value, targets = self._augmented(stmt), [stmt.target]
            else:
                value, targets = self.evaluator.value(stmt.value), stmt.targets
            stores = [self._target(t) for t in targets]
            for store in stores:
                store(value)
        except Unresolvable as exc:
            self.skip(stmt, exc.why, exc.node)

    def _augmented(self, stmt: ast.AugAssign):
        target = stmt.target
        if isinstance(target, ast.Name):
            current = self.evaluator.value(ast.copy_location(ast.Name(target.id, ast.Load()), target))
        elif isinstance(target, ast.Subscript):
            load = ast.copy_location(ast.Subscript(target.value, target.slice, ast.Load()), target)
            current = self.evaluator.value(load)
        else:
            raise Unresolvable(target, f"assigning to {ast.unparse(target)} is not done without running the file")
        value = self.evaluator.data(stmt.value)
        if not is_data(current):
            raise Unresolvable(target, f"{ast.unparse(target)} is not data")
        _check_binary(stmt, stmt.op, current, value)
        inplace = getattr(__import__("operator"), "i" + _BINARY[type(stmt.op)].__name__.strip("_"))
        return self.evaluator._apply(stmt, inplace, current, value)

    def _target(self, target):
        """A function storing a value into ``target`` (checked before any store is made)."""
        if isinstance(target, (ast.Name, ast.Tuple, ast.List)):
            return lambda value: bind(target, value, self.bind)
        if isinstance(target, ast.Subscript):
            base = self.evaluator.value(target.value)
            index = self.evaluator.data(target.slice)
            if not is_data(base) or isinstance(base, (tuple, str, bytes, frozenset)):
                raise Unresolvable(target, f"{ast.unparse(target.value)} is not a list, dict or array the reader holds")

            def store(value):
                try:
                    base[index] = value
                except Exception as exc:  # noqa: BLE001 - as Python would raise it: the value is unknown
                    raise Unresolvable(target, f"{ast.unparse(target)} = ... raised {type(exc).__name__}") from None

            return store
        raise Unresolvable(target, f"assigning to {ast.unparse(target)} is not done without running the file")

    def _expression(self, stmt: ast.Expr) -> None:
        value = stmt.value
        if isinstance(value, ast.Constant):  # a docstring
            return
        if isinstance(value, ast.Call):
            try:
                rule = self.evaluator.value(value.func)
            except Unresolvable:
                rule = None
            if _is_rule_function(rule):
                try:
                    args = [self.evaluator.value(a) for a in value.args]
                    kwargs = {k.arg: self.evaluator.value(k.value) for k in value.keywords if k.arg}
                    if len(kwargs) != len(value.keywords) or any(isinstance(a, ast.Starred) for a in value.args):
                        raise Unresolvable(value, "a rule call with * or ** arguments")
                except Unresolvable as exc:
                    self.skip(stmt, f"the rule call at line {stmt.lineno} is not read ({exc.why})", exc.node)
                    return
                try:
                    rule(*args, **kwargs)
                except Exception as exc:  # noqa: BLE001 - adcompiler refused the rule: as a skipped statement
                    self.skip(stmt, f"the rule call raised {type(exc).__name__}: {exc}")
                return
        self.skip(stmt, f"{_statement_kind(stmt)}, which adc compile does not run")

    def _if(self, stmt: ast.If) -> None:
        try:
            test = self.evaluator.data(stmt.test)
            truth = self.evaluator._apply(stmt.test, bool, test)
        except Unresolvable as exc:
            self.skip(stmt, f"an if statement whose test adc compile does not evaluate ({exc.why})", exc.node)
            return
        self.block(stmt.body if truth else stmt.orelse)

    def _try(self, stmt) -> None:
        first_skipped = None
        try:
            for s in stmt.body:
                if first_skipped is not None and stmt.handlers:
                    self.skip(
                        s, f"it runs only if line {first_skipped} does not raise, and adc compile does not run that"
                    )
                    continue
                before = self.skips
                self.statement(s)
                if self.skips != before:
                    first_skipped = s.lineno
        except IMPORT_ERRORS as exc:
            handler = self._handler(stmt, exc)
            if handler is None:
                raise
            if handler.name:
                self.ns.pop(handler.name, None)
            self.block(handler.body)
        else:
            if first_skipped is not None:
                why = f"it runs only if line {first_skipped} raises, or only if it does not, and adc compile does not run that"
                for s in [s for h in stmt.handlers for s in h.body] + stmt.orelse:
                    self.skip(s, why)
            else:
                self.block(stmt.orelse)
        self.block(stmt.finalbody)

    def _handler(self, stmt, exc):
        """The ``except`` clause that catches ``exc`` (its type computed statically), or None."""
        for handler in stmt.handlers:
            if handler.type is None:
                return handler
            try:
                caught = self.evaluator.value(handler.type)
            except Unresolvable:
                continue
            try:
                if isinstance(exc, caught):
                    return handler
            except TypeError:
                continue
        return None

    def _lambda(self, node):
        if self.maker is None:
            raise Unresolvable(node, "a lambda is not made here")
        return self.maker.lambda_(node)


# ---------------------------------------------------------------------- helpers


def _is_rule_function(obj) -> bool:
    """adcompiler's ``defrule``, or a rule's ``defjvp`` / ``defvjp``: calls that only record rules."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__name__", None)
    return module in ("adcompiler.rules.custom", "adcompiler.custom_rules") and name in ("defrule", "defjvp", "defvjp")


def _statement_kind(stmt: ast.stmt) -> str:
    kinds = {
        ast.For: "a for loop",
        ast.AsyncFor: "a for loop",
        ast.While: "a while loop",
        ast.With: "a with statement",
        ast.AsyncWith: "a with statement",
        ast.Raise: "a raise statement",
        ast.Assert: "an assert statement",
        ast.Delete: "a del statement",
        ast.Return: "a return statement",
    }
    if isinstance(stmt, ast.Expr):
        text = ast.unparse(stmt.value)
        text = text if len(text) <= 50 else text[:47] + "..."
        return f"the expression statement {text}"
    return kinds.get(type(stmt), f"a {type(stmt).__name__} statement")


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


def _library_module(value, reader: Reader) -> bool:
    return isinstance(value, types.ModuleType) and not reader.is_user(value)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a == b
