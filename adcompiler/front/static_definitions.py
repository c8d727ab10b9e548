"""Functions and classes of a user's file made from their source, without running any of it.

A ``def`` statement runs none of the user's code once its defaults and annotations are known and its
decorators are set aside: its function is the code object Python compiled for it (the whole file is
compiled once, as an import compiles it), given the defaults and annotations the reader computed
(``front.static_values``).  A lambda is made the same way from its own text.

Decorators are recognised, never called when they are the user's: ``numba.njit`` / ``numba.jit``
(bare, or with constant arguments), ``adcompiler.custom_jvp`` / ``custom_vjp`` and a rule's
``defjvp``, ``abc.abstractmethod``, ``typing.final``, ``typing.no_type_check`` and ``typing.overload``,
``functools.cache`` and ``functools.lru_cache`` (bare, or with constant arguments: a memo of the same numbers),
and in a class ``staticmethod``, ``classmethod``, ``property`` (with its ``setter``, ``getter`` and
``deleter``) and ``functools.cached_property``; on a class, ``dataclasses.dataclass`` (bare or with
constant arguments), ``typing.final`` and ``functools.total_ordering``.  Those are library code: they
are applied.  Any other decorator may change what the function computes (a wrapper of the user's
that scales its result): the function is then unknown, ``Unresolvable`` at the decorator.

A class is made when its bases are classes (the library's, or ones made here), its metaclass and
the ``__init_subclass__`` it inherits are ``type``'s, ``abc``'s or ``typing``'s (which call none of
its code), and its body holds only docstrings, constants, annotations, methods and nested classes.
"""

from __future__ import annotations

import ast
import sys
import types

from .static_values import Evaluator, Unresolvable, is_data


def first_line(node) -> int:
    """The line Python gives a definition's code (its first decorator's, else its own)."""
    return min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])


def code_index(code: types.CodeType) -> dict:
    """(name, first line) -> the code object of each function or class body compiled directly in ``code``."""
    return {(c.co_name, c.co_firstlineno): c for c in code.co_consts if isinstance(c, types.CodeType)}


class Maker:
    """Makes one module's functions, lambdas and classes (``ns``: its namespace, ``codes``: the index of
    its compiled module code, ``text``: its source, ``remember(obj)``: records an object as the user's)."""

    def __init__(self, ns: dict, codes: dict, text: str, filename: str, evaluator: Evaluator, remember, lazy: bool):
        self.ns = ns
        self.codes = codes
        self.text = text
        self.filename = filename
        self.ev = evaluator
        self.remember = remember
        self.lazy = lazy  # ``from __future__ import annotations``: every annotation a string

    # ------------------------------------------------------------------ functions

    def function(self, node, codes=None, cell=None, local=None):
        """The object a ``def`` statement binds: its function, decorated by the decorators it has."""
        fn = self._plain(node, self.codes if codes is None else codes, cell, local)
        return self._decorate(fn, node, "method" if cell is not None else "function", local)

    def _plain(self, node, codes, cell, local):
        code = codes.get((node.name, first_line(node)))
        if code is None:  # a definition compiled elsewhere than the reader looks (not expected)
            raise Unresolvable(node, f"the code of {node.name} was not found")
        args = node.args
        defaults = tuple(self._default(d, local) for d in args.defaults)
        kwdefaults = {
            a.arg: self._default(d, local) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None
        }
        frees = code.co_freevars
        if frees and frees != ("__class__",):
            raise Unresolvable(node, f"{node.name} reads variables of an enclosing scope ({', '.join(frees)})")
        closure = (cell,) if frees else None
        fn = types.FunctionType(code, self.ns, node.name, defaults or None, closure)
        fn.__kwdefaults__ = kwdefaults or None
        fn.__annotations__ = self._annotations(node, local)
        fn.__qualname__ = code.co_qualname
        self.remember(fn)
        return fn

    def _default(self, node, local):
        try:
            return self.ev.value(node, local)
        except Unresolvable as exc:
            raise Unresolvable(exc.node, f"its default value is not known: {exc.why}") from None

    def _annotations(self, node, local) -> dict:
        """Annotations as values (a string read as the expression it spells); one that cannot be known is
        an error unless it is a string (or the file's annotations all are: ``from __future__ import
        annotations``), which Python leaves unevaluated and adcompiler reads only when it can."""
        args = node.args
        found = {}
        every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
        pairs = [(a.arg, a.annotation) for a in every if a.annotation is not None]
        if getattr(node, "returns", None) is not None:
            pairs.append(("return", node.returns))
        for name, ann in pairs:
            try:
                found[name] = annotation(self.ev, ann, local)
            except Unresolvable as exc:
                if self.lazy or isinstance(ann, ast.Constant) and isinstance(ann.value, str):
                    continue  # a string: no assumption from it (typing.get_type_hints would fail on it too)
                raise Unresolvable(ann, f"its annotation {ast.unparse(ann)} is not known: {exc.why}") from None
        return found

    def lambda_(self, node: ast.Lambda):
        """A lambda, compiled from its own text (its line kept), with its defaults known."""
        text = ast.get_source_segment(self.text, node)
        if text is None:
            raise Unresolvable(node, "the lambda's text was not found")
        defaults = tuple(self._default(d, None) for d in node.args.defaults)
        pairs = zip(node.args.kwonlyargs, node.args.kw_defaults)
        kwdefaults = {a.arg: self._default(d, None) for a, d in pairs if d is not None}
        source = "\n" * (node.lineno - 1) + "(" + text + ")"
        code = next(
            c
            for c in compile(source, self.filename, "eval", dont_inherit=True).co_consts
            if isinstance(c, types.CodeType)
        )
        fn = types.FunctionType(code, self.ns, "<lambda>", defaults or None, None)
        fn.__kwdefaults__ = kwdefaults or None
        self.remember(fn)
        return fn

    # ------------------------------------------------------------------ decorators

    def _decorate(self, obj, node, kind: str, local=None):
        for dec in reversed(node.decorator_list):
            decorator = self._decorator(dec, kind, local)
            try:
                obj = decorator(obj)
            except Exception as exc:  # noqa: BLE001 - a known decorator refused the definition: say so there
                raise Unresolvable(
                    dec, f"the decorator {ast.unparse(dec)} raised {type(exc).__name__}: {exc}"
                ) from None
            if isinstance(obj, (types.FunctionType, type)):
                self.remember(obj)
        return obj

    def _decorator(self, dec, kind: str, local):
        """The decorator ``dec`` names, if it is one adcompiler knows; else ``Unresolvable`` at it."""
        spelt = ast.unparse(dec)
        try:
            if isinstance(dec, ast.Call):
                factory = self.ev.value(dec.func, local)
                if id(factory) in known_factories(kind):
                    args = [self.ev.data(a, local) for a in dec.args]
                    kwargs = {k.arg: self.ev.data(k.value, local) for k in dec.keywords if k.arg is not None}
                    if len(kwargs) != len(dec.keywords):
                        raise Unresolvable(dec, f"the decorator {spelt} passes **keywords")
                    return factory(*args, **kwargs)
                decorator = factory
            else:
                decorator = self.ev.value(dec, local)
        except Unresolvable as exc:
            raise Unresolvable(dec, f"its decorator {spelt} is not known: {exc.why}") from None
        except Exception as exc:  # noqa: BLE001 - numba.njit(bad=1): the library refused its arguments
            raise Unresolvable(dec, f"the decorator {spelt} raised {type(exc).__name__}: {exc}") from None
        if not isinstance(dec, ast.Call) and (id(decorator) in known_decorators(kind) or _rule_decorator(decorator)):
            return decorator
        if not isinstance(dec, ast.Call) and kind == "method" and _property_accessor(decorator):
            return decorator
        if self.ev.is_user(decorator):
            why = "is the file's own code, which adc compile does not run; it may change what the function computes"
        else:
            why = "is not one adc compile knows; it may change what the function computes"
        raise Unresolvable(dec, f"its decorator {spelt} {why}")

    # ------------------------------------------------------------------ classes

    def klass(self, node: ast.ClassDef, codes=None):
        """The class a ``class`` statement binds (see the module docstring for what is made)."""
        codes = self.codes if codes is None else codes
        bases = tuple(self._base(b) for b in node.bases)
        keywords = {}
        for k in node.keywords:
            if k.arg is None:
                raise Unresolvable(k, "a class statement with **keywords is not made without running the file")
            keywords[k.arg] = self.ev.value(k.value)
        code = codes.get((node.name, first_line(node)))
        if code is None:
            raise Unresolvable(node, f"the code of the class {node.name} was not found")
        inner = code_index(code)
        cell = types.CellType()
        body: dict = {"__module__": self.ns.get("__name__"), "__qualname__": code.co_qualname}
        annotations: dict = {}
        for i, stmt in enumerate(node.body):
            self._class_statement(node, stmt, i, body, annotations, inner, cell)
        if annotations:
            body["__annotations__"] = annotations
        uses_cell = any("__class__" in c.co_freevars for c in inner.values())
        if uses_cell:
            body["__classcell__"] = cell
        resolved = types.resolve_bases(bases)
        meta, _, _ = types.prepare_class(node.name, resolved, dict(keywords))
        _check_class_machinery(node, meta, resolved, self.ev.is_user)
        try:
            cls = types.new_class(node.name, bases, keywords, lambda ns: ns.update(body))
        except Exception as exc:  # noqa: BLE001 - bases that do not go together, say: the class cannot be made
            raise Unresolvable(node, f"making the class {node.name} raised {type(exc).__name__}: {exc}") from None
        if not uses_cell:
            cell.cell_contents = cls
        self.remember(cls)
        return self._decorate(cls, node, "class")

    def _base(self, node):
        value = self.ev.value(node)
        if isinstance(value, type) or hasattr(value, "__mro_entries__") and not self.ev.is_user(value):
            return value
        raise Unresolvable(node, f"the base {ast.unparse(node)} is not a class")

    def _class_statement(self, node, stmt, i, body, annotations, inner, cell):
        if isinstance(stmt, ast.Pass):
            return
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            if i == 0 and isinstance(stmt.value.value, str):
                body["__doc__"] = stmt.value.value
            return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = self._plain(stmt, inner, cell, body)
            body[stmt.name] = self._decorate(fn, stmt, "method", body)
            return
        if isinstance(stmt, ast.ClassDef):
            body[stmt.name] = self.klass(stmt, inner)
            return
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            try:
                annotations[stmt.target.id] = annotation(self.ev, stmt.annotation, body)
            except Unresolvable:
                if not (self.lazy or isinstance(stmt.annotation, ast.Constant)):
                    raise
                annotations[stmt.target.id] = ast.unparse(stmt.annotation)  # a string, as Python keeps it
            if stmt.value is not None:
                body[stmt.target.id] = self._class_value(stmt.value, body)
            return
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            value = self._class_value(stmt.value, body)
            for t in stmt.targets:
                body[t.id] = value
            return
        raise Unresolvable(
            stmt, f"the body of the class {node.name} runs code (line {stmt.lineno}), which adc compile does not run"
        )

    def _class_value(self, expr, body):
        value = self.ev.value(expr, body)
        if callable(value) and not isinstance(value, (types.FunctionType, type)) and not is_data(value):
            field = sys.modules.get("dataclasses")
            if field is None or not isinstance(value, field.Field):
                raise Unresolvable(expr, f"{ast.unparse(expr)} is not a value adc compile puts in a class")
        return value


def annotation(ev: Evaluator, node: ast.expr, local: dict | None = None):
    """An annotation's value: a string is read as the expression it spells (a forward reference), so
    no string is left for ``typing.get_type_hints`` to evaluate later."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            inner = ast.parse(node.value.strip(), mode="eval").body
        except SyntaxError:
            raise Unresolvable(node, f"the annotation {node.value!r} is not an expression") from None
        ast.copy_location(inner, node)
        for sub in ast.walk(inner):
            ast.copy_location(sub, node)
        return annotation(ev, inner, local)
    if isinstance(node, ast.Subscript):
        base = annotation(ev, node.value, local)
        special = getattr(base, "_name", None)  # Literal["a"] and Annotated[float, "meta"] hold data
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        args = tuple(
            (
                ev.data(p, local)
                if special == "Literal" or special == "Annotated" and i
                else _annotation_part(ev, p, local)
            )
            for i, p in enumerate(parts)
        )
        return ev.subscript_type(node, base, args[0] if len(args) == 1 else args)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = annotation(ev, node.left, local), annotation(ev, node.right, local)
        return ev.type_union(node, left, right)
    return ev.value(node, local)


def _annotation_part(ev: Evaluator, node, local):
    if isinstance(node, ast.List):  # Callable[[float], float]
        return [annotation(ev, e, local) for e in node.elts]
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return Ellipsis
    return annotation(ev, node, local)


def _check_class_machinery(node, meta, bases, is_user) -> None:
    """Refuse a class whose making would run code it defines: a metaclass or an inherited
    ``__init_subclass__`` other than ``type``'s, ``abc``'s, ``typing``'s (an Enum calls the class's own
    methods to make its members; a framework's ``__init_subclass__`` may call them too)."""
    safe_meta = {type}
    for name, attr in (("abc", "ABCMeta"), ("typing", "_ProtocolMeta"), ("typing", "NamedTupleMeta")):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, attr):
            safe_meta.add(getattr(module, attr))
    if meta not in safe_meta:
        raise Unresolvable(node, f"the class {node.name} has the metaclass {meta.__name__}, which may run its code")
    typing = sys.modules.get("typing")
    safe_hooks = {object.__dict__["__init_subclass__"]}
    if typing is not None:
        for cls in (typing.Generic, typing.Protocol):
            if "__init_subclass__" in cls.__dict__:
                safe_hooks.add(cls.__dict__["__init_subclass__"])
    for base in bases:
        for cls in base.__mro__:
            hook = cls.__dict__.get("__init_subclass__")
            if hook is None:
                continue
            if is_user(cls) or hook not in safe_hooks:
                raise Unresolvable(
                    node, f"the class {node.name} inherits {cls.__name__}.__init_subclass__, which may run code"
                )
            break


def _rule_decorator(obj) -> bool:
    """A rule's own decorator (``@f.defjvp``): adcompiler's code, which records a rule."""
    return (
        getattr(obj, "__module__", None) == "adcompiler.api.custom_rules" and getattr(obj, "__name__", "") == "defjvp"
    )


def _property_accessor(obj) -> bool:
    """``@x.setter`` (and getter, deleter) of a property made in the class body."""
    return isinstance(getattr(obj, "__self__", None), property) and getattr(obj, "__name__", "") in (
        "setter",
        "getter",
        "deleter",
    )


def known_decorators(kind: str) -> set:
    """ids of the decorators adcompiler applies (library code that changes nothing a function computes)."""
    found = []
    numba = sys.modules.get("numba")
    if numba is not None:
        found += [numba.njit, numba.jit]
    custom = sys.modules.get("adcompiler.api.custom_rules")
    if custom is not None:
        found += [custom.custom_jvp, custom.custom_vjp]
    for module, names in (("abc", "abstractmethod"), ("typing", "final no_type_check overload")):
        if module in sys.modules:
            found += [getattr(sys.modules[module], n) for n in names.split()]
    if kind != "class" and "functools" in sys.modules:  # memoised: the same numbers (the function it wraps runs)
        found += [sys.modules["functools"].cache, sys.modules["functools"].lru_cache]
    if kind == "method":
        found += [staticmethod, classmethod, property]
        if "functools" in sys.modules:
            found.append(sys.modules["functools"].cached_property)
    if kind == "class":
        found = [f for f in found if f is not None and getattr(f, "__name__", "") == "final"]
        if "dataclasses" in sys.modules:
            found.append(sys.modules["dataclasses"].dataclass)
        if "functools" in sys.modules:
            found.append(sys.modules["functools"].total_ordering)
    return {id(f) for f in found}


def known_factories(kind: str) -> set:
    """ids of the decorator factories adcompiler calls with constant arguments (``numba.njit(cache=True)``)."""
    found = []
    numba = sys.modules.get("numba")
    if numba is not None and kind != "class":
        found += [numba.njit, numba.jit]
    if kind != "class" and "functools" in sys.modules:  # lru_cache(maxsize=None)
        found.append(sys.modules["functools"].lru_cache)
    if kind == "class" and "dataclasses" in sys.modules:
        found.append(sys.modules["dataclasses"].dataclass)
    return {id(f) for f in found}
