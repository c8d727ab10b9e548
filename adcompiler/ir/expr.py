"""Symbolic expressions: what derivative rules build and generated lines hold.

Rules are written as ordinary arithmetic on these objects (``cos(x) * t``), so a
rule reads as the math it states.  The constructors simplify only what is exact
for floats, NaN and arrays alike: ``1 * e``, ``-(-e)``, ``e ** 1``, ``a + -b``
and folding of two literal numbers.  ``e * 0`` is never folded.
"""

from __future__ import annotations

from dataclasses import dataclass
import numbers


class Expr:
    """Base of the expression tree; arithmetic operators build new nodes."""

    def __add__(self, other):
        return add(self, lift(other))

    def __radd__(self, other):
        return add(lift(other), self)

    def __sub__(self, other):
        return sub(self, lift(other))

    def __rsub__(self, other):
        return sub(lift(other), self)

    def __mul__(self, other):
        return mul(self, lift(other))

    def __rmul__(self, other):
        return mul(lift(other), self)

    def __truediv__(self, other):
        return div(self, lift(other))

    def __rtruediv__(self, other):
        return div(lift(other), self)

    def __floordiv__(self, other):
        return BinOp("//", self, lift(other))

    def __rfloordiv__(self, other):
        return BinOp("//", lift(other), self)

    def __pow__(self, other):
        return power(self, lift(other))

    def __rpow__(self, other):
        return power(lift(other), self)

    def __neg__(self):
        return neg(self)

    def __matmul__(self, other):
        return BinOp("@", self, lift(other))

    def __rmatmul__(self, other):
        return BinOp("@", lift(other), self)


@dataclass(frozen=True)
class Name(Expr):
    """A variable of the generated program."""

    id: str


@dataclass(frozen=True)
class Num(Expr):
    """A literal; ``text`` renders it symbolically (``math.pi``) when given."""

    value: object
    text: str | None = None


@dataclass(frozen=True)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr
    lists: bool = False  # Python's + and * of lists (a join, a repeat): the Numba target spells them as calls


@dataclass(frozen=True)
class Unary(Expr):
    op: str
    operand: Expr


@dataclass(frozen=True)
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class BoolOp(Expr):
    op: str
    values: tuple


@dataclass(frozen=True)
class Call(Expr):
    """A call of a global function named canonically (``math.cos``, ``abs``, a user function)."""

    func: str
    args: tuple
    keywords: tuple = ()


@dataclass(frozen=True)
class Method(Expr):
    """A method call ``obj.name(args, keywords)`` (``keywords``: ``(name, value)`` pairs)."""

    obj: Expr
    name: str
    args: tuple
    keywords: tuple = ()


@dataclass(frozen=True)
class Attr(Expr):
    """An attribute read ``obj.name`` (an array's ``shape``, ``size``): generated code only."""

    obj: Expr
    name: str


@dataclass(frozen=True)
class Subscript(Expr):
    value: Expr
    index: Expr
    lists: bool = False  # a slice of a list (a new list, Python's copy): the Numba target spells it as a copy


@dataclass(frozen=True)
class Slice(Expr):
    """``lower:upper`` inside a subscript."""

    lower: Expr
    upper: Expr


@dataclass(frozen=True)
class Tuple(Expr):
    elts: tuple


@dataclass(frozen=True)
class List(Expr):
    elts: tuple


@dataclass(frozen=True)
class ListComp(Expr):
    """``[elt for target in iterable]`` (``target`` a name no other code uses)."""

    elt: Expr
    target: str
    iterable: Expr


@dataclass(frozen=True)
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


def parts(e: Expr) -> tuple:
    """The sub-expressions of ``e``: its fields that are expressions, and the expressions in its tuples."""
    out = []
    for v in vars(e).values():
        if isinstance(v, Expr):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, Expr))
    return tuple(out)


def lift(value) -> Expr:
    """Turn a Python number into a literal node; leave expressions alone."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, (numbers.Number, bool)) or value is None:
        return Num(value)
    raise TypeError(f"cannot use {value!r} in a generated expression")


def _literal(e: Expr) -> bool:
    return isinstance(e, Num) and e.text is None and isinstance(e.value, (int, float)) and not isinstance(e.value, bool)


def _one(e: Expr) -> bool:
    return _literal(e) and e.value == 1


def add(a: Expr, b: Expr) -> Expr:
    if _literal(a) and _literal(b):
        return Num(a.value + b.value)
    if a == b:  # x * dx + x * dx, the tangent of x * x: 2 * (x * dx), exactly the same number
        return mul(Num(2), a)
    if isinstance(b, Unary) and b.op == "-":
        return sub(a, b.operand)
    if isinstance(a, Unary) and a.op == "-":
        return sub(b, a.operand)
    return BinOp("+", a, b)


def sub(a: Expr, b: Expr) -> Expr:
    if _literal(a) and _literal(b):
        return Num(a.value - b.value)
    if isinstance(b, Unary) and b.op == "-":
        return add(a, b.operand)
    return BinOp("-", a, b)


def mul(a: Expr, b: Expr) -> Expr:
    if _literal(a) and _literal(b):
        return Num(a.value * b.value)
    if _one(a):
        return b
    if _one(b):
        return a
    if _literal(a) and a.value == -1:
        return neg(b)
    if _literal(b) and b.value == -1:
        return neg(a)
    if isinstance(a, BinOp) and a.op == "/" and _one(a.left):
        return div(b, a.right)
    if isinstance(b, BinOp) and b.op == "/" and _one(b.left):
        return div(a, b.right)
    if isinstance(a, Unary) and a.op == "-":
        return neg(mul(a.operand, b))
    if isinstance(b, Unary) and b.op == "-":
        return neg(mul(a, b.operand))
    return BinOp("*", a, b)


def div(a: Expr, b: Expr) -> Expr:
    if _literal(a) and _literal(b) and b.value != 0:
        return Num(a.value / b.value)
    if _one(b):
        return a
    if isinstance(a, Unary) and a.op == "-":
        return neg(div(a.operand, b))
    return BinOp("/", a, b)


def power(a: Expr, b: Expr) -> Expr:
    if _literal(a) and _literal(b) and not (a.value == 0 and b.value < 0):
        result = a.value**b.value
        if isinstance(result, (int, float)):
            return Num(result)
    if _one(b) and isinstance(b.value, int):
        return a
    return BinOp("**", a, b)


def neg(a: Expr) -> Expr:
    if isinstance(a, Unary) and a.op == "-":
        return a.operand
    if _literal(a):
        return Num(-a.value)
    return Unary("-", a)


def call(func: str, *args, **keywords) -> Expr:
    return Call(
        func,
        tuple(lift(a) for a in args),
        tuple((k, lift(v)) for k, v in keywords.items()),
    )


def fn(func: str):
    """A builder for calls of one canonical function: ``cos = fn("math.cos")``."""
    return lambda *args: call(func, *args)


def where(test: Expr, body, orelse) -> Expr:
    """``body if test else orelse``; a literal test picks its branch now."""
    if isinstance(test, Num) and test.text is None and isinstance(test.value, bool):
        return lift(body) if test.value else lift(orelse)
    return IfExp(test, lift(body), lift(orelse))


_COMPARE = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "!=": lambda a, b: a != b,
    "==": lambda a, b: a == b,
}


def compare(op: str, a, b) -> Expr:
    a, b = lift(a), lift(b)
    if _literal(a) and _literal(b) and op in _COMPARE:
        return Num(_COMPARE[op](a.value, b.value))
    return Compare(op, a, b)


def gt(a, b) -> Expr:
    return compare(">", a, b)


def lt(a, b) -> Expr:
    return compare("<", a, b)


def ne(a, b) -> Expr:
    return compare("!=", a, b)


def sum_exprs(terms) -> Expr | None:
    """Sum the non-None terms; None when every term is zero (absent)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return total


def tuple_of(value):
    """An expression for a value that may be a (nested) tuple of expressions."""
    if isinstance(value, tuple):
        return Tuple(tuple(tuple_of(v) for v in value))
    return value


CASTS = {"numpy.array/dtype": "numpy.array", "numpy.asarray/dtype": "numpy.asarray"}  # casts, and how each is called


def pad_call(x, pad_width, mode, values) -> Call:
    """numpy.pad as NumPy takes it: constant_values by keyword, and only for mode "constant"."""
    if isinstance(mode, Num) and mode.value == "constant":
        return Call("numpy.pad", (x, pad_width, mode), (("constant_values", values),))
    return Call("numpy.pad", (x, pad_width, mode))


# NumPy functions whose result is a new object (an array, a number), never an argument or a view of one,
# each with the most positional arguments it may take so (a further one: an array to write the result into)
NEW_ARRAYS = {"numpy.add": 2, "numpy.subtract": 2, "numpy.multiply": 2, "numpy.divide": 2, "numpy.negative": 1}
NEW_ARRAYS.update({"numpy.outer": 2, "numpy.dot": 2, "numpy.matmul": 2, "numpy.where": 3, "numpy.copy": 1})
NEW_ARRAYS.update({"numpy.zeros": 2, "numpy.ones": 2, "numpy.full": 3, "numpy.tile": 2})


def new_array(e) -> bool:
    """Whether the call ``e`` surely makes a new object (see ``NEW_ARRAYS``; ``x.copy()`` too)."""
    if isinstance(e, Method):
        return e.name == "copy" and not e.args
    return isinstance(e, Call) and not e.keywords and len(e.args) <= NEW_ARRAYS.get(e.func, -1)


ARITHMETIC = ("+", "-", "*", "/", "@")


def makes_new(e) -> bool:
    """Whether the value of ``e`` is a new object every time: arithmetic, negation, or a NumPy function that
    makes its result (``new_array``, but not a method)."""
    if isinstance(e, BinOp):
        return e.op in ARITHMETIC
    if isinstance(e, Unary):
        return e.op == "-"
    return new_array(e) and not isinstance(e, Method)
