"""Values of a user's file computed without running any of it: what ``adc compile`` knows of a constant.

An expression is evaluated here only where none of the user's code runs and nothing outside the
process is touched: literals; names already known; arithmetic, comparisons, indexing, displays and
comprehensions on *data* (numbers, strings, bytes, tuples, lists, dicts, sets, ranges, slices, and
NumPy arrays, scalars and dtypes of numbers); attributes of modules and of data; and a short list of
pure library functions called with data (the constructors of numbers and containers, ``math``,
NumPy's array constructors, ufuncs, reductions and linear algebra).  A library function outside that
list (``os.remove("x")``), a call of the file's own code, a callable passed as an argument (``key=``),
a walrus or a ``yield`` is never evaluated: it raises ``Unresolvable`` with the node and why.  What
counts as data, the pure functions and the size bounds are in ``front.static_data``.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import operator
import types
from typing import Any, Callable

from .static_data import (
    BINARY,
    COMPARE,
    DATA_ATTRIBUTES,
    ITERATORS,
    LIMIT_ITEMS,
    PURE_METHODS,
    UNARY,
    Unresolvable,
    bind,
    check_binary,
    check_call,
    hashable,
    is_array,
    is_data,
    is_dtype,
    numpy,
    pure_table,
    refused_call,
    short,
    size_of,
    truth,
    typelike,
    what,
)

__all__ = ["Evaluator", "Unresolvable", "bind", "is_data"]


class Evaluator:
    """Evaluates expressions of one module of the user's: ``lookup(name, node)`` gives a module-level
    name's value (or raises ``Unresolvable``), ``member(module, name, node)`` an attribute of a module
    read statically, ``is_user(obj)`` says whether an object was made from the user's files,
    ``make_lambda(node)`` builds a lambda from its source (with static defaults).

    A node of kind ``K`` is evaluated by the ``visit_K`` of this object (constants, operators, indexing)
    or of one of its parts: Names (names and attributes), Displays (displays, f-strings, slices and
    comprehensions), Calls (calls of pure functions and methods of data, lambdas)."""

    def __init__(self, lookup: Callable, member: Callable, is_user: Callable, make_lambda: Callable):
        self.lookup = lookup
        self.member = member
        self.is_user = is_user
        self.make_lambda = make_lambda
        parts = (self, Names(self), Displays(self), Calls(self))
        self.kinds = {
            name[len("visit_") :]: getattr(part, name)
            for part in parts
            for name in dir(part)
            if name.startswith("visit_")
        }  # a node kind's name -> what evaluates it

    # ------------------------------------------------------------------ entry points

    def value(self, node: ast.expr, local: dict | None = None) -> Any:
        """The value of ``node`` (names in ``local`` first: a comprehension's targets)."""
        method = self.kinds.get(type(node).__name__)
        if method is None:
            raise Unresolvable(node, f"{what(node)} is not evaluated without running the file")
        return method(node, local)

    def data(self, node: ast.expr, local: dict | None = None) -> Any:
        """The value of ``node``, which must be data."""
        value = self.value(node, local)
        if not is_data(value):
            raise Unresolvable(node, f"{short(node)} is not a number, string, container or array of numbers")
        return value

    def iterable(self, node, local) -> list:
        """The items of ``node``'s value (a starred display item, a comprehension's source, ``*args``)."""
        value = self.value(node, local)
        if isinstance(value, ITERATORS):  # zip(xs, ys), enumerate(xs): of data, made by a pure call
            items = list(itertools.islice(value, LIMIT_ITEMS + 1))
        elif not is_data(value):
            raise Unresolvable(node, f"{short(node)} is not a number, string, container or array of numbers")
        elif (
            isinstance(value, (dict, set, frozenset, list, tuple, str, bytes, range)) or is_array(value) and value.ndim
        ):
            items = list(value) if size_of(value) <= LIMIT_ITEMS else [None] * (LIMIT_ITEMS + 1)
        else:
            raise Unresolvable(node, f"{short(node)} is not iterable")
        if len(items) > LIMIT_ITEMS:
            raise Unresolvable(node, f"{short(node)} is too large to go through without running the file")
        return items

    def apply(self, node, fn, *args, negate=False, **kwargs):
        """``fn(*args)``, its exceptions (and NumPy's warnings-as-values) turned into ``Unresolvable``."""
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the value cannot be known: the reader says what raised
            raise Unresolvable(node, f"{short(node)} raised {type(exc).__name__}: {exc}") from None
        return (not result) if negate else result

    # ------------------------------------------------------------------ constants, operators, indexing

    def visit_Constant(self, node, local):
        return node.value

    def visit_BinOp(self, node, local):
        left, right = self.value(node.left, local), self.value(node.right, local)
        if isinstance(node.op, ast.BitOr) and typelike(left) and typelike(right):
            return self.type_union(node, left, right)
        for side, part in ((left, node.left), (right, node.right)):
            if not is_data(side):
                raise Unresolvable(part, f"{short(part)} is not a number, string, container or array of numbers")
        check_binary(node, node.op, left, right)
        return self.apply(node, BINARY[type(node.op)], left, right)

    def visit_UnaryOp(self, node, local):
        operand = self.data(node.operand, local)
        if isinstance(node.op, ast.Not):
            return self.apply(node, truth, operand, negate=True)
        return self.apply(node, UNARY[type(node.op)], operand)

    def visit_BoolOp(self, node, local):
        is_and = isinstance(node.op, ast.And)
        value = None
        for part in node.values:
            value = self.data(part, local)
            holds = self.apply(part, truth, value)
            if holds != is_and:
                return value
        return value

    def visit_Compare(self, node, local):
        left = self.value(node.left, local)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.value(comparator, local)
            if not isinstance(op, (ast.Is, ast.IsNot)):
                for side, part in ((left, node.left), (right, comparator)):
                    if not is_data(side) and not typelike(side):
                        raise Unresolvable(part, f"{short(part)} is not compared without running the file")
            result = self.apply(node, COMPARE[type(op)], left, right)
            if len(node.ops) == 1:
                return result
            if not self.apply(node, truth, result):
                return False
            left = right
        return True

    def visit_IfExp(self, node, local):
        test = self.data(node.test, local)
        return self.value(node.body if self.apply(node.test, truth, test) else node.orelse, local)

    def visit_Subscript(self, node, local):
        base = self.value(node.value, local)
        index = self.value(node.slice, local)
        if typelike(base) and not is_data(base):
            return self.subscript_type(node, base, index)
        if not is_data(base):
            raise Unresolvable(node.value, f"{short(node.value)} is not indexed without running the file")
        if not is_data(index):
            raise Unresolvable(node.slice, f"{short(node.slice)} is not an index of data")
        if is_array(index) and size_of(index) > LIMIT_ITEMS:
            raise Unresolvable(node.slice, "the index is too large")
        return self.apply(node, operator.getitem, base, index)

    def subscript_type(self, node, base, index):
        """``list[float]``, ``np.ndarray``'s generic forms, ``typing`` forms: never a class of the user's
        (whose ``__class_getitem__`` would be its code)."""
        if self.is_user(base) or not typelike(base):
            raise Unresolvable(node, f"{short(node)} is not evaluated without running the file")
        parts = index if isinstance(index, tuple) else (index,)
        for part in parts:
            if not (typelike(part) or is_data(part) or isinstance(part, list)):
                raise Unresolvable(node, f"{short(node)} is not evaluated without running the file")
        return self.apply(node, operator.getitem, base, index)

    def type_union(self, node, left, right):
        if not (typelike(left) and typelike(right)):
            raise Unresolvable(node, f"{short(node)} is not evaluated without running the file")
        return self.apply(node, operator.or_, left, right)


class Names:
    """Names and attributes, for ``ev`` (the Evaluator that holds this part)."""

    def __init__(self, ev: Evaluator):
        self.ev = ev

    def visit_Name(self, node, local):
        if local is not None and node.id in local:
            return local[node.id]
        return self.ev.lookup(node.id, node)

    def visit_Attribute(self, node, local):
        base = self.ev.value(node.value, local)
        attr = node.attr
        if isinstance(base, types.ModuleType) and self.ev.is_user(base):
            return self.ev.member(base, attr, node)
        if isinstance(base, type):
            return self._class_attribute(node, base, attr)
        # a library's module, a function (a rule's defjvp: a read of its dict), data (x.shape, x.T)
        if isinstance(base, (types.ModuleType, types.FunctionType)) or attr in DATA_ATTRIBUTES and is_data(base):
            return self._get(node, base, attr)
        raise Unresolvable(node, f"the attribute {short(node)} is not read without running the file")

    def _class_attribute(self, node, cls, attr):
        """``C.attr``: for a class of the user's, what its namespace holds (no descriptor runs); for a
        library class, the attribute as the library gives it."""
        if not self.ev.is_user(cls):
            return self._get(node, cls, attr)
        found = self._get(node, cls, attr, inspect.getattr_static)
        if isinstance(found, staticmethod):
            return found.__func__
        if is_data(found) or isinstance(found, (types.FunctionType, type)):
            return found
        raise Unresolvable(node, f"{short(node)} is not read without running the file")

    def _get(self, node, obj, attr, get=getattr):
        try:
            return get(obj, attr)
        except AttributeError:
            raise Unresolvable(node, f"{short(node)} does not exist") from None


class Displays:
    """Displays (tuples, lists, sets, dicts), f-strings, slices and comprehensions, for ``ev`` (the
    Evaluator that holds this part)."""

    def __init__(self, ev: Evaluator):
        self.ev = ev

    def visit_Tuple(self, node, local):
        return tuple(self._items(node.elts, local))

    def visit_List(self, node, local):
        return self._items(node.elts, local)

    def visit_Set(self, node, local):
        return self.ev.apply(node, set, self._items(node.elts, local))

    def visit_Dict(self, node, local):
        out = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # {**other}
                other = self.ev.data(value, local)
                if not isinstance(other, dict):
                    raise Unresolvable(value, f"{short(value)} is not a dict")
                out.update(other)
            else:
                out[self.ev.apply(key, hashable, self.ev.data(key, local))] = self.ev.value(value, local)
            if len(out) > LIMIT_ITEMS:
                raise Unresolvable(node, "the dict is too large to make without running the file")
        return out

    def _items(self, elts, local) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.ev.iterable(e.value, local))
            else:
                out.append(self.ev.value(e, local))
            if len(out) > LIMIT_ITEMS:
                raise Unresolvable(e, "the display is too large to make without running the file")
        return out

    def visit_JoinedStr(self, node, local):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(part.value)
                continue
            value = self.ev.data(part.value, local)
            spec = self.ev.value(part.format_spec, local) if part.format_spec is not None else ""
            convert = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}[part.conversion]
            parts.append(self.ev.apply(part, lambda v, s: format(convert(v), s), value, spec))
        return "".join(parts)

    def visit_Slice(self, node, local):
        bounds = [self.ev.data(b, local) if b is not None else None for b in (node.lower, node.upper, node.step)]
        return slice(*bounds)

    # ------------------------------------------------------------------ comprehensions

    def visit_ListComp(self, node, local):
        return self._comprehension(node, local, lambda scope: self.ev.value(node.elt, scope))

    def visit_GeneratorExp(self, node, local):  # read whole: it is only ever an argument of sum, tuple, ...
        return self.visit_ListComp(node, local)

    def visit_SetComp(self, node, local):
        return self.ev.apply(node, set, self.visit_ListComp(node, local))

    def visit_DictComp(self, node, local):
        pairs = self._comprehension(
            node, local, lambda scope: (self.ev.data(node.key, scope), self.ev.value(node.value, scope))
        )
        return self.ev.apply(node, dict, pairs)

    def _comprehension(self, node, local, element) -> list:
        out: list = []
        count = [0]

        def go(generators, scope):
            if not generators:
                out.append(element(scope))
                return
            gen = generators[0]
            if gen.is_async:
                raise Unresolvable(gen, "an async comprehension is not evaluated")
            for item in self.ev.iterable(gen.iter, scope):
                count[0] += 1
                if count[0] > LIMIT_ITEMS:
                    raise Unresolvable(node, "the comprehension is too long to evaluate without running the file")
                inner = dict(scope)
                bind(gen.target, item, inner.__setitem__)
                if all(self.ev.apply(c, truth, self.ev.data(c, inner)) for c in gen.ifs):
                    go(generators[1:], inner)

        go(node.generators, dict(local or {}))
        return out


class Calls:
    """Calls of the pure functions of ``front.static_data`` and of methods of data, and lambdas, for ``ev``
    (the Evaluator that holds this part)."""

    def __init__(self, ev: Evaluator):
        self.ev = ev

    def visit_Lambda(self, node, local):
        if local:
            raise Unresolvable(
                node, "a lambda here (in a comprehension or a class body) is not made without running the file"
            )
        return self.ev.make_lambda(node)

    def visit_Call(self, node, local):
        if isinstance(node.func, ast.Attribute):  # a method of data: xs.reshape(2, 3)
            base = self.ev.value(node.func.value, local)
            if is_data(base) and not isinstance(base, type):
                return self._method(node, base, local)
        func = self.ev.value(node.func, local)
        if not self._pure(func):
            raise Unresolvable(node, refused_call(node, func, self.ev.is_user))
        args, kwargs = self._arguments(node, local)
        check_call(node, func, args, kwargs)
        result = self.ev.apply(node, func, *args, **kwargs)
        if not (is_data(result) or typelike(result) or isinstance(result, ITERATORS)):
            raise Unresolvable(node, f"{short(node)} gives {type(result).__name__}, which is not data")
        return result

    def _method(self, node, base, local):
        name = node.func.attr
        allowed = PURE_METHODS.get(type(base).__name__ if not is_array(base) else "ndarray", "")
        np = numpy()
        if np is not None and isinstance(base, np.generic):
            allowed = PURE_METHODS["ndarray"]
        if name not in allowed.split():
            raise Unresolvable(node, f"{short(node.func)}(...) is a method call adc compile does not make")
        args, kwargs = self._arguments(node, local)
        if size_of(base) > LIMIT_ITEMS:
            raise Unresolvable(node, "the value is too large")
        return self.ev.apply(node, getattr(base, name), *args, **kwargs)

    def _arguments(self, node, local):
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.ev.iterable(a.value, local))
            else:
                args.append(self._argument(a, local))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                more = self.ev.data(k.value, local)
                if not isinstance(more, dict) or not all(isinstance(key, str) for key in more):
                    raise Unresolvable(k.value, f"{short(k.value)} is not a dict of keyword arguments")
                kwargs.update(more)
            elif k.arg == "dtype":
                kwargs[k.arg] = self._dtype(k.value, local)
            elif k.arg in ("out", "key"):
                raise Unresolvable(k, f"the keyword argument {k.arg}= is not evaluated without running the file")
            else:
                kwargs[k.arg] = self._argument(k.value, local)
        return args, kwargs

    def _argument(self, node, local):
        value = self.ev.value(node, local)
        if is_data(value) or isinstance(value, ITERATORS):
            return value
        if is_dtype(value):  # float, np.float32: a dtype (astype(np.float32)); no table function calls it
            return value
        raise Unresolvable(node, f"{short(node)} is not data (only numbers, strings, containers and arrays are passed)")

    def _dtype(self, node, local):
        value = self.ev.value(node, local)
        if is_dtype(value) or value is None:
            return value
        raise Unresolvable(node, f"{short(node)} is not a dtype")

    def _pure(self, func) -> bool:
        return not self.ev.is_user(func) and id(func) in pure_table()
