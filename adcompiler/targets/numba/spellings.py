"""NumPy's functions the Numba target spells otherwise: those Numba lacks, or takes fewer arguments or
kinds of argument of, each a call of one of the target's helpers (``spelled`` writes a call so, for ``translate``; the
reductions along an axis are ``reductions``'s ``REDUCED``, ``LINES`` and ``KEEPDIMS``); and ``while True:``, which
Numba miscompiles in some loops, written with a tested variable (``tested_loops``)."""

from __future__ import annotations

import ast

from .fewer_arrays import constant_int
from .reductions import KEEPDIMS, LINES, REDUCED

# The joins Numba compiles (of a tuple by its own, of a list by join_sequence: rules/joins.py) -> the default axis
JOINS = {"concatenate": 0, "stack": 0, "hstack": None, "vstack": None, "row_stack": None}
# Helpers for functions where Numba's own differ from Python's and NumPy's (joins, reductions, sum):
ADDED = (
    "join_sequence",
    "reduce_along",
    "along_lines",
    "sum_list",
    "vector_norm",
    "matrix_norm",
    "sum_product",
    "sum_product_along",
    "spread_along",
    "inner_product",
    "dot_product",
    "clipped",
    "reshaped",
    "squeezed",
    "expanded",
    "traced",
    "argsorted",
    "taken_along",
    "vander_rows",
    "array_of",
    "asarray_of",
    "ndim_of",
    "selected",
    "cast_to",
    "power_of",
)
# NumPy's functions Numba lacks or takes less of, each a helper of the same arguments: name -> (helper, arguments)
SPELLED = {
    "inner": ("inner_product", 2),  # (Numba has no numpy.inner)
    "clip": ("clipped", 3),  # (Numba's takes arrays only: np.clip of a number, a sum's)
    "reshape": ("reshaped", 2),  # (Numba reshapes C-ordered arrays only: a flipped or transposed view copied)
    "array": ("array_of", 1),  # (of an array: a copy, which Numba's numpy.array does not make)
    "asarray": ("asarray_of", 1),  # (of a list of arrays: the rows stacked, which Numba's does not do)
    "ndim": ("ndim_of", 1),  # (x.ndim, np.ndim(x): Numba has no numpy.ndim)
    "expand_dims": ("expanded", 2),  # (Numba's: of an array and one integer axis; slogdet's rules: g[..., None, None])
    "take_along_axis": ("taken_along", 2),  # (along the last axis, NumPy's default: np.sort's tangent of a vector)
    "argsort": ("argsorted", 2),  # (Numba's takes no axis, and a vector only: np.sort's adjoint, a matrix's rows)
    "where": ("selected", 3),  # (Numba's of numbers is a 0-d array, which the helpers then take for an array)
}
_AXIS = ("concatenate", "stack")  # the joins that take an axis


def spelled(name: str, node: ast.Call, call, array_named, numpy_names: set, summed_along) -> ast.Call:
    """A join, a reduction or another function of NumPy's in the form Numba takes (see ``joins``,
    ``reductions`` and ``arrays``): ``numpy.concatenate([a, b], axis=0)`` with a tuple, ``numpy.stack(xs)``
    of a sequence named by a variable ``join_sequence(xs, "stack", 0)``, ``numpy.min(x, axis=1)``
    ``reduce_along(x, "min", 1, False)``, ``numpy.cumsum(x, axis=1)`` ``along_lines(x, "cumsum", 1)``,
    ``numpy.squeeze(a, axis)`` ``squeezed(a, axis)``, ``numpy.vander(t, n)`` ``vander_rows(t, n, False)``,
    ``numpy.trace(a, offset, axis1, axis2)`` ``traced(a, offset, axis1, axis2)``,
    the calls of ``SPELLED`` renamed (``numpy.inner(a, b)`` ``inner_product(a, b)``),
    ``numpy.array(numpy.array(xs), dtype=d)`` (the tangent of ``numpy.array(xs, dtype=d)``, which Numba
    does not take: an array of an array) ``numpy.array(xs, dtype=d)``; any other call as it is.
    ``call(helper, args)``: a call of one of the target's helpers; ``array_named(x)``: whether ``numpy.array(x)``
    is the helper's (``x`` may hold an array); ``summed_along(x, axis, keepdims)``: a sum of products
    without their array, or None (``fewer_arrays``)."""
    words = {k.arg: k.value for k in node.keywords}
    renamed = SPELLED.get(name)
    if renamed is not None and not words and len(node.args) == renamed[1]:
        if name != "array" or array_named(node.args[0]):  # (a list or tuple: Numba's own)
            return call(renamed[0], node.args)
    if name == "argsort" and len(node.args) + len(words) <= 2 and set(words) <= {"axis"} and node.args:
        return call("argsorted", [node.args[0], words.get("axis", ast.Constant(-1))])  # (NumPy's default: the last)
    if name == "vander" and 1 <= len(node.args) <= 3 and set(words) <= {"N", "increasing"}:  # a row at a time
        args = node.args + [ast.Constant(None), ast.Constant(False)][len(node.args) - 1 :]
        n, increasing = words.get("N", args[1]), words.get("increasing", args[2])
        return call("vander_rows", [node.args[0], n, increasing])
    if name == "trace" and len(node.args) + len(words) > 2 and set(words) <= {"offset", "axis1", "axis2"}:
        given = dict(zip(("a", "offset", "axis1", "axis2"), node.args), **words)  # (Numba's takes no axes)
        if len(given) == len(node.args) + len(words) and "a" in given:
            args = [given["a"]] + [
                given.get(k, ast.Constant(v)) for k, v in (("offset", 0), ("axis1", 0), ("axis2", 1))
            ]
            if all(constant_int(a) for a in args[2:]):
                return call("traced", args)
    if name == "squeeze" and len(node.args) + len(words) == 2 and set(words) <= {"axis"}:  # (Numba lacks it)
        axis = node.args[1] if len(node.args) == 2 else words["axis"]
        if constant_int(axis):
            return call("squeezed", [node.args[0], axis])
    if name in LINES and len(node.args) in (1, 2) and set(words) <= {"axis"}:  # cumsum, flip along an axis
        axis = node.args[1] if len(node.args) == 2 else words.get("axis")
        if axis is not None and constant_int(axis):
            return call("along_lines", [node.args[0], ast.Constant(name), axis])
        return node
    dtype = words.get("dtype") if name in ("array", "asarray") and len(node.args) == 1 and len(words) == 1 else None
    displayed = isinstance(node.args[0], (ast.List, ast.Tuple, ast.ListComp)) if node.args else True
    read = (
        isinstance(dtype, ast.Attribute)
        or isinstance(dtype, ast.Name)
        and (dtype.id not in ("float", "int", "bool", "complex"))  # (y.dtype, numpy.float64, a name holding a dtype)
    )
    if isinstance(dtype, ast.Name) and dtype.id == "float":  # (the tangent of numpy.array(rows): float64 rows)
        read, dtype = True, ast.Constant("float64")
    if (read or isinstance(dtype, ast.Constant) and isinstance(dtype.value, str)) and not displayed:
        return call("cast_to", [node.args[0], dtype])  # x.astype(np.float32) (Numba's numpy.array takes no array)
    inner = node.args[0] if name == "array" and len(node.args) == 1 else None
    if isinstance(inner, ast.Call) and len(inner.args) == 1 and not inner.keywords:
        module = getattr(inner.func, "value", None)
        if getattr(inner.func, "attr", None) == "array" and getattr(module, "id", None) in numpy_names:
            node.args = [inner.args[0]]
    if name in JOINS and len(node.args) in (1, 2) and set(words) <= {"axis"} and None not in words:
        axis = node.args[1] if len(node.args) == 2 else words.get("axis", ast.Constant(JOINS[name]))
        if name in _AXIS and _none(axis):  # (joined flat)
            return node
        if isinstance(node.args[0], (ast.List, ast.Tuple)):
            arrays = ast.Tuple([_array_piece(p, call, array_named) for p in node.args[0].elts], ast.Load())
            return ast.Call(node.func, [arrays], [ast.keyword("axis", axis)] if name in _AXIS else [])
        return call("join_sequence", [node.args[0], ast.Constant(name), axis])
    if name not in REDUCED + KEEPDIMS or len(node.args) not in (1, 2) or not set(words) <= {"axis", "keepdims"}:
        return node
    axis = node.args[1] if len(node.args) == 2 else words.get("axis")
    keepdims = words.get("keepdims", ast.Constant(False))
    if (axis is None or _none(axis)) and "keepdims" in words and not _false(keepdims):  # all axes, kept
        return call("reduce_along", [node.args[0], ast.Constant(name), ast.Constant(None), keepdims])
    if axis is None or _none(axis) or name in KEEPDIMS and "keepdims" not in words and not constant_int(axis):
        return node  # (a sum along a constant axis: reduce_along's loop, faster than Numba's sum)
    summed = summed_along(node.args[0], axis, keepdims) if name == "sum" else None
    if summed is not None:  # (a sum of products, without the array of them)
        return summed
    return call("reduce_along", [node.args[0], ast.Constant(name), axis, keepdims])


def _array_piece(piece, call, array_named):
    """A join's piece as Numba's joins take it: a list (``[1.0]`` in ``np.concatenate((x, [1.0], y))``) an array of
    it, as NumPy reads it, and so the list in its tangent's zeros (``numpy.zeros_like(t2, dtype=...)``)."""
    if isinstance(piece, ast.Name) and not array_named(piece) or isinstance(piece, ast.List):
        return call("asarray_of", [piece])
    if isinstance(piece, ast.Call) and getattr(piece.func, "attr", None) == "zeros_like" and piece.args:
        return ast.Call(piece.func, [_array_piece(piece.args[0], call, array_named)] + piece.args[1:], piece.keywords)
    return piece


def checked_power(node, call):
    """``a ** b`` of an exponent that is not a constant, ``power_of(a, b)``: Numba's power of two integers is an
    integer whatever b's sign (``2 ** -1`` is 0 there), which the helper refuses as it runs (``runtime``); a
    float base, or a constant exponent (``x ** 2``, which Numba computes as products), as it is."""
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Pow) or isinstance(node.right, ast.Constant):
        return node
    if isinstance(node.left, ast.Constant) and isinstance(node.left.value, float):
        return node
    return call("power_of", [node.left, node.right])


def _none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _false(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def tested_loops(function: ast.FunctionDef, fresh) -> None:
    """Each ``while True:`` of ``function`` made ``while going:``, ``going = True`` first: Numba's analysis of the
    bytecode of a loop with no test miscompiles some (numba/numba#5267: a loop assigning a variable before its
    ``break`` ran once, or never ended, in 0.60); a loop with a test it compiles as written."""
    loops = [n for n in ast.walk(function) if isinstance(n, ast.While) and isinstance(n.test, ast.Constant)]
    loops = [n for n in loops if n.test.value is True]
    if not loops:
        return
    going = fresh("going")
    for loop in loops:
        loop.test = ast.Name(going, ast.Load())
    at = (
        1
        if function.body and isinstance(function.body[0], ast.Expr) and isinstance(function.body[0].value, ast.Constant)
        else 0
    )
    function.body.insert(at, ast.Assign([ast.Name(going, ast.Store())], ast.Constant(True)))
