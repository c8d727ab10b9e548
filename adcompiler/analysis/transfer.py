"""Transfer functions: the abstract values (``values``) a primitive's outputs take, given its
arguments' (arithmetic broadcasts, a list primitive builds, reads or changes a list, NumPy functions
are in ``infer_numpy``); the abstract interpreter (``infer``) applies them equation by equation."""

from __future__ import annotations

from . import values as V
import sys

from ..ir.nodes import Const, Eq
from ..rules.families import helpers

ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
BITWISE = ("bitand", "bitor", "bitxor", "invert")
INT_RESULTS = ("math.floor", "math.ceil", "math.trunc", "int", "len", "argmax", "argmin", "revolve")
LIKE_ARGUMENT = {  # runtime helpers of generated code: their result is shaped like this argument
    "unbroadcast": 1,
    "unreduce": 1,
    "scatter_add": 1,
    "add_at": 1,
    "distinct": 0,
    "shape_like": 0,
    "add_at_vjp": 2,
    "linalg_check": 0,
    "zeros_like": 0,
    "like": 1,
    "like_arrays": 1,
    "rebroadcast": 1,  # (the adjoints of those, in gradient code differentiated again)
    "gather_like": 2,
    "unreduce_vjp": 1,
}
LIKE_ARGUMENT.update({name: h.like for name, h in helpers().items() if isinstance(h.like, int)})  # the records'
NUMERIC_HELPERS = tuple(name for name, h in helpers().items() if h.like == "numeric")  # a number or an array


def transfer(eq: Eq, ins: list) -> list:
    """The abstract values of an equation's outputs (one per output)."""
    prim = eq.prim
    n = len(eq.outs)
    if any(isinstance(a, V.Bottom) for a in ins) and prim not in ("list", "tuple", "list_repeat"):
        return [V.BOTTOM] * n  # an argument not known yet: the fixed point comes back
    if prim == "tuple" and eq.param is not None:  # a record built in the function, with its keys (and type)
        return [V.record(ins, tuple(eq.param), getattr(eq.param, "cls", dict))]
    if prim in ("list", "tuple"):  # (a tuple built here keeps every item: a derivative's residuals, read by
        return [V.seq(prim, ins, exact=prim == "tuple")]  # position, arrays and shapes side by side)
    if prim == "list_repeat":
        return [V.uniform("list", ins[0])]
    if prim == "list_copy" or prim == "numpy.copy" and len(ins) == 1 and isinstance(ins[0], V.Seq):  # xs.copy()
        src = ins[0]
        if isinstance(src, V.Seq):
            return [V.Seq("list", src.items, src.elem)]
        if isinstance(src, V.Arr):  # list(array): its rows (or numbers)
            return [V.uniform("list", _row(src))]
        if isinstance(src, V.Static) and src.what == "range":  # list(range(n)): ints
            return [V.uniform("list", V.INT)]
        return [V.TOP]
    if prim in ("getitem", "pop"):
        return [getitem(ins[0], eq.ins[1] if prim == "getitem" else None, ins[1] if prim == "getitem" else None)]
    if prim == "argsort":  # the permutation sorted applies: a list of ints
        return [V.uniform("list", V.INT)]
    if prim == "draw":  # np.random's draw: a float or a float64 array of the ndim its shape gives
        return [V.FLOAT if eq.param[3] == 0 else V.Arr(eq.param[3], "float64")]
    if prim in ("effect", "str_format"):  # print's None, an f-string's str: no derivative
        return [V.Static("none" if prim == "effect" else "str")] * n
    if prim == "with_value":  # shaped like the value whose derivative it has
        return [ins[0]]
    if prim == "sum_start":
        items = ins[0].elem if isinstance(ins[0], V.Seq) else _row(ins[0]) if isinstance(ins[0], V.Arr) else V.TOP
        return [V.join(ins[1], items) if not isinstance(items, V.Bottom) else ins[1]]
    if prim in ("math.isfinite", "math.isnan", "math.isinf", "is_", "is_not"):
        return [V.BOOL]
    if prim == "polygamma":
        return [V.FLOAT]
    if prim == "len" or prim in INT_RESULTS:
        return [V.INT] * n
    if prim == "sum":
        src = ins[0]
        if isinstance(src, V.Seq):
            return [_number_sum(src.elem)]
        if isinstance(src, V.Arr):
            return [_row(src)]
        return [V.NUMERIC if isinstance(src, V.Numeric) else V.TOP]
    if prim == "range":
        return [V.Static("range")]
    if prim == "slice":  # with its bounds where they are constants (a record's slice keeps its items)
        const = all(isinstance(a, Const) and (a.value is None or type(a.value) is int) for a in eq.ins)
        return [V.Static("slice", tuple(a.value for a in eq.ins)) if const else V.SLICE]
    if prim in COMPARISONS or prim == "not":
        return [_broadcast(ins, "bool")]
    if prim in BITWISE:  # of masks a mask, of integers an integer (a float: Python's and NumPy's TypeError)
        masks = all(getattr(a, "dtype", None) == "bool" for a in ins)
        return [_broadcast(ins, "bool" if masks else None)]
    if prim in ARITHMETIC:
        return [arithmetic(prim, ins)]
    if prim in ("neg", "pos", "abs", "math.fabs"):
        return [ins[0] if V.is_numeric(ins[0]) else V.TOP] if prim != "math.fabs" else [V.FLOAT]
    if prim in ("max", "min"):
        return [V.join(ins[0], ins[1])]
    if prim in ("float",):
        return [V.FLOAT]
    if prim in ("round",):
        return [V.INT if len(ins) == 1 else V.FLOAT]
    if prim.startswith("math."):
        return [V.FLOAT]
    if prim == "library":  # np.vander(t, m): the kind of value a call on examples gives (library_values)
        from .library_values import library_value

        return library_value(eq, ins)
    if prim == "custom":  # (several outputs: a tuple of values, rules.output_size)
        if n == 1 and type(eq.param).__name__ == "ufunc" and ins and all(map(V.is_numeric, ins)):
            kept = _result_dtype(ins)  # scipy.special.expit(x): elementwise, as NumPy's own ufuncs (its ndim
            narrow = kept not in (None, "float", "int", "bool", "float64") and kept.startswith(("float", "complex"))
            return [_broadcast(ins, kept if narrow else "float")]  # known: np.linalg.solve of it takes it)
        return [V.NUMERIC] * n
    if prim == "reject_ints":
        return [V.STATIC] * n
    if prim in LIKE_ARGUMENT:
        like = ins[LIKE_ARGUMENT[prim]]
        if prim == "unbroadcast" and isinstance(like, V.Num):
            return [like]
        return [like]
    if prim == "linspace_vjp":
        return [ins[2 + eq.ins[1].value] if isinstance(eq.ins[1], Const) else V.NUMERIC]
    if prim == "add_new":  # acc + c
        return [V.join(ins[0], ins[1])]
    if prim == "array_like":
        return [ins[1] if isinstance(ins[1], V.Arr) else V.join(ins[0], ins[1])]
    if prim == "unjoin":
        return [ins[4 + eq.ins[3].value] if isinstance(eq.ins[3], Const) else V.Arr()]
    if prim == "einsum_vjp":
        return [ins[3 + eq.ins[1].value] if isinstance(eq.ins[1], Const) else V.Arr()]
    if prim in NUMERIC_HELPERS:  # (var_jvp: shaped like the reduction of x)
        return [V.NUMERIC]
    if prim == "take_and_clear":
        return [ins[1], V.NUMERIC][:n]
    if prim.startswith("numpy.") or prim == "sum_all":  # sum_all(g) is numpy.sum(g)
        from .infer_numpy import numpy_transfer

        return numpy_transfer(Eq(eq.outs, "numpy.sum", eq.ins) if prim == "sum_all" else eq, ins)
    return [V.TOP] * n


def getitem(xs: V.Aval, index_atom, index: V.Aval | None) -> V.Aval:
    """``xs[index]``: an element of a list or tuple, or an array's element, row or slice."""
    if isinstance(xs, V.Seq):
        if V.is_slice(index):  # a slice of a list: its items where they and the bounds are known
            kind = "list" if xs.kind != "tuple" else "tuple"
            if xs.items is not None and index.bounds is not None:
                return V.seq(kind, xs.items[slice(*index.bounds)])
            return V.Seq(kind, None, xs.elem)
        k = index_atom.value if isinstance(index_atom, Const) else None
        return V.item(xs, k)
    if isinstance(xs, (V.Arr, V.Numeric)):
        from .infer_numpy import array_getitem

        return array_getitem(xs, index_atom, index)
    if isinstance(xs, V.Static) and xs.what == "range":  # range(n)[k] (max(range(n), key=...)): an int, a range
        return V.Static("range") if V.is_slice(index) else V.INT  # of a slice
    return V.TOP


def _row(a: V.Arr) -> V.Aval:
    """What iterating over an array gives: rows, or NumPy numbers of a 1-D array."""
    if a.ndim == 1:
        return V.Num("float" if a.dtype in (None, "float64") else a.dtype)
    return V.Arr(None if a.ndim is None else a.ndim - 1, a.dtype)


def _number_sum(elem: V.Aval) -> V.Aval:
    """``sum(xs)``: 0 + xs[0] + ... (an empty list gives the int 0)."""
    if isinstance(elem, V.Bottom):
        return V.INT
    return elem if V.is_numeric(elem) else V.TOP


def arithmetic(prim: str, ins: list) -> V.Aval:
    a, b = ins
    if isinstance(a, V.Seq) or isinstance(b, V.Seq):
        if prim == "add" and isinstance(a, V.Seq) and isinstance(b, V.Seq):  # list concatenation
            items = a.items + b.items if a.items is not None and b.items is not None else None
            kind = a.kind if a.kind == b.kind else None
            return V.Seq(kind, items if items is None or len(items) <= V.MAX_ITEMS else None, V.join(a.elem, b.elem))
        if prim == "mul" and any(isinstance(x, V.Num) and x.dtype in ("int", "bool") for x in ins):  # repetition
            s = a if isinstance(a, V.Seq) else b
            return V.uniform(s.kind, s.elem)
        other = b if isinstance(a, V.Seq) else a
        if isinstance(other, V.Arr):  # NumPy reads the list as an array
            return V.Arr(None, other.dtype)
        return V.TOP
    if not (V.is_numeric(a) and V.is_numeric(b)):
        return V.TOP
    if prim == "matmul":  # a @ b: numpy.matmul's result (two vectors give a number)
        from .infer_numpy import numpy_matmul

        return numpy_matmul(ins)
    if prim == "truediv":  # a float: the operands' own where it is float32 or complex, as NumPy's quotient is
        kept = _result_dtype([x for x in ins if V.is_numeric(x)])
        narrow = kept not in (None, "float", "int", "bool", "float64") and kept.startswith(("float", "complex"))
        return _broadcast(ins, kept if narrow else "float")
    if prim == "pow" and isinstance(a, V.Num) and isinstance(b, V.Num) and "int" in (a.dtype, b.dtype):
        return V.Num("float") if b.dtype != "int" or a.dtype != "int" else V.Num("float")
    return _broadcast(ins, None)


def _broadcast(ins: list, dtype) -> V.Aval:
    """The value of an elementwise operation: a number of numbers, an array if any argument is one."""
    numeric = [a for a in ins if V.is_numeric(a)]
    if len(numeric) != len(ins):
        return V.TOP
    arrays = [a for a in numeric if isinstance(a, V.Arr)]
    unknown = [a for a in numeric if isinstance(a, V.Numeric)]
    out_dtype = dtype or _result_dtype(numeric)
    if arrays:
        dims = [a.ndim for a in arrays]
        ndim = None if None in dims or unknown else max(dims)
        return V.Arr(ndim, "bool" if dtype == "bool" else out_dtype)
    if unknown:
        return V.Numeric(out_dtype)
    if dtype == "bool":
        return V.BOOL
    return V.Num(out_dtype or "float")


def _result_dtype(avals: list):
    """The dtype NumPy gives an elementwise result (Python numbers are weak, as NumPy 2 has it)."""
    numpy = sys.modules.get("numpy")
    dtypes = [a.dtype for a in avals]
    if all(d in ("float", "int", "bool") for d in dtypes):
        return "int" if all(d in ("int", "bool") for d in dtypes) and "int" in dtypes else "float"
    if numpy is None or None in dtypes:
        return None
    try:
        operands = [
            {"float": 1.0, "int": 1, "bool": True}[d] if d in ("float", "int", "bool") else numpy.dtype(d)
            for d in dtypes
        ]
        name = numpy.result_type(*operands).name
    except (TypeError, KeyError):
        return None
    return "float" if name == "float64" and all(isinstance(a, V.Num) for a in avals) else name
