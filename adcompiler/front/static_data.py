"""What ``adc compile``'s reading of a file counts as data, and what it may compute with it.

*Data* is numbers, strings, bytes, None, tuples, lists, dicts, sets, ranges and slices of data, and
NumPy arrays, scalars and dtypes of numbers: values no code of the user's hides in.  The reader
computes with data only through Python's operators on it and a short list of pure library functions
(``pure_table``): the constructors of numbers and containers, ``math``, NumPy's array constructors,
ufuncs, reductions and linear algebra.  Sizes are bounded (``LIMIT_ITEMS`` elements, ``LIMIT_BITS``
bits of an integer), so a file cannot make the reader allocate gigabytes or compute for minutes.
"""

from __future__ import annotations

import ast
import builtins
import math
import operator
import sys
from typing import Callable

LIMIT_ITEMS = 10_000_000  # elements of an array, list, string or range the reader may make
LIMIT_BITS = 100_000  # bits of an integer it may make


class Unresolvable(Exception):
    """An expression whose value the reader does not compute: the node and why (a phrase)."""

    def __init__(self, node: ast.AST, why: str):
        super().__init__(why)
        self.node = node
        self.why = why


SCALARS = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis))
ITERATORS = (zip, enumerate, type(reversed([])), type(reversed(())), type(iter(range(0))))  # of data, from pure calls
BINARY = {
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
UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_, ast.Invert: operator.invert}
COMPARE = {
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
        if t in SCALARS or t is range:
            continue
        if t in (list, tuple, set, frozenset) or isinstance(v, tuple) and library(type(v)):
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


def library(cls) -> bool:
    return getattr(cls, "__module__", "") in ("sys", "builtins", "time", "os")  # sys.version_info and the like


def size_of(value) -> int:
    """The number of elements ``value`` holds (1 for a scalar), as the size guards count them."""
    np = numpy()
    if np is not None and isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, (list, tuple, set, frozenset, dict, str, bytes, range)):
        return len(value)
    return 1


def shape(value) -> tuple:
    np = numpy()
    try:
        return tuple(np.shape(value)) if np is not None else ()
    except Exception:  # noqa: BLE001 - a ragged list: no shape
        return (size_of(value),)


def prod(shape) -> int:
    out = 1
    for n in shape:
        out *= max(int(n), 0)
    return out


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
    raise Unresolvable(target, f"assigning to {short(target)} is not done without running the file")


# ---------------------------------------------------------------------- guards and tables


def check_binary(node, op, left, right) -> None:
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
    if is_array(left) or is_array(right):
        if isinstance(op, ast.MatMult):
            size = matmul_size(left, right)
        else:
            try:
                size = prod(numpy().broadcast_shapes(shape(left), shape(right)))
            except ValueError:
                return  # shapes that do not broadcast: the operation raises, and says so
        if size > LIMIT_ITEMS:
            raise Unresolvable(node, "the array would be too large to make without running the file")


def matmul_size(a, b) -> int:
    sa, sb = shape(a), shape(b)
    return prod(sa[:-1]) * prod(sb[:-2]) * (sb[-1] if len(sb) >= 2 else 1)


def check_call(node, func, args, kwargs) -> None:
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
            size = numpy_size(np, name, args, kwargs)
    except (TypeError, ValueError, OverflowError):
        size = None  # arguments the function refuses: it raises, and says so
    if np is not None and (getattr(func, "__module__", None) or "").startswith("numpy.linalg"):
        if any(max(shape(a), default=0) > 10_000 for a in args):  # svd's full U of a tall matrix: n * n
            size = LIMIT_ITEMS + 1
    if size is not None and size > LIMIT_ITEMS:
        raise Unresolvable(node, "the array would be too large to make without running the file")


def numpy_size(np, name, args, kwargs) -> int | None:
    """The size of what a NumPy constructor would make, from its arguments, before it is called."""

    def arg(i, key, default=None):
        return args[i] if len(args) > i else kwargs.get(key, default)

    if name in ("ones", "zeros", "full"):
        shape = arg(0, "shape")
        return prod(shape if isinstance(shape, (tuple, list)) else (shape,))
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
        return prod(size_of(a) for a in args) * max(len(args), 1)
    if name in ("dot", "vdot", "inner") and len(args) >= 2:
        return matmul_size(args[0], args[1])
    if name == "outer" and len(args) >= 2:
        return size_of(args[0]) * size_of(args[1])
    return None


_TABLE: dict = {}


def pure_table() -> dict:
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


def is_array(value) -> bool:
    np = numpy()
    return np is not None and isinstance(value, np.ndarray)


def typelike(value) -> bool:
    """A type, None, or a ``typing`` form (``Optional[float]``, ``list[float]``): what annotations hold."""
    if value is None or isinstance(value, type):
        return True
    module = getattr(type(value), "__module__", "") or ""
    return module in ("typing", "types", "typing_extensions") or module.startswith(("numpy.typing", "numpy._typing"))


def truth(value) -> bool:
    return bool(value)


def hashable(value):
    hash(value)
    return value


def short(node) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def what(node) -> str:
    kinds = {
        ast.NamedExpr: "an assignment expression (:=)",
        ast.Await: "await",
        ast.Yield: "yield",
        ast.YieldFrom: "yield from",
        ast.Starred: "a starred expression",
    }
    return kinds.get(type(node), short(node))


def refused_call(node, func, is_user) -> str:
    """Why a call is not made: the file's own code, or a library function outside the pure ones."""
    name = short(node.func)
    if is_user(func):
        return f"{name}(...) calls the file's own code, which adc compile does not run"
    return f"{name}(...) is a call adc compile does not make"
