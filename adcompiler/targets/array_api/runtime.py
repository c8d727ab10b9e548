"""Runtime helpers of ``arrays="any"`` code, kept as source text: the array API standard's
functions of ``xp``, the namespace of the helper's own arguments (``namespace``), in place of the
NumPy helpers of the same name (``runtime_numpy``), which ``translate.helper_texts`` puts in their place.

Each keeps the NumPy helper's meaning (its docstring there says what it computes) and needs no
item assignment: Dask arrays are built as graphs, and array-api-strict holds code to the standard.
A helper a NumPy helper has no version of here is refused where the code calls it
(``translate``).  ``namespace`` imports ``array_api_compat``, an optional dependency.
"""

from ..python.runtime import HELPERS
from ...rules.families import helper_forms

XP_HELPERS: dict = {}

XP_HELPERS.update(
    {
        "namespace": '''def namespace(*values):
    """The array API namespace of the arrays among values (lists and tuples looked into): another
    library's when there is one (NumPy arrays beside it go into its functions as they are), else NumPy's."""
    import array_api_compat

    found = {}
    stack = list(values)
    while stack:
        v = stack.pop()
        if type(v) is list or type(v) is tuple:
            stack.extend(v)
        elif not isinstance(v, (int, float, complex)) and array_api_compat.is_array_api_obj(v):
            xp = array_api_compat.array_namespace(v)
            found[xp.__name__] = xp
    if len(found) > 1:
        found.pop("array_api_compat.numpy", None)
    if len(found) > 1:
        raise TypeError(f"arrays of several libraries ({', '.join(sorted(found))}): pass arrays of one library (NumPy arrays may go with another library's)")
    if found:
        return with_numbers(found.popitem()[1])
    import numpy

    return array_api_compat.array_namespace(numpy.empty(0))
''',
        "shape_of": '''def shape_of(x):
    """numpy.shape(x) of an array of any library, a number or a list of numbers."""
    shape = getattr(x, "shape", None)
    if shape is None:
        import numpy

        return numpy.shape(x)
    return tuple(shape)
''',
        "ndim_of": '''def ndim_of(x):
    """numpy.ndim(x) of an array of any library, a number or a list of numbers."""
    return len(shape_of(x))
''',
        "size_of": '''def size_of(x):
    """numpy.size(x) of an array of any library, a number or a list of numbers."""
    n = 1
    for k in shape_of(x):
        n *= k
    return n
''',
        "floating": '''def floating(xp, x):
    """The floating dtype of x's cotangent: x's own if it is floating, else float64."""
    dtype = getattr(x, "dtype", None)
    if dtype is not None and xp.isdtype(dtype, "real floating"):
        return dtype
    return xp.float64
''',
        "transpose": '''def transpose(x, axes=None):
    """numpy.transpose(x, axes): the axes reversed when none are given."""
    if not hasattr(x, "shape"):
        return x
    xp = namespace(x)
    return xp.permute_dims(x, tuple(reversed(range(len(x.shape)))) if axes is None else tuple(axes))
''',
        "copy_of": '''def copy_of(x, dtype=None):
    """numpy.copy(x), numpy.array(x, dtype=...): a new array holding x's values (of the dtype named: a cast)."""
    if type(x) is list or type(x) is tuple:  # np.array([y[1], -p[0] * y[0]]): its entries stacked
        xp = namespace(x)
        items = [copy_of(e) if type(e) is list or type(e) is tuple else e for e in x]
        if any(hasattr(e, "shape") for e in items):  # (numbers beside arrays: 0-d arrays of their own)
            out = xp.stack([e if hasattr(e, "shape") else xp.asarray(e) for e in items])
        else:
            out = xp.asarray(items)
        return out if dtype is None else xp.astype(out, getattr(xp, dtype) if isinstance(dtype, str) else dtype)
    if not hasattr(x, "shape"):
        return x
    xp = namespace(x)
    if dtype is None:
        return xp.asarray(x, copy=True)
    return xp.asarray(x, dtype=getattr(xp, dtype) if isinstance(dtype, str) else dtype, copy=True)
''',
        "dot": '''def dot(a, b):
    """numpy.dot(a, b) of numbers, vectors and matrices (a number multiplies)."""
    if ndim_of(a) == 0 or ndim_of(b) == 0:
        return a * b
    if ndim_of(a) > 2 or ndim_of(b) > 2:
        raise ValueError("np.dot of arrays of more than two dimensions under arrays='any': write np.matmul or np.tensordot")
    return namespace(a, b).matmul(a, b)
''',
        "outer": '''def outer(a, b):
    """numpy.outer(a, b): the product of every entry of a with every entry of b."""
    xp = namespace(a, b)
    return xp.reshape(xp.asarray(a), (-1, 1)) * xp.reshape(xp.asarray(b), (1, -1))
''',
    }
)

XP_HELPERS.update(
    {
        "unbroadcast": '''def unbroadcast(g, x):
    """Sum g down to the shape of x: the adjoint of broadcasting x up to g's shape."""
    shape, g_shape = shape_of(x), shape_of(g)
    if g_shape == shape:
        return g
    xp = namespace(g, x)
    if not shape:
        return xp.sum(g)
    if not g_shape:
        return xp.full_like(x, g, dtype=floating(xp, x))  # (x's chunks, for a Dask array)
    if len(g_shape) > len(shape):
        g = xp.sum(g, axis=tuple(range(len(g_shape) - len(shape))))
    k = len(g.shape)  # (aligned from the last axis: g may lack some of x's first ones)
    axes = tuple(a for a in range(k) if shape[a - k] == 1 and g.shape[a] != 1)
    g = xp.sum(g, axis=axes, keepdims=True) if axes else g
    # g from a number cotangent times the other operand (not the result's shape): alike along x's other axes
    return g if tuple(g.shape) == tuple(shape) else g + xp.zeros(shape, dtype=g.dtype)
''',
        "add_new": '''def add_new(acc, c):
    """acc += c for an element acc of a shadow list."""
    acc += c
    return acc
''',
        "sum_all": '''def sum_all(g):
    """numpy.sum(g): all of g's entries added up."""
    xp = namespace(g)
    return xp.sum(g)
''',
        "unreduce": '''def unreduce(g, x, axis=None, keepdims=False):
    """Spread g, a reduction of x over axis, back over x's shape (the adjoint of sum)."""
    shape = shape_of(x)
    if not shape and not hasattr(x, "shape"):
        return g
    xp = namespace(g, x)
    dtype = floating(xp, x)
    if not hasattr(g, "shape"):
        return xp.full_like(x, g, dtype=dtype)  # (x's chunks, for a Dask array)
    if axis is not None and not keepdims:
        for a in sorted(k % len(shape) for k in (axis if type(axis) is tuple else (axis,))):
            g = xp.expand_dims(g, axis=a)
    return xp.broadcast_to(g, shape)
''',
        "array_like": '''def array_like(d, x):
    """The tangent (or cotangent) d of the array x as an array of x's shape and floating dtype."""
    if type(x) is float and hasattr(d, "dtype") and hasattr(d, "shape"):  # a float's cotangent: of float64
        xp = namespace(d)
        return d if d.dtype == xp.float64 else xp.astype(d, xp.float64)
    if isinstance(x, (int, float, complex)) or not hasattr(x, "shape"):
        return d
    xp = namespace(d, x)
    dtype = floating(xp, x)
    if hasattr(d, "shape") and tuple(d.shape) == tuple(x.shape):
        return d if d.dtype == dtype else xp.astype(d, dtype)
    return xp.astype(xp.zeros(x.shape, dtype=dtype) + d, dtype)
''',
    }
)

XP_HELPERS.update(
    {
        "scatter_add": '''def scatter_add(d, x, index, g):
    """The adjoint d of x with g added at x[index], with no item assignment: slices and integers by
    zeros joined around g, one array of integers (repeats adding up) by a product with the one-hot
    matrix of its entries (memory: its length times x's first dimension)."""
    xp = namespace(d, x, g)
    shape, dtype = shape_of(x), floating(xp, x)
    parts = list(index) if type(index) is tuple else [index]
    if any(p is None for p in parts):  # x[:, None]: g has an axis of length 1 for each None, x none
        parts = [p for p in parts if p is not None]
        g = xp.reshape(xp.asarray(g), tuple(shape_of(x[tuple(parts)])))
    whole = all(p is Ellipsis or p == slice(None) for p in parts[1:])
    if whole and (hasattr(parts[0], "shape") or type(parts[0]) is list):  # one integer array, on the first axis
        where = xp.reshape(xp.asarray(parts[0]), (-1,))
        if not xp.isdtype(where.dtype, "integral"):
            raise TypeError(f"x[mask] of a boolean mask under arrays='any' ({xp.__name__}): write np.where(mask, x, 0.0)")
        n = shape[0]
        onehot = xp.astype(xp.reshape(where % n, (-1, 1)) == xp.reshape(xp.arange(n), (1, -1)), dtype)
        flat = xp.reshape(xp.astype(xp.asarray(g), dtype), (onehot.shape[0], -1))
        return d + xp.reshape(xp.matmul(xp.matrix_transpose(onehot), flat), shape)
    if Ellipsis in parts:
        k = parts.index(Ellipsis)
        parts[k : k + 1] = [slice(None)] * (len(shape) - len(parts) + 1)
    parts += [slice(None)] * (len(shape) - len(parts))
    spans = []
    for p, n in zip(parts, shape):
        if type(p) is int:
            spans.append((p % n, p % n + 1, False))
        elif type(p) is slice and p.step in (None, 1):
            lo, hi, _ = p.indices(n)
            spans.append((lo, max(lo, hi), True))
        else:
            raise TypeError(f"the adjoint of x[{index!r}] under arrays='any' ({xp.__name__}): index with integers, slices of step 1 or one integer array")
    out = xp.broadcast_to(xp.astype(xp.asarray(g), dtype), tuple(hi - lo for lo, hi, kept in spans if kept))
    for axis, (lo, hi, kept) in enumerate(spans):  # axes before this one are whole already
        out = out if kept else xp.expand_dims(out, axis=axis)
        rest = tuple(out.shape[axis + 1 :])
        before = xp.zeros(shape[:axis] + (lo,) + rest, dtype=dtype)
        after = xp.zeros(shape[:axis] + (shape[axis] - hi,) + rest, dtype=dtype)
        out = xp.concat([before, out, after], axis=axis)
    return d + out
''',
    }
)

XP_HELPERS["take_and_clear"] = '''def take_and_clear(d, x, index):
    """(d with d[index] set to zero, the old d[index]): the adjoint of writing x[index] = v, with no
    item assignment (the cleared positions by the mask scatter_add makes)."""
    xp = namespace(d, x)
    dtype = floating(xp, x)
    parts = index if type(index) is tuple else (index,)
    if any(hasattr(p, "shape") or type(p) is list for p in parts):
        raise TypeError(f"x[integer array] = v under arrays='any' ({xp.__name__}): its adjoint needs the last write to each position; write x[slice] = v, or use arrays='numpy'")
    d = xp.astype(xp.zeros(shape_of(x), dtype=dtype) + d, dtype)
    part = d[index]
    mask = scatter_add(0.0, x, index, xp.ones(shape_of(part), dtype=dtype))
    return xp.where(mask != 0, xp.zeros_like(d), d), part
'''

_ARRAY = 'type(value).__name__ == "ndarray"'
_ANY_ARRAY = 'hasattr(type(value), "__array_namespace__") or type(value).__module__.startswith("dask.array")'
XP_HELPERS["expect"] = (  # the arguments' checks of a written module: another library's array is an array
    HELPERS["expect"]
    .replace(f"array = {_ARRAY}", f"array = {_ARRAY} or {_ANY_ARRAY}")
    .replace('or type(value).__module__ == "numpy"\n', 'or type(value).__module__ == "numpy" or array\n')
)
assert XP_HELPERS["expect"].count("__array_namespace__") == 1 and XP_HELPERS["expect"].count("or array\n") == 1

XP_HELPERS["shape_like"] = '''def shape_like(x, *others):
    """What the adjoint keeps of an array it reads only for its shape: the array itself (a library's lazy
    or device array keeps its own memory; NumPy's form keeps a broadcast of one number); with others, x
    broadcast to the shape they all broadcast to."""
    if not others:
        return x
    xp = namespace(x, *others)
    return xp.broadcast_arrays(x, *others)[0]
'''

XP_HELPERS.update({})

XP_HELPERS["with_numbers"] = '''def with_numbers(xp):
    """xp, or for array-api-strict, whose elementwise functions take Python numbers only beside an array
    (none in np.sin(0.5), nor in np.where(c, 1.0, 0.0) of a derivative), xp with those functions taking
    them: where no argument is an array, each number is made a 0-d array first (a float one of float64,
    as NumPy's np.sin(0.5) is), so that NumPy code runs on its arrays as on NumPy's."""
    if not getattr(xp, "__name__", "").startswith("array_api_strict"):
        return xp
    made = with_numbers.__dict__.get(id(xp))
    if made is None:
        import types

        def taking_numbers(function, first):
            def call(*args, **keywords):
                if first and type(args[0]) is bool:  # np.where's condition of numbers
                    args = (xp.asarray(args[0]),) + args[1:]
                if not any(hasattr(a, "shape") for a in args[first:]):
                    args = args[:first] + tuple(as_array(xp, a) for a in args[first:])
                return function(*args, **keywords)

            return call

        names = {n: getattr(xp, n) for n in dir(xp) if not n.startswith("__")}
        made = types.SimpleNamespace(**names, __name__=xp.__name__)
        for name in ELEMENTWISE.split():
            if name in names:
                setattr(made, name, taking_numbers(names[name], 1 if name == "where" else 0))
        with_numbers.__dict__[id(xp)] = made
    return made


def as_array(xp, a):
    """A Python number as a 0-d array of xp (a float of float64); anything else as it is."""
    if type(a) is float:
        return xp.asarray(a, dtype=xp.float64)
    return xp.asarray(a) if type(a) in (int, bool) else a


ELEMENTWISE = (
    "abs acos acosh add asin asinh atan atan2 atanh ceil clip copysign cos cosh divide equal exp expm1 floor "
    "greater greater_equal hypot isfinite isinf isnan less less_equal log log10 log1p log2 logaddexp logical_and "
    "logical_not logical_or maximum minimum multiply negative not_equal positive pow round sign sin sinh sqrt "
    "square subtract tan tanh trunc where"
)
'''
XP_HELPERS.update(helper_forms("array_api"))  # of the primitives written as records (rules.families)
