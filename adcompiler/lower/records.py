"""Lowering of records: dicts built in the function, the fields of NamedTuples and dataclasses, and
the dict methods JAX users write (``params["W"]``, ``{"W": W, "b": b}``, ``d.values()``, ``p.a``).

A dict built in the function is symbolic, like a tuple (a ``Record``: its items' atoms with its keys),
so ``d["W"]`` is the atom itself and ``d["c"] = v`` gives the name a new record.  Stored or passed
on, it becomes the tuple of its items with its keys on the ``tuple`` equation (``param``); a record
that is an argument is such a tuple too (``trees``).  Reads of those by key stay ``getitem`` with
the key as a constant (an attribute's text starts with a dot) until the analysis, which knows every
record's keys, puts the position in its place (``analysis.records``).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import types

from ..errors import MissingKeyError
from ..front.environment import Read
from ..ir.nodes import Const
from ..ir.supplied import constant

DICT_METHODS = ("values", "keys", "items", "get", "copy")
METHOD = "method"  # a call through an object: ``layer(h)``, ``layer.forward(h)`` (its param: the method's name)


class Record(tuple):
    """A record built in the function (a dict, or a NamedTuple or dataclass made by calling its class):
    the atoms (or symbolic tuples) of its items, its keys and its type."""

    keys: tuple
    block: object  # the block it was built in: changed in another (a loop, a branch) it is refused
    shared: bool  # bound to a second name, stored or passed on: changing it then is refused
    cls: type

    def __new__(cls, items, keys, block, kind: type = dict):
        record = super().__new__(cls, items)
        record.keys, record.block, record.shared, record.cls = tuple(keys), block, False, kind
        return record

    def value(self, key):
        return self[self.keys.index(key)]

    @property
    def fields(self):
        """The keys as the ``tuple`` equation that stores the record holds them (``Fields``)."""
        return self.keys if self.cls is dict else Fields(self.keys, self.cls)


class Fields(tuple):
    """The keys of a NamedTuple or dataclass made in the function, with its type (the ``param`` of the
    ``tuple`` equation that stores it; a dict's are a plain tuple)."""

    cls: type

    def __new__(cls, keys, kind: type):
        made = super().__new__(cls, keys)
        made.cls = kind
        return made

    def __eq__(self, other):
        return isinstance(other, tuple) and tuple.__eq__(self, other) and getattr(other, "cls", dict) is self.cls

    def __hash__(self):
        return hash((tuple(self), self.cls))

    def __reduce__(self):
        return Fields, (tuple(self), self.cls)


def record_class(target) -> bool:
    """Whether calling ``target`` makes a record of its fields: a NamedTuple, a dataclass whose
    ``__init__`` is the one ``dataclass`` wrote (every field set by it, no ``__post_init__``), or a plain
    class whose ``__init__`` only stores its arguments (``stored_fields``)."""
    if not isinstance(target, type):
        return False
    if issubclass(target, tuple) and isinstance(getattr(target, "_fields", None), tuple):
        return True
    params = getattr(target, "__dataclass_params__", None)
    if params is None:
        return stored_fields(target) is not None
    if not params.init or hasattr(target, "__post_init__"):
        return False
    return all(f.init for f in dataclasses.fields(target))


def stored_fields(target) -> dict | None:
    """The attributes an instance of a plain class gets where the ``__init__`` it runs (its own or a base
    class's) does nothing but store its arguments and constants (``self.pos = pos``, ``self.W, self.b = W,
    b``, ``self.mass = 1.0``; a docstring, ``pass``): each attribute -> the parameter it stores (its name)
    or the constant (a ``Const``), in the order Python sets them (its ``__dict__``'s).  None for any other
    class, whose call stays a call like any other: one with a metaclass, ``__slots__``, its own
    ``__new__``, ``__setattr__`` or ``__getattribute__``, a descriptor (a property) for a field, or an
    ``__init__`` that computes."""
    classes = target.__mro__[:-1] if isinstance(target, type) and target.__mro__[-1] is object else ()
    init = next((vars(c)["__init__"] for c in classes if "__init__" in vars(c)), None)
    if not (
        isinstance(init, types.FunctionType)
        and all(type(c) is type and "__slots__" not in vars(c) for c in classes)
        and all(getattr(target, m) is getattr(object, m) for m in ("__new__", "__setattr__", "__getattribute__"))
    ):
        return None
    try:
        fdef = ast.parse(textwrap.dedent(inspect.getsource(init))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    args = fdef.args if isinstance(fdef, ast.FunctionDef) and not fdef.decorator_list else None
    if args is None or args.vararg or args.kwarg or not args.posonlyargs + args.args:
        return None
    me, *params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    body = fdef.body[1:] if _docstring(fdef.body[0]) else fdef.body
    fields: dict = {}
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            return None
        target_, value = stmt.targets[0], stmt.value
        pairs = [(target_, value)]
        if isinstance(target_, ast.Tuple) and isinstance(value, ast.Tuple) and len(target_.elts) == len(value.elts):
            pairs = list(zip(target_.elts, value.elts))  # self.W, self.b = W, b
        for attribute, stored in pairs:
            if not (
                isinstance(attribute, ast.Attribute)
                and isinstance(attribute.value, ast.Name)
                and attribute.value.id == me
                and not hasattr(type(inspect.getattr_static(target, attribute.attr, None)), "__set__")
            ):
                return None
            if isinstance(stored, ast.Name) and stored.id in params:
                fields[attribute.attr] = stored.id
            elif isinstance(stored, ast.Constant) and type(stored.value) in (int, float, bool, str, type(None)):
                fields[attribute.attr] = Const(stored.value)
            else:
                return None
    return fields or None


def _docstring(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def field(name: str) -> Const:
    """The constant index of an attribute read ``p.name`` (its text says it was an attribute)."""
    return Const(name, "." + name)


class RecordLowering:
    """The lowering of records; see the module docstring."""

    def __init__(self, lower):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see anf.Lowering)

    def dict_literal(self, node: ast.Dict):
        """``{"W": W, "b": b}``: keys must be strings written as constants."""
        items: dict = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                raise self.parsed.error(value, "unpacking a dict into a dict (**d)", "write each key: value")
            items[self.key_of(key)] = self.lower.expressions.expr(value)
        return Record(items.values(), items, self.emit.body)

    def dict_comprehension(self, node: ast.DictComp):
        """``{k: f(params[k]) for k in ["W", "b"]}`` over constant keys, and ``{k: v * 2.0 for k, v in
        d.items()}`` of a dict built here: a dict built here, its items one per key (the keys known while
        the code is lowered; a dict argument's are not: read its items by key)."""
        (loop,) = node.generators if len(node.generators) == 1 else (None,)
        remedy = "loop over constant keys, {k: ... for k in ['W', 'b']}, or over d.items() of a dict built here"
        if loop is None or loop.ifs or loop.is_async:
            raise self.parsed.error(node, "a dict comprehension with several loops or an if", remedy)
        it, target = loop.iter, loop.target
        keys = self.lower.names.constant_keys(it)
        pairs = None
        if keys is not None and isinstance(target, ast.Name):
            pairs = [((target.id, Const(key)),) for key in keys]
        elif (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Attribute)
            and it.func.attr == "items"
            and not it.args
            and isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and all(isinstance(e, ast.Name) for e in target.elts)
        ):
            record = self.lower.expressions.expr(it.func.value)
            if isinstance(record, Record) and record.cls is dict:
                k, v = (e.id for e in target.elts)
                pairs = [((k, Const(key)), (v, record.value(key))) for key in record.keys]
        if pairs is None:
            raise self.parsed.error(loop.iter, "a dict comprehension over this", remedy)
        names = {name for pair in pairs for name, _ in pair}
        saved = {name: self.emit.env[name] for name in names if name in self.emit.env}
        if any(name in self.emit.slots for name in names):
            raise self.parsed.error(target, "a dict comprehension's variable named like one assigned here", "rename it")
        items: dict = {}
        for pair in pairs:
            self.emit.env.update(pair)
            items[self.key_of(node.key)] = self.lower.expressions.expr(node.value)
        for name in names:  # (a comprehension's variables are its own)
            self.emit.env.pop(name, None)
        self.emit.env.update(saved)
        return Record(items.values(), items, self.emit.body)

    def dict_call(self, node: ast.Call):
        """``dict(W=W, b=b)``, and ``dict(d)`` of a dict built here (a copy)."""
        if any(k.arg is None for k in node.keywords) or len(node.args) > 1:
            raise self.parsed.error(node, "this call of dict", "write dict(key=value, ...) or a literal {...}")
        items: dict = {}
        if node.args:
            base = self.lower.expressions.expr(node.args[0])
            if not isinstance(base, Record):
                raise self.parsed.error(node, "dict(...) of a value that is not a dict built here", "write a literal")
            items.update(zip(base.keys, base))
        for k in node.keywords:
            items[k.arg] = self.lower.expressions.expr(k.value)
        return Record(items.values(), items, self.emit.body)

    def record_call(self, node: ast.Call, target: type):
        """``Stats(m, v)`` or ``Stats(mean=m, var=v)`` of a NamedTuple or dataclass, ``Particle(x, v)`` of a
        plain class whose ``__init__`` stores its arguments: a record built here, its defaults filled in
        (``record_class``)."""
        try:
            bound = inspect.signature(target).bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            raise self.parsed.error(node, f"the call {ast.unparse(node)} ({exc})", "pass one value per field") from None
        items: dict = {}
        factories = (
            {f.name: f.default_factory for f in dataclasses.fields(target)} if dataclasses.is_dataclass(target) else {}
        )
        for name, param in inspect.signature(target).parameters.items():
            if name in bound.arguments:
                items[name] = self.lower.expressions.expr(bound.arguments[name])
            elif factories.get(name, dataclasses.MISSING) is list:  # field(default_factory=list): a new empty list
                items[name] = self.emit.apply("list", [], name)
            elif factories.get(name, dataclasses.MISSING) is not dataclasses.MISSING:
                raise self.parsed.error(
                    node, f"the field {name} of {target.__name__}, made by its default_factory", f"pass {name}="
                )
            elif param.default is not inspect.Parameter.empty and param.default is not dataclasses.MISSING:
                items[name] = constant(param.default, f"{name}_default")
            else:
                raise self.parsed.error(node, f"the field {name} of {target.__name__} made by a factory", "pass it")
        stored = (
            stored_fields(target) if not hasattr(target, "_fields") and not dataclasses.is_dataclass(target) else None
        )
        if stored is not None:  # a plain class: its attributes, as its __init__ sets them
            items = {attr: items[source] if isinstance(source, str) else source for attr, source in stored.items()}
        return Record(items.values(), items, self.emit.body, target)

    def key_of(self, node) -> str:
        if isinstance(node, ast.Name) and node.id not in self.emit.slots:  # the key of a loop over keys
            held = self.emit.env.get(node.id)
            if isinstance(held, Const) and type(held.value) is str:
                return held.value
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            raise self.parsed.error(
                node, "a dict key that is not a string constant", 'use string keys written as constants: d["W"]'
            )
        return node.value

    def record_read(self, record: Record, node: ast.Subscript):
        """``d["W"]`` of a dict built here, ``s[0]`` of a NamedTuple built here: the item's atom."""
        if record.cls is not dict and hasattr(record.cls, "_fields"):
            index = node.slice
            if (
                isinstance(index, ast.Constant)
                and type(index.value) is int
                and -len(record) <= index.value < len(record)
            ):
                return record[index.value]
            raise self.parsed.error(node, f"this index of a {record.cls.__name__}", "read its fields as s.name")
        if record.cls is not dict:
            raise self.parsed.error(node, f"an index of a {record.cls.__name__}", "read its fields as s.name")
        key = self.key_of(node.slice)
        if key not in record.keys:
            raise self.parsed.error(
                node,
                f"the key {key!r}, which the dict does not have (it has {', '.join(record.keys)})",
                "check it",
                MissingKeyError,  # (a KeyError too, as the primal's)
            )
        return record.value(key)

    def record_write(self, name: str, record: Record, target: ast.Subscript, value) -> None:
        """``d["c"] = v`` on a dict built here: the name holds a new record (no other name may see it)."""
        if record.shared or record.block is not self.emit.body:
            where = "after it was stored, passed on or named twice" if record.shared else "in a loop or branch"
            raise self.parsed.error(
                target,
                f"changing the dict {name} {where}",
                "build the dict with all its keys where it is made, or make a new one: d2 = dict(d, c=v)",
            )
        items = dict(zip(record.keys, record))
        items[self.key_of(target.slice)] = value
        self.emit.env[name] = Record(items.values(), items, self.emit.body)

    def record_method(self, node: ast.Call, hint):
        """``d.values()``, ``d.keys()``, ``d.items()``, ``d.get(k, default)``, ``d.copy()``; None when
        ``d`` is no dict built here and the method is none of these."""
        name, base = node.func.attr, node.func.value
        record = self.emit.env.get(base.id) if isinstance(base, ast.Name) and base.id not in self.emit.slots else None
        if not isinstance(record, Record):
            if name == "values" and not node.args and not node.keywords:  # of an argument: its items, listed
                return self.emit.apply(
                    "list_copy", [self.emit.element(self.lower.expressions.expr(base))], hint, param="values"
                )
            if name in ("keys", "items", "get"):
                raise self.parsed.error(
                    node,
                    f".{name}() of a dict that is an argument or kept in a name assigned in several places",
                    "read its items by key (d['W']), or iterate over d.values()",
                )
            return None
        if node.keywords or len(node.args) > (2 if name == "get" else 0) or name == "get" and not node.args:
            raise self.parsed.error(node, f"d.{name} with these arguments", "see the Python documentation of dict")
        if name == "values":
            return tuple(record)
        if name == "keys":
            return tuple(Const(k) for k in record.keys)
        if name == "items":
            return tuple((Const(k), v) for k, v in zip(record.keys, record))
        if name == "copy":
            return Record(tuple(record), record.keys, self.emit.body)
        key = self.key_of(node.args[0])
        if key in record.keys:
            return record.value(key)
        return self.lower.expressions.expr(node.args[1]) if len(node.args) > 1 else Const(None)

    def share(self, value) -> None:
        """Mark the records in a value that another name, a container or a callee now also holds."""
        if isinstance(value, Record):
            value.shared = True
        if isinstance(value, tuple):
            for v in value:
                self.share(v)

    def solid(self, value):
        """A returned value: each dict built here as the tuple of its items (one output, with its keys)."""
        if isinstance(value, Record):
            return self.emit.element(value)
        if isinstance(value, tuple):
            return tuple(self.solid(v) for v in value)
        return value

    def self_method(self, node: ast.Call, hint):
        """``self.forward(x)`` in a method: the class's function called with ``self`` first (a static
        method without it), as a call of a user function; None for any other call.  The method is read
        from the class that defines the function being lowered, and the code is built again if the class
        changes it; where a subclass overrides it (or comes to: then too), the call is left to the object's
        class (None: a call through an object, ``analysis.methods``), as Python dispatches it."""
        func, params = node.func, self.parsed.node.args.args
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and params):
            return None
        cls = defining_class(self.parsed.obj)
        if cls is None or func.value.id != params[0].arg or func.value.id in self.emit.slots:
            return None
        found = inspect.getattr_static(cls, func.attr, None)
        if _overridden(cls, func.attr, found):  # the object's own class decides (analysis.methods)
            return None
        self.parsed.reads.append(Read(_Overriding(cls, found), func.attr, False))  # (one overriding it later:
        # the code built again)
        if isinstance(found, staticmethod) and isinstance(found.__func__, types.FunctionType):
            target, args = found.__func__, node.args
        elif isinstance(found, types.FunctionType):
            target, args = found, [func.value, *node.args]
        else:
            return None
        self.parsed.reads.append(Read(vars(cls), func.attr, found))
        call = ast.copy_location(ast.Call(func, args, node.keywords), node)
        return self.lower.expressions.user_call(call, target, hint)


class _Overriding:
    """Whether a subclass of ``cls`` overrides its method ``found`` of each name read, as a namespace of a
    ``Read``: code that called ``found`` for ``self.name`` is built again once a subclass (defined later)
    overrides it."""

    def __init__(self, cls: type, found):
        self.cls, self.found = cls, found

    def __getitem__(self, name: str) -> bool:
        return _overridden(self.cls, name, self.found)

    def get(self, name: str, default=None) -> bool:
        return self[name]

    def __contains__(self, name) -> bool:
        return True


def _overridden(cls: type, name: str, found) -> bool:
    """Whether a subclass of ``cls`` (at any depth) has a method ``name`` other than ``found``, ``cls``'s."""
    seen, todo = set(), list(type.__subclasses__(cls))
    while todo:
        sub = todo.pop()
        if sub in seen:
            continue
        seen.add(sub)
        if inspect.getattr_static(sub, name, None) is not found:
            return True
        todo.extend(type.__subclasses__(sub))
    return False


def defining_class(fn):
    """The class whose body defines ``fn`` (a method), found through its qualified name; None for a
    function of a module or one defined inside another function."""
    parts = getattr(fn, "__qualname__", "").split(".")
    if len(parts) < 2 or "<locals>" in parts:
        return None
    obj = getattr(fn, "__globals__", {}).get(parts[0])
    for part in parts[1:-1]:
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None
