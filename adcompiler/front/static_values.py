"""Values of a user's file computed without running any of it: what ``adc compile`` knows of a constant.

An expression is evaluated here only where none of the user's code runs and nothing outside the
process is touched: literals; names already known; arithmetic, comparisons, indexing, displays and
comprehensions on *data* (numbers, strings, bytes, tuples, lists, dicts, sets, ranges, slices, and
NumPy arrays, scalars and dtypes of numbers); attributes of modules and of data; and a short list of
pure library functions called with data (the constructors of numbers and containers, ``math``,
NumPy's array constructors, ufuncs, reductions and linear algebra).  A library function outside that
list (``os.remove("x")``), a call of the file's own code, a callable passed as an argument (``key=``),
a walrus or a ``yield`` is never evaluated: it raises ``Unresolvable`` with the node and why.  Sizes are
bounded (``LIMIT_ITEMS`` elements, ``LIMIT_BITS`` bits of an integer), so a file cannot make the
reader allocate gigabytes or compute for minutes.
"""

from __future__ import annotations

import ast
import builtins
import math
import operator
import sys
import types
from typing import Any, Callable

LIMIT_ITEMS = 10_000_000  # elements of an array, list, string or range the reader may make
LIMIT_BITS = 100_000  # bits of an integer it may make


class Unresolvable(Exception):
    """An expression whose value the reader does not compute: the node and why (a phrase)."""

    def __init__(self, node: ast.AST, why: str):
        super().__init__(why)
        self.node = node
        self.why = why


_SCALARS = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis))
_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_, ast.Invert: operator.invert}
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}

# Builtins that compute a value from data and do nothing else.
PURE_BUILTINS = (
    "abs all any bin bool bytes chr complex dict divmod enumerate float frozenset hex int len list max min oct "
    "ord pow range reversed round set slice sorted str sum tuple zip"
).split()
# NumPy functions (besides every ufunc and the scalar types) that compute an array from data and do nothing else.
PURE_NUMPY = (
    "array asarray ascontiguousarray asfortranarray ones zeros full eye identity linspace logspace geomspace "
    "arange ones_like zeros_like full_like diag diagflat tri triu tril stack vstack hstack dstack "
    "concatenate column_stack reshape transpose swapaxes moveaxis squeeze expand_dims atleast_1d atleast_2d "
    "atleast_3d ravel flip fliplr flipud roll sort argsort sum prod mean std var max min amax amin argmax argmin "
    "cumsum cumprod dot vdot inner outer trace clip where isclose allclose array_equal meshgrid round around "
    "finfo iinfo dtype"
).split()  # (not np.empty: its values are whatever the memory held)
PURE_LINALG = "inv norm det cholesky solve eigh eigvalsh qr svd pinv".split()
# Methods of data that read it and return a new value (never ones that change it in place: fill, sort, append).
PURE_METHODS = {
    "ndarray": "reshape copy astype transpose flatten ravel tolist item sum prod mean std var max min argmax argmin "
    "cumsum cumprod dot conj conjugate squeeze swapaxes trace diagonal round clip any all",
    "str": "upper lower strip lstrip rstrip split join replace format startswith endswith",
    "dict": "get keys values items copy",
    "list": "copy index count",
    "tuple": "index count",
}
DATA_ATTRIBUTES = {"T", "shape", "ndim", "size", "dtype", "real", "imag", "itemsize", "nbytes", "name", "kind", "eps"}


def numpy():
    """NumPy if the process has imported it (the reader never imports it for a file that does not)."""
    return sys.modules.get("numpy")


def is_data(value, limit: int = LIMIT_ITEMS) -> bool:
    """Whether ``value`` is data: numbers, strings, None, containers of data, NumPy arrays of numbers."""
    np = numpy()
    stack, seen = [value], 0
    while stack:
        v = stack.pop()
        seen += 1
        if seen > limit:
            return False
        t = type(v)
        if t in _SCALARS or t is range:
            continue
        if t in (list, tuple, set, frozenset) or isinstance(v, tuple) and _library(type(v)):
            stack.extend(v)
        elif t is dict:
            stack.extend(v.keys())
            stack.extend(v.values())
        elif t is slice:
            stack.extend((v.start, v.stop, v.step))
        elif np is not None and (t is np.ndarray or isinstance(v, np.generic)) and v.dtype.kind in "biufcUS":
            continue
        elif np is not None and isinstance(v, (np.dtype, np.finfo, np.iinfo)):
            continue
        else:
            return False
    return True


def is_dtype(value) -> bool:
    """Whether ``value`` names a dtype (``float``, ``np.float32``, ``"float64"``, ``np.dtype(...)``)."""
    np = numpy()
    if value in (float, int, complex, bool) or isinstance(value, str):
        return True
    return np is not None and (isinstance(value, np.dtype) or isinstance(value, type) and issubclass(value, np.generic))


def _library(cls) -> bool:
    return getattr(cls, "__module__", "") in ("sys", "builtins", "time", "os")  # sys.version_info and the like


def size_of(value) -> int:
    """The number of elements ``value`` holds (1 for a scalar), as the size guards count them."""
    np = numpy()
    if np is not None and isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, (list, tuple, set, frozenset, dict, str, bytes, range)):
        return len(value)
    return 1


def _shape(value) -> tuple:
    np = numpy()
    try:
        return tuple(np.shape(value)) if np is not None else ()
    except Exception:  # noqa: BLE001 - a ragged list: no shape
        return (size_of(value),)


def _prod(shape) -> int:
    out = 1
    for n in shape:
        out *= max(int(n), 0)
    return out


class Evaluator:
    """Evaluates expressions of one module of the user's: ``lookup(name, node)`` gives a module-level
    name's value (or raises ``Unresolvable``), ``member(module, name, node)`` an attribute of a module
    read statically, ``is_user(obj)`` says whether an object was made from the user's files,
    ``make_lambda(node)`` builds a lambda from its source (with static defaults)."""

    def __init__(self, lookup: Callable, member: Callable, is_user: Callable, make_lambda: Callable):
        self.lookup = lookup
        self.member = member
        self.is_user = is_user
        self.make_lambda = make_lambda

    # ------------------------------------------------------------------ entry points

    def value(self, node: ast.expr, local: dict | None = None) -> Any:
        """The value of ``node`` (names in ``local`` first: a comprehension's targets)."""
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise Unresolvable(node, f"{_what(node)} is not evaluated without running the file")
        return method(node, local)

    def data(self, node: ast.expr, local: dict | None = None) -> Any:
        """The value of ``node``, which must be data."""
        value = self.value(node, local)
        if not is_data(value):
            raise Unresolvable(node, f"{_short(node)} is not a number, string, container or array of numbers")
        return value

    def annotation(self, node: ast.expr, local: dict | None = None) -> Any:
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
            return self.annotation(inner, local)
        if isinstance(node, ast.Subscript):
            base = self.annotation(node.value, local)
            special = getattr(base, "_name", None)  # Literal["a"] and Annotated[float, "meta"] hold data
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            args = tuple(
                (
                    self.data(p, local)
                    if special == "Literal" or special == "Annotated" and i
                    else self._annotation_part(p, local)
                )
                for i, p in enumerate(parts)
            )
            return self._subscript_type(node, base, args[0] if len(args) == 1 else args)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = self.annotation(node.left, local), self.annotation(node.right, local)
            return self._type_union(node, left, right)
        return self.value(node, local)

    def _annotation_part(self, node, local):
        if isinstance(node, ast.List):  # Callable[[float], float]
            return [self.annotation(e, local) for e in node.elts]
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            return Ellipsis
        return self.annotation(node, local)

    # ------------------------------------------------------------------ leaves

    def _Constant(self, node, local):
        return node.value

    def _Name(self, node, local):
        if local is not None and node.id in local:
            return local[node.id]
        return self.lookup(node.id, node)

    def _Attribute(self, node, local):
        base = self.value(node.value, local)
        attr = node.attr
        if isinstance(base, types.ModuleType):
            if self.is_user(base):
                return self.member(base, attr, node)
            try:
                return getattr(base, attr)
            except AttributeError:
                raise Unresolvable(node, f"{_short(node)} does not exist") from None
        if isinstance(base, types.FunctionType):  # a rule's defjvp, say: a plain read of the function's dict
            try:
                return getattr(base, attr)
            except AttributeError:
                raise Unresolvable(node, f"{_short(node)} does not exist") from None
        if isinstance(base, type):
            return self._class_attribute(node, base, attr)
        if attr in DATA_ATTRIBUTES and is_data(base):
            try:
                return getattr(base, attr)
            except AttributeError:
                raise Unresolvable(node, f"{_short(node)} does not exist") from None
        raise Unresolvable(node, f"the attribute {_short(node)} is not read without running the file")

    def _class_attribute(self, node, cls, attr):
        """``C.attr``: for a class of the user's, what its namespace holds (no descriptor runs); for a
        library class, the attribute as the library gives it."""
        if not self.is_user(cls):
            try:
                return getattr(cls, attr)
            except AttributeError:
                raise Unresolvable(node, f"{_short(node)} does not exist") from None
        import inspect

        try:
            found = inspect.getattr_static(cls, attr)
        except AttributeError:
            raise Unresolvable(node, f"{_short(node)} does not exist") from None
        if isinstance(found, staticmethod):
            return found.__func__
        if is_data(found) or isinstance(found, (types.FunctionType, type)):
            return found
        raise Unresolvable(node, f"{_short(node)} is not read without running the file")

    # ------------------------------------------------------------------ operators

    def _BinOp(self, node, local):
        left, right = self.value(node.left, local), self.value(node.right, local)
        if isinstance(node.op, ast.BitOr) and _typelike(left) and _typelike(right):
            return self._type_union(node, left, right)
        for side, part in ((left, node.left), (right, node.right)):
            if not is_data(side):
                raise Unresolvable(part, f"{_short(part)} is not a number, string, container or array of numbers")
        _check_binary(node, node.op, left, right)
        return self._apply(node, _BINARY[type(node.op)], left, right)

    def _UnaryOp(self, node, local):
        operand = self.data(node.operand, local)
        if isinstance(node.op, ast.Not):
            return self._apply(node, _truth, operand, negate=True)
        return self._apply(node, _UNARY[type(node.op)], operand)

    def _BoolOp(self, node, local):
        is_and = isinstance(node.op, ast.And)
        value = None
        for part in node.values:
            value = self.data(part, local)
            truth = self._apply(part, _truth, value)
            if truth != is_and:
                return value
        return value

    def _Compare(self, node, local):
        left = self.value(node.left, local)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.value(comparator, local)
            if not isinstance(op, (ast.Is, ast.IsNot)):
                for side, part in ((left, node.left), (right, comparator)):
                    if not is_data(side) and not _typelike(side):
                        raise Unresolvable(part, f"{_short(part)} is not compared without running the file")
            result = self._apply(node, _COMPARE[type(op)], left, right)
            if len(node.ops) == 1:
                return result
            if not self._apply(node, _truth, result):
                return False
            left = right
        return True

    def _IfExp(self, node, local):
        test = self.data(node.test, local)
        return self.value(node.body if self._apply(node.test, _truth, test) else node.orelse, local)

    # ------------------------------------------------------------------ displays

    def _Tuple(self, node, local):
        return tuple(self._items(node.elts, local))

    def _List(self, node, local):
        return self._items(node.elts, local)

    def _Set(self, node, local):
        return self._apply(node, set, self._items(node.elts, local))

    def _Dict(self, node, local):
        out = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # {**other}
                other = self.data(value, local)
                if not isinstance(other, dict):
                    raise Unresolvable(value, f"{_short(value)} is not a dict")
                out.update(other)
            else:
                out[self._apply(key, _hashable, self.data(key, local))] = self.value(value, local)
            if len(out) > LIMIT_ITEMS:
                raise Unresolvable(node, "the dict is too large to make without running the file")
        return out

    def _items(self, elts, local) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self._iterable(e.value, local))
            else:
                out.append(self.value(e, local))
            if len(out) > LIMIT_ITEMS:
                raise Unresolvable(e, "the display is too large to make without running the file")
        return out

    def _iterable(self, node, local) -> list:
        value = self.data(node, local)
        if isinstance(value, (dict, set, frozenset, list, tuple, str, bytes, range)) or size_of(value) > 1:
            if size_of(value) > LIMIT_ITEMS:
                raise Unresolvable(node, f"{_short(node)} is too large to go through without running the file")
            return list(value)
        raise Unresolvable(node, f"{_short(node)} is not iterable")

    def _JoinedStr(self, node, local):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(part.value)
                continue
            value = self.data(part.value, local)
            spec = self.value(part.format_spec, local) if part.format_spec is not None else ""
            convert = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}[part.conversion]
            parts.append(self._apply(part, lambda v, s: format(convert(v), s), value, spec))
        return "".join(parts)

    def _Slice(self, node, local):
        bounds = [self.data(b, local) if b is not None else None for b in (node.lower, node.upper, node.step)]
        return slice(*bounds)

    def _Subscript(self, node, local):
        base = self.value(node.value, local)
        index = self.value(node.slice, local)
        if _typelike(base) and not is_data(base):
            return self._subscript_type(node, base, index)
        if not is_data(base):
            raise Unresolvable(node.value, f"{_short(node.value)} is not indexed without running the file")
        if not is_data(index):
            raise Unresolvable(node.slice, f"{_short(node.slice)} is not an index of data")
        if _is_array(index) and size_of(index) > LIMIT_ITEMS:
            raise Unresolvable(node.slice, "the index is too large")
        return self._apply(node, operator.getitem, base, index)

    def _subscript_type(self, node, base, index):
        """``list[float]``, ``np.ndarray``'s generic forms, ``typing`` forms: never a class of the user's
        (whose ``__class_getitem__`` would be its code)."""
        if self.is_user(base) or not _typelike(base):
            raise Unresolvable(node, f"{_short(node)} is not evaluated without running the file")
        parts = index if isinstance(index, tuple) else (index,)
        for part in parts:
            if not (_typelike(part) or is_data(part) or isinstance(part, list)):
                raise Unresolvable(node, f"{_short(node)} is not evaluated without running the file")
        return self._apply(node, operator.getitem, base, index)

    def _type_union(self, node, left, right):
        if not (_typelike(left) and _typelike(right)):
            raise Unresolvable(node, f"{_short(node)} is not evaluated without running the file")
        return self._apply(node, operator.or_, left, right)

    # ------------------------------------------------------------------ comprehensions

    def _ListComp(self, node, local):
        return self._comprehension(node, local, lambda scope: self.value(node.elt, scope))

    def _GeneratorExp(self, node, local):  # read whole: it is only ever an argument of sum, tuple, ...
        return self._ListComp(node, local)

    def _SetComp(self, node, local):
        return self._apply(node, set, self._ListComp(node, local))

    def _DictComp(self, node, local):
        pairs = self._comprehension(
            node, local, lambda scope: (self.data(node.key, scope), self.value(node.value, scope))
        )
        return self._apply(node, dict, pairs)

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
            for item in self._iterable(gen.iter, scope):
                count[0] += 1
                if count[0] > LIMIT_ITEMS:
                    raise Unresolvable(node, "the comprehension is too long to evaluate without running the file")
                inner = dict(scope)
                bind(gen.target, item, inner.__setitem__)
                if all(self._apply(c, _truth, self.data(c, inner)) for c in gen.ifs):
                    go(generators[1:], inner)

        go(node.generators, dict(local or {}))
        return out

    # ------------------------------------------------------------------ functions and calls

    def _Lambda(self, node, local):
        if local:
            raise Unresolvable(
                node, "a lambda here (in a comprehension or a class body) is not made without running the file"
            )
        return self.make_lambda(node)

    def _Call(self, node, local):
        if isinstance(node.func, ast.Attribute):  # a method of data: xs.reshape(2, 3)
            base = self.value(node.func.value, local)
            if is_data(base) and not isinstance(base, type):
                return self._method(node, base, local)
        func = self.value(node.func, local)
        if not self._pure(func):
            raise Unresolvable(node, _refused_call(node, func, self.is_user))
        args, kwargs = self._arguments(node, local, func)
        _check_call(node, func, args, kwargs)
        result = self._apply(node, func, *args, **kwargs)
        if not is_data(result) and not isinstance(result, (zip, enumerate, type(reversed([])), type(reversed(())))):
            raise Unresolvable(node, f"{_short(node)} gives {type(result).__name__}, which is not data")
        return result

    def _method(self, node, base, local):
        name = node.func.attr
        allowed = PURE_METHODS.get(type(base).__name__ if not _is_array(base) else "ndarray", "")
        np = numpy()
        if np is not None and isinstance(base, np.generic):
            allowed = PURE_METHODS["ndarray"]
        if name not in allowed.split():
            raise Unresolvable(node, f"{_short(node.func)}(...) is a method call adc compile does not make")
        args, kwargs = self._arguments(node, local, None)
        if size_of(base) > LIMIT_ITEMS:
            raise Unresolvable(node, "the value is too large")
        return self._apply(node, getattr(base, name), *args, **kwargs)

    def _arguments(self, node, local, func):
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self._iterable(a.value, local))
            else:
                args.append(self._argument(a, local))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                more = self.data(k.value, local)
                if not isinstance(more, dict) or not all(isinstance(key, str) for key in more):
                    raise Unresolvable(k.value, f"{_short(k.value)} is not a dict of keyword arguments")
                kwargs.update(more)
            elif k.arg == "dtype":
                kwargs[k.arg] = self._dtype(k.value, local)
            elif k.arg in ("out", "key"):
                raise Unresolvable(k, f"the keyword argument {k.arg}= is not evaluated without running the file")
            else:
                kwargs[k.arg] = self._argument(k.value, local)
        return args, kwargs

    def _argument(self, node, local):
        value = self.value(node, local)
        if is_data(value) or isinstance(value, (zip, enumerate)):
            return value
        if is_dtype(
            value
        ):  # float, np.float32: a dtype (astype(np.float32), np.array(x, float)); no table function calls it
            return value
        raise Unresolvable(
            node, f"{_short(node)} is not data (only numbers, strings, containers and arrays are passed)"
        )

    def _dtype(self, node, local):
        value = self.value(node, local)
        if is_dtype(value) or value is None:
            return value
        raise Unresolvable(node, f"{_short(node)} is not a dtype")

    def _pure(self, func) -> bool:
        return not self.is_user(func) and id(func) in _pure_table()

    def _apply(self, node, fn, *args, negate=False, **kwargs):
        """``fn(*args)``, its exceptions (and NumPy's warnings-as-values) turned into ``Unresolvable``."""
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the value cannot be known: the reader says what raised
            raise Unresolvable(node, f"{_short(node)} raised {type(exc).__name__}: {exc}") from None
        return (not result) if negate else result


def bind(target: ast.expr, value, store: Callable) -> None:
    """Assign ``value`` to ``target`` (a name, or a tuple or list of targets, unpacked as Python does)."""
    if isinstance(target, ast.Name):
        store(target.id, value)
        return
    if isinstance(target, (ast.Tuple, ast.List)):
        if not is_data(value) and not isinstance(value, (tuple, list)):
            raise Unresolvable(target, "the value unpacked is not data")
        items = list(value) if size_of(value) <= LIMIT_ITEMS else None
        if items is None:
            raise Unresolvable(target, "the value unpacked is too large")
        starred = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
        if starred:
            i = starred[0]
            after = len(target.elts) - i - 1
            if len(items) < len(target.elts) - 1:
                raise Unresolvable(target, f"not enough values to unpack (expected at least {len(target.elts) - 1})")
            parts = items[:i] + [items[i : len(items) - after]] + items[len(items) - after :]
        else:
            if len(items) != len(target.elts):
                raise Unresolvable(target, f"{len(items)} values unpacked into {len(target.elts)} names")
            parts = items
        for t, v in zip(target.elts, parts, strict=True):
            bind(t.value if isinstance(t, ast.Starred) else t, v, store)
        return
    raise Unresolvable(target, f"assigning to {_short(target)} is not done without running the file")


# ---------------------------------------------------------------------- guards and tables


def _check_binary(node, op, left, right) -> None:
    """Refuse what would make a huge value: 10 ** 10 ** 9, [0] * 10 ** 12, an outer product of large arrays."""
    ints = isinstance(left, int) and isinstance(right, int)
    if isinstance(op, ast.Pow) and ints and right > 0 and max(left.bit_length(), 1) * right > LIMIT_BITS:
        raise Unresolvable(node, "the power is too large to compute without running the file")
    if isinstance(op, ast.LShift) and ints and right > LIMIT_BITS:
        raise Unresolvable(node, "the shift is too large to compute without running the file")
    if isinstance(op, ast.Mult) and ints and left.bit_length() + right.bit_length() > LIMIT_BITS:
        raise Unresolvable(node, "the product is too large to compute without running the file")
    if isinstance(op, ast.Mult):
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int) and len(seq) * n > LIMIT_ITEMS:
                raise Unresolvable(node, "the repeated sequence is too large to make without running the file")
    if _is_array(left) or _is_array(right):
        if isinstance(op, ast.MatMult):
            size = _matmul_size(left, right)
        else:
            try:
                size = _prod(numpy().broadcast_shapes(_shape(left), _shape(right)))
            except ValueError:
                return  # shapes that do not broadcast: the operation raises, and says so
        if size > LIMIT_ITEMS:
            raise Unresolvable(node, "the array would be too large to make without running the file")


def _matmul_size(a, b) -> int:
    sa, sb = _shape(a), _shape(b)
    return _prod(sa[:-1]) * _prod(sb[:-2]) * (sb[-1] if len(sb) >= 2 else 1)


def _check_call(node, func, args, kwargs) -> None:
    """Refuse calls that would make a huge value (np.ones(10 ** 12), list(range(10 ** 12)), factorial(10 ** 9))."""
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, range) and len(value) > LIMIT_ITEMS and func not in (len, range):
            raise Unresolvable(node, "the range is too long to go through without running the file")
    name = getattr(func, "__name__", "")
    np = numpy()
    size = None
    try:
        if func in (math.factorial, math.comb, math.perm) and any(isinstance(a, int) and a > 20_000 for a in args):
            size = LIMIT_ITEMS + 1
        elif np is not None and getattr(func, "__module__", "") in (
            "numpy",
            "numpy.core.numeric",
            "numpy.core.multiarray",
        ):
            size = _numpy_size(np, name, args, kwargs)
    except (TypeError, ValueError, OverflowError):
        size = None  # arguments the function refuses: it raises, and says so
    if np is not None and getattr(func, "__module__", "").startswith("numpy.linalg"):
        if any(max(_shape(a), default=0) > 10_000 for a in args):  # svd's full U of a tall matrix: n * n
            size = LIMIT_ITEMS + 1
    if size is not None and size > LIMIT_ITEMS:
        raise Unresolvable(node, "the array would be too large to make without running the file")


def _numpy_size(np, name, args, kwargs) -> int | None:
    """The size of what a NumPy constructor would make, from its arguments, before it is called."""

    def arg(i, key, default=None):
        return args[i] if len(args) > i else kwargs.get(key, default)

    if name in ("ones", "zeros", "full"):
        shape = arg(0, "shape")
        return _prod(shape if isinstance(shape, (tuple, list)) else (shape,))
    if name == "eye":
        n = arg(0, "N")
        m = arg(1, "M")
        return int(n) * int(m if m is not None else n)
    if name == "identity":
        return int(arg(0, "n")) ** 2
    if name == "tri":
        n = arg(0, "N")
        m = arg(1, "M")
        return int(n) * int(m if m is not None else n)
    if name in ("linspace", "logspace", "geomspace"):
        return int(arg(2, "num", 50))
    if name == "arange":
        bounds = [a for a in args[:3]]
        start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (bounds + [1])[:3]
        step = kwargs.get("step", step) or 1
        return max(math.ceil((stop - start) / step), 0) if stop is not None else None
    if name in ("diag", "diagflat"):
        n = size_of(arg(0, "v"))
        return n * n
    if name == "meshgrid":
        return _prod(size_of(a) for a in args) * max(len(args), 1)
    if name in ("dot", "vdot", "inner") and len(args) >= 2:
        return _matmul_size(args[0], args[1])
    if name == "outer" and len(args) >= 2:
        return size_of(args[0]) * size_of(args[1])
    return None


_TABLE: dict = {}


def _pure_table() -> dict:
    """id -> object of every library function the reader may call with data (built again once NumPy is imported)."""
    np = numpy()
    key = "numpy" if np is not None else "plain"
    if _TABLE.get("key") == key:
        return _TABLE["table"]
    table = {id(getattr(builtins, n)): getattr(builtins, n) for n in PURE_BUILTINS}
    for module in (math, __import__("cmath")):
        for name in dir(module):
            value = getattr(module, name)
            if callable(value) and not name.startswith("_"):
                table[id(value)] = value
    typing = sys.modules.get("typing")
    if typing is not None:
        table[id(typing.TypeVar)] = typing.TypeVar
    if np is not None:
        for name in PURE_NUMPY:
            if hasattr(np, name):
                table[id(getattr(np, name))] = getattr(np, name)
        for name in PURE_LINALG:
            table[id(getattr(np.linalg, name))] = getattr(np.linalg, name)
        for name in dir(np):
            value = getattr(np, name, None)
            if isinstance(value, np.ufunc) or isinstance(value, type) and issubclass(value, np.generic):
                table[id(value)] = value
    _TABLE.update(key=key, table=table)
    return table


def _is_array(value) -> bool:
    np = numpy()
    return np is not None and isinstance(value, np.ndarray)


def _typelike(value) -> bool:
    """A type, None, or a ``typing`` form (``Optional[float]``, ``list[float]``): what annotations hold."""
    if value is None or isinstance(value, type):
        return True
    module = getattr(type(value), "__module__", "") or ""
    return module in ("typing", "types", "typing_extensions") or module.startswith(("numpy.typing", "numpy._typing"))


def _truth(value) -> bool:
    return bool(value)


def _hashable(value):
    hash(value)
    return value


def _short(node) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _what(node) -> str:
    kinds = {
        ast.NamedExpr: "an assignment expression (:=)",
        ast.Await: "await",
        ast.Yield: "yield",
        ast.YieldFrom: "yield from",
        ast.Starred: "a starred expression",
    }
    return kinds.get(type(node), _short(node))


def _refused_call(node, func, is_user) -> str:
    """Why a call is not made: the file's own code, or a library function outside the pure ones."""
    name = _short(node.func)
    if is_user(func):
        return f"{name}(...) calls the file's own code, which adc compile does not run"
    return f"{name}(...) is a call adc compile does not make"
