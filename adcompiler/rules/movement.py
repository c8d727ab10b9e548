"""Data movement in NumPy, one record each (``rules.primitive``), and the complex-part functions of real values.

The moves (``np.transpose``, ``np.reshape``, ``np.flip``, ``np.roll``, ``np.tril``, ``np.diag``, ...)
change where entries are, not what they are: each is linear in its array, the rest static (axes,
shapes), so its tangent is the same move of the tangent and its cotangent ``g`` moved back (``linear``,
one line each: a reshape back to x's shape, the inverse permutation, a roll the other way, or a runtime
helper that adds each entry of g back where it came from).  Their values are written here, with the
analysis's vocabulary (``kit``).

adcompiler differentiates real values only (complex arguments and constants are refused), and on
real values ``np.real``, ``np.conj`` and ``np.real_if_close`` are the identity (derivative 1),
``np.imag`` is zero and ``np.angle`` is 0 or pi (derivative 0); ``analysis.facts`` refuses them,
located, on a complex value.  ``np.sinc(x) = sin(pi x) / (pi x)`` has derivative
``(cos(pi x) - sinc x) / x``, taken at 0 as its series ``-pi^2 x / 3`` (0 there, and the derivative
of that is sinc's second derivative at 0, so second order is right too).  ``partition`` is a gather of
x; which entry of x each entry of the result is follows from ranking both (argsort of argsort: a
permutation whatever the ties).  An array's shape, ndim and size are here too, with no derivative.
"""

from __future__ import annotations

import math

from ..ir.expr import Call, Num, Tuple, pad_call
from .primitive import Helper, Primitive, Variant, inactive, register


def _np(name, *args):
    return Call("numpy." + name, tuple(args))


def _h(name):
    """A runtime helper of generated code (``@name``)."""
    return lambda *args: Call("@" + name, tuple(args))


def _sinc_slope(x, z):
    at_zero = _np("equal", x, Num(0))
    away = (_np("cos", Num(math.pi) * x) - z) / _np("where", at_zero, Num(1.0), x)
    return _np("where", at_zero, Num(-(math.pi**2) / 3) * x, away)


def _partition_order(x, z, axis):
    """The index into x of each entry of z = np.partition(x, kth, axis): the entry of the same rank."""
    rank = _np("argsort", _np("argsort", z, axis), axis)
    return _np("take_along_axis", _np("argsort", x, axis), rank, axis)


COMPLEX_PARTS = ("numpy.real", "numpy.conj", "numpy.conjugate", "numpy.imag", "numpy.angle", "numpy.real_if_close")


# --- the parts of a real value and sinc, one record each by their partials
def _part(name: str, partials: tuple, value, signature=(("x", None),), **more) -> None:
    register(
        Primitive(name=f"numpy.{name}", family="movement", signature=signature, value=value, partials=partials, **more)
    )


def _same_kind(ins, static, kit):
    """np.real, np.imag of a real value: a number for a number, an array of the same ndim for an array."""
    if isinstance(ins[0], (kit.Num, kit.Arr)):
        return ins[0]
    return kit.array_of(kit.ndim_of(ins[0]), kit.result_dtype(ins[:1]))


ONE = lambda x, z: Num(1)  # noqa: E731
_part("real", (ONE,), _same_kind, attributes=("real",), array_api="xp.real")
_part("imag", (None,), _same_kind, attributes=("imag",), array_api="xp.imag")
_part("conj", (ONE,), lambda ins, static, kit: kit.elementwise(ins), methods=("conj",), array_api="xp.conj")
_part("conjugate", (ONE,), lambda ins, static, kit: kit.elementwise(ins), methods=("conjugate",))
_part("angle", (None,), lambda ins, static, kit: kit.elementwise(ins, floating=True))  # 0 or pi: a float
_part(
    "real_if_close",
    (lambda x, tol, z: Num(1), None),
    lambda ins, static, kit: kit.array_of(kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])),
    signature=(("a", None), ("tol", Num(100))),
)
_part("sinc", (_sinc_slope,), lambda ins, static, kit: kit.elementwise(ins, floating=True))


def _converted(ins, static, kit):
    """np.array / np.asarray / np.copy of a number, a list or an array: an array of its ndim and dtype."""
    a = kit.as_array(ins[0])
    if a is None:
        return kit.Arr()
    dtype = (
        a.dtype
        if a.dtype not in (None, "float", "int", "bool")
        else {"float": "float64", "int": "int64"}.get(a.dtype, a.dtype)
    )
    return kit.Arr(a.ndim, dtype)


# the copies: the identity on values.  A cast to a float dtype (``x.astype(float)``, ``np.asarray(x,
# dtype="float32")``: lowering names it ``numpy.array/dtype`` or ``numpy.asarray/dtype``, the variant "dtype") is the
# identity on values too: its tangent is the tangent cast alike, its cotangent g cast back to x's dtype
# (``array_like``).  Casts to other dtypes are refused where they are written (lower/arrays.py).
def _cast(called: str) -> Variant:
    return Variant(
        lambda x, dtype, z, dx, dd: Call(called, (dx,), (("dtype", dtype),)),
        lambda x, dtype, z, g: (_h("array_like")(g, x), None),
        (True, False),
        value=lambda ins, static, kit: kit.array_of(kit.ndim_of(ins[0]), static[1]),
    )


_part("copy", (ONE,), _converted, signature=(("a", None),), methods=("copy",), array_api="copy_of")
_part(
    "array",
    (ONE,),
    _converted,
    signature=(("object", None),),
    variants={"dtype": _cast("numpy.array")},
    array_api="copy_of",
)
_part(
    "asarray",
    (ONE,),
    _converted,
    signature=(("a", None),),
    variants={"dtype": _cast("numpy.asarray")},
    array_api="xp.asarray",
)


# --- np.pad(x, pad_width, mode, constant_values=c): linear in x and, for mode "constant", in c.  Its tangent is
# the same pad of the tangents (constant_values the tangent of c), its adjoint the padded cotangent summed back
# into the cells each padded cell copies (pad_vjp: the centre for "constant", the border cells too for "edge"
# and "reflect") and, for c, summed over the cells c fills (pad_vjp_values).
PAD_VJP = Helper(
    python='''def pad_vjp(g, x, pad_width, mode="constant"):
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
''',
    linear=("linear", (0,)),
)

PAD_VJP_VALUES = Helper(
    python='''def pad_vjp_values(g, x, pad_width, values):
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
''',
    linear=("linear", (0,)),
)


def _pad_tangent(x, pad_width, mode, values, dx, dvalues):
    dx = (
        dx if dx is not None else Call("numpy.zeros_like", (x,), (("dtype", Call("numpy.result_type", (x, Num(0.0)))),))
    )
    return pad_call(dx, pad_width, mode, dvalues if dvalues is not None else Num(0.0))


register(
    Primitive(
        name="numpy.pad",
        family="movement",
        signature=(("array", None), ("pad_width", None), ("mode", Num("constant")), ("constant_values", Num(0))),
        value=lambda ins, static, kit: kit.array_of(kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])),
        jvp=lambda x, pw, mode, c, z, dx, dpw, dm, dc: _pad_tangent(x, pw, mode, c, dx, dc),
        vjp=lambda x, pw, mode, c, z, g: (_h("pad_vjp")(g, x, pw, mode), None, None, _h("pad_vjp_values")(g, x, pw, c)),
        slots=(True, False, False, True),
        positional=3,  # constant_values is keyword-only in NumPy
        static={"pad_width": None, "mode": ("constant", "edge", "reflect")},
        helpers={"pad_vjp": PAD_VJP, "pad_vjp_values": PAD_VJP_VALUES},
    )
)

# np.partition(a, kth, axis): the gather of a at each entry's rank
register(
    Primitive(
        name="numpy.partition",
        family="movement",
        signature=(("a", None), ("kth", None), ("axis", Num(-1))),
        value=lambda ins, static, kit: kit.array_of(
            1 if static[2] is None else kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])
        ),
        jvp=lambda x, kth, axis, z, dx, dk, da: _np("take_along_axis", dx, _partition_order(x, z, axis), axis),
        vjp=lambda x, kth, axis, z, g: (_h("take_along_vjp")(g, x, _partition_order(x, z, axis), axis), None, None),
        slots=(True, False, False),
    )
)


# Refused where they are called, with the reason: their values are complex for a general real matrix.
_EIG = (
    "of a general matrix (its eigenvalues and eigenvectors may be complex; adcompiler differentiates real values only)",
    "for a symmetric matrix use np.linalg.eigh (or eigvalsh); else a real function of the matrix (det, trace, solve)",
)
REFUSED = {"numpy.linalg.eig": _EIG, "numpy.linalg.eigvals": _EIG}


# the runtime helpers the moves' adjoints call (each linear in g; none has another target's form: the array-API
# target refuses them, Numba compiles the python form as it is)
REPEAT_VJP = Helper(
    python='''def repeat_vjp(g, x, repeats, axis=None):
    """Cotangent of numpy.repeat(x, repeats, axis): each entry's repeats summed back into it."""
    import numpy

    number = not hasattr(x, "shape")
    x = numpy.asarray(x)
    a = x.ravel() if axis is None else x
    ax = 0 if axis is None else axis % x.ndim
    owner = numpy.repeat(numpy.arange(a.shape[ax]), repeats)  # which entry each output slice repeats
    out = numpy.zeros(a.shape, dtype=numpy.result_type(g, x, numpy.float32))
    numpy.add.at(numpy.moveaxis(out, ax, 0), owner, numpy.moveaxis(numpy.asarray(g), ax, 0))
    out = out.reshape(x.shape)
    return out[()] if number else out
''',
    linear=("linear", (0,)),
    like=1,
)
TILE_VJP = Helper(
    python='''def tile_vjp(g, x, reps):
    """Cotangent of numpy.tile(x, reps): the tiles summed."""
    import numpy

    number = not hasattr(x, "shape")
    x = numpy.asarray(x)
    reps = tuple(reps) if numpy.ndim(reps) else (int(reps),)
    d = max(x.ndim, len(reps))
    shape, reps = (1,) * (d - x.ndim) + x.shape, (1,) * (d - len(reps)) + reps
    split = [n for pair in zip(reps, shape) for n in pair]  # (r0, s0, r1, s1, ...)
    out = numpy.asarray(g).reshape(split).sum(axis=tuple(range(0, 2 * d, 2))).reshape(x.shape)
    return out[()] if number else out
''',
    linear=("linear", (0,)),
    like=1,
)
DIFF_VJP = Helper(
    python='''def diff_vjp(g, x, n=1, axis=-1):
    """Cotangent of numpy.diff(x, n, axis): the transposed difference, -diff(g) padded by zeros, n times."""
    import numpy

    for _ in range(n):
        g = -numpy.diff(g, axis=axis, prepend=0.0, append=0.0)
    return g
''',
    linear=("linear", (0,)),
    like=1,
)
ROLLAXIS_VJP = Helper(
    python='''def rollaxis_vjp(g, x, axis, start=0):
    """Cotangent of numpy.rollaxis(x, axis, start): g with that axis moved back."""
    import numpy

    n = numpy.ndim(x)
    axis, start = axis % n, start + n if start < 0 else start
    return numpy.moveaxis(g, start - 1 if axis < start else start, axis)
''',
    linear=("linear", (0,)),
)
DIAGONAL_VJP = Helper(
    python='''def diagonal_vjp(g, x, offset=0, axis1=0, axis2=1):
    """Cotangent of numpy.diagonal(x, offset, axis1, axis2): g (the diagonals along its last axis) put
    back on those diagonals of zeros shaped like x."""
    import numpy

    out = numpy.zeros(numpy.shape(x), dtype=numpy.result_type(g, x, numpy.float32))
    n = numpy.ndim(x)
    matrices = numpy.moveaxis(out, (axis1 % n, axis2 % n), (-2, -1))  # a view: writes land in out
    i = numpy.arange(numpy.shape(g)[-1])
    matrices[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return out
''',
    linear=("linear", (0,)),
)


# np.diag's cotangent: the python form, and Numba's (its numpy.diag takes no matrix for a vector's k)
DIAG_VJP = Helper(
    python='''def diag_vjp(g, v, k=0):
    """Cotangent of numpy.diag(v, k): the k-th diagonal of g for a vector v, g put on it for a matrix."""
    import numpy

    if numpy.ndim(v) == 1:
        return numpy.diag(g, k)
    out = numpy.zeros(numpy.shape(v), dtype=numpy.result_type(g, v, numpy.float32))
    i = numpy.arange(numpy.size(g))
    out[i + max(-k, 0), i + max(k, 0)] = g
    return out
''',
    numba='''def diag_vjp(g, v, k=0):
    """The cotangent of numpy.diag(v, k) (compiled code only: see the overload below)."""
    raise TypeError("diag_vjp is called from code numba.njit compiles")


@numba.extending.overload(diag_vjp)
def _numba_diag_vjp(g, v, k=0):
    """Of a vector v: the k-th diagonal of the matrix g; of a matrix v: g (its k-th diagonal's cotangent)
    put on the k-th diagonal of zeros of v's shape (GradBench gmm's Q = np.diag(np.exp(q)))."""
    types = numba.core.types
    if not (isinstance(g, types.Array) and isinstance(v, types.Array)) or v.ndim not in (1, 2):
        return None
    if v.ndim == 1:
        return (lambda g, v, k=0: numpy.diag(g, k)) if g.ndim == 2 else None
    if g.ndim != 1:
        return None

    def matrix(g, v, k=0):
        out = numpy.zeros(v.shape)
        for i in range(len(g)):
            out[i + max(-k, 0), i + max(k, 0)] = g[i]
        return out

    return matrix
''',
    linear=("linear", (0,)),
    like=1,
)


# --- the moves, one record each: ``_move(name, signature, value, linear)`` registers ``np.<name>`` (its first
# parameter the array moved, the rest static), with ``linear(g, x, z, *static)`` the cotangent of x.
def _move(name: str, signature: tuple, value, linear, **more) -> None:
    register(
        Primitive(name=f"numpy.{name}", family="movement", signature=signature, value=value, linear=linear, **more)
    )


def _same(ins, static, kit):
    """An array of x's ndim and dtype."""
    return kit.array_of(kit.ndim_of(ins[0]), kit.result_dtype(ins[:1]))


def _shaped(ins, static, kit, number_is_length=True):
    """An array of x's dtype and of the ndim of the shape given (static[1], or a sequence of known length;
    ``number_is_length``: a number computed at run time is one length)."""
    shape, dtype = static[1] if len(static) > 1 else kit.UNKNOWN, kit.result_dtype(ins[:1])
    if isinstance(shape, int):
        return kit.array_of(1, dtype)
    if isinstance(shape, tuple):
        return kit.array_of(len(shape), dtype)
    if isinstance(ins[1], kit.Seq) and ins[1].items is not None:
        return kit.array_of(len(ins[1].items), dtype)
    if number_is_length and isinstance(ins[1], kit.Num):
        return kit.array_of(1, dtype)
    return kit.Arr(None, dtype)


def _expanded(ins, static, kit):
    axis, nd = static[1], kit.ndim_of(ins[0])
    k = len(axis) if isinstance(axis, tuple) else 1
    return kit.array_of(None if nd is None or axis is kit.UNKNOWN else nd + k, kit.result_dtype(ins[:1]))


def _squeezed(ins, static, kit):
    axis, nd, dtype = static[1], kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])
    if axis is None or axis is kit.UNKNOWN or nd is None:
        return kit.Arr(None, dtype)  # which axes have length 1 is known only at run time
    k = len(axis) if isinstance(axis, tuple) else 1
    return kit.array_of(nd - k, dtype) if nd - k > 0 else kit.scalar(dtype)


def _at_least(n: int):
    """np.atleast_nd: an array of at least n dimensions."""

    def value(ins, static, kit):
        nd = kit.ndim_of(ins[0])
        return kit.array_of(None if nd is None else max(nd, n), kit.result_dtype(ins[:1]))

    return value


def _tiled(ins, static, kit):
    """np.tile(a, reps): ndim max(a.ndim, len(reps))."""
    nd, reps = kit.ndim_of(ins[0]), static[1] if len(static) > 1 else kit.UNKNOWN
    if nd is None or reps is kit.UNKNOWN:
        return kit.array_of(None, kit.result_dtype(ins[:1]))
    return kit.array_of(max(nd, len(reps) if isinstance(reps, tuple) else 1), kit.result_dtype(ins[:1]))


def _repeated(ins, static, kit):
    """np.repeat(a, repeats, axis): flat (1-d) without an axis, else a's ndim."""
    flat = len(static) < 3 or static[2] is None
    return kit.array_of(1, kit.result_dtype(ins[:1])) if flat else _same(ins, static, kit)


def _diagonal_of(ins, static, kit):
    """np.diag(v, k): a matrix of a vector, a vector of a matrix."""
    nd = kit.ndim_of(ins[0])
    return kit.array_of(None if nd is None else (2 if nd == 1 else 1), kit.result_dtype(ins[:1]))


def _negated(shift):
    """-shift for np.roll's shift or np.rot90's k: a number or a tuple of them."""
    if isinstance(shift, Num) and shift.text is None and isinstance(shift.value, int):
        return Num(-shift.value)
    return _np("negative", shift)


def _back(g, x, *static):
    """g reshaped to x's shape: the cotangent of a move that keeps the order of the entries."""
    return _np("reshape", g, _np("shape", x))


def _transposed_back(g, x, axes):
    """The cotangent of ``np.transpose(x, axes)``: g transposed by the inverse permutation, worked out here
    for constant axes (negative ones counted from the end: ``(1, 0, -1)`` is ``(1, 0, 2)``, whose inverse is
    itself, where an argsort of the axes as written gives ``(2, 1, 0)``), else by an argsort of the axes
    taken modulo their number (the helper ``inverse_axes``)."""
    if isinstance(axes, Num) and axes.value is None:
        return _np("transpose", g)
    given = axes.value if isinstance(axes, Num) else None
    given = tuple(getattr(a, "value", None) for a in axes.elts) if isinstance(axes, Tuple) else given
    if isinstance(given, tuple) and all(type(a) is int for a in given):
        order = [a % len(given) for a in given]
        return _np("transpose", g, Num(tuple(sorted(range(len(given)), key=order.__getitem__))))
    return _np("transpose", g, _h("inverse_axes")(axes))


_INVERSE_AXES = '''def inverse_axes(axes):
    """The axes that undo a transpose by these axes (negative ones counted from the end)."""
    order = [a % len(axes) for a in axes]
    return tuple(sorted(range(len(axes)), key=order.__getitem__))
'''
INVERSE_AXES = Helper(
    python=_INVERSE_AXES,
    array_api=_INVERSE_AXES,  # (Python's own: the same on any library's arrays)
    numba='''def inverse_axes(axes):
    """The axes that undo numpy.transpose(x, axes) (compiled code only: see the overload below)."""
    raise TypeError("inverse_axes is called from code numba.njit compiles")


@numba.extending.overload(inverse_axes)
def _numba_inverse_axes(axes):
    """Of a tuple of integers: the tuple of its inverse permutation (Numba's transpose takes a tuple)."""
    types = numba.core.types
    if not (isinstance(axes, types.UniTuple) and isinstance(axes.dtype, types.Integer)):
        return None
    n = len(axes)
    code = f"""def impl(axes):
    inverse = numpy.empty({n}, numpy.int64)
    for i in range({n}):
        inverse[axes[i] % {n}] = i
    return ({"".join(f"inverse[{k}], " for k in range(n))})
"""
    scope = {"numpy": numpy}
    exec(code, scope)
    return scope["impl"]
''',
    linear=("linear", ()),  # (of integers: no derivative, so code calling it is differentiated again)
)


A, M = ("a", None), ("m", None)
_move(
    "transpose",
    (A, ("axes", Num(None))),
    _same,
    lambda g, x, z, axes: _transposed_back(g, x, axes),
    methods=("transpose",),
    helpers={"inverse_axes": INVERSE_AXES},
    attributes=("T",),
    array_api="transpose",  # (the standard's permute_dims needs its axes: a helper of the target's)
)
_move("reshape", (A, ("newshape", None)), _shaped, _back, methods=("reshape",), array_api="xp.reshape")
_move(
    "ravel",
    (A,),
    lambda ins, static, kit: kit.array_of(1, kit.result_dtype(ins[:1])),
    _back,
    methods=("ravel", "flatten"),
)
_move("expand_dims", (A, ("axis", None)), _expanded, _back, array_api="xp.expand_dims")
_move("squeeze", (A, ("axis", Num(None))), _squeezed, _back, methods=("squeeze",), array_api="xp.squeeze")
_move("atleast_1d", (A,), _at_least(1), _back)
_move("atleast_2d", (A,), _at_least(2), _back)
_move("atleast_3d", (A,), _at_least(3), _back)
_move(
    "swapaxes",
    (A, ("axis1", None), ("axis2", None)),
    _same,
    lambda g, x, z, a1, a2: _np("swapaxes", g, a1, a2),
    methods=("swapaxes",),
)
_move(
    "moveaxis",
    (A, ("source", None), ("destination", None)),
    _same,
    lambda g, x, z, source, destination: _np("moveaxis", g, destination, source),
    array_api="xp.moveaxis",
)
_move(
    "rollaxis",
    (A, ("axis", None), ("start", Num(0))),
    _same,
    lambda g, x, z, axis, start: _h("rollaxis_vjp")(g, x, axis, start),
    helpers={"rollaxis_vjp": ROLLAXIS_VJP},
)
_move("flip", (M, ("axis", Num(None))), _same, lambda g, x, z, axis: _np("flip", g, axis), array_api="xp.flip")
_move("fliplr", (M,), _same, lambda g, x, z: _np("fliplr", g))
_move("flipud", (M,), _same, lambda g, x, z: _np("flipud", g))
_move(
    "rot90",
    (M, ("k", Num(1)), ("axes", Num((0, 1)))),
    _same,
    lambda g, x, z, k, axes: _np("rot90", g, _negated(k), axes),
)
_move(
    "roll",
    (A, ("shift", None), ("axis", Num(None))),
    _same,
    lambda g, x, z, shift, axis: _np("roll", g, _negated(shift), axis),
    array_api="xp.roll",
)
_move("tril", (M, ("k", Num(0))), _same, lambda g, x, z, k: _np("tril", g, k), array_api="xp.tril")
_move("triu", (M, ("k", Num(0))), _same, lambda g, x, z, k: _np("triu", g, k), array_api="xp.triu")
_move(
    "broadcast_to",
    (("array", None), ("shape", None)),
    lambda ins, static, kit: _shaped(ins, static, kit, number_is_length=False),
    lambda g, x, z, shape: _h("unbroadcast")(g, x),
    array_api="xp.broadcast_to",
)
# each entry of g added back where it came from, by a runtime helper (an entry may have gone to several places)
_move(
    "repeat",
    (A, ("repeats", None), ("axis", Num(None))),
    _repeated,
    lambda g, x, z, repeats, axis: _h("repeat_vjp")(g, x, repeats, axis),
    methods=("repeat",),
    helpers={"repeat_vjp": REPEAT_VJP},
)
_move(
    "tile",
    (("A", None), ("reps", None)),
    _tiled,
    lambda g, x, z, reps: _h("tile_vjp")(g, x, reps),
    helpers={"tile_vjp": TILE_VJP},
)
_move(
    "diff",
    (A, ("n", Num(1)), ("axis", Num(-1))),
    _same,
    lambda g, x, z, n, axis: _h("diff_vjp")(g, x, n, axis),
    helpers={"diff_vjp": DIFF_VJP},
)
_move(
    "diag",
    (("v", None), ("k", Num(0))),
    _diagonal_of,
    lambda g, x, z, k: _h("diag_vjp")(g, x, k),
    helpers={"diag_vjp": DIAG_VJP},
)
_move(
    "diagonal",
    (A, ("offset", Num(0)), ("axis1", Num(0)), ("axis2", Num(1))),
    lambda ins, static, kit: kit.array_of(kit.minus(kit.ndim_of(ins[0]), 1), kit.result_dtype(ins[:1])),
    lambda g, x, z, offset, a1, a2: _h("diagonal_vjp")(g, x, offset, a1, a2),
    methods=("diagonal",),
    helpers={"diagonal_vjp": DIAGONAL_VJP},
)


# --- the splits: np.split(x, sections, axis) and its kin are computed once (no derivative), then each piece is one
# primitive, ``numpy.split/part(x, kind, sections, axis, i, raw)`` (printed ``raw[i]``), linear in x: its tangent
# is the same piece of the tangent (split_part), its adjoint g written into zeros shaped like x at the piece
# (split_vjp).  The piece primitive is the variant "part" of np.split's record, for every kind of split.
SPLIT_PART = Helper(
    python='''def split_part(dx, kind, sections, axis, i):
    """Piece i of numpy.<kind>(dx, sections, axis): the tangent of a piece of a split."""
    import numpy

    return (getattr(numpy, kind)(dx, sections) if axis is None else getattr(numpy, kind)(dx, sections, axis))[i]
''',
    linear=("linear", (0,)),
)

SPLIT_VJP = Helper(
    python='''def split_vjp(g, x, kind, sections, axis, i):
    """The cotangent of x for piece i of numpy.<kind>(x, sections, axis): g where the piece is, else 0."""
    import numpy

    out = numpy.zeros(numpy.shape(x), dtype=numpy.result_type(x, numpy.float32))
    pieces = getattr(numpy, kind)(out, sections) if axis is None else getattr(numpy, kind)(out, sections, axis)
    pieces[i][...] = g  # a view of out
    return out
''',
    linear=("linear", (0,)),
)


PIECE = Variant(
    lambda x, kind, sections, axis, i, raw, z, dx, *rest: _h("split_part")(dx, kind, sections, axis, i),
    lambda x, kind, sections, axis, i, raw, z, g: (_h("split_vjp")(g, x, kind, sections, axis, i),) + (None,) * 5,
    (True,) + (False,) * 5,
    value=lambda ins, static, kit: kit.array_of(kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])),
)
for _kind in ("split", "array_split", "hsplit", "vsplit", "dsplit"):
    register(
        Primitive(
            name=f"numpy.{_kind}",
            family="movement",
            signature=(("ary", None), ("indices_or_sections", None))
            + ((("axis", Num(0)),) if _kind in ("split", "array_split") else ()),
            value=lambda ins, static, kit: kit.STATIC,
            split=True,
            static={"indices_or_sections": None},
            variants={"part": PIECE} if _kind == "split" else {},
            helpers={"split_part": SPLIT_PART, "split_vjp": SPLIT_VJP},
        )
    )


# --- an array's shape, ndim and size (``x.shape``, ``np.shape(x)``): numbers that never move, no derivative; under
# arrays="any" helpers that read them of any array (``shape_of``)
def _shape(ins, static, kit):
    """``x.shape``: a tuple of as many ints as x has axes (a tuple of ints, of a value of unknown kind: adc compile
    has no argument types)."""
    known = isinstance(ins[0], kit.Arr) and ins[0].ndim is not None
    return kit.seq("tuple", [kit.INT] * ins[0].ndim) if known else kit.Seq("tuple", None, kit.INT)


for _name, _value in (
    ("shape", _shape),
    ("ndim", lambda ins, static, kit: kit.INT),
    ("size", lambda ins, static, kit: kit.INT),
):
    inactive(f"numpy.{_name}", "movement", _value, f"{_name}_of", attributes=(_name,))


# --- an array's dtype (``x.dtype``): no derivative, a constant of the function where the arguments' dtypes are known
# (``np.zeros(n, dtype=x.dtype)``: an array of x's dtype, as a constant dtype would make), read as the attribute it is
inactive(
    "numpy.dtype_of",
    "movement",
    lambda ins, static, kit: kit.Static("dtype", dtype=getattr(kit.as_array(ins[0]), "dtype", None)),
    attributes=("dtype",),
)
