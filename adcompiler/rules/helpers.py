"""Runtime helpers of generated code as primitives, so derivative code can itself be differentiated:
what each makes or changes, and which arguments each is linear in."""

from __future__ import annotations

from ..ir.expr import Call, Expr, Num, sum_exprs
from .families import helpers

# Helpers are primitives when generated code is itself differentiated: what each makes or changes.
MAKES = ("zeros_like", "like", "like_arrays")  # return a new (shadow) structure
CHANGES = (
    "add_into",
    "add_scalars_into",
    "add_slice_into",
    "add_part_into",
    "add_tiled_into",
)  # add their second argument into their first, in place
INERT = (
    "reject_ints",
    "expect",
    "check_rows",
    "argmax",
    "argmin",
    "shape_like",
    "check_unpack",
)  # no derivative at all (shape_like: read for a shape; check_unpack: a, b = xs, run for its error)
SHAPE_ARGUMENT = {  # the argument a helper reads for its shape and dtype alone, none of its entries
    "unbroadcast": 1,
    "unreduce": 1,
    "array_like": 1,
    "scatter_add": 1,
    "take_and_clear": 1,
}
VALUES = (
    "unbroadcast",
    "unreduce",
    "sum_all",
    "array_like",
    "unjoin",
    "unjoin_all",
    "distinct",
)  # return a new value, or one of their arguments, and change nothing (scatter_add and take_and_clear add
# into their first argument: not these)

# Runtime helpers of generated NumPy code, as primitives (so derivative code can itself be
# differentiated in forward mode): which arguments each is linear in, jointly ("linear"), one at a
# time ("bilinear", the product rule), or whose sum it is ("sum").
HELPER_RULES = {
    "unbroadcast": ("linear", (0,)),
    "unreduce": ("linear", (0,)),
    "sum_all": ("linear", (0,)),
    "add_new": ("sum", (0, 1)),  # acc + c (its tangent never stores: the tangent of c may be another's)
    "array_like": ("linear", (0,)),
    "scatter_add": ("linear", (0, 3)),
    "add_at": ("linear", (0, 3)),
    "distinct": ("linear", (0,)),
    "add_at_vjp": ("linear", (0,)),
    "take_and_clear": ("linear", (0,)),
    "linalg_check": ("linear", (0,)),  # its argument, once the decomposition's derivative is known to exist
    "unjoin": ("linear", (0,)),
    "unjoin_all": ("linear", (0,)),
    "join_tangent": ("linear", (0,)),
    "split_part": ("linear", (0,)),
    "split_vjp": ("linear", (0,)),
    "einsum_vjp": ("bilinear", (0, 3, 4, 5, 6, 7)),
    "rebroadcast": ("linear", (0,)),  # (the adjoints of gradient code's own helpers: a third derivative)
    "gather_like": ("linear", (0,)),
    "unreduce_vjp": ("linear", (0,)),
}
HELPER_RULES.update({name: h.linear for name, h in helpers().items() if h.linear is not None})  # the records'


# The adjoints of the linear helpers that gradient code is made of, so gradient code can itself be
# differentiated in reverse mode (a gradient called inside a function differentiated: lower.nested).
# Each gives the cotangent of every argument from the helper's arguments and its output's cotangent g.
HELPER_REVERSE = {
    "unbroadcast": lambda g, a, *rest: [Call("@rebroadcast", (g, a))] + [None] * (1 + len(rest)),
    "array_like": lambda g, d, *rest: [Call("@rebroadcast", (g, d))] + [None] * (1 + len(rest)),
    "scatter_add": lambda g, d, x, index, v: [
        Call("@rebroadcast", (g, d)),
        None,
        None,
        Call("@gather_like", (g, index, v)),
    ],
    "distinct": lambda g, d, *earlier: [g] + [None] * len(earlier),  # d itself, or a copy of it
    "sum_all": lambda g, a: [Call("@unreduce", (g, a))],  # numpy.sum: spread back
    "unreduce": lambda g, a, *rest: [Call("@unreduce_vjp", (g, a, *rest[1:]))] + [None] * len(rest),
    "add_new": lambda g, acc, c: [Call("@unbroadcast", (g, acc)), Call("@unbroadcast", (g, c))],  # acc + c
    # (and of those adjoints, for a third derivative: each the adjoint of the adjoint, the helper itself)
    "rebroadcast": lambda g, c, a: [Call("@rebroadcast", (g, c)), None],
    "gather_like": lambda u, c, index, g: [Call("@scatter_add", (Num(0.0), c, index, u)), None, None],
    "unreduce_vjp": lambda u, c, g, *rest: [Call("@unreduce", (u, c, *rest)), None] + [None] * len(rest),
}
HELPER_REVERSE.update({name: h.reverse for name, h in helpers().items() if h.reverse is not None})  # the records'


def helper_jvp(prim: str, args: list, tangents: list) -> Expr | None:
    """The tangent of a helper call: the helper applied to tangents (product rule where bilinear)."""
    kind, slots = HELPER_RULES[prim]
    slots = [i for i in slots if i < len(args)]
    if prim == "einsum_vjp" and isinstance(args[1], Num):  # operand i itself gives only its shape
        slots = [i for i in slots if i != 3 + args[1].value]
    if all(tangents[i] is None for i in slots):
        return None
    if prim == "distinct":  # distinct(d, a, b): d, or a copy where it is a or b; of tangents, another tangent
        return Call("@distinct", (tangents[0],) + tuple(t for t in tangents[1:] if t is not None))
    if kind == "product":  # g times products of entries of x: linear in g, not in x; its own tangent helper
        g, x, *rest = args
        dg, dx = tangents[:2]
        return Call(f"@{prim}_jvp", (g, dg or Num(0.0), x, dx or Num(0.0), *rest))
    if kind == "sum":
        return sum_exprs([tangents[i] for i in slots if tangents[i] is not None])
    if kind == "linear":
        return Call("@" + prim, tuple((tangents[i] or Num(0.0)) if i in slots else a for i, a in enumerate(args)))
    terms = [
        Call("@" + prim, tuple(tangents[i] if j == i else a for j, a in enumerate(args)))
        for i in slots
        if tangents[i] is not None
    ]
    return sum_exprs(terms)
