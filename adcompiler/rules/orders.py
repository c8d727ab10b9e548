"""NumPy's gathers, sorts and order statistics, one record each (``rules.primitive``): ``np.take`` and
``np.take_along_axis`` (linear in the array gathered from, the indices constant), ``np.sort`` (the gather of x at
``argsort(x)``), and ``np.median``, ``np.percentile`` and ``np.quantile`` (method 'linear': the two order
statistics around each quantile, interpolated).  The order is constant between ties, so each derivative is
the same gather or interpolation of the tangent; each adjoint scatters g back, repeated indices adding up.
The orders themselves (``np.argsort``, ``np.argmax``, ``np.argmin``) are indices, with no derivative.
"""

from __future__ import annotations

from .primitive import Helper, Primitive, inactive, register
from ..ir.expr import Call, Num


def _h(name):
    """A runtime helper of generated code (``@name``)."""
    return lambda *args: Call("@" + name, tuple(args))


def _record(name: str, signature: tuple, value, **more) -> None:
    register(Primitive(name=f"numpy.{name}", family="orders", signature=signature, value=value, **more))


def _take_value(ins, static, kit):
    """np.take(a, indices, axis): the indices' dimensions in place of axis (of the flattened a for None)."""
    a, i, axis = kit.ndim_of(ins[0]), kit.ndim_of(ins[1]), static[2]
    if i is None or axis is kit.UNKNOWN or axis is not None and a is None:
        return kit.Arr(None, kit.result_dtype(ins[:1]))
    return kit.scalar_or_array(i if axis is None else a - 1 + i, kit.result_dtype(ins[:1]))


def _quantile_value(ins, static, kit):
    """np.median(a, axis, keepdims), np.percentile / np.quantile(a, q, axis, keepdims): q's dimensions,
    then a reduced over axis."""
    q = 0 if len(ins) == 3 else kit.ndim_of(ins[1])
    nd, axis, keepdims = kit.ndim_of(ins[0]), static[-2], static[-1]
    dtype = kit.float_dtype(ins[:1])
    if q is None or nd is None or axis is kit.UNKNOWN:
        return kit.Arr(None, dtype)
    left = nd if keepdims else 0 if axis is None else nd - (len(axis) if isinstance(axis, tuple) else 1)
    return kit.scalar_or_array(q + left, dtype)


def _along(k: int):
    """An array of a's dtype, flat (1-d) where static argument k (the axis) is None, else of a's ndim."""
    return lambda ins, static, kit: kit.array_of(
        1 if static[k] is None else kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])
    )


# --- the runtime helpers of the records below, each in its forms (``rules.primitive.Helper``): Numba compiles
# the python forms as they are; only take_vjp has an array-API form.
TAKE_VJP = Helper(
    python='''def take_vjp(g, a, indices, axis=None):
    """The cotangent of a in numpy.take(a, indices, axis): g added back at the indices taken."""
    import numpy

    out = numpy.zeros(numpy.shape(a), dtype=numpy.result_type(a, numpy.float32))
    if axis is None:
        numpy.add.at(out.reshape(-1), indices, g)
    else:
        numpy.add.at(out, (slice(None),) * (axis % out.ndim) + (numpy.asarray(indices),), g)
    return out if hasattr(a, "shape") else out[()]
''',
    array_api='''def take_vjp(g, a, indices, axis=None):
    """The cotangent of a in numpy.take(a, indices, axis): g added back at the indices taken (repeats
    adding up), by a product with the one-hot matrix of the indices."""
    xp = namespace(g, a, indices)
    shape, dtype = shape_of(a), floating(xp, a)
    whole = (size_of(a),) if axis is None else shape
    ax = 0 if axis is None else axis % len(shape)
    where = xp.reshape(xp.asarray(indices), (-1,))
    n = whole[ax]
    onehot = xp.astype(xp.reshape(where % n, (-1, 1)) == xp.reshape(xp.arange(n), (1, -1)), dtype)
    moved = xp.reshape(xp.astype(xp.asarray(g), dtype), whole[:ax] + (where.shape[0],) + whole[ax + 1 :])
    out = xp.moveaxis(xp.matmul(xp.moveaxis(moved, ax, -1), onehot), -1, ax)
    return xp.reshape(out, shape) if hasattr(a, "shape") else out[0]
''',
    linear=("linear", (0,)),
)

TAKE_ALONG_VJP = Helper(
    python='''def take_along_vjp(g, a, indices, axis=-1):
    """The cotangent of a in numpy.take_along_axis(a, indices, axis): g added back where it was taken."""
    import numpy

    out = numpy.zeros(numpy.shape(a), dtype=numpy.result_type(a, numpy.float32))
    if axis is None:
        numpy.add.at(out.reshape(-1), indices, g)
        return out
    ax, indices = axis % out.ndim, numpy.asarray(indices)
    index = [numpy.arange(n).reshape([-1 if k == j else 1 for k in range(out.ndim)]) for j, n in enumerate(out.shape)]
    index[ax] = indices
    numpy.add.at(out, tuple(index), numpy.broadcast_to(g, numpy.broadcast_shapes(*(i.shape for i in index))))
    return out
''',
    numba='''def take_along_vjp(g, a, indices, axis=-1):
    """The cotangent of numpy.take_along_axis's a (compiled code only: see the overload below)."""
    raise TypeError("take_along_vjp is called from code numba.njit compiles")


@numba.extending.overload(take_along_vjp, prefer_literal=True)
def _numba_take_along_vjp(g, a, indices, axis=-1):
    """Of a vector of floats along its one axis, or of a matrix along either (np.sort's adjoint, the sorting
    argsort gave): g added back at the indices, repeated ones adding up, one at a time."""
    types = numba.core.types
    if isinstance(a, types.Array) and a.ndim == 2 and isinstance(a.dtype, types.Float):
        if not (isinstance(axis, types.IntegerLiteral) and -2 <= axis.literal_value < 2):
            return None
        if not (isinstance(indices, types.Array) and indices.ndim == 2):
            return None
        if not (isinstance(g, types.Number) or isinstance(g, types.Array) and g.ndim <= 2):
            return None
        rows = axis.literal_value % 2 == 1  # (each row's entries taken along it; else each column's)

        def lines(g, a, indices, axis=-1):
            out = numpy.zeros(a.shape, a.dtype)
            if rows:
                values = numpy.broadcast_to(numpy.asarray(g), (a.shape[0], indices.shape[1]))
                for i in range(a.shape[0]):
                    for j in range(indices.shape[1]):
                        out[i, indices[i if indices.shape[0] != 1 else 0, j]] += values[i, j]
            else:
                values = numpy.broadcast_to(numpy.asarray(g), (indices.shape[0], a.shape[1]))
                for i in range(indices.shape[0]):
                    for j in range(a.shape[1]):
                        out[indices[i, j if indices.shape[1] != 1 else 0], j] += values[i, j]
            return out

        return lines
    whole = isinstance(axis, (types.NoneType, types.Omitted)) or axis is None
    along = whole or isinstance(axis, types.IntegerLiteral) and axis.literal_value in (0, -1)
    vector = isinstance(a, types.Array) and a.ndim == 1 and isinstance(a.dtype, types.Float)
    if not (along and vector and isinstance(indices, types.Array) and indices.ndim == 1):
        return None
    if isinstance(g, types.Number):

        def number(g, a, indices, axis=-1):
            out = numpy.zeros(a.shape, a.dtype)
            for k in range(indices.shape[0]):
                out[indices[k]] += g
            return out

        return number
    if not (isinstance(g, types.Array) and g.ndim == 1):
        return None

    def impl(g, a, indices, axis=-1):
        if g.shape[0] != indices.shape[0]:
            raise ValueError("a cotangent of another length than the indices")
        out = numpy.zeros(a.shape, a.dtype)
        for k in range(indices.shape[0]):
            out[indices[k]] += g[k]
        return out

    return impl
''',
    linear=("linear", (0,)),
)

_QUANTILE = """
    import numpy

    x = numpy.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(k % x.ndim for k in numpy.atleast_1d(axis))
    kept = [k for k in range(x.ndim) if k not in axes]

    def moved(v):  # the reduced axes last, as one axis
        v = numpy.moveaxis(numpy.broadcast_to(v, x.shape), axes, range(x.ndim - len(axes), x.ndim))
        return numpy.reshape(v, [x.shape[k] for k in kept] + [-1])

    a = moved(x)
    n, q = a.shape[-1], numpy.asarray(q, dtype=float) / scale
    order = numpy.argsort(a, axis=-1)
    pos = q.ravel() * (n - 1)
    lo = numpy.floor(pos).astype(int)
    hi, t = numpy.minimum(lo + 1, n - 1), pos - lo
    shape = list(q.shape) + [1 if k in axes else x.shape[k] for k in range(x.ndim) if keepdims or k in kept]
"""

QUANTILE_JVP = Helper(
    python='''def quantile_jvp(dx, x, q, axis=None, keepdims=False, scale=1.0):
    """The tangent of numpy.quantile(x, q / scale, axis, keepdims=keepdims) (method 'linear'): the
    tangents at the two order statistics around each quantile, interpolated as the values are."""'''
    + _QUANTILE
    + """    d = numpy.take_along_axis(moved(dx), order, axis=-1)
    out = (d[..., lo] * (1 - t) + d[..., hi] * t).astype(d.dtype, copy=False)  # kept axes, then q's entries
    out = numpy.reshape(numpy.moveaxis(out, -1, 0), shape)  # (of the tangent's dtype: float32's float32)
    return out if out.ndim else out[()]
""",
    linear=("linear", (0,)),
)

QUANTILE_VJP = Helper(
    python='''def quantile_vjp(g, x, q, axis=None, keepdims=False, scale=1.0):
    """The cotangent of x in numpy.quantile(x, q / scale, axis, keepdims=keepdims) (method 'linear'):
    g shared between the two order statistics around each quantile."""'''
    + _QUANTILE
    + """    gg = numpy.moveaxis(numpy.reshape(numpy.broadcast_to(g, shape), [q.size] + list(a.shape[:-1])), 0, -1)
    d = numpy.zeros(a.shape, dtype=numpy.result_type(x, numpy.float32))
    for k in range(q.size):
        d[..., lo[k]] += gg[..., k] * (1 - t[k])
        d[..., hi[k]] += gg[..., k] * t[k]
    out = numpy.empty_like(d)
    numpy.put_along_axis(out, order, d, axis=-1)
    out = numpy.reshape(out, [x.shape[k] for k in kept] + [x.shape[k] for k in axes])
    out = numpy.moveaxis(out, range(x.ndim - len(axes), x.ndim), axes)
    return out if x.ndim else out[()]
""",
    linear=("linear", (0,)),
)


# --- gathers and sorts: linear in the array gathered from (indices constant); np.sort(x, axis) is the
# gather of x at argsort(x, axis), whose derivative is the same gather of the tangent (its adjoint
# scatters g back, repeated indices adding up: take_vjp, take_along_vjp).
def _order(x, axis):
    return Call("numpy.argsort", (x, axis))


_record(
    "take",
    (("a", None), ("indices", None), ("axis", Num(None))),
    _take_value,
    linear=lambda g, x, z, indices, axis: _h("take_vjp")(g, x, indices, axis),
    helpers={"take_vjp": TAKE_VJP},
    array_api="xp.take",
)
_record(
    "take_along_axis",
    (("arr", None), ("indices", None), ("axis", Num(-1))),
    _along(2),
    linear=lambda g, x, z, indices, axis: _h("take_along_vjp")(g, x, indices, axis),
    helpers={"take_along_vjp": TAKE_ALONG_VJP},
)
_record(
    "sort",
    (("a", None), ("axis", Num(-1))),
    _along(1),
    jvp=lambda x, axis, z, dx, dax: Call("numpy.take_along_axis", (dx, _order(x, axis), axis)),
    vjp=lambda x, axis, z, g: (_h("take_along_vjp")(g, x, _order(x, axis), axis), None),
    slots=(True, False),
    helpers={"take_along_vjp": TAKE_ALONG_VJP},
    array_api="xp.sort",
)

# --- median, percentile, quantile (method 'linear'): selections interpolating linearly between the two
# order statistics around each quantile, so the derivative is the same interpolation of the tangents
# there (the order is constant between ties): quantile_jvp, and its adjoint quantile_vjp, linear in g.
# NumPy's own order has out (and overwrite_input) next: the rest by keyword.
_record(
    "median",
    (("a", None), ("axis", Num(None)), ("keepdims", Num(False))),
    _quantile_value,
    jvp=lambda x, axis, keep, z, dx, da, dk: _h("quantile_jvp")(dx, x, Num(0.5), axis, keep, Num(1.0)),
    vjp=lambda x, axis, keep, z, g: (_h("quantile_vjp")(g, x, Num(0.5), axis, keep, Num(1.0)), None, None),
    slots=(True, False, False),
    positional=2,
    static={"keepdims": (True, False)},
    helpers={"quantile_jvp": QUANTILE_JVP, "quantile_vjp": QUANTILE_VJP},
)
for _name, _scale in (("percentile", 100.0), ("quantile", 1.0)):
    _record(
        _name,
        (("a", None), ("q", None), ("axis", Num(None)), ("keepdims", Num(False))),
        _quantile_value,
        jvp=lambda x, q, axis, keep, z, dx, dq, da, dk, s=_scale: _h("quantile_jvp")(dx, x, q, axis, keep, Num(s)),
        vjp=lambda x, q, axis, keep, z, g, s=_scale: (
            _h("quantile_vjp")(g, x, q, axis, keep, Num(s)),
            None,
            None,
            None,
        ),
        slots=(True, False, False, False),
        positional=3,
        helpers={"quantile_jvp": QUANTILE_JVP, "quantile_vjp": QUANTILE_VJP},
        static={"keepdims": (True, False)},
    )


# --- the orders themselves: indices, with no derivative (called as written)
inactive(  # of the flattened array (1-D) where axis is None
    "numpy.argsort",
    "orders",
    lambda ins, static, kit: kit.array_of(1 if len(static) > 1 and static[1] is None else kit.ndim_of(ins[0]), "int64"),
    "xp.argsort",
)
inactive(  # where v's entries would go into the sorted a: indices, one per entry of v (a number for a number)
    "numpy.searchsorted",
    "orders",
    lambda ins, static, kit: (
        kit.Num("int64") if len(ins) > 1 and kit.ndim_of(ins[1]) == 0 else kit.array_of(kit.ndim_of(ins[1]), "int64")
    ),
    "xp.searchsorted",
)
for _name in ("argmax", "argmin"):  # an index into the flattened array, or an array of them along an axis
    inactive(
        f"numpy.{_name}",
        "orders",
        lambda ins, static, kit: (
            kit.Num("int64")
            if (static[1] if len(static) > 1 else None) is None
            else kit.array_of(kit.minus(kit.ndim_of(ins[0]), 1), "int64")
        ),
        f"xp.{_name}",
    )
