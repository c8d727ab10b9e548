"""Reads and writes of an array at arrays of coordinates (``Q[rows, cols] = lk``), spelled for Numba.

NumPy reads ``x[(i0, i1)]``, a tuple of integer arrays, as one element per position k, ``x[i0[k], i1[k]]``;
Numba takes at most one array among the indices.  Generated code indexes by a name bound to a tuple
(``t3 = (rows, cols)``, then ``Q[t3]``): ``translate`` writes each such read ``read_at(x, t3)`` and each such
write ``write_at(x, t3, v)``, helpers whose overloads do NumPy's work element by element where the index
is a tuple of 1-D integer arrays, one per axis, and are ``x[t3]`` itself for any other index (a tuple of
integers and slices: ``A[t5]`` of ``t5 = (rows[0], cols[0])``).  The adjoint of such a write,
``take_and_clear`` (``runtime``), takes the same indices.  A position named twice is written twice, the
last value staying, as NumPy does.
"""

from __future__ import annotations

# The place in x.reshape(-1) of the k-th coordinates of index (a tuple of 1-D integer arrays, one per axis of
# x; negative ones from the end), checked as NumPy checks them: a function each overload below defines.
COORDINATE = """
    @numba.njit(inline="always")
    def coordinate(x, index, k):
        at = 0
        for a in range(x.ndim):
            if len(index[a]) != len(index[0]):
                raise IndexError("shape mismatch: indexing arrays could not be broadcast together")
            i = index[a][k]
            n = x.shape[a]
            if i < 0:
                i += n
            if i < 0 or i >= n:
                raise IndexError("index out of bounds")
            at = at * n + i
        return at

"""

# Is (x, index) an array and a tuple of 1-D integer arrays, one per axis: the overloads' test.
COORDINATES = """
    types = numba.core.types
    coordinates = (
        isinstance(x, types.Array)
        and x.layout == "C"
        and isinstance(index, types.UniTuple)
        and len(index) == x.ndim
        and isinstance(index.dtype, types.Array)
        and index.dtype.ndim == 1
        and isinstance(index.dtype.dtype, types.Integer)
    )
"""

# Is index a boolean mask of x's number of axes, x a C-ordered array (one C-ordered line of entries, which a
# mask's entries name in C order: Numba's own x[mask] takes a mask of one axis only): the overloads' test.
MASK = """
    mask = (
        isinstance(x, types.Array)
        and x.layout == "C"
        and isinstance(index, types.Array)
        and isinstance(index.dtype, types.Boolean)
        and index.ndim == x.ndim
    )
"""

# Merged into runtime.NUMBA_HELPERS.
COORDINATE_HELPERS = {
    "read_at": '''def read_at(x, index):
    """x[index] (compiled code only: see the overload below)."""
    raise TypeError("read_at is called from code numba.njit compiles")


@numba.extending.overload(read_at)
def _numba_read_at(x, index):
    """x[index]: for a tuple of 1-D integer arrays, one per axis of a C-ordered x, the elements at those
    coordinates (NumPy's advanced index), one array; for a boolean mask of x's shape and more than one axis,
    the entries where it is true, in C order (Numba reads a mask of one axis only); for any other index,
    Numba's own x[index]."""
'''
    + COORDINATES
    + COORDINATE
    + """    if isinstance(index, types.Array) and isinstance(index.dtype, types.Boolean) and index.ndim > 1:
        if not isinstance(x, types.Array) or x.ndim != index.ndim:
            return None

        def masked(x, index):
            if index.shape != x.shape:
                raise IndexError("boolean index did not match indexed array")
            return x.ravel()[index.ravel()]

        return masked
    if not coordinates:
        return lambda x, index: x[index]

    def impl(x, index):
        m = len(index[0])
        out = numpy.empty(m, x.dtype)
        flat = x.reshape(-1)
        for k in range(m):
            out[k] = flat[coordinate(x, index, k)]
        return out

    return impl
""",
    "write_at": '''def write_at(x, index, v):
    """x[index] = v (compiled code only: see the overload below)."""
    raise TypeError("write_at is called from code numba.njit compiles")


@numba.extending.overload(write_at)
def _numba_write_at(x, index, v):
    """x[index] = v: for a tuple of 1-D integer arrays, one per axis of a C-ordered x, v (a number, or one
    value per position) written at those coordinates in their order (a position named twice keeps the
    last, as in NumPy); for a boolean mask of x's shape (x C-ordered), v (a number, or one value per true
    entry) written where it is true, in C order; for any other index, Numba's own x[index] = v."""
'''
    + COORDINATES
    + MASK
    + COORDINATE
    + """    if mask:

        def masked(x, index, v):
            if index.shape != x.shape:
                raise IndexError("boolean index did not match indexed array")
            x.reshape(-1)[index.ravel()] = v

        return masked
    if not coordinates:

        def native(x, index, v):
            x[index] = v

        return native
    if isinstance(v, types.Array) and v.ndim != 1:
        return None
    if not isinstance(v, types.Array):

        def number(x, index, v):
            flat = x.reshape(-1)
            for k in range(len(index[0])):
                flat[coordinate(x, index, k)] = v

        return number

    def impl(x, index, v):
        m = len(index[0])
        if len(v) != m and len(v) != 1:
            raise ValueError("shape mismatch: value array could not be broadcast to indexing result")
        flat = x.reshape(-1)
        for k in range(m):
            flat[coordinate(x, index, k)] = v[k if len(v) == m else 0]

    return impl
""",
}
