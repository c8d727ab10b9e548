"""NumPy's other spellings of what adcompiler differentiates, lowered to the one form the rules read.

* np.einsum's subscripts as a string (``'ij,jk'``, the output implicit or after ``->``) or in NumPy's
  sublist form (``np.einsum(a, [0, 1], b, [1, 2], [0, 2])``): both become ``'ab,bc->ac'``;
* ``np.r_[a, b, 1:4]`` and ``np.c_[a, b]``: np.concatenate of the pieces made at least 1-D (2-D);
* ``np.cross(a, b, axisa, axisb, axisc, axis)``: np.cross of the vectors moved to the last axis.
"""

from __future__ import annotations

import ast
import sys

from ..ir.nodes import Const


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


CROSS_AXES = ("axisa", "axisb", "axisc", "axis")


class SpellingLowering:
    """The lowering of these spellings (``arrays`` hands them here)."""

    def __init__(self, lower):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see anf.Lowering)

    def concatenator(self, node: ast.Subscript) -> str | None:
        """``"r_"`` or ``"c_"`` if ``node`` indexes NumPy's np.r_ or np.c_, else None."""
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        attr = node.value.attr if isinstance(node.value, ast.Attribute) else None
        numpy = sys.modules.get("numpy")
        if attr not in ("r_", "c_") or numpy is None or not isinstance(root, ast.Name):
            return None
        if any(root.id in names for names in (self.emit.pinned, self.emit.slots, self.emit.env)):
            return None  # a local value's attribute
        return attr if self.lower.names.resolve(node.value) is getattr(numpy, attr) else None

    def concatenated(self, node: ast.Subscript, kind: str, hint):
        """``np.r_[a, b, 1:4]``: the pieces (a slice: its arange) each at least 1-D, joined along the first
        axis; ``np.c_[a, b]``: each at least 2-D (1-D arrays as columns), joined along the last."""
        parts = []
        for item in node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]:
            if isinstance(item, ast.Slice):
                bounds = [
                    self.emit.atom(self.lower.expressions.expr(p)) if p is not None else Const(d)
                    for p, d in zip((item.lower, item.upper, item.step), (0, None, 1))
                ]
                value = self.emit.apply("numpy.arange", bounds, None)
            elif isinstance(item, ast.Constant) and isinstance(item.value, str):
                raise self.parsed.error(
                    item, f"np.{kind} with the directive {item.value!r}", "join with np.concatenate or np.stack"
                )
            else:
                value = self.emit.atom(self.emit.element(self.lower.expressions.expr(item)))
            if kind == "r_":
                parts.append(self.emit.apply("numpy.atleast_1d", [value], None))
            else:  # np.column_stack of one array: it as a column
                parts.append(self.emit.apply("numpy.column_stack", [value], None, param=("seq", 1)))
        axis = Const(0 if kind == "r_" else -1)
        return self.emit.apply("numpy.concatenate", parts + [axis], hint, param=("seq", len(parts)))

    def cross(self, node: ast.Call, hint):
        """``np.cross(a, b, axisa, axisb, axisc, axis)``: the vectors of a and b moved to the last axis,
        crossed there, and the result's vectors moved to axisc (axis, if given, sets all three)."""
        given = dict(zip(("a", "b") + CROSS_AXES, node.args))
        given.update({k.arg: k.value for k in node.keywords})
        axes = {k: self.lower.arrays.static_arg(given[k]) if k in given else Const(-1) for k in CROSS_AXES}
        if set(given) - {"a", "b", *CROSS_AXES} or len(node.args) > 6 or not {"a", "b"} <= set(given):
            raise self.parsed.error(node, f"{ast.unparse(node.func)} with these arguments", "pass a, b and axes")
        if not all(isinstance(v, Const) and (v.value is None or type(v.value) is int) for v in axes.values()):
            raise self.parsed.error(
                node, f"{ast.unparse(node.func)} with computed axes", "write axisa, axisb, axisc or axis as numbers"
            )
        if "axis" in given and axes["axis"].value is not None:
            axes.update({k: axes["axis"] for k in CROSS_AXES[:3]})
        vectors = []
        for name, axis in (("a", axes["axisa"]), ("b", axes["axisb"])):
            v = self.emit.atom(self.lower.arrays.array_arg(given[name]))
            vectors.append(
                v if axis.value in (-1, None) else self.emit.apply("numpy.moveaxis", [v, axis, Const(-1)], None)
            )
        if axes["axisc"].value in (-1, None):
            return self.emit.apply("numpy.cross", vectors, hint)
        out = self.emit.apply("numpy.cross", vectors, None)
        return self.emit.apply("numpy.moveaxis", [out, Const(-1), axes["axisc"]], hint)


__all__ = ["CROSS_AXES", "SpellingLowering", "einsum_subscripts", "explicit_einsum", "sublist"]
