"""Abstract values of more NumPy primitives (products, weighted averages, splits, pads, gathers and
sorts): ``infer_numpy`` adds these rules to its table.  Each maps the arguments' abstract values and
the static arguments to the result's ndim and dtype; unknown (None) where NumPy's answer depends on
data the analysis does not have."""

from __future__ import annotations

from . import values as V
from .numpy_values import UNKNOWN, array_of, float_dtype, minus, ndim_of, result_dtype


def _scalar_or_array(nd, dtype) -> V.Aval:
    """What NumPy returns of ndim ``nd``: a NumPy scalar for 0."""
    if nd == 0:
        return V.Num("float" if dtype in (None, "float64") else dtype)
    return array_of(nd, dtype)


def _tensordot(ins, static) -> V.Aval:
    """np.tensordot(a, b, axes): a's free axes, then b's (a 0-d array for a full contraction)."""
    a, b, axes = ndim_of(ins[0]), ndim_of(ins[1]), static[2] if len(static) > 2 else 2
    dtype = result_dtype(ins[:2])
    if a is None or b is None or axes is UNKNOWN:
        return V.Arr(None, dtype)
    k = axes if isinstance(axes, int) else len(axes[0]) if isinstance(axes[0], tuple) else 1
    return array_of(a + b - 2 * k, dtype)


def _kron(ins, static) -> V.Aval:
    a, b = ndim_of(ins[0]), ndim_of(ins[1])
    dtype = result_dtype(ins[:2])
    if a is None or b is None:
        return V.Arr(None, dtype)
    return _scalar_or_array(max(a, b), dtype)


def _cumulative(ins, static) -> V.Aval:
    axis = static[1] if len(static) > 1 else None
    return array_of(1 if axis is None else ndim_of(ins[0]), result_dtype(ins[:1]))


def _average(ins, static) -> V.Aval:
    """np.average(a, axis, weights, returned, keepdims): a floating reduction over axis."""
    nd, axis, keepdims = ndim_of(ins[0]), static[1], static[4]
    dtype = float_dtype([ins[0], ins[2]])
    if keepdims is True:
        return array_of(nd, dtype)
    if axis is UNKNOWN or keepdims is not False:
        return V.Arr(None, dtype)
    if axis is None:
        return _scalar_or_array(0, dtype)
    left = minus(nd, len(axis) if isinstance(axis, tuple) else 1)
    return V.Arr(None, dtype) if left is None else _scalar_or_array(left, dtype)


def _take(ins, static) -> V.Aval:
    """np.take(a, indices, axis): the indices' dimensions in place of axis (of the flattened a for None)."""
    a, i, axis = ndim_of(ins[0]), ndim_of(ins[1]), static[2]
    if i is None or axis is UNKNOWN or axis is not None and a is None:
        return V.Arr(None, result_dtype(ins[:1]))
    return _scalar_or_array(i if axis is None else a - 1 + i, result_dtype(ins[:1]))


def _quantile(ins, static) -> V.Aval:
    """np.median(a, axis, keepdims), np.percentile / np.quantile(a, q, axis, keepdims): q's dimensions,
    then a reduced over axis."""
    q = 0 if len(ins) == 3 else ndim_of(ins[1])
    nd, axis, keepdims = ndim_of(ins[0]), static[-2], static[-1]
    dtype = float_dtype(ins[:1])
    if q is None or nd is None or axis is UNKNOWN:
        return V.Arr(None, dtype)
    left = nd if keepdims else 0 if axis is None else nd - (len(axis) if isinstance(axis, tuple) else 1)
    return _scalar_or_array(q + left, dtype)


RULES = {
    "numpy.tensordot": _tensordot,
    "numpy.kron": _kron,
    "numpy.cumprod": _cumulative,
    "numpy.average": _average,
    "numpy.take": _take,
    "numpy.median": _quantile,
    "numpy.percentile": _quantile,
    "numpy.quantile": _quantile,
    "numpy.take_along_axis": lambda ins, static: (
        array_of(1 if static[2] is None else ndim_of(ins[0]), result_dtype(ins[:1]))
    ),
    "numpy.sort": lambda ins, static: array_of(1 if static[1] is None else ndim_of(ins[0]), result_dtype(ins[:1])),
    "numpy.split/part": lambda ins, static: array_of(ndim_of(ins[0]), result_dtype(ins[:1])),
    "numpy.pad": lambda ins, static: array_of(ndim_of(ins[0]), result_dtype(ins[:1])),
    "numpy.array/dtype": lambda ins, static: array_of(ndim_of(ins[0]), static[1]),
    "numpy.asarray/dtype": lambda ins, static: array_of(ndim_of(ins[0]), static[1]),
    **{
        f"numpy.{kind}": (lambda ins, static: V.STATIC)
        for kind in ("split", "array_split", "hsplit", "vsplit", "dsplit")
    },
    "numpy.linalg.lstsq[0]": lambda ins, static: array_of(ndim_of(ins[1]), float_dtype(ins[:2])),
    "numpy.linalg.lstsq[1]": lambda ins, static: array_of(1, float_dtype(ins[:2])),
    "numpy.linalg.lstsq[2]": lambda ins, static: V.Num("int"),
    "numpy.linalg.lstsq[3]": lambda ins, static: array_of(1, float_dtype(ins[:1])),
}
