"""NumPy's products (dot, matmul, inner, outer, cross, tensordot, kron) and weighted reductions (cumprod,
average), one record each (``rules.primitive``), the variants of the products by their operands among them
(``np.dot`` of two vectors, ...), and ``np.einsum``.

``tensordot`` and ``kron`` are bilinear: the tangent is the product of one tangent with the other
argument, summed over both; each cotangent is a runtime helper bilinear in (g, the other argument),
so the adjoint code can itself be differentiated.  ``cumprod`` is differentiated by the recurrences
of its running products (``z[i] = z[i-1] x[i]``), never by dividing by ``x``: exact where entries are
zero.  ``average`` with weights is linear in ``a``; in the weights it is the quotient rule, written
with primitives that have rules (``np.average`` without weights is ``np.mean``: lowering says so).
"""

from __future__ import annotations

from .primitive import Helper, Primitive, Refusal, Variant, register
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
    return kit.scalar_or_array(max(a, b), dtype)


def _average_value(ins, static, kit):
    """np.average(a, axis, weights, returned, keepdims): a floating reduction over axis."""
    nd, axis, keepdims = kit.ndim_of(ins[0]), static[1], static[4]
    dtype = kit.float_dtype([ins[0], ins[2]])
    if keepdims is True:
        return kit.array_of(nd, dtype)
    if axis is kit.UNKNOWN or keepdims is not False:
        return kit.Arr(None, dtype)
    if axis is None:
        return kit.scalar_or_array(0, dtype)
    left = kit.minus(nd, len(axis) if isinstance(axis, tuple) else 1)
    return kit.Arr(None, dtype) if left is None else kit.scalar_or_array(left, dtype)


# --- tensordot and kron: bilinear, with tensordot's axes static; cumprod by the recurrences of its running
# products: z[i] = z[i-1] x[i], so dz[i] = dz[i-1] x[i] + z[i-1] dx[i] (cumprod_jvp), and with s[j] = g[j] +
# x[j+1] s[j+1], x[j]'s cotangent is z[j-1] s[j] (cumprod_vjp)
# --- the runtime helpers of the records below, each in its forms (``rules.primitive.Helper``): none has a Numba
# form of its own (Numba compiles the python form where it takes it), nor an array-API one.
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
    reverse=lambda u, g, a, b, *axes: [
        Call("numpy.tensordot", (u, b, *axes)),
        None,
        Call("@tensordot_vjp_b", (g, u, b, *axes)),
    ]
    + [None] * len(axes),  # <g, tensordot(u, b)>
    like=1,
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
    reverse=lambda u, g, a, b, *axes: [
        Call("numpy.tensordot", (a, u, *axes)),
        Call("@tensordot_vjp_a", (g, a, u, *axes)),
        None,
    ]
    + [None] * len(axes),  # <g, tensordot(a, u)>
    like=2,
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
    reverse=lambda u, g, a, b: [Call("numpy.kron", (u, b)), None, Call("@kron_vjp_b", (g, u, b))],  # <g, kron(u, b)>
    like=1,
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
    reverse=lambda u, g, a, b: [Call("numpy.kron", (a, u)), Call("@kron_vjp_a", (g, a, u)), None],  # <g, kron(a, u)>
    like=2,
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
    numba='''def weights_like(w, a, axis=None):
    """np.average's weights w set along axis of a (compiled code only: see the overload below)."""
    raise TypeError("weights_like is called from code numba.njit compiles")


@numba.extending.overload(weights_like)
def _numba_weights_like(w, a, axis=None):
    """Weights of a's shape, as they are (Numba's np.average takes no axis: weights along one are refused there)."""
    if isinstance(w, numba.core.types.Array) and isinstance(a, numba.core.types.Array) and w.ndim == a.ndim:
        return lambda w, a, axis=None: w
    return None
''',
    linear=("linear", (0,)),
    reverse=lambda u, w, a, *axis: [Call("@weights_vjp", (u, w, a, *axis)), None] + [None] * len(axis),
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
    numba='''def weights_vjp(gw, w, a, axis=None):
    """The adjoint of weights_like (compiled code only: see the overload below)."""
    raise TypeError("weights_vjp is called from code numba.njit compiles")


@numba.extending.overload(weights_vjp)
def _numba_weights_vjp(gw, w, a, axis=None):
    """gw itself, for weights of a's shape (see weights_like)."""
    if isinstance(w, numba.core.types.Array) and isinstance(a, numba.core.types.Array) and w.ndim == a.ndim:
        return lambda gw, w, a, axis=None: gw
    return None
''',
    linear=("linear", (0,)),
    reverse=lambda u, gw, w, a, *axis: [Call("@weights_like", (u, a, *axis)), None, None] + [None] * len(axis),
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
    array_api="xp.tensordot",
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
    lambda ins, static, kit: kit.array_of(1 if static[1] is None else kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])),
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
    expand=lambda build, a, axis, w, ret, keep: (  # no weights: the mean
        build.apply("numpy.mean", [a, axis, keep], named=True) if build.value_of(w, w) is None else None
    ),
)


# --- multi_dot([a, b, c]): np.dot(np.dot(a, b), c), the same product (the arrays written out)
def _multi_dot(build, arrays):
    if arrays is None or len(arrays) < 2:
        return Refusal("of a computed sequence", "write two or more arrays out: np.linalg.multi_dot([a, b, c])")
    out = arrays[0]
    for k, b in enumerate(arrays[1:]):
        out = build.apply("numpy.dot", [out, b], named=k == len(arrays) - 2)
    return out


register(
    Primitive(
        name="numpy.linalg.multi_dot",
        family="products",
        signature=(("arrays", None),),
        value=None,
        expand=_multi_dot,
        sequences=("arrays",),
    )
)


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
# the products' cotangents in each target's form: bilinear in (g, the other factor), chosen by the operands'
# numbers of dimensions where the code runs
DOT_VJP_A = Helper(
    python='''def dot_vjp_a(g, a, b):
    """The cotangent of a in numpy.dot(a, b), which contracts a's last axis with b's second-to-last
    (its only one, for a vector); a number multiplies."""
    import numpy

    na = a.ndim if type(a) is numpy.ndarray else numpy.ndim(a)  # (numpy.ndim costs as much as the product)
    nb = b.ndim if type(b) is numpy.ndarray else numpy.ndim(b)
    if na == 0:
        return numpy.sum(g * b)
    if nb == 0:
        return g * b
    if nb == 1:
        return numpy.multiply.outer(g, b) if na > 1 else g * b
    if na <= 2 and nb == 2:
        return numpy.dot(g, b.T if type(b) is numpy.ndarray else numpy.transpose(b))
    rest = [k for k in range(nb) if k != nb - 2]
    return numpy.tensordot(g, b, axes=(list(range(na - 1, numpy.ndim(g))), rest))
''',
    array_api='''def dot_vjp_a(g, a, b):
    """The cotangent of a in numpy.dot(a, b) of numbers, vectors and matrices."""
    if ndim_of(a) == 0:
        return namespace(g, b).sum(g * b)
    if ndim_of(b) == 0:
        return g * b
    if ndim_of(a) > 2 or ndim_of(b) > 2:
        raise ValueError("np.dot of arrays of more than two dimensions under arrays='any': write np.matmul or np.tensordot")
    return matmul_vjp_a(g, a, b)
''',
    numba='''def dot_vjp_a(g, a, b):
    """The cotangent of a in numpy.dot(a, b) (compiled code only: see the overload below)."""
    raise TypeError("dot_vjp_a is called from code numba.njit compiles")


@numba.extending.overload(dot_vjp_a)
def _numba_dot_vjp_a(g, a, b):
    """For numbers, vectors and matrices a and b: chosen by their number of dimensions."""
    types = numba.core.types
    na = a.ndim if isinstance(a, types.Array) else 0
    nb = b.ndim if isinstance(b, types.Array) else 0
    if na == 0:
        return lambda g, a, b: numpy.sum(g * b)
    if nb == 0:
        return lambda g, a, b: g * b
    if nb == 1:
        return (lambda g, a, b: numpy.outer(g, b)) if na == 2 else (lambda g, a, b: g * b)
    if na <= 2 and nb == 2:
        return lambda g, a, b: numpy.dot(g, b.T)
    return None
''',
    linear=("bilinear", (0, 2)),
    reverse=lambda u, g, a, b: [Call("numpy.dot", (u, b)), None, Call("@dot_vjp_b", (g, u, b))],  # <g, dot(u, b)>
    like=1,
)

DOT_VJP_B = Helper(
    python='''def dot_vjp_b(g, a, b):
    """The cotangent of b in numpy.dot(a, b) (see dot_vjp_a)."""
    import numpy

    na = a.ndim if type(a) is numpy.ndarray else numpy.ndim(a)
    nb = b.ndim if type(b) is numpy.ndarray else numpy.ndim(b)
    if nb == 0:
        return numpy.sum(g * a)
    if na == 0:
        return g * a
    if na == 1 and nb <= 2:
        return numpy.multiply.outer(a, g) if nb == 2 else g * a
    if na == 2 and nb <= 2:
        return numpy.dot(a.T if type(a) is numpy.ndarray else numpy.transpose(a), g)
    out = numpy.tensordot(a, g, axes=(list(range(na - 1)), list(range(na - 1))))
    return numpy.moveaxis(out, 0, max(nb - 2, 0))
''',
    array_api='''def dot_vjp_b(g, a, b):
    """The cotangent of b in numpy.dot(a, b) of numbers, vectors and matrices."""
    if ndim_of(b) == 0:
        return namespace(g, a).sum(g * a)
    if ndim_of(a) == 0:
        return g * a
    if ndim_of(a) > 2 or ndim_of(b) > 2:
        raise ValueError("np.dot of arrays of more than two dimensions under arrays='any': write np.matmul or np.tensordot")
    return matmul_vjp_b(g, a, b)
''',
    numba='''def dot_vjp_b(g, a, b):
    """The cotangent of b in numpy.dot(a, b) (compiled code only: see the overload below)."""
    raise TypeError("dot_vjp_b is called from code numba.njit compiles")


@numba.extending.overload(dot_vjp_b)
def _numba_dot_vjp_b(g, a, b):
    """For numbers, vectors and matrices a and b: chosen by their number of dimensions."""
    types = numba.core.types
    na = a.ndim if isinstance(a, types.Array) else 0
    nb = b.ndim if isinstance(b, types.Array) else 0
    if nb == 0:
        return lambda g, a, b: numpy.sum(g * a)
    if na == 0:
        return lambda g, a, b: g * a
    if na == 1 and nb <= 2:
        return (lambda g, a, b: numpy.outer(a, g)) if nb == 2 else (lambda g, a, b: g * a)
    if na == 2 and nb <= 2:
        return lambda g, a, b: numpy.dot(a.T, g)
    return None
''',
    linear=("bilinear", (0, 1)),
    reverse=lambda u, g, a, b: [Call("numpy.dot", (a, u)), Call("@dot_vjp_a", (g, a, u)), None],  # <g, dot(a, u)>
    like=2,
)

MATMUL_VJP_A = Helper(
    python='''def matmul_vjp_a(g, a, b):
    """The cotangent of a in a @ b (numpy.matmul): vectors, matrices and broadcast stacks of them."""
    import numpy

    na = a.ndim if type(a) is numpy.ndarray else numpy.ndim(a)
    nb = b.ndim if type(b) is numpy.ndarray else numpy.ndim(b)
    if na == 2 and nb == 2:
        return numpy.dot(g, b.T if type(b) is numpy.ndarray else numpy.transpose(b))
    if nb == 1:
        out = numpy.multiply.outer(g, b) if na > 1 else g * b
    elif na == 1:
        out = numpy.matmul(b, numpy.expand_dims(g, -1))[..., 0] if nb > 2 else numpy.dot(b, g)
    else:
        out = numpy.matmul(g, numpy.swapaxes(b, -1, -2))
    while numpy.ndim(out) > na:  # summed over the stack dimensions a was broadcast along
        out = numpy.sum(out, axis=0)
    for axis, n in enumerate(numpy.shape(a)):
        if n == 1 and numpy.shape(out)[axis] != 1:
            out = numpy.sum(out, axis=axis, keepdims=True)
    return out
''',
    array_api='''def matmul_vjp_a(g, a, b):
    """The cotangent of a in a @ b: vectors, matrices and broadcast stacks of them."""
    xp = namespace(g, a, b)
    na, nb = ndim_of(a), ndim_of(b)
    if nb == 1:
        out = xp.expand_dims(g, axis=-1) * b if na > 1 else g * b
    elif na == 1:
        out = xp.matmul(b, xp.expand_dims(g, axis=-1))[..., 0]
    else:
        out = xp.matmul(g, xp.matrix_transpose(b))
    return unbroadcast(out, a)
''',
    numba='''def matmul_vjp_a(g, a, b):
    """The cotangent of a in a @ b (compiled code only: see the overload below)."""
    raise TypeError("matmul_vjp_a is called from code numba.njit compiles")


@numba.extending.overload(matmul_vjp_a)
def _numba_matmul_vjp_a(g, a, b):
    """g b^T for matrices, the outer product g b^T for a matrix times a vector, b g for a vector times a
    matrix, g b for two vectors."""
    types = numba.core.types
    if not (isinstance(a, types.Array) and isinstance(b, types.Array) and 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return None
    if isinstance(g, types.Array) and g.dtype != b.dtype:  # (float32 operands, a float64 g: numpy.dot takes one)
        return lambda g, a, b: matmul_vjp_a(g.astype(numpy.float64), a, b.astype(numpy.float64))
    if a.ndim == 2 and b.ndim == 2:
        return lambda g, a, b: numpy.dot(g, numpy.ascontiguousarray(b.T))
    if a.ndim == 2:
        return lambda g, a, b: numpy.outer(g, b)
    if b.ndim == 2:
        return lambda g, a, b: numpy.dot(b, g)
    return lambda g, a, b: g * b
''',
    linear=("bilinear", (0, 2)),
    reverse=lambda u, g, a, b: [u @ b, None, Call("@matmul_vjp_b", (g, u, b))],  # <g, u @ b>
    like=1,
)

MATMUL_VJP_B = Helper(
    python='''def matmul_vjp_b(g, a, b):
    """The cotangent of b in a @ b (numpy.matmul): vectors, matrices and broadcast stacks of them."""
    import numpy

    na = a.ndim if type(a) is numpy.ndarray else numpy.ndim(a)
    nb = b.ndim if type(b) is numpy.ndarray else numpy.ndim(b)
    if na == 2 and nb == 2:
        return numpy.dot(a.T if type(a) is numpy.ndarray else numpy.transpose(a), g)
    if na == 1:
        out = numpy.multiply.outer(a, g) if nb > 1 else g * a
        if nb > 2:
            out = numpy.moveaxis(out, 0, -2)
    elif nb == 1:
        out = numpy.matmul(numpy.swapaxes(a, -1, -2), numpy.expand_dims(g, -1))[..., 0]
    else:
        out = numpy.matmul(numpy.swapaxes(a, -1, -2), g)
    while numpy.ndim(out) > nb:  # summed over the stack dimensions b was broadcast along
        out = numpy.sum(out, axis=0)
    for axis, n in enumerate(numpy.shape(b)):
        if n == 1 and numpy.shape(out)[axis] != 1:
            out = numpy.sum(out, axis=axis, keepdims=True)
    return out
''',
    array_api='''def matmul_vjp_b(g, a, b):
    """The cotangent of b in a @ b: vectors, matrices and broadcast stacks of them."""
    xp = namespace(g, a, b)
    na, nb = ndim_of(a), ndim_of(b)
    if na == 1:
        out = xp.expand_dims(a, axis=-1) * xp.expand_dims(g, axis=-2) if nb > 1 else g * a
    elif nb == 1:
        out = xp.matmul(xp.matrix_transpose(a), xp.expand_dims(g, axis=-1))[..., 0]
    else:
        out = xp.matmul(xp.matrix_transpose(a), g)
    return unbroadcast(out, b)
''',
    numba='''def matmul_vjp_b(g, a, b):
    """The cotangent of b in a @ b (compiled code only: see the overload below)."""
    raise TypeError("matmul_vjp_b is called from code numba.njit compiles")


@numba.extending.overload(matmul_vjp_b)
def _numba_matmul_vjp_b(g, a, b):
    """a^T g for matrices and for a matrix times a vector (a C- or F-ordered a read transposed as it is,
    another copied), the outer product a g^T for a vector times a matrix, g a for two vectors."""
    types = numba.core.types
    if not (isinstance(a, types.Array) and isinstance(b, types.Array) and 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return None
    if isinstance(g, types.Array) and g.dtype != a.dtype:  # (float32 operands, a float64 g: numpy.dot takes one)
        return lambda g, a, b: matmul_vjp_b(g.astype(numpy.float64), a.astype(numpy.float64), b)
    if a.ndim == 2 and a.layout in "CF":  # a.T contiguous too: BLAS reads it transposed (no copy of a)
        return lambda g, a, b: numpy.dot(a.T, numpy.ascontiguousarray(g))
    if a.ndim == 2:
        return lambda g, a, b: numpy.dot(numpy.ascontiguousarray(a.T), g)
    if b.ndim == 2:
        return lambda g, a, b: numpy.outer(a, g)
    return lambda g, a, b: g * a
''',
    linear=("bilinear", (0, 1)),
    reverse=lambda u, g, a, b: [a @ u, Call("@matmul_vjp_a", (g, a, u)), None],  # <g, a @ u>
    like=2,
)

INNER_VJP_A = Helper(
    python='''def inner_vjp_a(g, a, b):
    """The cotangent of a in numpy.inner(a, b), which contracts the last axes (a number multiplies)."""
    import numpy

    na = a.ndim if type(a) is numpy.ndarray else numpy.ndim(a)  # (numpy.ndim costs as much as the product)
    nb = b.ndim if type(b) is numpy.ndarray else numpy.ndim(b)
    if na == 0:
        return numpy.sum(g * b)
    if nb == 0:
        return g * b
    return numpy.tensordot(g, b, axes=(list(range(na - 1, numpy.ndim(g))), list(range(nb - 1))))
''',
    numba='''def inner_vjp_a(g, a, b):
    """The cotangent of a in numpy.inner(a, b) (compiled code only: see the overload below)."""
    raise TypeError("inner_vjp_a is called from code numba.njit compiles")


@numba.extending.overload(inner_vjp_a)
def _numba_inner_vjp_a(g, a, b):
    """For numbers, vectors and matrices, as ``inner_product`` takes them."""
    types = numba.core.types
    na = a.ndim if isinstance(a, types.Array) else 0  # (the helpers of a module ``adc compile`` writes stand
    nb = b.ndim if isinstance(b, types.Array) else 0  # alone: no function of another helper's text)
    if na == 0:
        return lambda g, a, b: numpy.sum(g * b)
    if nb == 0 or na == nb == 1:
        return lambda g, a, b: g * b
    if na > 2 or nb > 2:
        return None
    if nb == 1:
        return lambda g, a, b: numpy.outer(g, b)
    return lambda g, a, b: numpy.dot(g, b)
''',
    linear=("bilinear", (0, 2)),
    reverse=lambda u, g, a, b: [Call("numpy.inner", (u, b)), None, Call("@inner_vjp_b", (g, u, b))],
    like=1,
)

INNER_VJP_B = Helper(
    python='''def inner_vjp_b(g, a, b):
    """The cotangent of b in numpy.inner(a, b), which contracts the last axes (a number multiplies)."""
    import numpy

    na = a.ndim if type(a) is numpy.ndarray else numpy.ndim(a)
    nb = b.ndim if type(b) is numpy.ndarray else numpy.ndim(b)
    if nb == 0:
        return numpy.sum(g * a)
    if na == 0:
        return g * a
    return numpy.tensordot(g, a, axes=(list(range(na - 1)), list(range(na - 1))))
''',
    numba='''def inner_vjp_b(g, a, b):
    """The cotangent of b in numpy.inner(a, b) (compiled code only: see the overload below)."""
    raise TypeError("inner_vjp_b is called from code numba.njit compiles")


@numba.extending.overload(inner_vjp_b)
def _numba_inner_vjp_b(g, a, b):
    """For numbers, vectors and matrices, as ``inner_product`` takes them."""
    types = numba.core.types
    na = a.ndim if isinstance(a, types.Array) else 0  # (the helpers of a module ``adc compile`` writes stand
    nb = b.ndim if isinstance(b, types.Array) else 0  # alone: no function of another helper's text)
    if nb == 0:
        return lambda g, a, b: numpy.sum(g * a)
    if na == 0 or na == nb == 1:
        return lambda g, a, b: g * a
    if na > 2 or nb > 2:
        return None
    if na == 1:
        return lambda g, a, b: numpy.outer(g, a)
    if nb == 1:
        return lambda g, a, b: numpy.dot(g, a)
    return lambda g, a, b: numpy.dot(numpy.ascontiguousarray(g.T), a)
''',
    linear=("bilinear", (0, 1)),
    reverse=lambda u, g, a, b: [Call("numpy.inner", (a, u)), Call("@inner_vjp_a", (g, a, u)), None],
    like=2,
)


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
    helpers={"dot_vjp_a": DOT_VJP_A, "dot_vjp_b": DOT_VJP_B},
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
    helpers={"matmul_vjp_a": MATMUL_VJP_A, "matmul_vjp_b": MATMUL_VJP_B},
)
_product(
    "inner",
    AB,
    _inner_product,
    (lambda g, a, b: _h("inner_vjp_a")(g, a, b), lambda g, a, b: _h("inner_vjp_b")(g, a, b)),
    helpers={"inner_vjp_a": INNER_VJP_A, "inner_vjp_b": INNER_VJP_B},
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


# --- einsum(subscripts, *operands): multilinear in its operands (the subscripts a constant, made explicit by
# lowering: 'ij,jk->ik'): the tangent is one term per operand with a tangent, the others as they are; operand i's
# cotangent is g contracted with the other operands into i's subscripts (einsum_vjp, bilinear in g and each other
# operand; operand i itself gives only its shape).
def _einsum_value(ins, static, kit):
    """The output's subscripts' count of dimensions (not known for an ellipsis or implicit ones)."""
    spec = static[0] if isinstance(static[0], str) else ""
    out = spec.split("->")[1] if "->" in spec else None
    dtype = kit.result_dtype(ins[1:])
    if out is None or "." in out:
        return kit.Arr(None, dtype)
    return kit.array_of(len(out.replace(" ", "")), dtype)


def _einsum_tangent(*rest):
    """jvp(subscripts, *operands, out, *tangents)."""
    n = (len(rest) - 1) // 2
    args, tangents = rest[:n], rest[n + 1 :]
    terms = [
        Call("numpy.einsum", tuple(t if j == i else a for j, a in enumerate(args)))
        for i, t in enumerate(tangents)
        if i and t is not None
    ]
    return sum_exprs(terms)


def _einsum_cotangents(*rest):
    """vjp(subscripts, *operands, out, g): none for the subscripts."""
    args, g = rest[:-2], rest[-1]
    return [None] + [_h("einsum_vjp")(g, Num(i), args[0], *args[1:]) for i in range(len(args) - 1)]


def _einsum_vjp_adjoint(u, g, i, spec, ops) -> list:
    """The cotangents of ``einsum_vjp(g, i, spec, *ops)`` (bilinear in g and the operands but i) for u: <u, it> is
    <g, einsum(spec, ops with operand i u)>, so g's is that einsum, and operand j's its einsum_vjp."""
    k = i.value
    swapped = ops[:k] + (u,) + ops[k + 1 :]
    others = [None if j == k else Call("@einsum_vjp", (g, Num(j), spec, *swapped)) for j in range(len(ops))]
    return [Call("numpy.einsum", (spec, *swapped)), None, None] + others


EINSUM_VJP = Helper(
    python='''def einsum_vjp(g, i, subscripts, *operands):
    """The cotangent of operand i of numpy.einsum(subscripts, *operands), given g for its result:
    ellipses are spelt out, and an index repeated within the operand (a diagonal, a trace) gets
    the cotangent on that diagonal."""
    import numpy

    inputs, out = subscripts.replace(" ", "").split("->")
    specs = inputs.split(",")
    if "..." in subscripts:  # spell the broadcast dimensions out with letters the subscripts do not use
        free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in subscripts]
        dims = [numpy.ndim(op) - len(s.replace("...", "")) for s, op in zip(specs, operands)]
        most = max(dims)
        specs = [s.replace("...", "".join(free[most - d : most])) for s, d in zip(specs, dims)]
        out = out.replace("...", "".join(free[:most]))
    target = specs[i]
    others = [s for j, s in enumerate(specs) if j != i]
    present = set(out) | set("".join(others))
    kept = "".join(dict.fromkeys(c for c in target if c in present))
    part = numpy.einsum(",".join([out] + others) + "->" + kept, g, *[o for j, o in enumerate(operands) if j != i])
    shape = numpy.shape(operands[i])
    sizes = dict(zip(target, shape))
    full = "".join(dict.fromkeys(target))  # each index once, in order
    part = numpy.reshape(part, [sizes[c] if c in present else 1 for c in full])  # summed indices: broadcast
    if len(full) == len(target):
        return numpy.broadcast_to(part, shape)
    d = numpy.zeros(shape, dtype=numpy.result_type(part, numpy.float32))
    numpy.einsum(target + "->" + full, d)[...] = part  # the diagonal of d, as a writable view
    return d
''',
    linear=("bilinear", (0, 3, 4, 5, 6, 7)),
    reverse=lambda u, g, i, spec, *ops: _einsum_vjp_adjoint(u, g, i, spec, ops),
)


register(
    Primitive(
        name="numpy.einsum",
        family="products",
        signature=(("subscripts", None), ("operands", None)),  # (any number of operands)
        value=_einsum_value,
        jvp=_einsum_tangent,
        vjp=_einsum_cotangents,
        slots=lambda n: (False,) + (True,) * (n - 1),
        helpers={"einsum_vjp": EINSUM_VJP},
    )
)
