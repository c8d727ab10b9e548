"""Reductions along an axis in the Numba target: ``np.min(d, axis=1)``, ``np.mean(x, axis=0)``, ...

Numba's ``np.min``, ``np.max``, ``np.mean``, ``np.prod`` and ``np.ptp`` take no ``axis``, and its ``np.sum`` no
``keepdims`` (and is slow along an axis).  ``translate`` writes such a call of the generated code as
``reduce_along(x, "min", 1, False)``, whose overload reduces each line of x along the axis: min and max
by a loop of comparisons, a sum of floats by a loop of additions, the others with Numba's function of a
vector (the axis and ``keepdims`` are literals of the generated code, so the result's shape is known
when the caller is compiled).  The derivatives of min and max are here too (``extreme_jvp``,
``extreme_vjp``: the cotangent counted and shared by a loop over the lines); ``unreduce``, the sum's
adjoint, is in ``runtime``.  ``numpy.linalg.norm(x)`` is written ``vector_norm(x)``: a loop for a vector of floats.
"""

from __future__ import annotations

REDUCED = ("min", "max", "amin", "amax", "mean", "prod", "ptp")  # numpy.<kind>(x, axis) Numba has no axis for
LINES = ("cumsum", "flip", "sort")  # numpy.<kind>(x, axis), the same shape, Numba has no axis for: along_lines
KEEPDIMS = ("sum",)  # ... and those it has no keepdims for (or a slower loop: a sum along a constant axis)

# Merged into runtime.NUMBA_HELPERS.
REDUCTION_HELPERS = {
    "reduce_along": '''def reduce_along(x, kind, axis, keepdims):
    """numpy.<kind>(x, axis=axis, keepdims=keepdims) (compiled code only: see the overload below)."""
    raise TypeError("reduce_along is called from code numba.njit compiles")


@numba.extending.overload(reduce_along, prefer_literal=True)
def _numba_reduce_along(x, kind, axis, keepdims):
    """numpy.<kind> of each line of the array x along one axis (an integer, negative from the end):
    x read as (the axes before, the axis, the axes after), a vector reduced for each pair of the others
    (min and max by a loop of comparisons, a sum of floats by a loop of additions)."""
    types = numba.core.types
    if not isinstance(x, types.Array) or not isinstance(kind, types.StringLiteral):
        return None
    if isinstance(axis, types.NoneType) and isinstance(keepdims, types.BooleanLiteral) and keepdims.literal_value:
        return _reduced_kept(x, kind.literal_value)  # (every axis, kept of length 1)
    if isinstance(axis, types.NoneType) and not getattr(keepdims, "literal_value", False):
        # every axis, keepdims False or a variable (a rule's axis=None, keepdims=False handed on: np.nanmean's):
        # NumPy's own reduction, which Numba compiles (a number: True would need another type)
        reduced = {"amin": "min", "amax": "max"}.get(kind.literal_value, kind.literal_value)
        if reduced not in ("sum", "mean", "prod", "min", "max", "ptp"):
            return None
        code = f"""def whole(x, kind, axis, keepdims):
    if keepdims:
        raise ValueError("keepdims=True of a reduction of every axis, given as a variable, in compiled code")
    return numpy.{reduced}(x)
"""
        scope = {"numpy": numpy}
        exec(code, scope)
        return scope["whole"]
    if not isinstance(axis, types.IntegerLiteral) or not isinstance(keepdims, (types.BooleanLiteral, types.Omitted)):
        return None
    name, at, kept = kind.literal_value, axis.literal_value, getattr(keepdims, "literal_value", False)
    at = at + x.ndim if at < 0 else at
    if not 0 <= at < x.ndim or name not in ("min", "max", "amin", "amax", "mean", "prod", "ptp", "sum"):
        return None
    before, after, result = _lines(x, at, kept)
    dtype = "numpy.float64" if name == "mean" else "x.dtype"
    contiguous = "x" if x.layout == "C" else "numpy.ascontiguousarray(x)"
    shape, width, line = _line_view(x, at, before, after)
    each = f"""for j in range({width}):
            out[i, j] = numpy.{name}({line.format("lines", ":")})"""
    if name in ("min", "max", "amin", "amax"):  # a loop of comparisons, without a view a line; its first NaN
        beats = "<" if name in ("min", "amin") else ">"  # where it has one (looked for only then: a test a
        each = f"""for j in range({width}):
            best = {line.format("lines", 0)}
            nan = best != best
            for t in range(1, lines.shape[1]):
                v = {line.format("lines", "t")}
                if v {beats} best:
                    best = v
                nan |= v != v
            if nan:
                for t in range(lines.shape[1]):
                    if {line.format("lines", "t")} != {line.format("lines", "t")}:
                        best = {line.format("lines", "t")}
                        break
            out[i, j] = best"""  # comparison more in the loop took 1.7x its time)
    elif name == "sum" and isinstance(x.dtype, types.Float) and width == "1":  # each line added in order
        each = f"""total = 0.0
        for t in range(lines.shape[1]):
            total += {line.format("lines", "t")}
        out[i, 0] = total"""
    elif name == "sum" and isinstance(x.dtype, types.Float):  # each line added in order, the lines side by
        each = """for j in range(lines.shape[2]):  # side (an axis before the last: read in the order of memory)
            out[i, j] = 0.0
        for t in range(lines.shape[1]):
            for j in range(lines.shape[2]):
                out[i, j] += lines[i, t, j]"""
    elif name == "sum":  # integers and booleans: NumPy's sum of each line (of a wider integer type)
        dtype = "numpy.uint64" if isinstance(x.dtype, types.Integer) and not x.dtype.signed else "numpy.int64"
        dtype = dtype if isinstance(x.dtype, (types.Integer, types.Boolean)) else "x.dtype"
    code = f"""def impl(x, kind, axis, keepdims):
    lines = {contiguous}.reshape({shape})
    if lines.shape[1] == 0 and {name in ("min", "max", "amin", "amax")}:
        raise ValueError("zero-size array to reduction operation {name} which has no identity")
    out = numpy.empty((lines.shape[0], {width}), {dtype})
    for i in range(lines.shape[0]):
        {each}
    return {result}
"""
    scope = {"numpy": numpy}
    exec(code, scope)
    return scope["impl"]


def _lines(x, at: int, kept: bool, name: str = "x") -> tuple:
    """The Python text of (the length of the axes before ``at``, of those after, the result of an ``out`` of
    shape (before, after) as the reduction's shape) for an array type ``x`` held by the variable ``name``."""
    before = " * ".join(f"{name}.shape[{d}]" for d in range(at)) or "1"
    after = " * ".join(f"{name}.shape[{d}]" for d in range(at + 1, x.ndim)) or "1"
    shape = "".join(f"{name}.shape[{d}], " if d != at else "1, " for d in range(x.ndim) if d != at or kept)
    return before, after, "out.reshape((" + shape + "))" if shape else "out[0, 0]"


def _line_view(x, at: int, before: str, after: str) -> tuple:
    """The Python text of (the shape ``lines`` reads x as, the number of lines a pair (i, t) holds, the entry t
    of line (i, j) of an array of that shape, ``{}`` for the array and ``{}`` for t): x as (the axes before, the axis, the axes after), or, reduced along its
    last axis, as (the axes before, the axis), read with two indices (the loops LLVM makes fast)."""
    if at == x.ndim - 1:
        return f"({before}, x.shape[{at}])", "1", "{}[i, {}]"
    return f"({before}, x.shape[{at}], {after})", "lines.shape[2]", "{}[i, {}, j]"


def _reduced_kept(x, name):
    """reduce_along's impl for every axis kept (``numpy.sum(x, keepdims=True)``): the reduction of all of x
    in an array of x's ndim, each axis of length 1."""
    if name not in ("min", "max", "amin", "amax", "mean", "prod", "ptp", "sum"):
        return None
    ones = "(" + "1, " * x.ndim + ")"
    code = f"def kept(x, kind, axis, keepdims):\\n    return numpy.full({ones}, numpy.{name}(x))\\n"
    scope = {"numpy": numpy}
    exec(code, scope)
    return scope["kept"]
''',
    "sum_product_along": '''def sum_product_along(a, b, axis, keepdims):
    """numpy.sum(a * b, axis=axis, keepdims=keepdims) (compiled code only: see the overload below)."""
    raise TypeError("sum_product_along is called from code numba.njit compiles")


@numba.extending.overload(sum_product_along, prefer_literal=True)
def _numba_sum_product_along(a, b, axis, keepdims):
    """The sum of a * b along one axis without the array of the products (``np.sum(z * z, axis=1)``, the
    squared lengths of rows, GradBench gmm's): for two float64 arrays of one shape, each line's products added
    in order, the numbers reduce_along gives for the line of the products; else (arrays that broadcast,
    other dtypes) reduce_along of the product."""
    types = numba.core.types
    if not isinstance(axis, types.IntegerLiteral) or not isinstance(keepdims, types.BooleanLiteral):
        return None
    at, kept = axis.literal_value, keepdims.literal_value
    product = f"reduce_along(a * b, 'sum', {at}, {kept})"
    floats = all(isinstance(t, types.Array) and t.dtype == types.float64 for t in (a, b))
    if not floats or a.ndim != b.ndim or not -a.ndim <= at < a.ndim:
        code = f"def impl(a, b, axis, keepdims):\\n    return {product}\\n"
    else:
        at = at + a.ndim if at < 0 else at
        before, after, result = _lines(a, at, kept, "a")
        left, right = ("{0}" if t.layout == "C" else "numpy.ascontiguousarray({0})" for t in (a, b))
        rows = a.ndim == 2 and at == 1  # (each row's: read in place, a view of another shape is slower)
        code = f"""def impl(a, b, axis, keepdims):
    if a.shape != b.shape:
        return {product}
    if {rows}:
        out = numpy.empty((a.shape[0], 1))
        for i in range(a.shape[0]):
            total = 0.0
            for t in range(a.shape[1]):
                total += a[i, t] * b[i, t]
            out[i, 0] = total
        return {result}
    left = {left.format("a")}.reshape(({before}, a.shape[{at}], {after}))
    right = {right.format("b")}.reshape(({before}, a.shape[{at}], {after}))
    out = numpy.empty((left.shape[0], left.shape[2]))
    for i in range(left.shape[0]):
        for j in range(left.shape[2]):
            total = 0.0
            for t in range(left.shape[1]):
                total += left[i, t, j] * right[i, t, j]
            out[i, j] = total
    return {result}
"""
    scope = {"numpy": numpy, "reduce_along": reduce_along}
    exec(code, scope)
    return scope["impl"]
''',
    "along_lines": '''def along_lines(x, kind, axis):
    """numpy.<kind>(x, axis) for cumsum, flip, sort and argsort (compiled code only: see the overload below)."""
    raise TypeError("along_lines is called from code numba.njit compiles")


@numba.extending.overload(along_lines, prefer_literal=True)
def _numba_along_lines(x, kind, axis):
    """numpy.cumsum, numpy.flip, numpy.sort and numpy.argsort along one axis (an integer, negative from the end),
    which Numba's take none: x read as (the axes before, the axis, the axes after), each line summed in order,
    read backwards, sorted or ranked into a new C-ordered array (a cumsum of floats is of floats; of integers
    and booleans, and an argsort, of integers)."""
    types = numba.core.types
    if not isinstance(x, types.Array) or not isinstance(kind, types.StringLiteral):
        return None
    if not isinstance(axis, types.IntegerLiteral) or kind.literal_value not in ("cumsum", "flip", "sort", "argsort"):
        return None
    at = axis.literal_value + x.ndim if axis.literal_value < 0 else axis.literal_value
    if not 0 <= at < x.ndim:
        return None
    floats = isinstance(x.dtype, (types.Float, types.Complex))  # (an argsort's places: integers)
    same = kind.literal_value in ("flip", "sort") or kind.literal_value == "cumsum" and floats
    dtype = x.dtype if same else types.int64
    before = " * ".join(f"x.shape[{d}]" for d in range(at)) or "1"
    after = " * ".join(f"x.shape[{d}]" for d in range(at + 1, x.ndim)) or "1"
    contiguous = "x" if x.layout == "C" else "numpy.ascontiguousarray(x)"
    each = (
        """total = outs[i, 0, j] = lines[i, 0, j]
            for t in range(1, n):
                total = outs[i, t, j] = total + lines[i, t, j]"""
        if kind.literal_value == "cumsum"
        else """for t in range(n):
                outs[i, t, j] = lines[i, n - 1 - t, j]"""
        if kind.literal_value == "flip"
        else f"""line = numpy.{kind.literal_value}(lines[i, :, j].copy())
            for t in range(n):
                outs[i, t, j] = line[t]"""
    )
    code = f"""def by_lines(x, kind, axis):
    n = x.shape[at]
    out = numpy.empty(x.shape, dtype)
    if out.size == 0:
        return out
    lines = {contiguous}.reshape(({before}, n, {after}))
    outs = out.reshape(({before}, n, {after}))
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            {each}
    return out
"""
    scope = {"numpy": numpy, "at": at, "dtype": numba.np.numpy_support.as_dtype(dtype)}
    exec(code, scope)
    return scope["by_lines"]
''',
    "vector_norm": '''def vector_norm(x):
    """numpy.linalg.norm(x) (compiled code only: see the overload below)."""
    raise TypeError("vector_norm is called from code numba.njit compiles")


@numba.extending.overload(vector_norm)
def _numba_vector_norm(x):
    """numpy.linalg.norm(x) of a vector of float64 as NumPy computes it, the square root of x's dot with
    itself, by a loop (Numba's own norm scales against overflow, as BLAS's nrm2 does: two to three times
    the time of the loop on a short vector, GradBench particle's positions); of anything else, Numba's."""
    types = numba.core.types
    if not (isinstance(x, types.Array) and x.ndim == 1 and x.dtype == types.float64):
        return lambda x: numpy.linalg.norm(x)

    def impl(x):
        s = 0.0
        for k in range(x.shape[0]):
            s += x[k] * x[k]
        return numpy.sqrt(s)

    return impl
''',
    "matrix_norm": '''def matrix_norm(x, kind):
    """numpy.linalg.norm(x, "nuc") or (x, "fro") (compiled code only: see the overload below)."""
    raise TypeError("matrix_norm is called from code numba.njit compiles")


@numba.extending.overload(matrix_norm, prefer_literal=True)
def _numba_matrix_norm(x, kind):
    """The nuclear norm (the sum of the singular values) or the Frobenius norm of a matrix, which Numba's
    numpy.linalg.norm refuses as it runs ("Invalid norm order for matrices")."""
    types = numba.core.types
    if not (isinstance(x, types.Array) and x.ndim == 2 and isinstance(kind, types.StringLiteral)):
        return None
    if kind.literal_value == "nuc":
        return lambda x, kind: numpy.sum(numpy.linalg.svd(numpy.ascontiguousarray(x), False)[1])
    if kind.literal_value == "fro":
        return lambda x, kind: numpy.sqrt(numpy.sum(x * x))
    return None
''',
}
