"""Reductions along an axis in the Numba target: ``np.min(d, axis=1)``, ``np.mean(x, axis=0)``, ...

Numba's ``np.min``, ``np.max``, ``np.mean`` and ``np.prod`` take no ``axis``, and its ``np.sum`` no
``keepdims`` (and is slow along an axis).  ``translate`` writes such a call of the generated code as
``reduce_along(x, "min", 1, False)``, whose overload reduces each line of x along the axis: min and max
by a loop of comparisons, a sum of floats by a loop of additions, the others with Numba's function of a
vector (the axis and ``keepdims`` are literals of the generated code, so the result's shape is known
when the caller is compiled).  Their derivatives' helpers (``extreme_jvp``, ``extreme_vjp``, ``unreduce``)
take the axis in ``runtime``.
"""

from __future__ import annotations

REDUCED = ("min", "max", "amin", "amax", "mean", "prod")  # numpy.<kind>(x, axis) Numba has no axis for
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
    if not isinstance(axis, types.IntegerLiteral) or not isinstance(keepdims, (types.BooleanLiteral, types.Omitted)):
        return None
    name, at, kept = kind.literal_value, axis.literal_value, getattr(keepdims, "literal_value", False)
    at = at + x.ndim if at < 0 else at
    if not 0 <= at < x.ndim or name not in ("min", "max", "amin", "amax", "mean", "prod", "sum"):
        return None
    before = " * ".join(f"x.shape[{d}]" for d in range(at)) or "1"
    after = " * ".join(f"x.shape[{d}]" for d in range(at + 1, x.ndim)) or "1"
    shape = "".join(f"x.shape[{d}], " if d != at else "1, " for d in range(x.ndim) if d != at or kept)
    result = "out.reshape((" + shape + "))" if shape else "out[0, 0]"
    dtype = "numpy.float64" if name == "mean" else "x.dtype"
    contiguous = "x" if x.layout == "C" else "numpy.ascontiguousarray(x)"
    each = f"""for j in range(lines.shape[2]):
            out[i, j] = numpy.{name}(lines[i, :, j])"""
    if name in ("min", "max", "amin", "amax"):  # a loop of comparisons, without a view a line; a NaN kept
        beats = "<" if name in ("min", "amin") else ">"
        each = f"""for j in range(lines.shape[2]):
            best = lines[i, 0, j]
            for t in range(1, lines.shape[1]):
                v = lines[i, t, j]
                if v {beats} best or v != v and best == best:
                    best = v
            out[i, j] = best"""
    elif name == "sum" and isinstance(x.dtype, types.Float):  # each line added in order
        each = """for j in range(lines.shape[2]):
            total = 0.0
            for t in range(lines.shape[1]):
                total += lines[i, t, j]
            out[i, j] = total"""
    elif name == "sum":  # integers and booleans: NumPy's sum of each line (of a wider integer type)
        dtype = "numpy.uint64" if isinstance(x.dtype, types.Integer) and not x.dtype.signed else "numpy.int64"
        dtype = dtype if isinstance(x.dtype, (types.Integer, types.Boolean)) else "x.dtype"
    code = f"""def impl(x, kind, axis, keepdims):
    lines = {contiguous}.reshape(({before}, x.shape[{at}], {after}))
    if lines.shape[1] == 0 and {name in ("min", "max", "amin", "amax")}:
        raise ValueError("zero-size array to reduction operation {name} which has no identity")
    out = numpy.empty((lines.shape[0], lines.shape[2]), {dtype})
    for i in range(lines.shape[0]):
        {each}
    return {result}
"""
    scope = {"numpy": numpy}
    exec(code, scope)
    return scope["impl"]
''',
}
