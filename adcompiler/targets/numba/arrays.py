"""More runtime helpers of the Numba target, as overloads (``runtime_numba`` holds the first ones):
the adjoints of matrix products, ``distinct`` for cotangents of several types, and ``array_like``.

``matmul_vjp_a`` and ``matmul_vjp_b``: the python target's helpers (``runtime_numpy``) handle stacks of
matrices by broadcasting, which Numba does not compile; here the operands are vectors or matrices (a @ b
of ndim 1 or 2 each, where no axis broadcasts), each case one product, chosen when the caller is
compiled.  A stack is left to backend="python" (Numba finds no form, and the refusal names the line).

``array_like(d, x)`` broadcasts a tangent to its output's shape where they differ (the tangent of a
``(1, 4)`` operand of a ``(2, 4)`` result: returned as it was, with the wrong shape, until 2026-11-26).

``distinct(d, *earlier)`` iterates over cotangents of several types, which Numba cannot; ``numba_target``
writes it as nested calls of two arguments, which this overload takes.
"""

from __future__ import annotations

# Merged into runtime_numba.NUMBA_HELPERS.
ARRAY_HELPERS = {
    "array_like": '''def array_like(d, x):
    """d as an array of x's shape (compiled code only: see the overload below)."""
    raise TypeError("array_like is called from code numba.njit compiles")


@numba.extending.overload(array_like)
def _numba_array_like(d, x):
    """d itself for a number x, or for an array d of x's shape; d broadcast to x's shape otherwise (a
    tangent of a (1, 4) operand of a (2, 4) result, a number)."""
    types = numba.core.types
    if not isinstance(x, types.Array):  # (a 0-d array d, as np.asarray of a number makes: the number in it)
        return (lambda d, x: d[()]) if isinstance(d, types.Array) and d.ndim == 0 else (lambda d, x: d)
    if not isinstance(d, types.Array):
        return lambda d, x: numpy.full(x.shape, d)
    if d.ndim > x.ndim:
        return None
    if d.ndim < x.ndim:
        return lambda d, x: numpy.broadcast_to(d, x.shape).copy()
    if x.ndim == 0:  # (of one shape, (): Numba's broadcast_to of the shape () fails to compile)
        return lambda d, x: d

    def same_ndim(d, x):
        return d if d.shape == x.shape else numpy.broadcast_to(d, x.shape).copy()

    return same_ndim
''',
    "rebroadcast": '''def rebroadcast(g, a):
    """The adjoint of unbroadcast(a, x) with respect to a (compiled code only: see the overload below)."""
    raise TypeError("rebroadcast is called from code numba.njit compiles")


@numba.extending.overload(rebroadcast)
def _numba_rebroadcast(g, a):
    """g spread over a's shape (a number g: filled; an array a of g's shape: g), or summed to a number a;
    an array g of more axes than an array a is left to backend="python"."""
    types = numba.core.types
    if not isinstance(a, types.Array):
        return (lambda g, a: g.sum()) if isinstance(g, types.Array) else (lambda g, a: g)
    if not isinstance(g, types.Array):
        return lambda g, a: numpy.full(a.shape, g)
    if g.ndim > a.ndim:
        return None
    if g.ndim < a.ndim:
        return lambda g, a: numpy.broadcast_to(g, a.shape).copy()
    if a.ndim == 0:  # (of one shape, (): Numba's broadcast_to of the shape () fails to compile)
        return lambda g, a: g
    return lambda g, a: g if g.shape == a.shape else numpy.broadcast_to(g, a.shape).copy()
''',
    "unreduce_vjp": '''def unreduce_vjp(c, g, axis=None, keepdims=False):
    """The adjoint of unreduce(g, x) with respect to g (compiled code only: see the overload below)."""
    raise TypeError("unreduce_vjp is called from code numba.njit compiles")


@numba.extending.overload(unreduce_vjp)
def _numba_unreduce_vjp(c, g, axis=None, keepdims=False):
    """c summed: the adjoint of spreading a full reduction g (a number) over x; of a reduction along one axis
    (an integer), c summed along it, in g's shape (with keepdims, its axis of length 1)."""
    types = numba.core.types
    if isinstance(axis, types.Integer) and isinstance(c, types.Array) and isinstance(g, types.Array):
        return lambda c, g, axis=None, keepdims=False: numpy.sum(c, axis=axis).reshape(g.shape)
    if isinstance(g, types.Array) or not (axis is None or isinstance(axis, (types.NoneType, types.Omitted))):
        return None
    if isinstance(c, types.Array):
        return lambda c, g, axis=None, keepdims=False: c.sum()
    return lambda c, g, axis=None, keepdims=False: c
''',
    "gather_like": '''def gather_like(c, index, g):
    """The adjoint of scatter_add(d, x, index, g) with respect to g (compiled code only: see the overload below)."""
    raise TypeError("gather_like is called from code numba.njit compiles")


@numba.extending.overload(gather_like)
def _numba_gather_like(c, index, g):
    """c read at index: an element of a vector for a number g, a copy of the part for an array g (of the
    part's shape); a number g broadcast over a part is left to backend="python"."""
    types = numba.core.types
    if not isinstance(c, types.Array):
        return None
    if not isinstance(g, types.Array):
        if isinstance(index, types.Integer) and c.ndim == 1:
            return lambda c, index, g: c[index]
        return None
    return lambda c, index, g: numpy.asarray(c[index]).copy()
''',
    "shape_like": '''def shape_like(x, *others):
    """What the adjoint keeps of an array it reads only for its shape (compiled code only: see the overload below)."""
    raise TypeError("shape_like is called from code numba.njit compiles")


@numba.extending.overload(shape_like)
def _numba_shape_like(x, *others):
    """An array of x's shape and dtype (with others, arrays or numbers: of the shape they and x broadcast to,
    NumPy's rules, of x's dtype or the first array's) whose entries are one number (a read-only broadcast of
    a zero the compiled code holds as a constant: no array made), in place of x's data; a number, or a 0-d
    array, alone, as it is; numbers only, x."""
    types = numba.core.types
    items = (x,) + tuple(others)
    if not all(isinstance(t, (types.Array, types.Number, types.Boolean)) for t in items):
        return None
    arrays = [t for t in items if isinstance(t, types.Array) and t.ndim > 0]
    if not arrays:
        return lambda x, *others: x
    kind = x if isinstance(x, types.Array) and x.ndim > 0 else arrays[0]
    zero = numpy.zeros(1, numba.np.numpy_support.as_dtype(kind.dtype))
    if not others:
        return lambda x, *others: numpy.broadcast_to(zero, x.shape)

    # The shapes broadcast axis by axis from the last, each axis a variable (no array made): numpy.broadcast_shapes,
    # which takes shapes of any lengths, is about a second and a half for Numba to compile, a process's first.
    ndim = max(t.ndim for t in arrays)
    names = [f"d{k}" for k in range(ndim)]
    lines = [f"    {n} = 1" for n in names]
    for item, t in zip(["x"] + [f"others[{i}]" for i in range(len(others))], items):
        if not isinstance(t, types.Array):
            continue
        for j in range(t.ndim):
            d = names[ndim - t.ndim + j]
            lines.append(
                f"""    b = {item}.shape[{j}]
    if {d} != b and {d} != 1 and b != 1:
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape")
    if {d} == 1:
        {d} = b"""
            )
    code = "def broadcast(x, *others):\\n" + "\\n".join(lines) + f"\\n    return numpy.broadcast_to(zero, ({', '.join(names)},))\\n"
    scope = {"numba": numba, "numpy": numpy, "zero": zero}
    exec(code, scope)
    return scope["broadcast"]
''',
    "distinct": '''def distinct(d, earlier):
    """d, or a copy where it is earlier (compiled code only: see the overload below)."""
    raise TypeError("distinct is called from code numba.njit compiles")


@numba.extending.overload(distinct)
def _numba_distinct(d, earlier):
    """A copy of d where it is the array earlier (the same memory, shape and strides), so that two
    cotangents are never one array; d itself otherwise, and for values of other types."""
    types = numba.core.types
    alike = isinstance(d, types.Array) and isinstance(earlier, types.Array) and d.ndim == earlier.ndim
    if not alike or d.dtype != earlier.dtype:
        return lambda d, earlier: d

    def impl(d, earlier):
        same = d.ctypes.data == earlier.ctypes.data and d.shape == earlier.shape and d.strides == earlier.strides
        return d.copy() if same and d.size > 0 else d

    return impl
''',
    "reshaped": '''def reshaped(a, shape):
    """numpy.reshape(a, shape) (compiled code only: see the overload below)."""
    raise TypeError("reshaped is called from code numba.njit compiles")


@numba.extending.overload(reshaped)
def _numba_reshaped(a, shape):
    """numpy.reshape, which copies an array whose memory is not in C order (a flipped or transposed view;
    Numba's reshape refuses one): a C-ordered array is reshaped as it is; a number is an array of shape."""
    types = numba.core.types
    if not isinstance(a, types.Array):
        return lambda a, shape: numpy.full(shape, a)
    if a.layout == "C":
        return lambda a, shape: a.reshape(shape)
    return lambda a, shape: numpy.ascontiguousarray(a).reshape(shape)
''',
    "squeezed": '''def squeezed(a, axis):
    """numpy.squeeze(a, axis) (compiled code only: see the overload below)."""
    raise TypeError("squeezed is called from code numba.njit compiles")


@numba.extending.overload(squeezed, prefer_literal=True)
def _numba_squeezed(a, axis):
    """numpy.squeeze along one given axis (an integer, negative from the end), which Numba lacks: a with
    that axis, of length 1, left out (copied to C order where it is not).  Without an axis the result's
    number of axes would depend on the shape, which compiled code cannot have: not taken."""
    types = numba.core.types
    if not isinstance(a, types.Array) or not isinstance(axis, types.IntegerLiteral):
        return None
    at = axis.literal_value + a.ndim if axis.literal_value < 0 else axis.literal_value
    if not 0 <= at < a.ndim:
        return None
    kept = "(" + "".join(f"a.shape[{d}], " for d in range(a.ndim) if d != at) + ")"
    code = f"""def impl(a, axis):
    if a.shape[{at}] != 1:
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return numpy.ascontiguousarray(a).reshape({kept})
"""
    scope = {"numpy": numpy}
    exec(code, scope)
    return scope["impl"]
''',
    "expanded": '''def expanded(a, axis):
    """numpy.expand_dims(a, axis) (compiled code only: see the overload below)."""
    raise TypeError("expanded is called from code numba.njit compiles")


@numba.extending.overload(expanded, prefer_literal=True)
def _numba_expanded(a, axis):
    """numpy.expand_dims, which Numba takes of an array and one integer axis only: of a number (an array of
    it with an axis of length 1 for each axis asked), and of a tuple of constant axes (negative from the
    end of the result), as a reshape of a with those axes of length 1 (``g`` of the linalg rules: g A^-T)."""
    types = numba.core.types
    if isinstance(axis, types.Integer) and isinstance(a, types.Array):
        return lambda a, axis: numpy.expand_dims(a, axis)
    if isinstance(axis, types.Integer):
        axes = (0,)
    elif isinstance(axis, types.BaseTuple) and all(isinstance(t, types.IntegerLiteral) for t in axis.types):
        axes = tuple(t.literal_value for t in axis.types)
    else:
        return None
    number = isinstance(a, (types.Number, types.Boolean))
    if not number and not isinstance(a, types.Array):
        return None
    ndim = (0 if number else a.ndim) + len(axes)
    at = sorted(k + ndim if k < 0 else k for k in axes)
    if len(set(at)) != len(at) or not all(0 <= k < ndim for k in at):
        return None
    if number:
        code = f"""def impl(a, axis):
    return numpy.full(({"1, " * ndim}), a)
"""
    else:
        shape = []
        for d in range(ndim):
            shape.append("1" if d in at else f"a.shape[{len(shape) - len([k for k in at if k < d])}]")
        code = f"""def impl(a, axis):
    return numpy.ascontiguousarray(a).reshape(({", ".join(shape)},))
"""
    scope = {"numpy": numpy}
    exec(code, scope)
    return scope["impl"]
''',
    "traced": '''def traced(a, offset, axis1, axis2):
    """numpy.trace(a, offset, axis1, axis2) (compiled code only: see the overload below)."""
    raise TypeError("traced is called from code numba.njit compiles")


@numba.extending.overload(traced, prefer_literal=True)
def _numba_traced(a, offset, axis1, axis2):
    """numpy.trace over the last two axes of a (constant axes naming them, in either order), which Numba
    takes of a matrix without axes only: the sum of each matrix's diagonal ``offset`` above the main one
    (below for a negative one), one number for a matrix, an array over the others for a stack (the
    tangent of slogdet: tr(A^-1 dA))."""
    types = numba.core.types
    literal = all(isinstance(t, types.IntegerLiteral) for t in (axis1, axis2))
    if not (isinstance(a, types.Array) and a.ndim >= 2 and literal and isinstance(offset, types.Integer)):
        return None
    axes = sorted(t.literal_value + a.ndim if t.literal_value < 0 else t.literal_value for t in (axis1, axis2))
    if axes != [a.ndim - 2, a.ndim - 1]:
        return None
    swapped = (axis1.literal_value % a.ndim) > (axis2.literal_value % a.ndim)
    stack = " * ".join(f"a.shape[{d}]" for d in range(a.ndim - 2)) or "1"
    code = f"""def impl(a, offset, axis1, axis2):
    rows, cols = a.shape[a.ndim - 2], a.shape[a.ndim - 1]
    k = {"-offset" if swapped else "offset"}
    m = numpy.ascontiguousarray(a).reshape(({stack}, rows, cols))
    out = numpy.zeros(m.shape[0])
    for s in range(m.shape[0]):
        total = 0.0
        for i in range(max(0, -k), min(rows, cols - k)):
            total += m[s, i, i + k]
        out[s] = total
    return {"out[0]" if a.ndim == 2 else "out.reshape(a.shape[:-2])"}
"""
    scope = {"numpy": numpy}
    exec(code, scope)
    return scope["impl"]
''',
    "argsorted": '''def argsorted(a, axis):
    """numpy.argsort(a, axis) (compiled code only: see the overload below)."""
    raise TypeError("argsorted is called from code numba.njit compiles")


@numba.extending.overload(argsorted, prefer_literal=True)
def _numba_argsorted(a, axis):
    """numpy.argsort of a vector along its one axis (0 or -1), or of an array of more axes along any (each line's
    own argsort), which Numba takes without an axis and of a vector only (np.sort's adjoint sorts along the
    last axis; ``np.argsort(A, axis=1)`` of the user's)."""
    types = numba.core.types
    if not (isinstance(a, types.Array) and a.ndim >= 1 and isinstance(axis, types.IntegerLiteral)):
        return None
    if not -a.ndim <= axis.literal_value < a.ndim:
        return None
    if a.ndim == 1:
        return lambda a, axis: numpy.argsort(a)
    at = axis.literal_value
    return lambda a, axis: along_lines(a, "argsort", at)  # (each line's own, as numpy.sort's: reductions)
''',
    "taken_along": '''def taken_along(a, indices, axis=-1):
    """numpy.take_along_axis(a, indices, axis) (compiled code only: see the overload below)."""
    raise TypeError("taken_along is called from code numba.njit compiles")


@numba.extending.overload(taken_along, prefer_literal=True)
def _numba_taken_along(a, indices, axis=-1):
    """numpy.take_along_axis of a vector along its one axis (the last, NumPy's default): a[indices] (np.sort's
    tangent, the sorting argsort gave), and of a matrix along either axis, which Numba's own does not take."""
    types = numba.core.types
    last = isinstance(axis, (types.Omitted, int)) or isinstance(axis, types.IntegerLiteral) and axis.literal_value in (0, -1)
    if isinstance(a, types.Array) and a.ndim == 1 and isinstance(indices, types.Array) and indices.ndim == 1 and last:
        return lambda a, indices, axis=-1: a[indices]
    literal = isinstance(axis, types.IntegerLiteral) and -2 <= axis.literal_value < 2 or last
    if not (isinstance(a, types.Array) and a.ndim == 2 and isinstance(indices, types.Array) and indices.ndim == 2):
        return None
    if not literal:
        return None
    rows = last or axis.literal_value % 2 == 1  # (each row's entries taken along it; else each column's)

    def lines(a, indices, axis=-1):
        shape = (a.shape[0], indices.shape[1]) if rows else (indices.shape[0], a.shape[1])
        out = numpy.empty(shape, a.dtype)
        for i in range(shape[0]):
            for j in range(shape[1]):
                if rows:
                    out[i, j] = a[i, indices[i if indices.shape[0] != 1 else 0, j]]
                else:
                    out[i, j] = a[indices[i, j if indices.shape[1] != 1 else 0], j]
        return out

    return lines
''',
    "vander_rows": '''def vander_rows(x, n, increasing):
    """numpy.vander(x, n, increasing) (compiled code only: see the overload below)."""
    raise TypeError("vander_rows is called from code numba.njit compiles")


@numba.extending.overload(vander_rows)
def _numba_vander_rows(x, n, increasing):
    """numpy.vander of a vector: row i the powers of x[i], each the one before times x[i] (NumPy's
    accumulation, the same numbers), written a row at a time (NumPy and Numba accumulate down the columns:
    6 and 9 times slower for 4096 x 128); n None: len(x) columns."""
    types = numba.core.types
    if not isinstance(x, types.Array) or x.ndim != 1 or not isinstance(x.dtype, (types.Float, types.Integer)):
        return None
    square = isinstance(n, (types.NoneType, types.Omitted))
    dtype = numba.np.numpy_support.as_dtype(x.dtype if isinstance(x.dtype, types.Float) else types.int64)

    def impl(x, n, increasing):
        m = len(x) if square else n
        out = numpy.empty((len(x), m), dtype)
        for i in range(len(x)):
            power = dtype.type(1)
            for j in range(m):
                out[i, j if increasing else m - 1 - j] = power
                power *= x[i]
        return out

    return impl
''',
    "array_of": '''def array_of(x):
    """numpy.array(x) (compiled code only: see the overload below)."""
    raise TypeError("array_of is called from code numba.njit compiles")


@numba.extending.overload(array_of)
def _numba_array_of(x):
    """numpy.array of a name: a copy of an array (``u = np.array(A)``, which Numba's numpy.array does not
    take); of a list or tuple of arrays (rows appended in a loop), the rows stacked, as NumPy stacks them;
    Numba's own numpy.array of a list or a tuple of numbers."""
    types = numba.core.types
    if isinstance(x, types.Array):
        return lambda x: x.copy()
    if isinstance(x, (types.List, types.UniTuple)) and isinstance(x.dtype, types.Array):

        def stacked(x):
            if len(x) == 0:  # (NumPy's is of shape (0,), which compiled code cannot type with the rows' ndim)
                raise ValueError("numpy.array of an empty list of arrays under Numba: pass at least one row")
            out = numpy.empty((len(x),) + x[0].shape, x[0].dtype)
            for i in range(len(x)):
                if x[i].shape != x[0].shape:  # (NumPy raises too; a copy would broadcast)
                    raise ValueError("numpy.array of arrays of different shapes (an inhomogeneous shape)")
                out[i] = x[i]
            return out

        return stacked
    return lambda x: numpy.array(x)
''',
    "ndim_of": '''def ndim_of(x):
    """numpy.ndim(x), x.ndim (compiled code only: see the overload below)."""
    raise TypeError("ndim_of is called from code numba.njit compiles")


@numba.extending.overload(ndim_of)
def _numba_ndim_of(x):
    """An array's number of dimensions, a number's 0 (Numba has no numpy.ndim)."""
    if isinstance(x, numba.core.types.Array):
        return lambda x: x.ndim
    if isinstance(x, numba.core.types.Number):
        return lambda x: 0
    return None
''',
    "asarray_of": '''def asarray_of(x):
    """numpy.asarray(x) (compiled code only: see the overload below)."""
    raise TypeError("asarray_of is called from code numba.njit compiles")


@numba.extending.overload(asarray_of)
def _numba_asarray_of(x):
    """numpy.asarray: of a list or tuple of arrays, the rows stacked (array_of); Numba's own of anything else (of
    an array, the array itself)."""
    if isinstance(x, (numba.core.types.List, numba.core.types.UniTuple)) and isinstance(
        x.dtype, numba.core.types.Array
    ):
        return lambda x: array_of(x)
    return lambda x: numpy.asarray(x)
''',
    "dot_product": '''def dot_product(a, b):
    """numpy.dot(a, b) (compiled code only: see the overload below)."""
    raise TypeError("dot_product is called from code numba.njit compiles")


@numba.extending.overload(dot_product)
def _numba_dot_product(a, b):
    """numpy.dot, of arrays of two float dtypes too (a float64 cotangent and float32 operands), as NumPy
    computes it: both as float64 (Numba's takes arrays of one dtype)."""
    types = numba.core.types
    mixed = isinstance(a, types.Array) and isinstance(b, types.Array) and a.dtype != b.dtype
    if mixed and isinstance(a.dtype, types.Float) and isinstance(b.dtype, types.Float):
        return lambda a, b: numpy.dot(a.astype(numpy.float64), b.astype(numpy.float64))
    return lambda a, b: numpy.dot(a, b)

''',
    "clipped": '''def clipped(x, lo, hi):
    """numpy.clip(x, lo, hi) (compiled code only: see the overload below)."""
    raise TypeError("clipped is called from code numba.njit compiles")


@numba.extending.overload(clipped)
def _numba_clipped(x, lo, hi):
    """numpy.clip of a number too (Numba's takes arrays only): lo below it, hi above it, else x (NaN itself)."""
    if isinstance(x, numba.core.types.Number) and all(isinstance(b, numba.core.types.Number) for b in (lo, hi)):
        return lambda x, lo, hi: lo if x < lo else hi if x > hi else x
    return lambda x, lo, hi: numpy.clip(x, lo, hi)

''',
    "cast_to": '''def cast_to(x, dtype):
    """x cast to the dtype named dtype, a copy (compiled code only: see the overload below)."""
    raise TypeError("cast_to is called from code numba.njit compiles")


@numba.extending.overload(cast_to, prefer_literal=True)
def _numba_cast_to(x, dtype):
    """numpy.array(x, dtype="float32") of an array or a number (Numba's numpy.array takes neither with a dtype):
    x.astype, or the number made one of that dtype."""
    types = numba.core.types
    if isinstance(dtype, types.DType):  # another array's (x.astype(y.dtype))
        kind = numba.np.numpy_support.as_dtype(dtype.dtype).type
    elif isinstance(dtype, types.NumberClass):  # numpy.float64
        kind = numba.np.numpy_support.as_dtype(dtype.instance_type).type
    elif isinstance(dtype, types.StringLiteral):
        kind = numpy.dtype(dtype.literal_value).type
    else:
        return None
    if isinstance(x, types.Array):
        return lambda x, dtype: x.astype(kind)
    if isinstance(x, (types.List, types.UniTuple)) and isinstance(x.dtype, types.Array):  # rows
        return lambda x, dtype: array_of(x).astype(kind)
    if isinstance(x, (types.List, types.BaseTuple)):  # (of numbers: Numba's own)
        return lambda x, dtype: numpy.array(x, kind)
    return lambda x, dtype: kind(x)

''',
    "selected": '''def selected(c, a, b):
    """numpy.where(c, a, b) (compiled code only: see the overload below)."""
    raise TypeError("selected is called from code numba.njit compiles")


@numba.extending.overload(selected)
def _numba_selected(c, a, b):
    """numpy.where of numbers, a number (Numba's is a 0-d array); of arrays, Numba's numpy.where."""
    types = numba.core.types
    if all(isinstance(v, (types.Number, types.Boolean)) for v in (c, a, b)):
        return lambda c, a, b: a if c else b
    return lambda c, a, b: numpy.where(c, a, b)

''',
    "inner_product": '''def inner_product(a, b):
    """numpy.inner(a, b) (compiled code only: see the overload below)."""
    raise TypeError("inner_product is called from code numba.njit compiles")


@numba.extending.overload(inner_product)
def _numba_inner_product(a, b):
    """numpy.inner, which Numba lacks, for numbers, vectors and matrices: the last axes contracted, a
    number multiplying; a vector with a matrix B is B a, two matrices A B^T."""
    types = numba.core.types
    na = a.ndim if isinstance(a, types.Array) else 0
    nb = b.ndim if isinstance(b, types.Array) else 0
    if na == 0 or nb == 0:
        return lambda a, b: a * b
    if na > 2 or nb > 2:
        return None
    if nb == 1:
        return lambda a, b: numpy.dot(a, b)
    if na == 1:
        return lambda a, b: numpy.dot(b, a)
    return lambda a, b: numpy.dot(a, b.T)

''',
}
