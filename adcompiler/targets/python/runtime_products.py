"""Helpers of generated NumPy derivative code for products and weighted reductions (tensordot, kron,
cumprod, average), kept as source text; ``runtime_numpy`` adds them to its table.  Each cotangent
helper is linear in g (bilinear in g and the other factor for the products), so forward mode can
differentiate the adjoint code; cumprod's has its own tangent helper (``cumprod_vjp_jvp``)."""

PRODUCT_HELPERS: dict = {}

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

PRODUCT_HELPERS["tensordot_vjp_a"] = (
    '''def tensordot_vjp_a(g, a, b, axes=2):
    """The cotangent of a in numpy.tensordot(a, b, axes): g contracted with b over b's free axes."""'''
    + _TENSORDOT_AXES
    + """    out = numpy.tensordot(g, b, axes=(list(range(len(fa), len(fa) + len(fb))), fb))
    out = numpy.transpose(out, numpy.argsort(fa + [aa[bb.index(k)] for k in sorted(bb)]))
    return out if hasattr(a, "shape") else out[()]
"""
)
PRODUCT_HELPERS["tensordot_vjp_b"] = (
    '''def tensordot_vjp_b(g, a, b, axes=2):
    """The cotangent of b in numpy.tensordot(a, b, axes): a contracted with g over a's free axes."""'''
    + _TENSORDOT_AXES
    + """    out = numpy.tensordot(a, g, axes=(fa, list(range(len(fa)))))
    out = numpy.transpose(out, numpy.argsort([bb[aa.index(k)] for k in sorted(aa)] + fb))
    return out if hasattr(b, "shape") else out[()]
"""
)

_KRON_SHAPES = """
    import numpy

    sa, sb = numpy.shape(a), numpy.shape(b)
    d = max(len(sa), len(sb))
    sa, sb = (1,) * (d - len(sa)) + sa, (1,) * (d - len(sb)) + sb
    blocks = numpy.reshape(g, [n for pair in zip(sa, sb) for n in pair])  # (a0, b0, a1, b1, ...)
"""
PRODUCT_HELPERS["kron_vjp_a"] = (
    '''def kron_vjp_a(g, a, b):
    """The cotangent of a in numpy.kron(a, b): each block of g against b."""'''
    + _KRON_SHAPES
    + """    out = numpy.tensordot(blocks, numpy.reshape(b, sb), axes=(list(range(1, 2 * d, 2)), list(range(d))))
    out = numpy.reshape(out, numpy.shape(a))
    return out if hasattr(a, "shape") else out[()]
"""
)
PRODUCT_HELPERS["kron_vjp_b"] = (
    '''def kron_vjp_b(g, a, b):
    """The cotangent of b in numpy.kron(a, b): the blocks of g weighted by a's entries, summed."""'''
    + _KRON_SHAPES
    + """    out = numpy.tensordot(numpy.reshape(a, sa), blocks, axes=(list(range(d)), list(range(0, 2 * d, 2))))
    out = numpy.reshape(out, numpy.shape(b))
    return out if hasattr(b, "shape") else out[()]
"""
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
PRODUCT_HELPERS["cumprod_jvp"] = (
    '''def cumprod_jvp(dx, x, axis=None):
    """The tangent of numpy.cumprod(x, axis): dz[i] = dz[i-1] x[i] + z[i-1] dx[i] (exact at zeros)."""'''
    + _CUMPROD_MOVE
    + """    da = moved(numpy.broadcast_to(dx, x.shape))
    out = numpy.empty(a.shape, dtype=numpy.result_type(a, da, numpy.float32))
    out[..., :1] = da[..., :1]
    for i in range(1, m):
        out[..., i] = out[..., i - 1] * a[..., i] + z[..., i - 1] * da[..., i]
    return out if axis is None else numpy.moveaxis(out, -1, axis)
"""
)
PRODUCT_HELPERS["cumprod_vjp"] = (
    '''def cumprod_vjp(g, x, axis=None):
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
"""
)
PRODUCT_HELPERS["cumprod_vjp_jvp"] = (
    '''def cumprod_vjp_jvp(g, dg, x, dx, axis=None):
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
"""
)

PRODUCT_HELPERS["weights_like"] = '''def weights_like(w, a, axis=None):
    """np.average's weights w set along axis of a (as NumPy broadcasts them): linear in w."""
    import numpy

    w, shape = numpy.asarray(w), numpy.shape(a)
    if w.shape == shape or axis is None:
        return w
    axes = [k % len(shape) for k in (axis if isinstance(axis, tuple) else (axis,))]
    return numpy.reshape(numpy.transpose(w, numpy.argsort(axes)), [n if k in axes else 1 for k, n in enumerate(shape)])
'''
PRODUCT_HELPERS["weights_vjp"] = '''def weights_vjp(gw, w, a, axis=None):
    """The adjoint of weights_like: gw (shaped like a) summed back to the weights' shape."""
    import numpy

    shape = numpy.shape(a)
    if numpy.shape(w) == shape or axis is None:
        return gw
    axes = [k % len(shape) for k in (axis if isinstance(axis, tuple) else (axis,))]
    summed = numpy.sum(gw, axis=tuple(k for k in range(len(shape)) if k not in axes))
    return numpy.transpose(summed, numpy.argsort(numpy.argsort(axes)))
'''

PRODUCT_HELPERS["split_part"] = '''def split_part(dx, kind, sections, axis, i):
    """Piece i of numpy.<kind>(dx, sections, axis): the tangent of a piece of a split."""
    import numpy

    return (getattr(numpy, kind)(dx, sections) if axis is None else getattr(numpy, kind)(dx, sections, axis))[i]
'''
PRODUCT_HELPERS["split_vjp"] = '''def split_vjp(g, x, kind, sections, axis, i):
    """The cotangent of x for piece i of numpy.<kind>(x, sections, axis): g where the piece is, else 0."""
    import numpy

    out = numpy.zeros(numpy.shape(x), dtype=numpy.result_type(x, numpy.float32))
    pieces = getattr(numpy, kind)(out, sections) if axis is None else getattr(numpy, kind)(out, sections, axis)
    pieces[i][...] = g  # a view of out
    return out
'''

PRODUCT_HELPERS["take_vjp"] = '''def take_vjp(g, a, indices, axis=None):
    """The cotangent of a in numpy.take(a, indices, axis): g added back at the indices taken."""
    import numpy

    out = numpy.zeros(numpy.shape(a), dtype=numpy.result_type(a, numpy.float32))
    if axis is None:
        numpy.add.at(out.reshape(-1), indices, g)
    else:
        numpy.add.at(out, (slice(None),) * (axis % out.ndim) + (numpy.asarray(indices),), g)
    return out if hasattr(a, "shape") else out[()]
'''
PRODUCT_HELPERS["take_along_vjp"] = '''def take_along_vjp(g, a, indices, axis=-1):
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
'''

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
PRODUCT_HELPERS["quantile_jvp"] = (
    '''def quantile_jvp(dx, x, q, axis=None, keepdims=False, scale=1.0):
    """The tangent of numpy.quantile(x, q / scale, axis, keepdims=keepdims) (method 'linear'): the
    tangents at the two order statistics around each quantile, interpolated as the values are."""'''
    + _QUANTILE
    + """    d = numpy.take_along_axis(moved(dx), order, axis=-1)
    out = d[..., lo] * (1 - t) + d[..., hi] * t  # kept axes, then q's entries
    out = numpy.reshape(numpy.moveaxis(out, -1, 0), shape)
    return out if out.ndim else out[()]
"""
)
PRODUCT_HELPERS["quantile_vjp"] = (
    '''def quantile_vjp(g, x, q, axis=None, keepdims=False, scale=1.0):
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
"""
)

PRODUCT_HELPERS["pad_vjp"] = '''def pad_vjp(g, x, pad_width, mode="constant"):
    """The cotangent of x in numpy.pad(x, pad_width, mode): along each axis, the centre of g, plus (for
    "edge" and "reflect") each padded cell added into the cell it copies."""
    import numpy

    shape = numpy.shape(x)
    widths = numpy.broadcast_to(numpy.asarray(pad_width, dtype=int), (len(shape), 2))
    g = numpy.asarray(g)
    for k, (n, (before, after)) in enumerate(zip(shape, widths)):
        moved = numpy.moveaxis(g, k, 0)
        if mode == "constant":
            out = moved[before : before + n]
        else:  # the source of each padded cell: the same pad of the positions
            out = numpy.zeros((n,) + moved.shape[1:], dtype=numpy.result_type(g, numpy.float32))
            numpy.add.at(out, numpy.pad(numpy.arange(n), (before, after), mode=mode), moved)
        g = numpy.moveaxis(out, 0, k)
    return g if hasattr(x, "shape") else g[()]
'''
PRODUCT_HELPERS["pad_vjp_values"] = '''def pad_vjp_values(g, x, pad_width, values):
    """The cotangent of constant_values in numpy.pad(x, pad_width, "constant", constant_values=values):
    g summed over the cells each of the values fills."""
    import numpy

    values = numpy.asarray(values, dtype=float)
    out, empty = numpy.zeros(values.shape), numpy.zeros(numpy.shape(x))
    for k in numpy.ndindex(values.shape):
        one = numpy.zeros(values.shape)
        one[k] = 1.0
        out[k] = numpy.sum(g * numpy.pad(empty, pad_width, mode="constant", constant_values=one))
    return out if out.ndim else out[()]
'''
