"""Abstract values of NumPy primitives: the ndim and dtype of what each NumPy function returns.

The array half of ``infer``: one rule per primitive, from its arguments' abstract values and its
static arguments (an axis, a new shape) to its result's.  Where NumPy's answer depends on data
(``squeeze`` without an axis, a shape computed at run time) the ndim is unknown (None), which the
derivative rules handle generically.
"""

from __future__ import annotations

import sys

from ..rules import arrays as N
from . import values as V
from ..ir.nodes import Const


def numpy_transfer(eq, ins: list) -> list:
    """The abstract values of a NumPy equation's outputs."""
    prim = eq.prim
    n = len(eq.outs)
    static = [a.value if isinstance(a, Const) else _UNKNOWN for a in eq.ins]
    if prim in ("numpy.shape",):
        return [
            V.STATIC if not isinstance(ins[0], V.Arr) or ins[0].ndim is None else V.seq("tuple", [V.INT] * ins[0].ndim)
        ]
    if prim in ("numpy.ndim", "numpy.size"):
        return [V.INT]
    if prim in ("numpy.argsort",):
        return [_arr(_ndim(ins[0]), "int64")]
    if prim in ("numpy.argmax", "numpy.argmin"):
        axis = static[1] if len(static) > 1 else None
        return [V.Num("int64") if axis is None else _arr(_minus(_ndim(ins[0]), 1), "int64")]
    name = prim[len("numpy.") :]
    if name in N.CONSTRUCTORS:
        return [_constructed(name, eq, ins, static)]
    if prim in N.SEQUENCE:
        return [_joined(prim, eq, ins, static)]
    if prim == "numpy.einsum":
        spec = static[0] if isinstance(static[0], str) else ""
        out = spec.split("->")[1] if "->" in spec else None
        dtype = _dtype(ins[1:])
        if out is None or "." in out:
            return [V.Arr(None, dtype)]
        return [_arr(len(out.replace(" ", "")), dtype)]
    rule = _RULES.get(prim)
    arrays = [_as_array(a) for a in ins]
    if rule is None:  # elementwise: broadcast
        numeric = [a for a in ins if V.is_numeric(a) or isinstance(a, V.Seq)]
        dims = [_ndim(a) for a in arrays if a is not None]
        dtype = _float_dtype(ins) if prim in _FLOATING else _dtype(numeric)
        if prim in _BOOL_RESULTS:
            dtype = "bool"
        if all(isinstance(a, V.Num) for a in ins if not isinstance(a, V.Static)) and prim not in _ALWAYS_ARRAY:
            return [V.Num("float" if dtype in (None, "float64") else dtype)] * n  # np.sin(2.0): a NumPy float
        if any(isinstance(a, V.Numeric) for a in ins):
            return [V.Numeric(dtype)] * n
        return [_arr(None if None in dims else max(dims + [0]), dtype)] * n
    return [rule(ins, static)] * n


class _Unknown:
    """A static argument computed at run time."""


_UNKNOWN = _Unknown()


def _as_array(a: V.Aval):
    if isinstance(a, V.Arr):
        return a
    if isinstance(a, V.Num):
        return V.Arr(0, a.dtype)
    if isinstance(a, V.Seq):  # NumPy reads a list as an array: one dimension per level of nesting
        inner = _as_array(a.elem) if not isinstance(a.elem, V.Bottom) else V.Arr(0, "float64")
        return V.Arr(None if inner is None or inner.ndim is None else inner.ndim + 1, getattr(inner, "dtype", None))
    if isinstance(a, V.Numeric):
        return V.Arr(None, a.dtype)
    return None


def _ndim(a):
    a = _as_array(a) if not isinstance(a, V.Arr) else a
    return None if a is None else a.ndim


def _minus(nd, k):
    return None if nd is None else max(nd - k, 0)


def _arr(ndim, dtype) -> V.Aval:
    return V.Arr(ndim, None if dtype in (None, "float") else dtype) if dtype != "float" else V.Arr(ndim, "float64")


def _dtype(avals) -> str | None:
    """NumPy's result dtype for these operands (Python numbers weak), or None if unknown."""
    numpy = sys.modules.get("numpy")
    operands = []
    for a in avals:
        if isinstance(a, V.Seq):
            a = _as_array(a)
        d = getattr(a, "dtype", None)
        if isinstance(a, V.Num) and d in ("float", "int", "bool"):
            operands.append({"float": 1.0, "int": 1, "bool": True}[d])
        elif d is None or numpy is None:
            return None
        else:
            operands.append(numpy.dtype(d))
    if not operands or numpy is None:
        return "float64"
    try:
        return numpy.result_type(*operands).name
    except TypeError:
        return None


def _float_dtype(avals) -> str | None:
    """The dtype of a floating function (sin, mean, sqrt) of these: integers become float64."""
    d = _dtype([a for a in avals if not isinstance(a, V.Static)])
    if d is None:
        return None
    return d if d.startswith(("float", "complex")) else "float64"


def _reduced(ins, static) -> V.Aval:
    """sum, mean, max, ... over ``axis`` (None: all), with ``keepdims``."""
    nd = _ndim(ins[0])
    axis = static[1] if len(static) > 1 else None
    keepdims = static[2] if len(static) > 2 else False
    dtype = _dtype(ins[:1])
    if keepdims is True:
        return _arr(nd, dtype)
    if keepdims is not False or axis is _UNKNOWN:
        return V.Arr(None, dtype)
    if axis is None:
        return _scalar(dtype)
    k = len(axis) if isinstance(axis, tuple) else 1
    return _arr(_minus(nd, k), dtype) if nd is None or nd - k > 0 else _scalar(dtype)


def _scalar(dtype) -> V.Aval:
    """What a full reduction returns: a NumPy scalar."""
    return V.Num("float" if dtype in (None, "float64") else dtype)


def _floating_reduced(ins, static) -> V.Aval:
    out = _reduced(ins, static)
    d = _float_dtype(ins[:1])
    if isinstance(out, V.Num):
        return V.Num("float" if d in (None, "float64") else d)
    return V.Arr(out.ndim, d)


def _dot(ins, static) -> V.Aval:
    a, b = (_ndim(x) for x in ins[:2])
    dtype = _dtype(ins[:2])
    if a is None or b is None:
        return V.Arr(None, dtype) if not (a == 0 or b == 0) else V.Numeric(dtype)
    if a == 0 or b == 0:
        nd = a + b
    elif b == 1:
        nd = a - 1
    else:
        nd = a + b - 2
    return _arr(nd, dtype) if nd > 0 else _scalar(dtype)


def _matmul(ins, static) -> V.Aval:
    a, b = (_ndim(x) for x in ins[:2])
    dtype = _dtype(ins[:2])
    if a is None or b is None:
        return V.Arr(None, dtype)
    if a == 1 and b == 1:
        return _scalar(dtype)
    if a == 1:
        nd = b - 1
    elif b == 1:
        nd = a - 1
    else:
        nd = max(a, b)
    return _arr(nd, dtype)


def numpy_matmul(ins) -> V.Aval:
    """``a @ b``."""
    return _matmul(ins, ())


def _inner(ins, static) -> V.Aval:
    a, b = (_ndim(x) for x in ins[:2])
    dtype = _dtype(ins[:2])
    if a is None or b is None:
        return V.Numeric(dtype)
    nd = a + b if a == 0 or b == 0 else a + b - 2
    return _arr(nd, dtype) if nd > 0 else _scalar(dtype)


def _reshaped(ins, static) -> V.Aval:
    shape = static[1] if len(static) > 1 else _UNKNOWN
    dtype = _dtype(ins[:1])
    if isinstance(shape, int):
        return _arr(1, dtype)
    if isinstance(shape, tuple):
        return _arr(len(shape), dtype)
    if isinstance(ins[1], V.Seq) and ins[1].items is not None:
        return _arr(len(ins[1].items), dtype)
    if isinstance(ins[1], V.Num):
        return _arr(1, dtype)
    return V.Arr(None, dtype)


def _expanded(ins, static) -> V.Aval:
    axis = static[1]
    k = len(axis) if isinstance(axis, tuple) else 1
    nd = _ndim(ins[0])
    return _arr(None if nd is None or axis is _UNKNOWN else nd + k, _dtype(ins[:1]))


def _squeezed(ins, static) -> V.Aval:
    axis = static[1]
    nd = _ndim(ins[0])
    if axis is None or axis is _UNKNOWN or nd is None:
        return V.Arr(None, _dtype(ins[:1]))  # which axes have length 1 is known only at run time
    k = len(axis) if isinstance(axis, tuple) else 1
    return _arr(nd - k, _dtype(ins[:1])) if nd - k > 0 else _scalar(_dtype(ins[:1]))


def _same(ins, static) -> V.Aval:
    return _arr(_ndim(ins[0]), _dtype(ins[:1]))


def _norm(ins, static) -> V.Aval:
    return _scalar(_float_dtype(ins[:1]))


def _trace(ins, static) -> V.Aval:
    nd = _ndim(ins[0])
    return _scalar(_dtype(ins[:1])) if nd == 2 else _arr(_minus(nd, 2), _dtype(ins[:1]))


def _diag(ins, static) -> V.Aval:
    nd = _ndim(ins[0])
    return _arr(None if nd is None else (2 if nd == 1 else 1), _dtype(ins[:1]))


def _cumsum(ins, static) -> V.Aval:
    axis = static[1] if len(static) > 1 else None
    return _arr(1 if axis is None else _ndim(ins[0]), _dtype(ins[:1]))


def _broadcast_to(ins, static) -> V.Aval:
    shape = static[1]
    if isinstance(shape, int):
        return _arr(1, _dtype(ins[:1]))
    if isinstance(shape, tuple):
        return _arr(len(shape), _dtype(ins[:1]))
    if isinstance(ins[1], V.Seq) and ins[1].items is not None:
        return _arr(len(ins[1].items), _dtype(ins[:1]))
    return V.Arr(None, _dtype(ins[:1]))


def _converted(ins, static) -> V.Aval:
    """np.array / np.asarray / np.copy of a number, a list or an array."""
    a = _as_array(ins[0])
    if a is None:
        return V.Arr()
    dtype = (
        a.dtype
        if a.dtype not in (None, "float", "int", "bool")
        else {"float": "float64", "int": "int64", "bool": "bool"}.get(a.dtype)
    )
    return V.Arr(a.ndim, dtype)


_RULES = {
    "numpy.sum": _reduced,
    "numpy.prod": _reduced,
    "numpy.max": _reduced,
    "numpy.min": _reduced,
    "numpy.amax": _reduced,
    "numpy.amin": _reduced,
    "numpy.mean": _floating_reduced,
    "numpy.var": _floating_reduced,
    "numpy.std": _floating_reduced,
    "numpy.dot": _dot,
    "numpy.matmul": _matmul,
    "numpy.inner": _inner,
    "numpy.outer": lambda ins, static: _arr(2, _dtype(ins[:2])),
    "numpy.transpose": _same,
    "numpy.swapaxes": _same,
    "numpy.reshape": _reshaped,
    "numpy.ravel": lambda ins, static: _arr(1, _dtype(ins[:1])),
    "numpy.expand_dims": _expanded,
    "numpy.squeeze": _squeezed,
    "numpy.broadcast_to": _broadcast_to,
    "numpy.cumsum": _cumsum,
    "numpy.trace": _trace,
    "numpy.linalg.inv": lambda ins, static: _arr(_ndim(ins[0]), _float_dtype(ins[:1])),
    "numpy.linalg.solve": lambda ins, static: _arr(_ndim(ins[1]), _float_dtype(ins[:2])),
    "numpy.linalg.det": lambda ins, static: _trace([_arr(_ndim(ins[0]), _float_dtype(ins[:1]))], static),
    "numpy.diag": _diag,
    "numpy.linalg.norm": _norm,
    "numpy.copy": _converted,
    "numpy.array": _converted,
    "numpy.asarray": _converted,
}
_FLOATING = tuple(
    f"numpy.{name}" for name in N.UNARY if name not in ("abs", "absolute", "negative", "positive", "square")
)
_FLOATING += (
    "numpy.arctan2",
    "numpy.hypot",
    "numpy.logaddexp",
    "numpy.logaddexp2",
    "numpy.divide",
    "numpy.true_divide",
)
_BOOL_RESULTS = tuple(f"numpy.{name}" for name in N.COMPARISONS)
_ALWAYS_ARRAY = ()


def _constructed(name: str, eq, ins, static) -> V.Aval:
    """zeros, ones, full, arange, linspace, eye, ..._like: an array of the shape asked for."""
    keywords = dict(zip(eq.param, static[len(static) - len(eq.param) :])) if isinstance(eq.param, tuple) else {}
    dtype = keywords.get("dtype", _UNKNOWN)
    dtype = _dtype_name(dtype)
    if name.endswith("_like"):
        like = _as_array(ins[0])
        return V.Arr(None if like is None else like.ndim, dtype or (like.dtype if like is not None else None))
    if name in ("eye", "identity"):
        return V.Arr(2, dtype or "float64")
    if name == "arange":
        return V.Arr(1, dtype)
    if name == "linspace":
        nd = max([_ndim(a) or 0 for a in ins[:2]] + [0]) if all(_ndim(a) is not None for a in ins[:2]) else None
        return V.Arr(None if nd is None else nd + 1, dtype or _float_dtype(ins[:2]))
    shape = static[0] if static else _UNKNOWN
    if name == "full" and len(ins) > 1 and dtype is None:
        dtype = _dtype(ins[1:2])
    if isinstance(shape, int):
        return V.Arr(1, dtype or "float64")
    if isinstance(shape, tuple):
        return V.Arr(len(shape), dtype or "float64")
    if ins and isinstance(ins[0], V.Seq) and ins[0].items is not None:
        return V.Arr(len(ins[0].items), dtype or "float64")
    if ins and isinstance(ins[0], V.Num):
        return V.Arr(1, dtype or "float64")
    return V.Arr(None, dtype)


def _dtype_name(dtype) -> str | None:
    if dtype is _UNKNOWN or dtype is None:
        return None
    numpy = sys.modules.get("numpy")
    try:
        return numpy.dtype(dtype).name
    except TypeError:
        return None


def _joined(prim: str, eq, ins, static) -> V.Aval:
    k = eq.param[1] if isinstance(eq.param, tuple) else len(ins)
    parts = ins[:k]
    dims = [_ndim(a) for a in parts]
    dtype = _dtype(parts)
    if None in dims:
        return V.Arr(None, dtype)
    nd = max(dims + [0])
    if prim == "numpy.stack":
        return V.Arr(nd + 1, dtype)
    if prim == "numpy.hstack":
        return V.Arr(max(nd, 1), dtype)
    if prim == "numpy.vstack":
        return V.Arr(max(nd, 2), dtype)
    return V.Arr(nd, dtype)


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
            advanced.append(("ints", _ndim(p)))
        else:
            return V.Arr(None, dtype)
    out = nd - dropped + added
    for kind, k in advanced:
        if k is None:
            return V.Arr(None, dtype)
        out += (1 - k) if kind == "mask" else (k - 1)
    if out == 0:
        return V.Num("float" if dtype in (None, "float64") else dtype)
    return V.Arr(out, dtype)
