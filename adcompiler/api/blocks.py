"""Jacobians and Hessians in JAX's shapes: a flat ``(m, n)`` matrix (``higher.jacobian``) cut into blocks
``out.shape + in.shape``, in the structure of the output (a record, a tuple or a list of parts) holding
the structure of the arguments (a tuple of them for a tuple ``argnums``)."""

from __future__ import annotations

from .higher import float_dtype, integer, leaves, wrt_leaves
from .trees import fields, make


def out_blocks(out, flat, row: int, wrt: list, argnums, shaped, none_rows: int = 1) -> tuple:
    """``(Jacobian, next row)``: the rows of ``flat`` from ``row`` on for the output ``out``, in its
    structure as JAX gives it: a record, tuple or list of parts (a list of numbers is one array) holding
    for each output array or number the blocks of the arguments (a tuple of them for a tuple argnums,
    ``shaped(blocks, argnums)``); None for an output with no derivative (None: a gradient's integer),
    which has ``none_rows`` rows (derivative code gives it a zero, a Hessian none)."""
    import numpy as np

    if out is None:
        return None, row + none_rows
    if structure(out):
        items = fields(out)
        parts, done = list(items.values()) if items is not None else list(out), []
        for part in parts:
            part_blocks, row = out_blocks(part, flat, row, wrt, argnums, shaped, none_rows)
            done.append(part_blocks)
        if items is not None:
            return make(type(out), tuple(items), done), row
        return (tuple(done) if isinstance(out, tuple) else done), row
    m, per_arg, col = len(leaves(out)), [], 0
    for a in wrt:
        n = len(wrt_leaves(a))
        per_arg.append(block(flat[row : row + m, col : col + n], np.shape(out), a, out))
        col += n
    return shaped(tuple(per_arg) if len(per_arg) > 1 else per_arg[0], argnums), row + m


def block(columns, out_shape: tuple, like, out):
    """The Jacobian block of one argument, ``out_shape + like.shape``, of the dtype of the derivative
    of ``out`` by ``like`` (float32 for both float32); for a record (a dict, NamedTuple or dataclass),
    a tuple or a list of parts, the same structure of blocks, as JAX gives; None for an integer."""
    import numpy as np

    if integer(like):
        return None
    if not structure(like):
        return columns.reshape(out_shape + np.shape(like)).astype(float_dtype(np, [out, like]), copy=False)
    items = fields(like)
    parts, blocks, col = list(items.values()) if items is not None else list(like), [], 0
    for value in parts:
        n = len(wrt_leaves(value))
        blocks.append(block(columns[:, col : col + n], out_shape, value, out))
        col += n
    if items is not None:
        return make(type(like), tuple(items), blocks)
    return tuple(blocks) if isinstance(like, tuple) else blocks


def structure(value) -> bool:
    """Whether a Jacobian has ``value``'s structure (a record, a tuple, a list of anything but floats
    and such lists) rather than its shape (a number, an array, a list of floats: NumPy's array)."""
    if fields(value) is not None or isinstance(value, tuple):
        return True
    return isinstance(value, list) and not _floats(value)


def _floats(value) -> bool:
    """A list of numbers with a float among them (a list of floats: its ints are joined to floats), or of
    such lists."""
    if not isinstance(value, list) or not value:
        return False
    kinds = set(map(type, value))
    return float in kinds and kinds <= {float, int, bool} or all(_floats(v) for v in value)


def gradient_like(value):
    """A gradient's structure for an argument ``value``: the same, None for an integer in it."""
    items = fields(value)
    if items is not None:
        return make(type(value), tuple(items), [gradient_like(v) for v in items.values()])
    if isinstance(value, (list, tuple)) and structure(value):
        return type(value)(gradient_like(v) for v in value)
    return None if integer(value) else value
