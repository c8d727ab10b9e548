"""Which names of generated code may hold one array, and which arrays a function changes in place: what
tidying asks before it makes ``d = d + e`` ``d = e``, and folding before it moves an expression past a
helper that adds into an array (``scatter_add``)."""

from __future__ import annotations

from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, ForS, IfS, WhileS, calls, every_statement
from ..analysis.defuse import flat_targets, reads_expr
from ..modes.handed import REVERSE_SWEEP, is_reverse_sweep  # (reverse sweeps add into what they are handed)

IN_PLACE = ("scatter_add", "take_and_clear")  # runtime helpers that change an adjoint array in place

# runtime helpers whose result may be (a view of) the arguments at these positions; any other call may
# return any of its arguments
_RETURNS = {"unbroadcast": (0,), "array_like": (0,), "scatter_add": (0,), "distinct": (0,), "unreduce": (0,)}
_RETURNS.update(sum_all=(), zeros_like=(), zero_array=(), zero_of=())


def held(e) -> set:
    """The names whose values (arrays) the value of the expression ``e`` may be, or be a view of."""
    if isinstance(e, E.Name):
        return {e.id.split(".")[0]}
    if isinstance(e, (E.Num, E.Unary, E.Compare)) or isinstance(e, E.BinOp) and not e.lists:
        return set()  # a new number or array
    if isinstance(e, E.Call):
        positions = _RETURNS.get(e.func.lstrip("@"), range(len(e.args)))
        out = set().union(*(held(e.args[k]) for k in positions if k < len(e.args)))
        if e.func.lstrip("@") not in _RETURNS:
            out |= set().union(*(held(v) for _, v in e.keywords))
        return out
    out: set = set()
    reads_expr(e, out)  # anything else (a subscript, a method, a tuple): whatever it reads
    return out


def changed_in_place(body) -> set:
    """The names of ``body`` whose arrays may be changed in place: the first argument of a helper that adds
    into an adjoint array (``IN_PLACE``), the target of ``+=``, an array ``add_new`` stores, and every name
    that may hold one of those arrays (``held``: ``d = e`` makes ``d`` an alias of ``e``'s array, ``d = e + f``
    a new one), closed under ``held`` in both directions (an alias of an alias of a changed array is
    changed too)."""
    parent: dict = {}

    def find(n: str) -> str:
        while parent.setdefault(n, n) != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    def join(names) -> None:
        names = [find(n) for n in names]
        for n in names[1:]:
            parent[n] = names[0]

    seeds: set = set()
    for s in every_statement(body):
        if isinstance(s, Assign) and _handing(s):  # each accumulator handed comes back at its own place
            handed = [held(a) for a in s.value.args[2:]]
            given = set().union(*(held(a) for a in s.value.args[:2]))
            for x in flat_targets(s.targets):
                if isinstance(x, str):
                    join(sorted({x} | next((h for h in handed if x in h), given)))
        elif isinstance(s, Assign):
            value = held(s.value)
            for t in s.targets:
                names = set()
                if isinstance(t, str):
                    names = {t}
                elif isinstance(t, tuple):
                    for x in flat_targets(t):
                        names.add(x) if isinstance(x, str) else reads_expr(x, names)
                else:  # a store into an element: the container holds the value
                    reads_expr(t, names)
                join(sorted(names | value))
        elif isinstance(s, AugAssign):
            target = s.target if isinstance(s.target, str) else None
            names: set = set()
            if target is None:
                reads_expr(s.target, names)
            seeds |= {target} if target else names
        elif isinstance(s, ForS) and isinstance(s.target, str):  # an element of what it runs over
            join([s.target, *sorted(held(s.iterable))])
        for c in calls(s if not isinstance(s, (ForS, IfS, WhileS)) else ()):
            name = c.func.lstrip("@")
            if name.startswith(IN_PLACE) and c.args and not isinstance(c.args[0], E.Num):
                seeds |= held(c.args[0])
            elif REVERSE_SWEEP in name and not c.func.startswith("@"):  # the accumulators a reverse sweep adds into
                seeds |= set().union(*(held(a) for a in c.args[2:]))
            elif name == "add_new":
                seeds |= set().union(*(held(a) for a in c.args))
        for m in methods(s):  # xs.append(d): xs holds d's array
            join(sorted(held(m.obj) | set().union(*(held(a) for a in m.args))))
    changed = {find(n) for n in seeds}
    return seeds | {n for n in list(parent) if find(n) in changed}


def _handing(s: Assign) -> bool:
    """Whether ``s`` is ``d_a, d_b = g_reverse_sweep(residuals, ct, d_b)`` (``modes.handed``), an accumulator
    handed and bound again: each name bound is the accumulator handed at its place (the array it was handed,
    or a new one) or a cotangent made of what the residuals and ``ct`` hold (``guards.distinct``: never the
    array of another)."""
    c = s.value
    names = list(flat_targets(s.targets))
    return (
        isinstance(c, E.Call)
        and is_reverse_sweep(c.func)
        and all(isinstance(x, str) for x in names)
        and any(held(a) & set(names) for a in c.args[2:])
    )


def methods(s) -> list:
    """The method calls in the statement ``s`` itself (not its nested blocks)."""
    if isinstance(s, (ForS, IfS, WhileS)):
        return []
    out, stack = [], [s]
    while stack:
        x = stack.pop()
        if isinstance(x, E.Method):
            out.append(x)
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif hasattr(x, "__dataclass_fields__"):
            stack.extend(vars(x).values())
    return out
