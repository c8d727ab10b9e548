"""Abstract values of NumPy primitives: the ndim and dtype of what each NumPy function returns.

The array half of ``infer``: one rule per primitive, from its arguments' abstract values and its
static arguments (an axis, a new shape) to its result's.  Where NumPy's answer depends on data
(``squeeze`` without an axis, a shape computed at run time) the ndim is unknown (None), which the
derivative rules handle generically.
"""

from __future__ import annotations


from ..rules.families import REGISTRY
from . import values as V
from ..ir.nodes import Const
from .numpy_values import UNKNOWN, array_of, as_array, dtype_name, float_dtype, minus, ndim_of, result_dtype


def numpy_transfer(eq, ins: list) -> list:
    """The abstract values of a NumPy equation's outputs: what its record says (``KIT`` its vocabulary)."""
    static = Static(a.value if isinstance(a, Const) else _named(v) for a, v in zip(eq.ins, ins))
    if isinstance(eq.param, tuple):  # the keywords the call names (the last arguments)
        static.keywords = dict(zip(eq.param, static[len(static) - len(eq.param) :]))
    rule = _RULES.get(eq.prim)
    if rule is None:  # elementwise: broadcast
        return [_elementwise(ins)] * len(eq.outs)
    return [rule(ins, static)] * len(eq.outs)


def _named(a: V.Aval):
    """A static argument that is no constant: the dtype ``x.dtype`` names, where x's is known (``UNKNOWN``: else)."""
    return a.dtype if isinstance(a, V.Static) and a.what == "dtype" and a.dtype else UNKNOWN


class Static(list):
    """The static arguments of a call, one per argument (``UNKNOWN`` where not a constant), and ``keywords``:
    those the call names, by name (what a record called as written reads: ``np.zeros(n, dtype=...)``)."""

    keywords: dict = {}


def _elementwise(ins, floating: bool = False, boolean: bool = False) -> V.Aval:
    """What an elementwise function returns: its arguments broadcast, of NumPy's result dtype (``floating``:
    a floating one, float64 for integers; ``boolean``: bool); a NumPy number for numbers."""
    numeric = [a for a in ins if V.is_numeric(a) or isinstance(a, V.Seq)]
    dims = [ndim_of(a) for a in map(as_array, ins) if a is not None]
    dtype = "bool" if boolean else float_dtype(ins) if floating else result_dtype(numeric)
    if all(isinstance(a, V.Num) for a in ins if not isinstance(a, V.Static)):
        return V.Num("float" if dtype in (None, "float64") else dtype)  # np.sin(2.0): a NumPy float
    if any(isinstance(a, V.Numeric) for a in ins):
        return V.Numeric(dtype)
    return array_of(None if None in dims else max(dims + [0]), dtype)


def _reduced(ins, static) -> V.Aval:
    """sum, mean, max, ... over ``axis`` (None: all), with ``keepdims``."""
    nd = ndim_of(ins[0])
    axis = static[1] if len(static) > 1 else None
    keepdims = static[2] if len(static) > 2 else False
    dtype = result_dtype(ins[:1])
    if keepdims is True:
        return array_of(nd, dtype)
    if keepdims is not False or axis is UNKNOWN:
        return V.Arr(None, dtype)
    if axis is None:
        return _scalar(dtype)
    k = len(axis) if isinstance(axis, tuple) else 1
    return array_of(minus(nd, k), dtype) if nd is None or nd - k > 0 else _scalar(dtype)


def _scalar(dtype) -> V.Aval:
    """What a full reduction returns: a NumPy scalar."""
    return V.Num("float" if dtype in (None, "float64") else dtype)


def _floating_reduced(ins, static) -> V.Aval:
    out = _reduced(ins, static)
    d = float_dtype(ins[:1])
    if isinstance(out, V.Num):
        return V.Num("float" if d in (None, "float64") else d)
    return V.Arr(out.ndim, d)


def numpy_matmul(ins) -> V.Aval:
    """``a @ b``: what np.matmul's record says."""
    return REGISTRY["numpy.matmul"].value(ins, (), KIT)


def _decomposed(k):
    """A matrix function or decomposition's part of ndim ``ndim(a) - k`` (a number for 0)."""

    def rule(ins, static):
        left = minus(ndim_of(ins[0]), k)
        return _scalar(float_dtype(ins[:1])) if left == 0 else array_of(left, float_dtype(ins[:1]))

    return rule


def _trace(ins, static) -> V.Aval:
    nd = ndim_of(ins[0])
    return _scalar(result_dtype(ins[:1])) if nd == 2 else array_of(minus(nd, 2), result_dtype(ins[:1]))


_RULES: dict = {}  # (every primitive with a rule of its own is a record: its value is below)


def _elements(xs: V.Aval) -> list:
    """The abstract values of a sequence's elements (a list, a tuple, or the rows of an array)."""
    if isinstance(xs, V.Seq):
        return list(xs.items) if xs.items is not None else [xs.elem]
    nd = ndim_of(xs)
    return [array_of(None if nd is None else nd - 1, result_dtype([xs]))]


class KIT:
    """The vocabulary a primitive's record (``rules.primitive``) states its abstract value in: its
    ``value(ins, static, KIT)`` reads its arguments' abstract values through these."""

    reduced = staticmethod(_reduced)  # sum, max, ...: over static[1] (the axis), keepdims static[2]
    floating_reduced = staticmethod(_floating_reduced)  # mean, var, ...: the same, of a floating dtype
    scalar = staticmethod(_scalar)  # a NumPy scalar of this dtype
    scalar_or_array = staticmethod(lambda nd, dtype: _scalar(dtype) if nd == 0 else array_of(nd, dtype))  # of ndim nd
    array_of = staticmethod(array_of)  # an array of this ndim (None: not known) and dtype
    ndim_of = staticmethod(ndim_of)  # an argument's ndim (None: not known)
    float_dtype = staticmethod(float_dtype)  # the dtype of a floating function of these arguments
    result_dtype = staticmethod(result_dtype)  # NumPy's result dtype of these operands
    matrices_reduced = staticmethod(_trace)  # a number per matrix of a stack (a number for one matrix)
    matrix_part = staticmethod(lambda ins, static, k: _decomposed(k)(ins, static))  # of ndim ndim(a) - k
    elementwise = staticmethod(_elementwise)  # its arguments broadcast (floating=True: of a floating dtype)
    minus = staticmethod(minus)  # an ndim less k (None: not known)
    as_array = staticmethod(as_array)  # a value as an array's abstract value (None: not an array)
    elements = staticmethod(_elements)  # the abstract values of a sequence's elements
    Arr, Num, Seq, Numeric = V.Arr, V.Num, V.Seq, V.Numeric  # the abstract values themselves (Numeric: a
    # number or an array, which not known)
    UNKNOWN = UNKNOWN  # a static argument not known when compiling
    STATIC = V.STATIC  # a value that is no number or array (a decomposition's raw result: a tuple of arrays)
    INT, seq = V.INT, staticmethod(V.seq)  # an int; a tuple or list of these items
    Static = V.Static  # a value that is no number or array, of a kind (``Static("dtype", dtype=...)``: x.dtype)
    dtype_name = staticmethod(dtype_name)  # NumPy's name of a dtype asked for (None: not known)


# The primitives written as records: their abstract values (a view of the records)
for _p in REGISTRY.values():  # (a variant's value is its primitive's; a decomposition's part has its own)
    if _p.expanded:  # (never in the IR: lowered to other primitives)
        continue
    _RULES[_p.name] = lambda ins, static, value=_p.value: value(ins, static, KIT)
    for _kind, _variant in _p.variants.items():
        _RULES[f"{_p.name}/{_kind}"] = lambda ins, static, value=_variant.value or _p.value: value(ins, static, KIT)
    for _i, _part in enumerate(_p.parts):
        _RULES[f"{_p.name}[{_i}]"] = lambda ins, static, value=_part.value: value(ins, static, KIT)


def array_getitem(xs: V.Aval, index_atom, index: V.Aval) -> V.Aval:
    """``x[index]`` of an array: how many dimensions an index keeps, drops or adds."""
    dtype = getattr(xs, "dtype", None)
    nd = xs.ndim if isinstance(xs, V.Arr) else None
    parts = index.items if isinstance(index, V.Seq) and index.items is not None else None
    if isinstance(index, V.Seq) and index.kind == "tuple" and parts is not None:
        pass
    elif isinstance(index, V.Seq):  # a list of indices: advanced indexing
        parts = (index,)
    else:
        parts = (index,)
    if nd is None:
        return V.Arr(None, dtype)
    dropped, added, advanced = 0, 0, []
    for p in parts:
        if isinstance(p, V.Num) and p.dtype != "bool":
            dropped += 1
        elif p == V.NONE:
            added += 1
        elif V.is_slice(p) or p == V.Static("ellipsis"):
            pass
        elif isinstance(p, V.Arr) and p.dtype == "bool":
            advanced.append(("mask", p.ndim))
        elif isinstance(p, (V.Arr, V.Seq)):
            advanced.append(("ints", ndim_of(p)))
        else:
            return V.Arr(None, dtype)
    if any(k is None for _, k in advanced):
        return V.Arr(None, dtype)
    # the advanced indices broadcast together (A[rows, cols] of two vectors: one axis), each taking the axes it
    # indexes (a mask as many as it has, an array of integers one)
    consumed = sum(k if kind == "mask" else 1 for kind, k in advanced)
    spread = max((1 if kind == "mask" else k for kind, k in advanced), default=0)
    out = nd - dropped + added - consumed + spread
    if out == 0 or nd - dropped - consumed < 0:  # (more indices than axes: NumPy's IndexError, which the derivative
        # code raises where the primal does, a number's line made for it)
        return V.Num("float" if dtype in (None, "float64") else dtype)
    return V.Arr(out, dtype)
