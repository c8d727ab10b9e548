"""Helpers that generated NumPy derivative code calls (adjoints of broadcasting, reductions, joins,
products and scatters), kept as source text; ``runtime`` adds them to its table."""

from .runtime_arrays import MORE_HELPERS
from ...rules.families import helper_forms

NUMPY_HELPERS: dict = dict(MORE_HELPERS)

NUMPY_HELPERS.update(
    {
        "rebroadcast": '''def rebroadcast(g, a):
    """The adjoint of unbroadcast(a, x) and of array_like(a, x) with respect to a: g, of x's shape,
    spread over a's shape or summed down to it (a number: a number)."""
    import numpy

    shape = numpy.shape(a)
    g = numpy.broadcast_to(g, numpy.broadcast_shapes(numpy.shape(g), shape))
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    g = g.sum(axis=axes).reshape(shape) if axes else g
    return g if type(a) is numpy.ndarray else g[()]
''',
        "gather_like": '''def gather_like(c, index, g):
    """The adjoint of scatter_add(d, x, index, g) with respect to g: c read at index, summed down to
    g's shape where g was broadcast there (a number: a number)."""
    import numpy

    shape = numpy.shape(g)
    part = numpy.asarray(c)[index]
    part = numpy.broadcast_to(part, numpy.broadcast_shapes(numpy.shape(part), shape))
    lead = part.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and part.shape[lead + i] != 1)
    part = part.sum(axis=axes).reshape(shape) if axes else part
    return numpy.array(part) if type(g) is numpy.ndarray else part[()]
''',
        "unreduce_vjp": '''def unreduce_vjp(c, g, axis=None, keepdims=False):
    """The adjoint of unreduce(g, x, axis, keepdims) with respect to g: c, of x's shape, summed over axis."""
    import numpy

    out = numpy.asarray(numpy.sum(c, axis=axis, keepdims=keepdims and axis is not None))
    return out.reshape(numpy.shape(g)) if type(g) is numpy.ndarray else out[()]
''',
        "unbroadcast": '''def unbroadcast(g, x):
    """Sum g down to the shape of x: the adjoint of NumPy broadcasting x up to g's shape."""
    shape, g_shape = getattr(x, "shape", None), getattr(g, "shape", ())
    if g_shape == shape:
        return g
    import numpy

    shape = numpy.shape(x) if shape is None else shape  # (a number, or a list NumPy reads as an array)
    if g_shape == shape or not shape:
        return g if g_shape == shape else g.sum()
    if not g_shape:  # a number: the zero adjoint of a result no use of which ran, given x's shape
        return numpy.full(shape, g, dtype=numpy.result_type(x, numpy.float32))
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis in range(g.ndim):  # (aligned from the last axis: g may lack some of x's first ones)
        if shape[axis - g.ndim] == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    # g from a number cotangent times the other operand (not the result's shape): alike along x's other axes
    return g if g.shape == shape else g + numpy.zeros(shape, g.dtype)
''',
        "unreduce": '''def unreduce(g, x, axis=None, keepdims=False):
    """Spread g, a reduction of x over axis, back over x's shape (the adjoint of sum)."""
    import numpy

    if axis is None and type(g) in (float, numpy.float64) and type(x) is numpy.ndarray and x.dtype.kind == "f":
        out = numpy.empty(x.shape, x.dtype)  # the common case, the adjoint of a full sum: numpy.full's work,
        out.fill(g)  # without its Python layer (a third of the time for a short vector)
        return out
    if axis is not None and not keepdims:
        g = numpy.expand_dims(g, axis)
    if type(x) is list or type(x) is tuple:  # a list NumPy read as an array
        x = numpy.asarray(x)
    g = numpy.asarray(g, dtype=numpy.result_type(g, x))  # a float32 array keeps a float32 cotangent
    if not hasattr(x, "shape"):  # a number: its cotangent a number too, not a 0-d array
        return g[()]
    return numpy.broadcast_to(g, numpy.shape(x))
''',
        "scatter_add": '''def scatter_add(d, x, index, g):
    """The adjoint d of x with g added at x[index]; repeated indices accumulate, as numpy.add.at does."""
    import numpy

    shape = x.shape if type(x) is numpy.ndarray else numpy.shape(x)
    if not isinstance(d, numpy.ndarray) or d.shape != shape or not d.flags.writeable:
        dtype = x.dtype if type(x) is numpy.ndarray else None  # (float32 and wider: numpy.result_type's answer)
        if not shape:
            dtype = float
        elif dtype is None or dtype.kind not in "fc" or dtype.itemsize < 4:
            dtype = numpy.result_type(x, numpy.float32)
        zeros = numpy.zeros(shape, dtype=dtype)
        d = zeros if type(d) is float and d == 0.0 else zeros + d  # (zeros + 0.0: the same zeros, a copy)
    kind, g_kind = type(index), type(g)
    number = g_kind is float or g_kind is numpy.float64  # (a number read from a float64 array is NumPy's float64)
    same = g_kind is numpy.ndarray and g.dtype == d.dtype or number and d.dtype == numpy.float64
    if same and (kind is int or kind is slice):  # the common reads, x[i] and x[a:b], tested first
        d[index] += g
        return d
    parts = index if kind is tuple else (index,)
    if same and all(type(p) is slice or type(p) is int or p is Ellipsis or p is None for p in parts):
        d[index] += g  # a basic index names each entry once: the same sums, without numpy.add.at's buffers
        return d
    numpy.add.at(d, index, g)
    return d
''',
    }
)

NUMPY_HELPERS.update(
    {
        "array_like": '''def array_like(d, x):
    """The cotangent (or tangent) d of the array x as an array of x's shape and floating dtype (d may
    be the number 0.0, or of another dtype: a float32 array gets a float32 cotangent)."""
    import numpy

    if type(x) is not numpy.ndarray:  # a number's cotangent stays a number (not a 0-d array)
        d = d[()] if type(d) is numpy.ndarray and d.ndim == 0 else d
        narrow = isinstance(d, numpy.floating) and type(d) is not numpy.float64  # (float32: x's cotangent a float)
        return float(d) if type(x) is float and narrow else d
    dtype = x.dtype if x.dtype.kind in "fc" else numpy.result_type(x, numpy.float32)
    if type(d) is numpy.ndarray and d.shape == x.shape:
        return d if d.dtype is dtype else d.astype(dtype)
    out = numpy.zeros(x.shape, dtype=dtype)
    out[...] = d
    return out
''',
        "take_and_clear": '''def take_and_clear(d, x, index):
    """(d with d[index] set to zero, the old d[index]): the adjoint of writing x[index] = v.  Where an
    integer index repeats a position, NumPy keeps the last value written there: the earlier ones
    get no cotangent."""
    import numpy

    if not isinstance(d, numpy.ndarray) or d.shape != numpy.shape(x) or not d.flags.writeable:
        d = numpy.zeros(numpy.shape(x), dtype=numpy.result_type(x, numpy.float32)) + d
    part = numpy.copy(d[index])
    parts = index if type(index) is tuple else (index,)
    if any(isinstance(p, (list, numpy.ndarray)) and numpy.asarray(p).dtype.kind in "iu" for p in parts):
        order = numpy.arange(numpy.size(part)).reshape(numpy.shape(part))
        last = numpy.full(numpy.shape(x), -1)
        last[index] = order  # each position holds the number of the last write into it
        part = numpy.where(last[index] == order, part, 0.0)
    d[index] = 0.0
    return d, part
''',
    }
)
NUMPY_HELPERS.update(helper_forms("python"))  # of the primitives written as records (rules.families)
