"""One file of the user's read without running any of it: its statements taken in order, each bound
name given the value ``front.static_values`` and ``front.static_definitions`` compute, or left
*unresolved* (``Unresolved``: where, and why) when the statement is not run.  ``front.files`` holds
the reader of a program's files and says what is read and how.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import io
import operator
import os
import tokenize
import types
from dataclasses import dataclass
from pathlib import Path

from ..errors import UnsupportedSyntaxError
from .static_data import BINARY, check_binary
from .static_definitions import Maker, code_index
from .static_values import Evaluator, Unresolvable, bind, is_data

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
            if here is None or same_path(here, self.filename)
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

    def __init__(self, filename: str, line: int, exc: BaseException, hint: str = ""):
        super().__init__(f"{filename}:{line}: {exc}{hint}")
        self.filename = filename
        self.line = line
        self.exc = exc
        self.hint = hint


def source_text(path: Path) -> str:
    """A Python file's text, decoded as Python decodes it (a PEP 263 coding line, else UTF-8)."""
    data = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


class StaticModule:
    """One file of the user's as the reader makes it: its module object, namespace, unresolved names."""

    def __init__(self, reader, path: Path, name: str, dotted: str, is_main=False, package=False):
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
    def empty(cls, reader, module: types.ModuleType, name: str) -> "StaticModule":
        """A namespace package's record: no file, nothing to read."""
        record = cls.__new__(cls)
        record.reader, record.path, record.name, record.dotted, record.is_main = reader, None, name, name, False
        record.filename, record.module, record.package = name, module, name
        record.ns, record.unset, record.skipped, record.defs, record.skips = vars(module), {}, [], {}, 0
        record.ns["__adc_unset__"] = record.unset
        record.evaluator = Evaluator(record.lookup, reader.member, reader.is_user, record._lambda)
        record.maker = None
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
                paths = [line for line, why in self.skipped if "sys.path" in why]  # sys.path.insert(0, ...) not run
                hint = (
                    f" (line {paths[0]} changes sys.path, and adc compile does not run it: use --import)"
                    if paths
                    else ""
                )
                raise ReadError(self.filename, stmt.lineno, exc, hint) from exc

    def block(self, body: list) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.reader.import_into(self, stmt)
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
            self.skip(stmt, f"{statement_kind(stmt)}, which adc compile does not run")

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

    def _define(self, stmt, make) -> None:
        self.defs[stmt.name] = stmt
        if stmt.name in ("__getattr__", "__dir__"):  # a module's hooks (PEP 562): bound, any attribute the
            return  # reader asks for would run the file's own code; a name only they give stays unknown
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
        check_binary(stmt, stmt.op, current, value)
        inplace = getattr(operator, "i" + BINARY[type(stmt.op)].__name__.strip("_"))
        return self.evaluator.apply(stmt, inplace, current, value)

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
            if is_rule_function(rule):
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
        self.skip(stmt, f"{statement_kind(stmt)}, which adc compile does not run")

    def _if(self, stmt: ast.If) -> None:
        try:
            test = self.evaluator.data(stmt.test)
            truth = self.evaluator.apply(stmt.test, bool, test)
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


def is_rule_function(obj) -> bool:
    """adcompiler's ``defrule``, or a rule's ``defjvp`` / ``defvjp``: calls that only record rules."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__name__", None)
    return module in ("adcompiler.rules.custom", "adcompiler.api.custom_rules") and name in (
        "defrule",
        "defjvp",
        "defvjp",
    )


def statement_kind(stmt: ast.stmt) -> str:
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


def same_path(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a == b
