"""NumPy's products (dot, matmul, inner, outer, cross, tensordot, kron), weighted reductions (cumprod,
average), gathers and sorts (take, take_along_axis, sort) and order statistics (median, percentile,
quantile), one record each (``rules.primitive``); the split family, ``np.append`` and ``specialise``'s
variants of the products are still tables, which ``arrays`` merges into its own.

``tensordot`` and ``kron`` are bilinear: the tangent is the product of one tangent with the other
argument, summed over both; each cotangent is a runtime helper bilinear in (g, the other argument),
so the adjoint code can itself be differentiated.  ``cumprod`` is differentiated by the recurrences
of its running products (``z[i] = z[i-1] x[i]``), never by dividing by ``x``: exact where entries are
zero.  ``average`` with weights is linear in ``a``; in the weights it is the quotient rule, written
with primitives that have rules (``np.average`` without weights is ``np.mean``: lowering says so).
"""

from __future__ import annotations

from . import padding as D
from .primitive import Helper, Primitive, Variant, register
from ..ir.expr import Call, Num, Slice, Subscript, Tuple, sum_exprs


def _h(name):
    """A runtime helper of generated code (``@name``)."""
    return lambda *args: Call("@" + name, tuple(args))


def _np(name, *args):
    return Call("numpy." + name, tuple(args))


def _bilinear(prim, a, b, static, da, db):
    """op(da, b) + op(a, db) for a product ``op`` with static arguments ``static``."""
    return sum_exprs(
        [
            Call(prim, (da, b) + static) if da is not None else None,
            Call(prim, (a, db) + static) if db is not None else None,
        ]
    )


# Each primitive of this module is one record (``rules.primitive``) but the split family's pieces, np.append
# and ``specialise``'s variants of np.dot, np.matmul and np.outer, which are still tables here.
FORWARD, REVERSE, SLOTS, SIGNATURES, STATIC, LINEAR, POSITIONAL = {}, {}, {}, {}, {}, {}, {}
METHODS: dict = {}


def _scalar_or_array(nd, dtype, kit):
    """What NumPy returns of ndim ``nd``: a NumPy scalar for 0."""
    return kit.scalar(dtype) if nd == 0 else kit.array_of(nd, dtype)


def _tensordot_value(ins, static, kit):
    """np.tensordot(a, b, axes): a's free axes, then b's (a 0-d array for a full contraction)."""
    a, b, axes = kit.ndim_of(ins[0]), kit.ndim_of(ins[1]), static[2] if len(static) > 2 else 2
    dtype = kit.result_dtype(ins[:2])
    if a is None or b is None or axes is kit.UNKNOWN:
        return kit.Arr(None, dtype)
    k = axes if isinstance(axes, int) else len(axes[0]) if isinstance(axes[0], tuple) else 1
    return kit.array_of(a + b - 2 * k, dtype)


def _kron_value(ins, static, kit):
    a, b = kit.ndim_of(ins[0]), kit.ndim_of(ins[1])
    dtype = kit.result_dtype(ins[:2])
    if a is None or b is None:
        return kit.Arr(None, dtype)
    return _scalar_or_array(max(a, b), dtype, kit)


def _along(k: int):
    """An array of a's dtype, flat (1-d) where static argument k (the axis) is None, else of a's ndim."""
    return lambda ins, static, kit: kit.array_of(
        1 if static[k] is None else kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])
    )


def _average_value(ins, static, kit):
    """np.average(a, axis, weights, returned, keepdims): a floating reduction over axis."""
    nd, axis, keepdims = kit.ndim_of(ins[0]), static[1], static[4]
    dtype = kit.float_dtype([ins[0], ins[2]])
    if keepdims is True:
        return kit.array_of(nd, dtype)
    if axis is kit.UNKNOWN or keepdims is not False:
        return kit.Arr(None, dtype)
    if axis is None:
        return _scalar_or_array(0, dtype, kit)
    left = kit.minus(nd, len(axis) if isinstance(axis, tuple) else 1)
    return kit.Arr(None, dtype) if left is None else _scalar_or_array(left, dtype, kit)


def _take_value(ins, static, kit):
    """np.take(a, indices, axis): the indices' dimensions in place of axis (of the flattened a for None)."""
    a, i, axis = kit.ndim_of(ins[0]), kit.ndim_of(ins[1]), static[2]
    if i is None or axis is kit.UNKNOWN or axis is not None and a is None:
        return kit.Arr(None, kit.result_dtype(ins[:1]))
    return _scalar_or_array(i if axis is None else a - 1 + i, kit.result_dtype(ins[:1]), kit)


def _quantile_value(ins, static, kit):
    """np.median(a, axis, keepdims), np.percentile / np.quantile(a, q, axis, keepdims): q's dimensions,
    then a reduced over axis."""
    q = 0 if len(ins) == 3 else kit.ndim_of(ins[1])
    nd, axis, keepdims = kit.ndim_of(ins[0]), static[-2], static[-1]
    dtype = kit.float_dtype(ins[:1])
    if q is None or nd is None or axis is kit.UNKNOWN:
        return kit.Arr(None, dtype)
    left = nd if keepdims else 0 if axis is None else nd - (len(axis) if isinstance(axis, tuple) else 1)
    return _scalar_or_array(q + left, dtype, kit)


# --- tensordot and kron: bilinear, with tensordot's axes static; cumprod by the recurrences of its running
# products: z[i] = z[i-1] x[i], so dz[i] = dz[i-1] x[i] + z[i-1] dx[i] (cumprod_jvp), and with s[j] = g[j] +
# x[j+1] s[j+1], x[j]'s cotangent is z[j-1] s[j] (cumprod_vjp)
# --- the runtime helpers of the records below, each in its forms (``rules.primitive.Helper``): none has a Numba
# form of its own (Numba compiles the python form where it takes it), and only take_vjp an array-API one.
_TENSORDOT_AXES = """
    import numpy

    na, nb = numpy.ndim(a), numpy.ndim(b)
    if isinstance(axes, int):
        aa, bb = list(range(na - axes, na)), list(range(axes))
    else:
        aa, bb = ([k] if isinstance(k, int) else list(k) for k in axes)
    aa, bb = [k % na for k in aa], [k % nb for k in bb]
    fa, fb = [k for k in range(na) if k not in aa], [k for k in range(nb) if k not in bb]
"""

TENSORDOT_VJP_A = Helper(
    python='''def tensordot_vjp_a(g, a, b, axes=2):
    """The cotangent of a in numpy.tensordot(a, b, axes): g contracted with b over b's free axes."""'''
    + _TENSORDOT_AXES
    + """    out = numpy.tensordot(g, b, axes=(list(range(len(fa), len(fa) + len(fb))), fb))
    out = numpy.transpose(out, numpy.argsort(fa + [aa[bb.index(k)] for k in sorted(bb)]))
    return out if hasattr(a, "shape") else out[()]
""",
    linear=("bilinear", (0, 2)),
)

TENSORDOT_VJP_B = Helper(
    python='''def tensordot_vjp_b(g, a, b, axes=2):
    """The cotangent of b in numpy.tensordot(a, b, axes): a contracted with g over a's free axes."""'''
    + _TENSORDOT_AXES
    + """    out = numpy.tensordot(a, g, axes=(fa, list(range(len(fa)))))
    out = numpy.transpose(out, numpy.argsort([bb[aa.index(k)] for k in sorted(aa)] + fb))
    return out if hasattr(b, "shape") else out[()]
""",
    linear=("bilinear", (0, 1)),
)

_KRON_SHAPES = """
    import numpy

    sa, sb = numpy.shape(a), numpy.shape(b)
    d = max(len(sa), len(sb))
    sa, sb = (1,) * (d - len(sa)) + sa, (1,) * (d - len(sb)) + sb
    blocks = numpy.reshape(g, [n for pair in zip(sa, sb) for n in pair])  # (a0, b0, a1, b1, ...)
"""

KRON_VJP_A = Helper(
    python='''def kron_vjp_a(g, a, b):
    """The cotangent of a in numpy.kron(a, b): each block of g against b."""'''
    + _KRON_SHAPES
    + """    out = numpy.tensordot(blocks, numpy.reshape(b, sb), axes=(list(range(1, 2 * d, 2)), list(range(d))))
    out = numpy.reshape(out, numpy.shape(a))
    return out if hasattr(a, "shape") else out[()]
""",
    linear=("bilinear", (0, 2)),
)

KRON_VJP_B = Helper(
    python='''def kron_vjp_b(g, a, b):
    """The cotangent of b in numpy.kron(a, b): the blocks of g weighted by a's entries, summed."""'''
    + _KRON_SHAPES
    + """    out = numpy.tensordot(numpy.reshape(a, sa), blocks, axes=(list(range(d)), list(range(0, 2 * d, 2))))
    out = numpy.reshape(out, numpy.shape(b))
    return out if hasattr(b, "shape") else out[()]
""",
    linear=("bilinear", (0, 1)),
)

_CUMPROD_MOVE = """
    import numpy

    number = not hasattr(x, "shape")
    x = numpy.asarray(x)

    def moved(v):  # the cumulative axis last (x flattened for axis None)
        v = numpy.broadcast_to(v, numpy.shape(x)) if axis is not None or numpy.ndim(v) == 0 else v
        return numpy.ravel(v) if axis is None else numpy.moveaxis(v, axis, -1)

    def back(v):
        v = numpy.reshape(v, x.shape) if axis is None else numpy.moveaxis(v, -1, axis)
        return v[()] if number else v

    a = moved(x)
    z, m = numpy.cumprod(a, axis=-1), a.shape[-1]
"""

CUMPROD_JVP = Helper(
    python='''def cumprod_jvp(dx, x, axis=None):
    """The tangent of numpy.cumprod(x, axis): dz[i] = dz[i-1] x[i] + z[i-1] dx[i] (exact at zeros)."""'''
    + _CUMPROD_MOVE
    + """    da = moved(numpy.broadcast_to(dx, x.shape))
    out = numpy.empty(a.shape, dtype=numpy.result_type(a, da, numpy.float32))
    out[..., :1] = da[..., :1]
    for i in range(1, m):
        out[..., i] = out[..., i - 1] * a[..., i] + z[..., i - 1] * da[..., i]
    return out if axis is None else numpy.moveaxis(out, -1, axis)
""",
)

CUMPROD_VJP = Helper(
    python='''def cumprod_vjp(g, x, axis=None):
    """The cotangent of x in numpy.cumprod(x, axis): with s[j] = g[j] + x[j+1] s[j+1], x[j]'s is
    z[j-1] s[j] (no division: exact at zeros)."""'''
    + _CUMPROD_MOVE
    + """    gg = numpy.broadcast_to(numpy.asarray(g) if axis is None else numpy.moveaxis(numpy.asarray(g), axis, -1), a.shape)
    s = numpy.empty(a.shape, dtype=numpy.result_type(a, gg, numpy.float32))
    s[..., m - 1 :] = gg[..., m - 1 :]
    for j in range(m - 2, -1, -1):
        s[..., j] = gg[..., j] + a[..., j + 1] * s[..., j + 1]
    s[..., 1:] *= z[..., :-1]
    return back(s)
""",
    linear=("product", (0, 1)),
)

CUMPROD_VJP_JVP = Helper(
    python='''def cumprod_vjp_jvp(g, dg, x, dx, axis=None):
    """The tangent of cumprod_vjp(g, x, axis) given dg and dx: its recurrences differentiated."""'''
    + _CUMPROD_MOVE
    + """    def along(v):
        v = numpy.asarray(v)
        return numpy.broadcast_to(v if axis is None or v.ndim == 0 else numpy.moveaxis(v, axis, -1), a.shape)

    gg, dgg, da = along(g), along(dg), moved(numpy.broadcast_to(dx, x.shape))
    dtype = numpy.result_type(a, gg, dgg, da, numpy.float32)
    dz, s, ds = (numpy.empty(a.shape, dtype=dtype) for _ in range(3))
    dz[..., :1] = da[..., :1]
    for i in range(1, m):
        dz[..., i] = dz[..., i - 1] * a[..., i] + z[..., i - 1] * da[..., i]
    s[..., m - 1 :], ds[..., m - 1 :] = gg[..., m - 1 :], dgg[..., m - 1 :]
    for j in range(m - 2, -1, -1):
        s[..., j] = gg[..., j] + a[..., j + 1] * s[..., j + 1]
        ds[..., j] = dgg[..., j] + da[..., j + 1] * s[..., j + 1] + a[..., j + 1] * ds[..., j + 1]
    out = ds.copy()
    out[..., 1:] = dz[..., :-1] * s[..., 1:] + z[..., :-1] * ds[..., 1:]
    return back(out)
""",
)

WEIGHTS_LIKE = Helper(
    python='''def weights_like(w, a, axis=None):
    """np.average's weights w set along axis of a (as NumPy broadcasts them): linear in w."""
    import numpy

    w, shape = numpy.asarray(w), numpy.shape(a)
    if w.shape == shape or axis is None:
        return w
    axes = [k % len(shape) for k in (axis if isinstance(axis, tuple) else (axis,))]
    return numpy.reshape(numpy.transpose(w, numpy.argsort(axes)), [n if k in axes else 1 for k, n in enumerate(shape)])
''',
    linear=("linear", (0,)),
)

WEIGHTS_VJP = Helper(
    python='''def weights_vjp(gw, w, a, axis=None):
    """The adjoint of weights_like: gw (shaped like a) summed back to the weights' shape."""
    import numpy

    shape = numpy.shape(a)
    if numpy.shape(w) == shape or axis is None:
        return gw
    axes = [k % len(shape) for k in (axis if isinstance(axis, tuple) else (axis,))]
    summed = numpy.sum(gw, axis=tuple(k for k in range(len(shape)) if k not in axes))
    return numpy.transpose(summed, numpy.argsort(numpy.argsort(axes)))
''',
    linear=("linear", (0,)),
)

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
    out = d[..., lo] * (1 - t) + d[..., hi] * t  # kept axes, then q's entries
    out = numpy.reshape(numpy.moveaxis(out, -1, 0), shape)
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


def _record(name: str, signature: tuple, value, **more) -> None:
    register(Primitive(name=f"numpy.{name}", family="products", signature=signature, value=value, **more))


_record(
    "tensordot",
    (("a", None), ("b", None), ("axes", Num(2))),
    _tensordot_value,
    jvp=lambda a, b, axes, z, da, db, dx: _bilinear("numpy.tensordot", a, b, (axes,), da, db),
    vjp=lambda a, b, axes, z, g: (_h("tensordot_vjp_a")(g, a, b, axes), _h("tensordot_vjp_b")(g, a, b, axes), None),
    slots=(True, True, False),
    static={"axes": None},
    helpers={"tensordot_vjp_a": TENSORDOT_VJP_A, "tensordot_vjp_b": TENSORDOT_VJP_B},
)
_record(
    "kron",
    (("a", None), ("b", None)),
    _kron_value,
    jvp=lambda a, b, z, da, db: _bilinear("numpy.kron", a, b, (), da, db),
    vjp=lambda a, b, z, g: (_h("kron_vjp_a")(g, a, b), _h("kron_vjp_b")(g, a, b)),
    slots=(True, True),
    helpers={"kron_vjp_a": KRON_VJP_A, "kron_vjp_b": KRON_VJP_B},
)
_record(
    "cumprod",
    (("a", None), ("axis", Num(None))),
    _along(1),
    jvp=lambda x, axis, z, dx, dax: _h("cumprod_jvp")(dx, x, axis),
    vjp=lambda x, axis, z, g: (_h("cumprod_vjp")(g, x, axis), None),
    slots=(True, False),
    methods=("cumprod",),
    helpers={"cumprod_jvp": CUMPROD_JVP, "cumprod_vjp": CUMPROD_VJP, "cumprod_vjp_jvp": CUMPROD_VJP_JVP},
)


# --- average(a, axis, weights, returned=False, keepdims): sum(a W) / sum(W), W the weights set along
# axis (the runtime helper weights_like, linear in w).  d/da: the same average of da; d/dW: the
# quotient rule, sum((a - avg) dW) / sum(W).
def _average_parts(a, axis, w):
    wb = _h("weights_like")(w, a, axis)
    total = _np("sum", wb, axis, Num(True))
    return wb, total, _np("sum", a * wb, axis, Num(True)) / total


def _average_tangent(a, axis, w, keep, da, dw):
    wb, total, mean = _average_parts(a, axis, w)
    terms = [da * wb if da is not None else None]
    terms.append((a - mean) * _h("weights_like")(dw, a, axis) if dw is not None else None)
    return _np("sum", sum_exprs(terms), axis, keep) / _np("sum", wb, axis, keep)


def _average_adjoint(a, axis, w, keep, g):
    wb, total, mean = _average_parts(a, axis, w)
    spread = _h("unreduce")(g, a, axis, keep) / total
    return spread * wb, None, _h("weights_vjp")(spread * (a - mean), w, a, axis), None, None


_record(
    "average",
    (("a", None), ("axis", Num(None)), ("weights", Num(None)), ("returned", Num(False)), ("keepdims", Num(False))),
    _average_value,
    jvp=lambda a, axis, w, ret, keep, z, da, dax, dw, dr, dk: _average_tangent(a, axis, w, keep, da, dw),
    vjp=lambda a, axis, w, ret, keep, z, g: _average_adjoint(a, axis, w, keep, g),
    slots=(True, False, True, False, False),
    static={"returned": (False,), "keepdims": (True, False)},
    helpers={"weights_like": WEIGHTS_LIKE, "weights_vjp": WEIGHTS_VJP},
)

# --- the split family: the pieces are one primitive each, ``numpy.split/part(x, kind, sections, axis, i,
# raw)`` of the split computed once (``raw``, printed ``raw[i]``), each linear in x: its tangent is the
# same piece of the tangent, its adjoint g written into zeros shaped like x at the piece (split_vjp).
SPLITS = ("numpy.split", "numpy.array_split", "numpy.hsplit", "numpy.vsplit", "numpy.dsplit")
SPLIT_PART = "numpy.split/part"
FORWARD[SPLIT_PART] = lambda x, kind, sections, axis, i, raw, z, dx, *rest: _h("split_part")(
    dx, kind, sections, axis, i
)
REVERSE[SPLIT_PART] = (
    lambda x, kind, sections, axis, i, raw, z, g: (_h("split_vjp")(g, x, kind, sections, axis, i),) + (None,) * 5
)
SLOTS[SPLIT_PART] = (True,) + (False,) * 5
for _prim in SPLITS:
    SIGNATURES[_prim] = (("ary", None), ("indices_or_sections", None)) + (
        (("axis", Num(0)),) if _prim in ("numpy.split", "numpy.array_split") else ()
    )
    STATIC[_prim] = {"indices_or_sections": None}

# np.append(arr, values, axis): lowered to np.concatenate (of both raveled for axis None)
SIGNATURES["numpy.append"] = (("arr", None), ("values", None), ("axis", Num(None)))
STATIC["numpy.append"] = {"axis": None}


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

# np.pad and casts to float dtypes (rules/padding.py)
for _table, _more in ((FORWARD, D.FORWARD), (REVERSE, D.REVERSE), (SLOTS, D.SLOTS), (SIGNATURES, D.SIGNATURES)):
    _table.update(_more)
STATIC.update(D.STATIC)
POSITIONAL.update(D.POSITIONAL)


# --- the variants of np.dot, np.matmul (and ``@``) and np.outer by their operands (``rules.primitive.Variant``,
# chosen by ``analysis.specialise``): each adjoint one NumPy call chosen when the code is generated, not by a helper
# choosing by ndim when it runs.
def _dot_tangent(a, b, z, da, db):
    return sum_exprs([_np("dot", da, b) if da is not None else None, _np("dot", a, db) if db is not None else None])


def _column(g):
    """``g[:, None]``: the vector g as a column."""
    return Subscript(g, Tuple((Slice(None, None), Num(None))))


# np.dot of two vectors: a number, whose adjoint in each vector is g times the other (a new array, never the
# other vector itself, even for g = 1)
VECTORS = Variant(_dot_tangent, lambda a, b, z, g: (_np("multiply", g, b), _np("multiply", g, a)), (True, True))
# a matrix times a vector, (n, m) . (m,) -> (n,): g_i b_j and g . a; where g is surely an array (not the number
# 0.0 of a result none of whose uses ran), g_i b_j as g[:, None] * b, np.outer's own product of a column and a
# row without its Python layer (a microsecond)
MATVEC = Variant(
    _dot_tangent,
    lambda a, b, z, g: (_np("outer", g, b), _np("dot", g, a)),
    (True, True),
    array_g=lambda a, b, z, g: (_column(g) * b, _np("dot", g, a)),
)
# a vector times a matrix, (n,) . (n, m) -> (m,): b . g and a_i g_j
VECMAT = Variant(_dot_tangent, lambda a, b, z, g: (_np("dot", b, g), _np("outer", a, g)), (True, True))


def _product_kind(ins, static, kit):
    """ "matvec" or "vecmat" for a matrix and a vector either way round, else None."""
    if not all(isinstance(a, kit.Arr) for a in ins[:2]):
        return None
    return {(2, 1): "matvec", (1, 2): "vecmat"}.get((ins[0].ndim, ins[1].ndim))


def _dot_kind(ins, static, kit):
    """np.dot's variant: "vectors" for two vectors, else a matrix and a vector's."""
    if all(isinstance(a, kit.Arr) and a.ndim == 1 for a in ins[:2]):
        return "vectors"
    return _product_kind(ins, static, kit)


# np.outer of operands that are not both vectors (matrices, numbers, an ndim not known): NumPy ravels each first,
# so each adjoint is the vector one of the raveled operands, in the operand's own shape.
FLAT = Variant(
    lambda a, b, z, da, db: _bilinear("numpy.outer", a, b, (), da, db),
    lambda a, b, z, g: (
        _np("reshape", _np("dot", g, _np("ravel", b)), _np("shape", a)),
        _np("reshape", _np("dot", _np("ravel", a), g), _np("shape", b)),
    ),
    (True, True),
)


def _outer_kind(ins, static, kit):
    return None if all(isinstance(a, kit.Arr) and a.ndim == 1 for a in ins[:2]) else "flat"


# --- the products of two arrays, one record each: bilinear, so the tangent is the product of each tangent
# with the other argument (``op(da, b) + op(a, db)``, ``rules.jvp``), and each cotangent is ``bilinear[i](g, a,
# b)``, a runtime helper bilinear in (g, the other argument) where the shapes are known only when it runs.
def _product(name: str, signature: tuple, value, bilinear, **more) -> None:
    register(
        Primitive(name=f"numpy.{name}", family="products", signature=signature, value=value, bilinear=bilinear, **more)
    )


def _dotted(ins, static, kit):
    """np.dot(a, b): a number times an array; the sum over a's last and b's second-to-last axes."""
    a, b = (kit.ndim_of(x) for x in ins[:2])
    dtype = kit.result_dtype(ins[:2])
    if a is None or b is None:
        return kit.Arr(None, dtype) if not (a == 0 or b == 0) else kit.Numeric(dtype)
    nd = a + b if a == 0 or b == 0 else a - 1 if b == 1 else a + b - 2
    return kit.array_of(nd, dtype) if nd > 0 else kit.scalar(dtype)


def _matrix_product(ins, static, kit):
    """np.matmul(a, b) and a @ b: a vector times a vector is a number; a vector's axis is dropped; stacks of
    matrices broadcast."""
    a, b = (kit.ndim_of(x) for x in ins[:2])
    dtype = kit.result_dtype(ins[:2])
    if a is None or b is None:
        return kit.Arr(None, dtype)
    if a == 1 and b == 1:
        return kit.scalar(dtype)
    return kit.array_of(b - 1 if a == 1 else a - 1 if b == 1 else max(a, b), dtype)


def _inner_product(ins, static, kit):
    """np.inner(a, b): the sum over both last axes (a number times an array)."""
    a, b = (kit.ndim_of(x) for x in ins[:2])
    dtype = kit.result_dtype(ins[:2])
    if a is None or b is None:
        return kit.Numeric(dtype)
    nd = a + b if a == 0 or b == 0 else a + b - 2
    return kit.array_of(nd, dtype) if nd > 0 else kit.scalar(dtype)


AB = (("a", None), ("b", None))
_product(
    "dot",
    AB,
    _dotted,
    (lambda g, a, b: _h("dot_vjp_a")(g, a, b), lambda g, a, b: _h("dot_vjp_b")(g, a, b)),
    methods=("dot",),
    variants={"vectors": VECTORS, "matvec": MATVEC, "vecmat": VECMAT},
    variant=_dot_kind,
    array_api="dot",  # (the standard's matmul and vecdot, chosen by the operands: a helper of the target's)
)
_product(
    "matmul",
    (("x1", None), ("x2", None)),
    _matrix_product,
    (lambda g, a, b: _h("matmul_vjp_a")(g, a, b), lambda g, a, b: _h("matmul_vjp_b")(g, a, b)),
    variants={"matvec": MATVEC, "vecmat": VECMAT},
    variant=_product_kind,
    operator="matmul",  # a @ b
    array_api="xp.matmul",
)
_product(
    "inner",
    AB,
    _inner_product,
    (lambda g, a, b: _h("inner_vjp_a")(g, a, b), lambda g, a, b: _h("inner_vjp_b")(g, a, b)),
)
_product(
    "outer",
    AB,
    lambda ins, static, kit: kit.array_of(2, kit.result_dtype(ins[:2])),
    (lambda g, a, b: _np("dot", g, b), lambda g, a, b: _np("dot", a, g)),
    variants={"flat": FLAT},
    variant=_outer_kind,
    array_api="outer",
)
# of 3-vectors along the last axis: g . (da x b) = da . (b x g), g . (a x db) = db . (g x a)
_product(
    "cross",
    AB,
    lambda ins, static, kit: kit.elementwise(ins),
    (
        lambda g, a, b: _h("unbroadcast")(_np("cross", b, g), a),
        lambda g, a, b: _h("unbroadcast")(_np("cross", g, a), b),
    ),
)
