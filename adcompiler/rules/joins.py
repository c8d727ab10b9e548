"""NumPy's joins, one record each (``rules.primitive``): ``np.concatenate``, ``np.stack``, ``np.hstack``,
``np.vstack``, ``np.row_stack``, ``np.column_stack`` and ``np.dstack``.

A join's first parameter is a sequence of arrays (``joined``): lowering passes the arrays of a sequence it
sees (``[a, b]``, a tuple) as the call's first arguments, the axis last (``lower.arrays``), and a sequence made
at run time (a list built by ``append``) as one argument, the variant ``<name>/list``.  A join is linear in
its arrays together: the tangent is the same join of the tangents (zeros of a constant array's shape), the
cotangent of each array its part of g (``unjoin``); of a sequence, ``join_tangent`` and ``unjoin_all`` (a list
of pieces, like the sequence).  Each helper has its Numba form beside its python one; ``join_sequence`` is
the Numba target's join of a sequence made at run time (Numba's own joins take tuples).
"""

from __future__ import annotations

from .primitive import Helper, Primitive, Variant, register
from ..ir.expr import Call, List, Name, Num, Tuple

# The text of ``joined`` and ``sequence_code``, in each Numba form that joins a sequence (each helper's text
# stands alone in the module it is copied into).
_JOINED = '''
    def joined(kind, axis, ndim):
        """(the axis the elements are joined along, whether a new axis is made, the ndim of the
        result), for numpy.<kind> of elements of ndim ``ndim``; None where there is no such join here."""
        if kind == "stack":
            new, axis = True, 0 if axis is None else axis
        elif kind == "concatenate":
            new, axis = False, 0 if axis is None else axis
        elif kind == "hstack":
            new, axis = ndim == 0, 0 if ndim <= 1 else 1
        elif kind in ("vstack", "row_stack"):
            new, axis = ndim <= 1, 0
        else:
            return None
        out_ndim = ndim + 1 if new else ndim
        axis = axis + out_ndim if axis < 0 else axis
        return (axis, new, out_ndim) if 0 <= axis < out_ndim and ndim >= 1 else None

    def sequence_code(params, joined_name, kind, axis, ndim, dtype):
        """``def impl(params)`` joining the arrays of the list its parameter ``joined_name`` (each of ndim
        ``ndim``, of ``dtype``) as numpy.<kind>(xs, axis) does, each element copied into its place (by
        ``numpy.positive(element, place)``: Numba compiles an array stored into a slice, ``out[a:b] = e``,
        with its machinery of broadcasting, about a second and a half a process), its shape checked:
        the overload's own implementation (a function compiled apart and called from it would be a
        dynamic global of the caller, which Numba then does not cache)."""
        found = joined(kind, axis, ndim)
        if found is None:
            return None
        axis, new, out_ndim = found
        before = "".join(":, " for _ in range(axis))
        if new:
            shape = [f"first.shape[{d}]" for d in range(ndim)]
            shape.insert(axis, "len(seq)")
            check = "seq[k].shape != first.shape"
            place = f"out[{before}k]"
            size = "1"
        else:
            shape = [f"first.shape[{d}]" if d != axis else "total" for d in range(ndim)]
            others = [d for d in range(ndim) if d != axis]
            check = " or ".join(f"seq[k].shape[{d}] != first.shape[{d}]" for d in others) or "False"
            place = f"out[{before}start : start + seq[k].shape[{axis}]]"
            size = f"seq[k].shape[{axis}]"
        shape = "".join(s + ", " for s in shape)
        boolean = isinstance(dtype, numba.core.types.Boolean)  # (numpy.positive has no booleans)
        place = f"{place} = seq[k]" if boolean else f"numpy.positive(seq[k], {place})"
        return f"""def impl({params}):
    seq = {joined_name}
    if len(seq) == 0:
        raise ValueError("need at least one array to {kind}")
    first = seq[0]
    total = 0
    for k in range(len(seq)):
        if {check}:
            raise ValueError("all the input array dimensions except for the concatenation axis must match exactly")
        total += {size}
    out = numpy.empty(({shape}), first.dtype)
    start = 0
    for k in range(len(seq)):
        {place}
        start += {size}
    return out
"""
'''

JOIN_TANGENT = Helper(
    python='''def join_tangent(dxs, xs, kind, *axis):
    """Tangent of numpy.<kind>(xs, *axis) for a sequence xs: the same join of the tangents (zeros for
    an element with no tangent, the number 0.0)."""
    import numpy

    parts = [t if numpy.shape(t) == numpy.shape(x) else numpy.zeros(numpy.shape(x)) for t, x in zip(dxs, xs)]
    return getattr(numpy, kind)(parts, *axis)
''',
    numba=f'''def join_tangent(dxs, xs, kind, *axis):
    """The tangent of numpy.<kind>(xs, *axis) (compiled code only: see the overload below)."""
    raise TypeError("join_tangent is called from code numba.njit compiles")


@numba.extending.overload(join_tangent, prefer_literal=True)
def _numba_join_tangent(dxs, xs, kind, *axis):
    """The tangents dxs of the sequence xs joined as xs is: a list of arrays (the tangents of a list of
    arrays, of their shapes) or the rows of an array element by element; a tuple by Numba's own join, a
    number in it (a constant's zero tangent) as zeros of its array's shape."""
    types = numba.core.types
{_JOINED}
    if not isinstance(kind, types.StringLiteral) or len(axis) > 1:
        return None
    at = axis[0] if axis else types.none
    if not isinstance(at, (types.IntegerLiteral, types.NoneType)):
        return None
    name, at = kind.literal_value, getattr(at, "literal_value", None)
    if isinstance(dxs, types.BaseTuple):
        if not isinstance(xs, types.BaseTuple) or len(xs) != len(dxs):
            return None
        parts = ", ".join(
            f"dxs[{{k}}]" if isinstance(d, types.Array) else f"numpy.zeros(numpy.shape(xs[{{k}}]))"
            for k, d in enumerate(dxs)
        )
        extra = "" if at is None else f", {{at}}"
        code = f"def impl(dxs, xs, kind, *axis):\\n    return numpy.{{name}}(({{parts}},){{extra}})\\n"
        scope = {{"numpy": numpy}}
        exec(code, scope)
        return scope["impl"]
    if isinstance(dxs, types.Array):
        element_ndim, dtype = dxs.ndim - 1, dxs.dtype
    elif isinstance(dxs, (types.List, types.ListType)) and isinstance(dxs.dtype, types.Array):
        element_ndim, dtype = dxs.dtype.ndim, dxs.dtype.dtype
    else:
        return None
    code = sequence_code("dxs, xs, kind, *axis", "dxs", name, at, element_ndim, dtype)
    if code is None:
        return None
    scope = {{"numpy": numpy}}
    exec(code, scope)
    return scope["impl"]
''',
    linear=("linear", (0,)),
)


def _rejoined(u, kind, axis, i, arrays):
    """The cotangent of g in ``unjoin(g, kind, axis, i, *arrays)`` for u: the join of u in piece i and zeros in
    the others (join_tangent's zeros for a number)."""
    pieces = Tuple(tuple(u if j == i.value else Num(0.0) for j in range(len(arrays))))
    along = (axis,) if kind.value in ("stack", "concatenate") else ()  # (vstack, hstack, ...: no axis)
    return Call("@join_tangent", (pieces, Tuple(tuple(arrays)), kind, *along))


UNJOIN = Helper(
    python='''def unjoin(g, kind, axis, i, *arrays):
    """The part of g, the cotangent of numpy.<kind>(arrays, axis), that belongs to arrays[i]."""
    import numpy

    g = numpy.asarray(g)
    if kind == "stack":  # (a negative axis counts from the end of g's axes, which are the join's)
        return g[(slice(None),) * (axis % g.ndim) + (i,)]  # a view: the piece's entries are no other piece's
    if kind in ("vstack", "row_stack"):
        parts = [numpy.atleast_2d(a) for a in arrays]
        axis = 0
    elif kind in ("column_stack", "dstack"):
        axis = 1 if kind == "column_stack" else 2
        parts = [numpy.reshape(a, (-1, 1)) if kind == "column_stack" and numpy.ndim(a) < 2 else a for a in arrays]
        parts = parts if kind == "column_stack" else [numpy.atleast_3d(a) for a in arrays]
    elif kind == "hstack":
        parts = list(arrays)
        axis = 1 if numpy.ndim(arrays[0]) > 1 else 0
    else:
        parts = list(arrays)
    axis, start = axis % g.ndim, 0
    for p in parts[:i]:
        start += (p.shape if type(p) is numpy.ndarray else numpy.shape(p))[axis]
    part = parts[i]
    stop = start + (part.shape if type(part) is numpy.ndarray else numpy.shape(part))[axis]
    piece = g[(slice(None),) * axis + (slice(start, stop),)]  # a view: the piece's entries are no other piece's
    shape = arrays[i].shape if type(arrays[i]) is numpy.ndarray else numpy.shape(arrays[i])
    return piece if piece.shape == shape else piece.reshape(shape)
''',
    array_api='''def unjoin(g, kind, axis, i, *arrays):
    """The part of g, the cotangent of numpy.<kind>(arrays, axis), that belongs to arrays[i]."""
    if kind not in ("stack", "concatenate") or axis is None:
        raise TypeError(f"np.{kind}(..., axis={axis!r}) under arrays='any': write np.stack or np.concatenate with an axis")
    ax = axis % len(shape_of(g))
    if kind == "stack":
        return g[(slice(None),) * ax + (i, Ellipsis)]
    start = sum(shape_of(a)[ax] for a in arrays[:i])
    return g[(slice(None),) * ax + (slice(start, start + shape_of(arrays[i])[ax]), Ellipsis)]
''',
    numba='''def unjoin(g, kind, axis, i, *arrays):
    """The part of g that belongs to arrays[i] (compiled code only: see the overload below)."""
    raise TypeError("unjoin is called from code numba.njit compiles")


@numba.extending.overload(unjoin, prefer_literal=True)
def _numba_unjoin(g, kind, axis, i, *arrays):
    """The cotangent of arrays[i] in numpy.<kind>(arrays, axis), g its result's: the part of g it
    fills, in its shape; a view of g where that part is a block of g's leading axis (C order already; g
    writable, so that the piece can be added into as the python target's view is), else a copy in C order
    (a variable of compiled code has one type)."""
    types = numba.core.types
    if not isinstance(kind, types.StringLiteral) or not isinstance(i, types.IntegerLiteral):
        return None
    if not isinstance(axis, (types.IntegerLiteral, types.NoneType)) or not isinstance(g, types.Array):
        return None
    listed = [isinstance(a, (types.List, types.ListType)) and isinstance(a.dtype, types.Number) for a in arrays]
    ndims = {1 if flat else a.ndim for a, flat in zip(arrays, listed)}  # (a list of numbers: a vector, as NumPy reads it)
    if not all(flat or isinstance(a, types.Array) and a.ndim >= 1 for a, flat in zip(arrays, listed)) or len(ndims) != 1:
        return None
    name, at, k, ndim = kind.literal_value, getattr(axis, "literal_value", None), i.literal_value, ndims.pop()
    if name == "stack":
        new, at = True, 0 if at is None else at
    elif name == "concatenate":
        new = False
    elif name == "hstack":
        new, at = False, 0 if ndim == 1 else 1
    elif name in ("vstack", "row_stack"):
        new, at = ndim == 1, 0
    else:
        return None
    at = at + g.ndim if at < 0 else at
    if g.ndim != (ndim + 1 if new else ndim) or not 0 <= at < g.ndim:
        return None
    before = "".join(":, " for _ in range(at))
    if new:
        part = f"g[{before}{k}]"
    else:
        size = lambda j: f"len(arrays[{j}])" if listed[j] else f"arrays[{j}].shape[{at}]"  # noqa: E731
        start = " + ".join(size(j) for j in range(k)) or "0"
        part = f"g[{before}{start} : {start} + {size(k)}]"
    if at == 0 and g.layout == "C" and g.mutable:  # a block of g's leading axis: a C view, as the python target's is
        value = part
    else:
        value = f"numpy.ascontiguousarray({part}).copy()"
    scope = {"numpy": numpy}
    exec(f"def impl(g, kind, axis, i, *arrays):\\n    return {value}\\n", scope)
    return scope["impl"]
''',
    linear=("linear", (0,)),
    reverse=lambda u, g, kind, axis, i, *arrays: [_rejoined(u, kind, axis, i, arrays)] + [None] * (3 + len(arrays)),
)

UNJOIN_ALL = Helper(
    python='''def unjoin_all(g, xs, kind, *axis):
    """Cotangent of numpy.<kind>(xs, *axis) for a sequence xs: g cut into one piece per element, each
    shaped like it (a list; an array like xs if xs is an array).  The same join of the entries' numbers
    says where each entry of the result comes from."""
    import numpy

    at = axis[0] if axis else 0
    if (
        kind in ("stack", "concatenate")
        and type(g) is numpy.ndarray
        and type(xs) in (list, tuple)
        and at is not None
        and all(type(x) is numpy.ndarray and x.ndim == g.ndim - (kind == "stack") > 0 for x in xs)
    ):  # arrays stacked or joined along an axis: each one's piece of g is a view (no two share an entry)
        head, start, pieces = (slice(None),) * (at % g.ndim), 0, []
        for k, x in enumerate(xs):
            stop = start + (1 if kind == "stack" else x.shape[at % g.ndim])
            piece = g[head + ((k,) if kind == "stack" else (slice(start, stop),))]
            pieces.append(piece.astype(numpy.result_type(g, x, numpy.float32), copy=False))
            start = stop
        return pieces
    starts = numpy.cumsum([0] + [numpy.size(x) for x in xs])
    numbers = [numpy.arange(a, b).reshape(numpy.shape(x)) for a, b, x in zip(starts, starts[1:], xs)]
    source = getattr(numpy, kind)(numbers, *axis)
    flat = numpy.bincount(numpy.ravel(source), weights=numpy.ravel(g), minlength=starts[-1])
    if isinstance(xs, numpy.ndarray):
        return flat.reshape(xs.shape).astype(numpy.result_type(g, xs, numpy.float32))
    pieces = []
    for a, b, x in zip(starts, starts[1:], xs):
        piece = flat[a:b].reshape(numpy.shape(x)).astype(numpy.result_type(g, numpy.asarray(x), numpy.float32))
        pieces.append(float(piece) if isinstance(x, (float, int)) else piece)
    return pieces
''',
    numba=f'''def unjoin_all(g, xs, kind, *axis):
    """The cotangent of the sequence xs in numpy.<kind>(xs, *axis) (compiled code only: see the
    overload below)."""
    raise TypeError("unjoin_all is called from code numba.njit compiles")


@numba.extending.overload(unjoin_all, prefer_literal=True)
def _numba_unjoin_all(g, xs, kind, *axis):
    """g cut into one piece per element of xs, each shaped like it: a list for a list of arrays (each
    piece a view of g where it is a block of g's leading axis, as ``unjoin``'s, else a copy), an array like
    xs for the rows of an array."""
    types = numba.core.types
{_JOINED}
    if not isinstance(kind, types.StringLiteral) or len(axis) > 1 or not isinstance(g, types.Array):
        return None
    at = axis[0] if axis else types.none
    if not isinstance(at, (types.IntegerLiteral, types.NoneType)):
        return None
    if isinstance(xs, types.Array):
        element_ndim, listed = xs.ndim - 1, False
    elif isinstance(xs, (types.List, types.ListType)) and isinstance(xs.dtype, types.Array):
        element_ndim, listed = xs.dtype.ndim, True
    else:
        return None
    found = joined(kind.literal_value, getattr(at, "literal_value", None), element_ndim)
    if found is None or found[2] != g.ndim:
        return None
    at, new, _ = found
    before = "".join(":, " for _ in range(at))
    if new:
        part = f"g[{{before}}k]"
        size = "1"
    else:
        part = f"g[{{before}}start : start + xs[k].shape[{{at}}]]"
        size = f"xs[k].shape[{{at}}]"
    piece = part if at == 0 and g.layout == "C" and g.mutable else f"numpy.ascontiguousarray({{part}}).copy()"
    if listed:  # (a block of g's leading axis: a C view, as the python target's is; else a copy)
        body = f"""    out = []
    start = 0
    for k in range(len(xs)):
        out.append({{piece}}.reshape(xs[k].shape))
        start += {{size}}
    return out
"""
    else:
        body = f"""    out = numpy.empty(xs.shape, g.dtype)
    start = 0
    for k in range(len(xs)):
        out[k] = {{part}}
        start += {{size}}
    return out
"""
    scope = {{"numpy": numpy}}
    exec("def impl(g, xs, kind, *axis):\\n" + body, scope)
    return scope["impl"]
''',
    linear=("linear", (0,)),
)

JOIN_SEQUENCE = Helper(
    numba=f'''def join_sequence(xs, kind, axis):
    """numpy.<kind>(xs, axis) (compiled code only: see the overload below)."""
    raise TypeError("join_sequence is called from code numba.njit compiles")


@numba.extending.overload(join_sequence, prefer_literal=True)
def _numba_join_sequence(xs, kind, axis):
    """numpy.<kind>(xs, axis) of a tuple of arrays by Numba's own; of a list of arrays (of one type:
    Numba's lists are of one) or of the rows of an array, each element copied into its place."""
    types = numba.core.types
{_JOINED}
    if not isinstance(kind, types.StringLiteral) or not isinstance(axis, (types.IntegerLiteral, types.NoneType)):
        return None
    name, at = kind.literal_value, getattr(axis, "literal_value", None)
    if isinstance(xs, types.BaseTuple):
        join = getattr(numpy, name)
        if at is None:
            return lambda xs, kind, axis: join(xs)
        return lambda xs, kind, axis: join(xs, at)
    if isinstance(xs, types.Array):
        element_ndim, dtype = xs.ndim - 1, xs.dtype
    elif isinstance(xs, (types.List, types.ListType)) and isinstance(xs.dtype, types.Array):
        element_ndim, dtype = xs.dtype.ndim, xs.dtype.dtype
    else:
        return None
    code = sequence_code("xs, kind, axis", "xs", name, at, element_ndim, dtype)
    if code is None:
        return None
    scope = {{"numpy": numpy}}
    exec(code, scope)
    return scope["impl"]
''',
)
HELPERS = {"join_sequence": JOIN_SEQUENCE, "join_tangent": JOIN_TANGENT, "unjoin": UNJOIN, "unjoin_all": UNJOIN_ALL}


def _h(name):
    """A runtime helper of generated code (``@name``)."""
    return lambda *args: Call("@" + name, tuple(args))


def _split(args, has_axis):
    """(the arrays, the axis) of a join's arguments (the axis None where it takes none)."""
    return (args[:-1], args[-1]) if has_axis else (args, None)


def _tangent(name, has_axis):
    """jvp(*args, out, *tangents): the same join of the tangents, zeros for a constant array."""

    def jvp(*rest):
        n = (len(rest) - 1) // 2
        arrays, axis = _split(rest[:n], has_axis)
        tangents = [
            t if t is not None else Call("numpy.zeros_like", (a,), (("dtype", Name("float")),))
            for a, t in zip(arrays, rest[n + 1 :])
        ]
        return Call(name, (List(tuple(tangents)),), (("axis", axis),) if axis is not None else ())

    return jvp


def _cotangents(name, has_axis):
    """vjp(*args, out, g): each array's part of g (unjoin); none for the axis."""
    kind = Num(name.rpartition(".")[2])

    def vjp(*rest):
        args, g = rest[:-2], rest[-1]
        arrays, axis = _split(args, has_axis)
        parts = [_h("unjoin")(g, kind, axis if has_axis else Num(None), Num(i), *arrays) for i in range(len(arrays))]
        return parts + [None] * (len(args) - len(arrays))

    return vjp


def _of_a_sequence(name, has_axis):
    """The variant of a sequence made at run time (``numpy.vstack(xs)``, the primitive ``<name>/list``): the
    same join of the tangents (join_tangent: zeros for a constant element), the cotangent cut back into one
    piece per element (unjoin_all), a list like xs."""
    kind = Num(name.rpartition(".")[2])
    if has_axis:
        return Variant(
            lambda xs, axis, z, dxs, dax: _h("join_tangent")(dxs, xs, kind, axis),
            lambda xs, axis, z, g: (_h("unjoin_all")(g, xs, kind, axis), None),
            (True, False),
            value=lambda ins, static, kit: _joined(name, kit.elements(ins[0]), kit),
        )
    return Variant(
        lambda xs, z, dxs: _h("join_tangent")(dxs, xs, kind),
        lambda xs, z, g: (_h("unjoin_all")(g, xs, kind),),
        (True,),
        value=lambda ins, static, kit: _joined(name, kit.elements(ins[0]), kit),
    )


# the least ndim of each join's result (its arrays' ndim otherwise), and whether it makes a new axis
_SHAPES = {"stack": (0, True), "hstack": (1, False), "vstack": (2, False), "row_stack": (2, False)}
_SHAPES.update({"column_stack": (2, False), "dstack": (3, False)})


def _joined(name, parts, kit):
    """The abstract value of numpy.<name> of arrays of these abstract values."""
    dims = [kit.ndim_of(a) for a in parts]
    dtype = kit.result_dtype(parts)
    if None in dims:
        return kit.Arr(None, dtype)
    nd = max(dims + [0])
    least, new = _SHAPES.get(name.rpartition(".")[2], (0, False))
    return kit.Arr(nd + 1 if new else max(nd, least), dtype)


def _join(kind: str, axis, **more) -> None:
    """Register ``np.<kind>``, of a sequence and (where ``axis`` is its default, not None) an axis."""
    name, has_axis = f"numpy.{kind}", axis is not None
    register(
        Primitive(
            name=name,
            family="joins",
            signature=(("arrays", None), ("axis", Num(axis))) if has_axis else (("tup", None),),
            value=lambda ins, static, kit: _joined(name, ins[:-1] if has_axis else ins, kit),
            jvp=_tangent(name, has_axis),
            vjp=_cotangents(name, has_axis),
            slots=(lambda n: (True,) * (n - 1) + (False,)) if has_axis else (lambda n: (True,) * n),
            joined=True,
            variants={"list": _of_a_sequence(name, has_axis)},
            helpers=HELPERS,
            **more,
        )
    )


def _append(build, arr, values, axis):
    """np.append(arr, values, axis): np.concatenate of the two, each raveled for axis None."""
    along = build.value_of(axis)
    arrays = [arr, values] if along is not None else [build.apply("numpy.ravel", [v]) for v in (arr, values)]
    return build.apply("numpy.concatenate", arrays + [build.constant(along or 0)], named=True, param=("seq", 2))


register(
    Primitive(
        name="numpy.append",
        family="joins",
        signature=(("arr", None), ("values", None), ("axis", Num(None))),
        value=None,
        static={"axis": None},
        expand=_append,
    )
)
_join("concatenate", 0, array_api="xp.concat")
_join("stack", 0, array_api="xp.stack")
for _kind in ("hstack", "vstack", "row_stack", "column_stack", "dstack"):
    _join(_kind, None)
