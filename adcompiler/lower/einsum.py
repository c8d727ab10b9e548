"""np.einsum's subscripts, in the one form the rules read: a string with its output written out.

NumPy takes them as a string (``'ij,jk'``, the output implicit or after ``->``) or in its sublist form
(``np.einsum(a, [0, 1], b, [1, 2], [0, 2])``); both become ``'ab,bc->ac'``.
"""

from __future__ import annotations

import ast


def explicit_einsum(subscripts: str) -> str:
    """Einsum subscripts with their output written out, as NumPy reads implicit ones: the broadcast
    dimensions, then the indices that appear once, in alphabetical order."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        return subscripts
    letters = subscripts.replace("...", "").replace(",", "")
    once = sorted(c for c in set(letters) if letters.count(c) == 1)
    return subscripts + "->" + ("..." if "..." in subscripts else "") + "".join(once)


def sublist(node) -> str | None:
    """The subscripts a literal einsum sublist spells (``(Ellipsis, 0, 1)`` is ``...ab``), or None."""
    if not isinstance(node, (ast.Tuple, ast.List)):
        return None
    letters = []
    for e in node.elts:
        if isinstance(e, ast.Constant) and e.value is Ellipsis or isinstance(e, ast.Name) and e.id == "Ellipsis":
            letters.append("...")
        elif isinstance(e, ast.Constant) and type(e.value) is int and 0 <= e.value < 52:
            letters.append("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[e.value])
        else:
            return None
    return "".join(letters)


def einsum_subscripts(node: ast.Call):
    """``np.einsum``'s subscripts as a string and its operands: written as a string, or in NumPy's
    sublist form ``np.einsum(a, [0, 1], b, [1, 2], [0, 2])`` with literal sublists; None if neither."""
    args = node.args
    if node.keywords or not args:
        return None, []
    if isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
        return args[0].value, args[1:]
    pairs, output = (args[:-1], sublist(args[-1])) if len(args) % 2 else (args, "")
    operands, inputs = pairs[0::2], [sublist(a) for a in pairs[1::2]]
    if len(args) < 2 or None in inputs or output is None or any(sublist(a) is not None for a in operands):
        return None, []
    return ",".join(inputs) + ("->" + output if len(args) % 2 else ""), operands


__all__ = ["einsum_subscripts", "explicit_einsum", "sublist"]
