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
    if not isinstance(x, types.Array):
        return lambda d, x: d
    if not isinstance(d, types.Array):
        return lambda d, x: numpy.full(x.shape, d)
    if d.ndim > x.ndim:
        return None
    if d.ndim < x.ndim:
        return lambda d, x: numpy.broadcast_to(d, x.shape).copy()

    def same_ndim(d, x):
        return d if d.shape == x.shape else numpy.broadcast_to(d, x.shape).copy()

    return same_ndim
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
    "matmul_vjp_a": '''def matmul_vjp_a(g, a, b):
    """The cotangent of a in a @ b (compiled code only: see the overload below)."""
    raise TypeError("matmul_vjp_a is called from code numba.njit compiles")


@numba.extending.overload(matmul_vjp_a)
def _numba_matmul_vjp_a(g, a, b):
    """g b^T for matrices, the outer product g b^T for a matrix times a vector, b g for a vector times a
    matrix, g b for two vectors."""
    types = numba.core.types
    if not (isinstance(a, types.Array) and isinstance(b, types.Array) and 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return None
    if a.ndim == 2 and b.ndim == 2:
        return lambda g, a, b: numpy.dot(g, numpy.ascontiguousarray(b.T))
    if a.ndim == 2:
        return lambda g, a, b: numpy.outer(g, b)
    if b.ndim == 2:
        return lambda g, a, b: numpy.dot(b, g)
    return lambda g, a, b: g * b
''',
    "matmul_vjp_b": '''def matmul_vjp_b(g, a, b):
    """The cotangent of b in a @ b (compiled code only: see the overload below)."""
    raise TypeError("matmul_vjp_b is called from code numba.njit compiles")


@numba.extending.overload(matmul_vjp_b)
def _numba_matmul_vjp_b(g, a, b):
    """a^T g for matrices and for a matrix times a vector, the outer product a g^T for a vector times a
    matrix, g a for two vectors."""
    types = numba.core.types
    if not (isinstance(a, types.Array) and isinstance(b, types.Array) and 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return None
    if a.ndim == 2:
        return lambda g, a, b: numpy.dot(numpy.ascontiguousarray(a.T), g)
    if b.ndim == 2:
        return lambda g, a, b: numpy.outer(a, g)
    return lambda g, a, b: g * a
''',
}
