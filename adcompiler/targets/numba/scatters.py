"""The Numba target's adjoints of reading and writing an array at an index: ``scatter_add`` (g added into
the adjoint at x[index], into the adjoint itself where it has x's shape, else into a new array),
``scatter_into`` (the same where the code knows the adjoint has x's shape: ``in_place.added_in_place``)
and ``take_and_clear`` (the adjoint of a write x[index] = v).  An index of integers and slices names each
element once and adds in a loop nest written for its ndim (``added_in_loops``); an array of integers, or a
tuple of them one per axis (``coordinates``), adds one by one, as numpy.add.at does.  Merged into
``runtime.NUMBA_HELPERS``.
"""

from __future__ import annotations

from .coordinates import COORDINATE, COORDINATES, MASK

SCATTER_HELPERS = {
    "scatter_add": '''def scatter_add(d, x, index, g):
    """d with g added at x[index] (compiled code only: see the overload below)."""
    raise TypeError("scatter_add is called from code numba.njit compiles")


@numba.extending.overload(scatter_add)
def _numba_scatter_add(d, x, index, g):
    """The adjoint d of the array x with g added at x[index] (into d itself when d is an array of x's
    shape, else into zeros of x's shape plus d): an index of integers and slices adds at once (it
    names each element once), into the part as a view (``out[index] += g`` stores the part back through
    a copy of it, Numba's guard for overlapping memory: an array more a call); a 1-D array of integers
    into a vector adds one by one, so a repeated index accumulates, as numpy.add.at does; so does a
    tuple of 1-D integer arrays, one per axis (coordinates: ``targets.numba.coordinates``)."""
    '''
    + COORDINATES
    + COORDINATE
    + """    if not isinstance(x, types.Array) or isinstance(d, types.Array) and (d.ndim != x.ndim or not d.mutable):
        return None
    if coordinates and (not isinstance(d, types.Array) or d.layout == "C"):
        fresh = not isinstance(d, types.Array)

        def at_coordinates(d, x, index, g):
            out = numpy.full(x.shape, d + 0.0) if fresh else d
            if out.shape != x.shape:  # (a zero_array: zeros of length 1 along each axis)
                out = grown(out, x.shape)
            values = numpy.broadcast_to(numpy.asarray(g), index[0].shape)
            flat = out.reshape(-1)
            for k in range(len(index[0])):
                flat[coordinate(x, index, k)] += values[k]
            return out

        return at_coordinates
    masked = isinstance(index, types.Array) and isinstance(index.dtype, types.Boolean) and index.ndim == x.ndim
    if masked:
        return added_at_mask(d, x, g)
    if isinstance(index, types.Array) and isinstance(index.dtype, types.Boolean) and index.ndim == 1 < x.ndim:
        return added_at_rows(d, x, g)
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    basic = all(isinstance(i, (types.Integer, types.SliceType, types.NoneType, types.EllipsisType)) for i in parts)
    # (None: a new axis; ...: the axes no other part names, each whole)
    listed = isinstance(index, types.Array) and index.ndim == 1 and isinstance(index.dtype, types.Integer)
    if listed and x.ndim > 1:
        return added_at_rows(d, x, g)
    if isinstance(index, types.BaseTuple) and not basic and len(parts) == x.ndim and x.layout == "C":
        return added_at_mixed(d, x, parts, g)
    if not basic and not (listed and x.ndim == 1):
        return None
    fresh = not isinstance(d, types.Array)
    number = len(parts) == x.ndim and all(isinstance(i, types.Integer) for i in parts)  # x[index] one entry
    shared = isinstance(g, types.Array)  # (g may share memory with out)
    if basic and not number:
        looped = added_in_loops(d, x, parts, g)
        if looped is not None:
            return looped

    def impl(d, x, index, g):
        if fresh:
            out = numpy.full(x.shape, d + 0.0)
        else:
            out = d if d.shape == x.shape else grown(d, x.shape)
        if basic and number:
            out[index] += g
        elif basic:  # the part a view of out, added into where it is: out[index] += g copies it back
            part = out[index]
            if shared and overlapping(part, g):  # (g read whole before the part is written)
                numpy.add(part, g.copy(), part)
            else:
                numpy.add(part, g, part)
        else:
            values = numpy.broadcast_to(numpy.asarray(g), index.shape)
            for k in range(len(index)):
                out[index[k]] += values[k]
        return out

    return impl


def added_in_loops(d, x, parts, g, into=False):
    '''scatter_add's impl for an index of integers, slices and None with x[index] more than one entry: g
    (a number, or an array of at most the part's ndim, of float dtype) added into the part of the adjoint
    by a loop nest over the part's axes, written for its ndim and g's, g's axes of length 1 read at 0 (NumPy's
    broadcasting); numpy.add(part, g, part) costs an array's worth of Numba's ufunc machinery a call
    (46 ns for a row of two, against 3) and a second of compiling; None where g is of another kind.
    ``into``: scatter_into's, d itself added into (it has x's shape).'''
    types = numba.core.types
    rank = x.ndim - sum(isinstance(i, types.Integer) for i in parts) + sum(isinstance(i, types.NoneType) for i in parts)
    array = isinstance(g, types.Array)
    if array and not (1 <= g.ndim <= rank and isinstance(g.dtype, types.Float)) or not (array or isinstance(g, types.Float)):
        return None
    lead = rank - g.ndim if array else rank
    fresh = not isinstance(d, types.Array)
    axes = range(rank)
    at = ", ".join(f"i{a}" for a in axes) + ","
    read = "h[" + ", ".join(f"i{lead + j} * s{j}" for j in range(g.ndim)) + ",]" if array else "g"
    if into:
        start = ["    if d.shape != x.shape:", "        raise ValueError(UNSHAPED)", "    out = d"]
    elif fresh:
        start = ["    out = numpy.full(x.shape, d + 0.0)"]
    else:
        start = ["    out = d if d.shape == x.shape else grown(d, x.shape)"]
    lines = ["def impl(d, x, index, g):"] + start + ["    part = out[index]"]
    if array:
        lines += ["    h = g.copy() if overlapping(part, g) else g  # (g read whole before the part is written)"]
        for j in range(g.ndim):
            lines += [
                f"    if h.shape[{j}] != part.shape[{lead + j}] and h.shape[{j}] != 1:",
                '        raise ValueError("operands could not be broadcast together")',
                f"    s{j} = 1 if h.shape[{j}] != 1 else 0",
            ]
    for a in axes:
        lines += ["    " * (a + 1) + f"for i{a} in range(part.shape[{a}]):"]
    lines += ["    " * (rank + 1) + f"part[{at}] += {read}", "    return out"]
    scope = {"numpy": numpy, "overlapping": overlapping, "grown": grown, "UNSHAPED": UNSHAPED}
    exec("\\n".join(lines), scope)
    return scope["impl"]


def added_at_mask(d, x, g):
    '''scatter_add's impl for a boolean mask of x's shape (``x[x > 0.5]``): g (a number, or one value per
    true entry, in C order as NumPy reads them) added at the true entries; None for another g.'''
    types = numba.core.types
    if isinstance(g, types.Array) and g.ndim != 1 or not isinstance(g, (types.Array, types.Number)):
        return None
    fresh, array = not isinstance(d, types.Array), isinstance(g, types.Array)
    ordered = not fresh and d.layout == "C"  # (added into where it is; another layout is copied to C order)

    def at_mask(d, x, index, g):
        if index.shape != x.shape:
            raise IndexError("boolean index did not match indexed array")
        if fresh:
            out = numpy.full(x.shape, d + 0.0)
        elif d.shape == x.shape:
            out = d if ordered else d.copy()
        else:
            out = grown(d, x.shape)
        flat, chosen = out.reshape(-1), index.ravel()
        k = 0
        for j in range(chosen.size):
            if chosen[j]:
                flat[j] += g[k] if array else g
                k += 1
        if array and k != g.size:
            raise ValueError("shape mismatch: value array does not match the number of true entries")
        return out

    return at_mask


def added_at_rows(d, x, g):
    '''scatter_add's impl for a 1-D array of integers indexing the first axis of an x of more axes
    (``A[numpy.array([0, 2])]``, rows), or a boolean mask of that axis (``A[keep]``, the rows where it is
    true: ``row_places``): g (a number, or one part of x[i]'s shape, or of fewer axes, per index) added at each
    row in turn, so a repeated row accumulates, as numpy.add.at does.'''
    types = numba.core.types
    if isinstance(g, types.Array) and g.ndim != x.ndim or not isinstance(g, (types.Array, types.Number)):
        return None
    fresh, array = not isinstance(d, types.Array), isinstance(g, types.Array)

    def at_rows(d, x, index, g):
        if fresh:
            out = numpy.full(x.shape, d + 0.0)
        else:
            out = d if d.shape == x.shape else grown(d, x.shape)
        n = x.shape[0]
        places = row_places(index, n)
        for k in range(len(places)):
            i = places[k]
            if i < -n or i >= n:
                raise IndexError("index out of bounds")
            row = out[i]
            row += g[k if g.shape[0] != 1 else 0] if array else g
        return out

    return at_rows


def added_at_mixed(d, x, parts, g):
    '''scatter_add's impl for a tuple of integers, slices and 1-D integer arrays, one per axis of x, at least one
    an array (``A[0, order]``, ``A[rows, 2]``, ``A[idx, :]``, ``A[:, idx]``: NumPy's advanced index): g (a
    number, or one value per entry of x[index]) added at each entry in turn, so a place named twice
    accumulates, as numpy.add.at does.  The integers and arrays broadcast together to one axis of the result,
    in their place where they are next to each other, else first; each slice is an axis of its own.'''
    types = numba.core.types
    line = lambda i: isinstance(i, types.Array) and i.ndim == 1 and isinstance(i.dtype, types.Integer)  # noqa: E731
    if not all(isinstance(i, (types.Integer, types.SliceType)) or line(i) for i in parts):
        return None
    advanced = [a for a, i in enumerate(parts) if not isinstance(i, types.SliceType)]
    sliced = [a for a, i in enumerate(parts) if isinstance(i, types.SliceType)]
    together = advanced == list(range(advanced[0], advanced[-1] + 1))
    axes = [a for a in sliced if a < advanced[0]] + ["k"] + [a for a in sliced if a > advanced[0]]
    axes = axes if together else ["k"] + sliced  # (the result's axes: "k" the advanced one)
    if isinstance(g, types.Array) and g.ndim > len(axes) or not isinstance(g, (types.Array, types.Number)):
        return None
    fresh = not isinstance(d, types.Array)
    # (a tuple of parts of several types is indexed by constants only: the loops over the axes written out)
    lines = [
        "def at_mixed(d, x, index, g):",
        "    out = numpy.full(x.shape, d + 0.0) if fresh else (d if d.shape == x.shape else grown(d, x.shape))",
        "    m = 1",
        "    for n in (" + "".join(f"positions_of(index[{a}]), " for a in advanced) + "):",
        "        if n != 1 and m != 1 and n != m:",
        "            raise IndexError('shape mismatch: indexing arrays could not be broadcast together')",
        "        m = max(m, n)",
    ]
    for a in sliced:
        lines += [
            f"    start{a}, stop{a}, step{a} = index[{a}].indices(x.shape[{a}])",
            f"    count{a} = len(range(start{a}, stop{a}, step{a}))",
        ]
    shape = ", ".join("m" if a == "k" else f"count{a}" for a in axes)
    lines.append(f"    values = numpy.broadcast_to(numpy.asarray(g), ({shape},))")
    depth = 1
    for a in axes:
        lines.append("    " * depth + (f"for k in range(m):" if a == "k" else f"for j{a} in range(count{a}):"))
        depth += 1
    pad = "    " * depth
    for a in advanced:
        lines += [
            f"{pad}i{a} = position(index[{a}], k)",
            f"{pad}if i{a} < -x.shape[{a}] or i{a} >= x.shape[{a}]:",
            f"{pad}    raise IndexError('index out of bounds')",
        ]
    place = ", ".join(f"i{a}" if a in advanced else f"start{a} + j{a} * step{a}" for a in range(len(parts)))
    entry = ", ".join("k" if a == "k" else f"j{a}" for a in axes)
    lines += [f"{pad}out[{place}] += values[{entry}]", "    return out"]
    space = dict(numpy=numpy, fresh=fresh, grown=grown, position=position, positions_of=positions_of)
    exec("\\n".join(lines), space)
    return space["at_mixed"]


def row_places(index, n):
    '''The rows of n an index of rows names (compiled code only: see the overload below).'''
    raise TypeError("row_places is called from code numba.njit compiles")


@numba.extending.overload(row_places)
def _numba_row_places(index, n):
    '''An array of integers itself; a boolean mask of the n rows, the places where it is true.'''
    if not isinstance(index.dtype, numba.core.types.Boolean):
        return lambda index, n: index

    def places(index, n):
        if index.shape[0] != n:
            raise IndexError("boolean index did not match indexed array along axis 0")
        return numpy.nonzero(index)[0]

    return places


def positions_of(part):
    '''How many positions an index part names (compiled code only: see the overload below).'''
    raise TypeError("positions_of is called from code numba.njit compiles")


@numba.extending.overload(positions_of)
def _numba_positions_of(part):
    '''1 for an integer (broadcast along the arrays), the length of an array of integers.'''
    if isinstance(part, numba.core.types.Array):
        return lambda part: len(part)
    return lambda part: 1


def position(part, k):
    '''The k-th position an index part names (compiled code only: see the overload below).'''
    raise TypeError("position is called from code numba.njit compiles")


@numba.extending.overload(position)
def _numba_position(part, k):
    '''An integer itself (broadcast), an array's k-th entry (or its one entry, broadcast).'''
    if isinstance(part, numba.core.types.Array):
        return lambda part, k: part[k if len(part) != 1 else 0]
    return lambda part, k: part


UNSHAPED = "scatter_into: an adjoint that is not of its array's shape"


@numba.njit
def overlapping(a, b):
    '''Whether the memory the arrays a and b span overlaps (numpy.may_share_memory's test, which Numba
    lacks).  A function of the module, as ``unbroadcast_summed`` is.'''
    if a.size == 0 or b.size == 0:
        return False
    low_a, high_a = a.ctypes.data, a.ctypes.data + a.itemsize
    for k in range(a.ndim):
        step = (a.shape[k] - 1) * a.strides[k]
        low_a, high_a = (low_a + step, high_a) if step < 0 else (low_a, high_a + step)
    low_b, high_b = b.ctypes.data, b.ctypes.data + b.itemsize
    for k in range(b.ndim):
        step = (b.shape[k] - 1) * b.strides[k]
        low_b, high_b = (low_b + step, high_b) if step < 0 else (low_b, high_b + step)
    return low_a < high_b and low_b < high_a


def grown(d, shape):
    '''numpy.zeros(shape) + d (compiled code only: see the overload below).'''
    raise TypeError("grown is called from code numba.njit compiles")


@numba.extending.overload(grown)
def _numba_grown(d, shape):
    '''Zeros of ``shape`` plus d, which broadcasts to it (an adjoint that is still a zero_array, or a
    number), as one array where d is of floats (d added into the zeros in place: the sum made a second),
    of d's dtype where d is an array (float32 stays float32: the callers' adjoint is d where it has the
    shape already, and one variable has one type).'''
    types = numba.core.types
    if isinstance(d, types.Array) and isinstance(d.dtype, types.Float):

        def of_array(d, shape):
            out = numpy.zeros(shape, d.dtype)
            out += d
            return out

        return of_array
    if isinstance(d, types.Float):

        def impl(d, shape):
            out = numpy.zeros(shape)
            out += d
            return out

        return impl
    return lambda d, shape: numpy.zeros(shape) + d
""",
    "scatter_into": '''def scatter_into(d, x, index, g):
    """d, an array of x's shape, with g added at x[index] (compiled code only: see the overload below)."""
    raise TypeError("scatter_into is called from code numba.njit compiles")


@numba.extending.overload(scatter_into)
def _numba_scatter_into(d, x, index, g):
    """scatter_add where the code knows d is an array of x's shape (an accumulator made zeros of it:
    ``in_place.added_in_place``): d itself, added into, always, so that Numba drops the counting of
    references that a call which may return a new array costs (a number added: 14 ns against 1); an
    index of integers and slices adds in loops (``added_in_loops``), any other through scatter_add,
    which adds into d itself where d has x's shape."""
    types = numba.core.types
    if not (isinstance(d, types.Array) and isinstance(x, types.Array) and d.ndim == x.ndim and d.mutable):
        return None
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    basic = all(isinstance(i, (types.Integer, types.SliceType, types.NoneType, types.EllipsisType)) for i in parts)
    number = basic and len(parts) == x.ndim and all(isinstance(i, types.Integer) for i in parts)
    looped = added_in_loops(d, x, parts, g, True) if basic and not number else None
    if looped is not None:
        return looped

    def at_number(d, x, index, g):
        if d.shape != x.shape:
            raise ValueError(UNSHAPED)
        d[index] += g
        return d

    def elsewhere(d, x, index, g):
        if d.shape != x.shape:
            raise ValueError(UNSHAPED)
        scatter_add(d, x, index, g)
        return d

    return at_number if number else elsewhere
''',
    "take_and_clear": '''def take_and_clear(d, x, index):
    """(d with d[index] zeroed, the old d[index]) (compiled code only: see the overload below)."""
    raise TypeError("take_and_clear is called from code numba.njit compiles")


@numba.extending.overload(take_and_clear)
def _numba_take_and_clear(d, x, index):
    """The adjoint of writing x[index] = v, for an index of integers and slices (it names each element
    once): the part of the adjoint d at index (a copy, or a number), which is then zeroed in d (into
    zeros of x's shape plus d where d is not yet such an array).  For a tuple of 1-D integer arrays, one
    per axis (coordinates: ``targets.numba.coordinates``), a position named twice gets the cotangent at
    its last write only, as the python target's gives it; for a boolean mask of x's shape, the entries where
    it is true, in C order; other arrays of integers are refused (Numba finds no form)."""
    '''
    + COORDINATES
    + MASK
    + COORDINATE
    + """    usable = not isinstance(d, types.Array) or d.ndim == x.ndim and d.mutable and d.layout == "C"
    if mask and usable:
        fresh = not isinstance(d, types.Array)

        def at_mask(d, x, index):
            if index.shape != x.shape:
                raise IndexError("boolean index did not match indexed array")
            out = numpy.full(x.shape, d + 0.0) if fresh else d
            if out.shape != x.shape:  # (a zero_array: zeros of length 1 along each axis)
                out = numpy.zeros(x.shape, out.dtype) + out  # (of out's dtype: one type for out)
            flat, where = out.reshape(-1), index.ravel()
            part = flat[where]  # (a copy)
            flat[where] = 0.0
            return out, part

        return at_mask
    if coordinates and usable:
        fresh = not isinstance(d, types.Array)

        def at_coordinates(d, x, index):
            out = numpy.full(x.shape, d + 0.0) if fresh else d
            if out.shape != x.shape:  # (a zero_array: zeros of length 1 along each axis)
                out = numpy.zeros(x.shape, out.dtype) + out  # (of out's dtype: one type for out)
            m = len(index[0])
            part = numpy.zeros(m)
            flat = out.reshape(-1)
            for k in range(m - 1, -1, -1):  # (the last write first: an earlier one at its place gets nothing)
                at = coordinate(x, index, k)
                part[k] = flat[at]
                flat[at] = 0.0
            return out, part

        return at_coordinates
    listed = isinstance(x, types.Array) and x.ndim == 1 and isinstance(index, types.Array) and index.ndim == 1
    if listed and isinstance(index.dtype, types.Integer) and usable:  # y[idx] = v of a vector (y[idx] += x)
        fresh = not isinstance(d, types.Array)

        def at_places(d, x, index):
            out = numpy.full(x.shape, d + 0.0) if fresh else d
            if out.shape != x.shape:  # (a zero_array: zeros of length 1 along each axis)
                out = numpy.zeros(x.shape, out.dtype) + out
            n, m = x.shape[0], len(index)
            part = numpy.zeros(m)
            for k in range(m - 1, -1, -1):  # (the last write first: an earlier one at its place gets nothing)
                i = index[k] + n if index[k] < 0 else index[k]
                if i < 0 or i >= n:
                    raise IndexError("index out of bounds")
                part[k] = out[i]
                out[i] = 0.0
            return out, part

        return at_places
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    if not isinstance(x, types.Array) or not all(
        isinstance(i, (types.Integer, types.SliceType, types.EllipsisType)) for i in parts
    ):
        return None
    if isinstance(d, types.Array) and (d.ndim != x.ndim or not d.mutable):
        return None
    number = len(parts) == x.ndim and all(isinstance(i, types.Integer) for i in parts)
    fresh = not isinstance(d, types.Array)

    def impl(d, x, index):
        out = numpy.full(x.shape, d + 0.0) if fresh else d
        part = out[index] if number else out[index].copy()
        out[index] = 0.0
        return out, part

    return impl
""",
}
