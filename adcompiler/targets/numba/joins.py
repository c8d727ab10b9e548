"""Arrays joined (``np.concatenate``, ``np.stack``, ``np.hstack``, ``np.vstack``) in the Numba target.

Numba's own joins take a tuple of arrays: the python target prints a join of arrays the code names
as a list literal (``numpy.concatenate([a, b], axis=0)``), which ``translate`` writes as a tuple, and a
join of a sequence known only at run time (``numpy.stack(xs)``, ``xs`` a list built by ``append``)
as a call of ``join_sequence``, whose overload joins a list (or a 2-D array's rows) by copying each
element into its place.  The derivatives' helpers are here as overloads too: ``unjoin`` (the cotangent
of one of the arrays a tuple names: its part of g, a view where it is a block of g's leading axis, as the
python target's is, else a copy in C order), ``join_tangent`` (the tangents of a
sequence joined the same way) and ``unjoin_all`` (the cotangent of a sequence: a list of pieces).

Each overload writes its code for the kind of join, the axis and the numbers of dimensions, which
are known when the caller is compiled (the kind and the axis are literals of the generated code): a
join it has no form for (an axis of a list given at run time, numbers among the arrays) finds no
form, and the refusal names the line.
"""

from __future__ import annotations

# Merged into runtime.NUMBA_HELPERS.  ``_JOIN`` (the text of ``joined``) is in each overload that joins
# a sequence, since each helper's text stands alone in the module it is copied into.
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

JOIN_HELPERS = {
    "join_sequence": f'''def join_sequence(xs, kind, axis):
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
    "join_tangent": f'''def join_tangent(dxs, xs, kind, *axis):
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
    "unjoin": '''def unjoin(g, kind, axis, i, *arrays):
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
    if not all(isinstance(a, types.Array) and a.ndim >= 1 for a in arrays) or len({a.ndim for a in arrays}) != 1:
        return None
    name, at, k, ndim = kind.literal_value, getattr(axis, "literal_value", None), i.literal_value, arrays[0].ndim
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
        start = " + ".join(f"arrays[{j}].shape[{at}]" for j in range(k)) or "0"
        part = f"g[{before}{start} : {start} + arrays[{k}].shape[{at}]]"
    if at == 0 and g.layout == "C" and g.mutable:  # a block of g's leading axis: a C view, as the python target's is
        value = part
    else:
        value = f"numpy.ascontiguousarray({part}).copy()"
    scope = {"numpy": numpy}
    exec(f"def impl(g, kind, axis, i, *arrays):\\n    return {value}\\n", scope)
    return scope["impl"]
''',
    "unjoin_all": f'''def unjoin_all(g, xs, kind, *axis):
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
}

JOINS = {"concatenate": 0, "stack": 0, "hstack": None, "vstack": None, "row_stack": None}  # -> the default axis
