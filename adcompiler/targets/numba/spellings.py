"""NumPy's functions the Numba target spells otherwise: those Numba lacks, or takes fewer arguments or
kinds of argument of, each a call of one of the target's helpers (``translate`` rewrites the calls; the
reductions along an axis are ``reductions``'s ``REDUCED``, ``LINES`` and ``KEEPDIMS``)."""

from __future__ import annotations

# The joins Numba compiles (of a tuple by its own, of a list by join_sequence: rules/joins.py) -> the default axis
JOINS = {"concatenate": 0, "stack": 0, "hstack": None, "vstack": None, "row_stack": None}
# Helpers for functions where Numba's own differ from Python's and NumPy's (joins, reductions, sum):
ADDED = (
    "join_sequence",
    "reduce_along",
    "along_lines",
    "sum_list",
    "vector_norm",
    "sum_product",
    "sum_product_along",
    "spread_along",
    "inner_product",
    "reshaped",
    "squeezed",
    "expanded",
    "traced",
    "argsorted",
    "taken_along",
    "vander_rows",
    "array_of",
)
# NumPy's functions Numba lacks or takes less of, each a helper of the same arguments: name -> (helper, arguments)
SPELLED = {
    "inner": ("inner_product", 2),  # (Numba has no numpy.inner)
    "reshape": ("reshaped", 2),  # (Numba reshapes C-ordered arrays only: a flipped or transposed view copied)
    "array": ("array_of", 1),  # (of an array: a copy, which Numba's numpy.array does not make)
    "expand_dims": ("expanded", 2),  # (Numba's: of an array and one integer axis; slogdet's rules: g[..., None, None])
    "take_along_axis": ("taken_along", 2),  # (along the last axis, NumPy's default: np.sort's tangent of a vector)
    "argsort": ("argsorted", 2),  # (Numba's takes no axis: np.sort's adjoint, along the last axis of a vector)
}
