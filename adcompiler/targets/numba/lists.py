"""Lists joined, repeated and sliced, spelled for the Numba target: ``xs + ys``, ``xs * n`` and ``xs[a:b]``
of lists as calls.

Lists reach compiled code as NumPy arrays, on which ``+`` adds, ``*`` multiplies and a slice is a view
(where Python's slice of a list is a new list: a write into either would show in the other).  The passes
mark the ``+`` and ``*`` of lists (``E.BinOp.lists``, from the arguments' abstract values: ``list_concat``
and ``list_times``) and their slices (``E.Subscript.lists``: ``ir.nodes.LIST_SLICE``); this pass makes each
marked one a call of a marker, ``__adc_join_lists__(xs, ys)``, ``__adc_repeat_list__(xs, n)`` or
``__adc_copy_list__(xs[a:b])``, and a join of two slices, ``xs[:j] + xs[j + 1:]``, one call,
``__adc_join_parts__(xs, i, xs, k)`` (one new list where the slices and the join made three), which
``numba_target`` turns into the runtime helpers that join, repeat or copy (``runtime_numba``).  The python
target prints them as the user wrote them.
"""

from __future__ import annotations

import dataclasses

from ...ir import expr as E

MARKERS = {
    "+": "__adc_join_lists__",
    "*": "__adc_repeat_list__",
    "[:]": "__adc_copy_list__",
    "[:]+[:]": "__adc_join_parts__",
}
HELPER_OF = {  # each marker -> the runtime helper the Numba target calls in its place
    MARKERS["+"]: "join_lists",
    MARKERS["*"]: "repeat_list",
    MARKERS["[:]"]: "copy_list",
    MARKERS["[:]+[:]"]: "join_parts",
}


def spelled_as_calls(node):
    """``node`` (a generated function, a statement, an expression, or a tuple of them) with every
    ``+`` or ``*`` of lists a call of its marker."""
    if isinstance(node, tuple):
        items = tuple(spelled_as_calls(x) for x in node)
        return node if all(a is b for a, b in zip(items, node)) else items
    if isinstance(node, E.BinOp) and node.lists and node.op == "+" and all(_sliced(x) for x in (node.left, node.right)):
        parts = (node.left.value, node.left.index, node.right.value, node.right.index)  # xs[:j] + xs[j + 1:]
        return E.Call(MARKERS["[:]+[:]"], tuple(spelled_as_calls(x) for x in parts))
    if isinstance(node, E.BinOp) and node.lists:
        return E.Call(MARKERS[node.op], (spelled_as_calls(node.left), spelled_as_calls(node.right)))
    if isinstance(node, E.Subscript) and node.lists:
        part = E.Subscript(spelled_as_calls(node.value), spelled_as_calls(node.index))
        return E.Call(MARKERS["[:]"], (part,))
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        fields = {f.name: getattr(node, f.name) for f in dataclasses.fields(node) if f.init}
        changed = {k: spelled_as_calls(v) for k, v in fields.items() if isinstance(v, (tuple, E.Expr))}
        if any(changed[k] is not fields[k] for k in changed):
            return dataclasses.replace(node, **changed)
    return node


def _sliced(x) -> bool:
    """Whether ``x`` is a slice of a list (``E.Subscript.lists``)."""
    return isinstance(x, E.Subscript) and x.lists


# The runtime helpers the markers become (merged into runtime_numba.NUMBA_HELPERS): lists of numbers only
# (1-D arrays here, or Python lists of floats or integers); a list of lists or of arrays is left to backend="python",
# since joining its rows here would copy what Python's lists share.
LIST_HELPERS = {
    "join_lists": '''def join_lists(a, b):
    """a's elements, then b's (compiled code only: see the overload below)."""
    raise TypeError("join_lists is called from code numba.njit compiles")


@numba.extending.overload(join_lists)
def _numba_join_lists(a, b):
    """Python's a + b of two lists of numbers, as a new 1-D array: of integers where both hold integers
    (indices: det's ``cols[:j] + [0]``), else of floats (an integer among floats is the same number);
    of two lists the compiled code built (``list(range(n))``, their slices), a new list of theirs, so that a
    recursive function handed the join gets one type at every level (Numba's cache does not load a
    recursion compiled for a list and for an array)."""
    types = numba.core.types
    flat = [isinstance(t, types.Array) and t.ndim == 1 or isinstance(t, (types.List, types.ListType)) for t in (a, b)]
    if not all(flat) or not all(isinstance(t.dtype, (types.Float, types.Integer)) for t in (a, b)):
        return None
    if all(isinstance(t, types.List) for t in (a, b)) and a.dtype == b.dtype:
        return lambda a, b: a + b
    dtype = numpy.int64 if all(isinstance(t.dtype, types.Integer) for t in (a, b)) else numpy.float64

    def impl(a, b):
        n, m = len(a), len(b)
        out = numpy.empty(n + m, dtype)
        for k in range(n):
            out[k] = a[k]
        for k in range(m):
            out[n + k] = b[k]
        return out

    return impl
''',
    "join_parts": '''def join_parts(a, i, b, j):
    """a[i] + b[j], two slices of lists joined (compiled code only: see the overload below)."""
    raise TypeError("join_parts is called from code numba.njit compiles")


@numba.extending.overload(join_parts)
def _numba_join_parts(a, i, b, j):
    """Python's a[i] + b[j] of slices i and j of two lists of numbers, as join_lists of the two copies gives it
    (a new list where both are Numba's lists of one dtype, else a new 1-D array), made at once: one new list
    where the slices and the join made three (det's cols[:j] + cols[j + 1:], at every level of its recursion)."""
    types = numba.core.types
    if not (isinstance(i, types.SliceType) and isinstance(j, types.SliceType)):
        return None
    flat = [isinstance(t, types.Array) and t.ndim == 1 or isinstance(t, (types.List, types.ListType)) for t in (a, b)]
    if not all(flat) or not all(isinstance(t.dtype, (types.Float, types.Integer)) for t in (a, b)):
        return None
    listed = all(isinstance(t, types.List) for t in (a, b)) and a.dtype == b.dtype
    dtype = numpy.int64 if all(isinstance(t.dtype, types.Integer) for t in (a, b)) else numpy.float64

    def listed_impl(a, i, b, j):
        start, stop, step = i.indices(len(a))
        start2, stop2, step2 = j.indices(len(b))
        n, m = len(range(start, stop, step)), len(range(start2, stop2, step2))
        if n + m == 0:
            return a[:0]
        out = [a[start] if n else b[start2]] * (n + m)
        for k in range(n):
            out[k] = a[start + k * step]
        for k in range(m):
            out[n + k] = b[start2 + k * step2]
        return out

    def impl(a, i, b, j):
        start, stop, step = i.indices(len(a))
        start2, stop2, step2 = j.indices(len(b))
        n, m = len(range(start, stop, step)), len(range(start2, stop2, step2))
        out = numpy.empty(n + m, dtype)
        for k in range(n):
            out[k] = a[start + k * step]
        for k in range(m):
            out[n + k] = b[start2 + k * step2]
        return out

    return listed_impl if listed else impl
''',
    "copy_list": '''def copy_list(part):
    """A new list of part's elements (compiled code only: see the overload below)."""
    raise TypeError("copy_list is called from code numba.njit compiles")


@numba.extending.overload(copy_list)
def _numba_copy_list(part):
    """Python's slice of a list, a new list: part (a slice of the array a list is in compiled code, a view of
    its memory) copied; a slice of Numba's list is a new list already."""
    if isinstance(part, numba.core.types.Array):
        return lambda part: part.copy()
    return lambda part: part
''',
    "add_slice_into": '''def add_slice_into(acc, part, index):
    """acc[index] += part (compiled code only: see the overload below)."""
    raise TypeError("add_slice_into is called from code numba.njit compiles")


@numba.extending.overload(add_slice_into)
def _numba_add_slice_into(acc, part, index):
    """The adjoint of the slice xs[index] of a list of numbers: its shadow part added into xs's, acc, at the
    slice's places (slices of lists of lists are refused: ``subset``)."""
    types = numba.core.types
    if not isinstance(index, types.SliceType):
        return None
    if isinstance(acc, types.Array) and acc.ndim == 1:

        def impl(acc, part, index):
            view = acc[index]
            for k in range(len(view)):
                view[k] += part[k]

        return impl
    if isinstance(acc, types.List) and isinstance(acc.dtype, types.Number):  # list(a) of an array: a list

        def listed(acc, part, index):
            start, stop, step = index.indices(len(acc))
            for k, j in enumerate(range(start, stop, step)):
                acc[j] += part[k]

        return listed
    return None
''',
    "sum_list": '''def sum_list(xs):
    """Python's sum(xs) (compiled code only: see the overload below)."""
    raise TypeError("sum_list is called from code numba.njit compiles")


@numba.extending.overload(sum_list)
def _numba_sum_list(xs):
    """sum(xs) of a list of arrays (a generator of arrays summed, ``sum(w[k] * x for k in ...)``) or of an
    array of two or more axes (its rows), which Numba's sum does not take: 0 + xs[0] + xs[1] + ...,
    broadcast as Python's adds them; of anything else, Numba's own sum.  An empty list of arrays (an array
    of no rows) sums to the number 0 in Python, which compiled code cannot give where arrays are: a
    ValueError."""
    types = numba.core.types
    if isinstance(xs, types.Array) and xs.ndim >= 2:  # sum(A) of a matrix: its rows added, 0 + A[0] + A[1] + ...

        def rows(xs):
            if xs.shape[0] == 0:
                raise ValueError("sum of an array of no rows (the number 0 in Python) in compiled code")
            out = 0 + xs[0]
            for k in range(1, xs.shape[0]):
                out += xs[k]
            return out

        return rows
    if not (isinstance(xs, (types.List, types.ListType)) and isinstance(xs.dtype, types.Array)):
        return lambda xs: sum(xs)

    def arrays(xs):
        if len(xs) == 0:
            raise ValueError("sum of an empty list of arrays (the number 0 in Python) in compiled code")
        out = 0 + xs[0]
        for k in range(1, len(xs)):
            out = out + xs[k]
        return out

    return arrays
''',
    "repeat_list": '''def repeat_list(xs, n):
    """xs's elements n times over (compiled code only: see the overload below)."""
    raise TypeError("repeat_list is called from code numba.njit compiles")


@numba.extending.overload(repeat_list)
def _numba_repeat_list(xs, n):
    """Python's xs * n of a list of floats or of integers (none for n <= 0), as a new 1-D array."""
    types = numba.core.types
    flat = isinstance(xs, types.Array) and xs.ndim == 1 or isinstance(xs, (types.List, types.ListType))
    if not flat or not isinstance(xs.dtype, (types.Float, types.Integer)) or not isinstance(n, types.Integer):
        return None
    dtype = numpy.int64 if isinstance(xs.dtype, types.Integer) else numpy.float64

    def impl(xs, n):
        m, times = len(xs), max(n, 0)
        out = numpy.empty(m * times, dtype)
        for r in range(times):
            for k in range(m):
                out[r * m + k] = xs[k]
        return out

    return impl
''',
}
