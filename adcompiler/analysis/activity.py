"""Activity analysis: which variables need derivative code.

A variable is *varied* when it depends differentiably on an active input, and
*useful* when the output depends differentiably on it.  Derivative code is
emitted only for variables that are both: constants, integer bookkeeping,
branch conditions and dead values get none.  Loops and slots make the
dependence cyclic, so both analyses iterate to a fixed point.

A list is one object however many names refer to it, and storing a value into
it (``setitem``, ``append``) changes that object; so container variables are
grouped into alias classes and a class is varied or useful as a whole.
"""

from __future__ import annotations

import heapq
import re

from .. import rules
from ..lower.dup import DUP
from ..ir.nodes import Eq, Function, Return, Var, flatten, walk
from ..rules import CHANGES
from ..rules.custom import NOT_IN
from ..errors import MissingRuleError, at_line
from ..front.names import root

STRUCTURAL = ("call", "custom", DUP, "read", "write", "list", "tuple", "list_copy", "sum", "list_concat", "array_sum")
SLOTS = {
    "getitem": (True, False),
    "pop": (True,),
    "setitem": (True, False, True),
    "append": (True, True),
    "list_repeat": (True, False),
    "list_times": (True, False),
    "len": (False,),
    "zeros_like": (False,),
    "like": (True, False),
    "like_arrays": (True, False),
    "add_into": (True, True),
    "add_scalars_into": (True, True),
    "add_slice_into": (True, True, False),
    "add_part_into": (True, True, False),
    "add_tiled_into": (True, True),
    "argmax": (False,),
    "global": (),
    "argmin": (False,),
}


# Builtins that answer a question about a value (its type, its text), never a number computed from it: no
# derivative flows through them, whatever their arguments' are.
ANSWERS = ("builtins.isinstance", "builtins.callable", "builtins.hash", "builtins.repr", "builtins.format")


def slots(eq: Eq) -> tuple:
    """For each input of an equation, whether the outputs may depend on it differentiably."""
    if eq.prim in STRUCTURAL:
        return (True,) * len(eq.ins)
    if eq.prim in SLOTS:
        return SLOTS[eq.prim]
    if eq.prim == "library" and eq.param[1] in ANSWERS:  # isinstance(x, float): of x, not a value of it
        return (False,) * len(eq.ins)
    if eq.prim == "library":  # a library function with no rule: as if it had one, refused where it is active
        return (True,) * len(eq.ins)  # (a chain of them, sl.cho_solve(sl.cho_factor(a), b), or one in a callee)
    if eq.prim in rules.INERT:  # (shape_like(k1, ...): read for a shape, of any number; check_unpack: for its error)
        return (False,) * len(eq.ins)
    return rules.differentiable_slots(eq.prim, len(eq.ins))


def targets(eq: Eq) -> tuple:
    """What an equation changes: its outputs, or the list it stores into."""
    if eq.prim in ("setitem", "append") + CHANGES:
        return (eq.ins[0],)
    return eq.outs


class Classes:
    """Alias classes of container variables (union-find); other names stand alone."""

    def __init__(self, fn: Function, containers: frozenset, shared=()):
        self.parent: dict = {}
        for a, b in shared:  # names that may reach the same list (parameters passed one object, shallow copies)
            self.union(a, b)
        for eq in (s for s in walk(fn.body) if isinstance(s, Eq)):
            names = [v.name for v in eq.outs] + [a.name for a in eq.ins if isinstance(a, Var)]
            if eq.prim in (
                "dup",
                "read",
                "write",
                "getitem",
                "setitem",
                "append",
                "pop",
                "list",
                "tuple",
                "list_repeat",
                "list_concat",
                "list_times",
            ):
                linked = [n for n in names if n in containers]
                for n in linked[1:]:
                    self.union(linked[0], n)
            elif eq.prim == "call":  # a callee may return a list it was given (in its residuals, say)
                linked = [n for n in names if n in containers]
                for n in linked[1:]:
                    self.union(linked[0], n)

    def find(self, n: str) -> str:
        while self.parent.get(n, n) != n:
            n = self.parent[n]
        return n

    def union(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def _closure(fn, seeds, classes, step, looks, backward=False) -> set:
    """The classes ``step`` reaches from ``seeds``: ``step(eq, found)`` adds to ``found`` what one
    equation gives and returns what it added, ``looks(eq)`` names what it asks of ``found``.  Every
    equation is stepped once in program order (last first for what flows backward), then only those
    that look at a class found after they were stepped (a loop's, a slot's), in order, until none is
    left: the least fixed point, as passes over every equation until none adds one would find."""
    found = {classes.find(s) for s in seeds}
    eqs = [s for s in walk(fn.body) if isinstance(s, Eq)]
    if backward:
        eqs.reverse()
    lookers: dict = {}  # class -> positions of the equations that look at it
    for p, eq in enumerate(eqs):
        for n in looks(eq):
            lookers.setdefault(classes.find(n), []).append(p)
    todo, queued = list(range(len(eqs))), set(range(len(eqs)))  # (sorted: already a heap)
    while todo:
        p = heapq.heappop(todo)
        queued.discard(p)
        for c in step(eqs[p], found):
            for q in lookers.get(c, ()):
                if q not in queued:  # stepped already without it: again
                    queued.add(q)
                    heapq.heappush(todo, q)
    return found


def varied(fn: Function, active_params, callee_outputs, containers=frozenset(), shared=()) -> set:
    """Names that depend on the active parameters; ``callee_outputs(eq, mask)`` answers for calls."""
    classes = Classes(fn, containers, shared)

    def step(eq, found) -> list:
        mask = tuple(
            isinstance(a, Var) and classes.find(a.name) in found and s for a, s in zip(eq.ins, slots(eq), strict=True)
        )
        if not any(mask):
            return []
        if eq.prim == "call":
            changed = eq.outs + eq.ins  # a callee may fill a list argument with varying values
            flags = callee_outputs(eq, mask)
        else:
            changed, flags = targets(eq), (True,) * len(targets(eq))
        added = {classes.find(v.name) for v, on in zip(changed, flags, strict=True) if on and isinstance(v, Var)}
        added -= found
        found |= added
        return sorted(added)

    def looks(eq) -> list:
        return [a.name for a in eq.ins if isinstance(a, Var)]

    found = _closure(fn, [p for p in fn.params if p in active_params], classes, step, looks)
    return _members(fn, found, classes)


def useful(fn: Function, containers=frozenset(), shared=()) -> set:
    """Names the return value depends on differentiably."""
    classes = Classes(fn, containers, shared)
    ret = next(s for s in walk(fn.body) if isinstance(s, Return))

    def changes(eq) -> tuple:
        if eq.prim == "call":
            return eq.outs + tuple(a for a in eq.ins if isinstance(a, Var) and a.name in containers)
        return targets(eq)

    def step(eq, found) -> list:
        if not any(classes.find(v.name) in found for v in changes(eq)):
            return []
        added = {classes.find(a.name) for a, s in zip(eq.ins, slots(eq), strict=True) if isinstance(a, Var) and s}
        added -= found
        found |= added
        return sorted(added)

    def looks(eq) -> list:
        return [v.name for v in changes(eq) if isinstance(v, Var)]

    roots = [a.name for a in flatten(ret.value) if isinstance(a, Var)] + [p for p in fn.params if p in containers]
    found = _closure(fn, roots, classes, step, looks, backward=True)
    return _members(fn, found, classes)


def _members(fn, reps: set, classes: Classes) -> set:
    names = set(fn.params) | {v.name for s in walk(fn.body) if isinstance(s, Eq) for v in s.outs}
    names |= {a.name for s in walk(fn.body) if isinstance(s, Eq) for a in s.ins if isinstance(a, Var)}
    return {n for n in names if classes.find(n) in reps}


def active(fn: Function, active_params, callee_outputs, containers=frozenset(), shared=()) -> set:
    """Names both varied and useful; a library function with no rule refused where an argument varies."""
    moving = varied(fn, active_params, callee_outputs, containers, shared)
    refuse_library_calls(fn, moving)
    return moving & useful(fn, containers, shared)


def refuse_library_calls(fn: Function, moving: set) -> None:
    """Refuse, at its line, a call of a library function with no derivative rule (computed as the primal
    computes it, ``lower.expressions``) of an argument that varies: its output's derivative would be
    needed, or it may change that argument in place (``np.fill_diagonal(A, 0.0)``), and nothing says
    how."""
    for eq in walk(fn.body):
        if isinstance(eq, Eq) and eq.prim in ("custom", "call"):
            _refuse_outside_rules(fn, eq, moving)
        if not (isinstance(eq, Eq) and eq.prim == "library"):
            continue
        moved = [k for k, a in enumerate(eq.ins) if isinstance(a, Var) and a.name in moving]
        if moved and eq.param[1] not in ANSWERS:
            raise at_line(
                fn.source,
                eq.line,
                f"{eq.param[4]}, which has no derivative rule, of a value with a derivative ({_argument(eq, moved[0])})",
                "give it rules with adcompiler.defrule(fn, jvp=..., vjp=...), write it with functions adcompiler "
                "knows, or pass it values with no derivative (constants, integers, data not differentiated)",
                MissingRuleError,
            )


def _refuse_outside_rules(fn: Function, eq: Eq, moving: set) -> None:
    """Refuse a call of a function whose rules leave out an argument (``rules.custom.NOT_IN``) where that
    argument varies: ``scipy.special.gammainc(a, x)`` of a varying ``a`` has no rule, and a zero would be wrong;
    ``scipy.stats.gamma.cdf(x, a)``, written with it (a call of ``rules.scipy_stats.gamma_cdf``), is refused at
    the user's call, not inside the function written for it."""
    try:
        left_out, name = NOT_IN.get(eq.param, ((), None))
    except TypeError:  # (an unhashable callee: none of those)
        return
    moved = [k for k in left_out if k < len(eq.ins) and isinstance(eq.ins[k], Var) and eq.ins[k].name in moving]
    if moved:
        raise at_line(
            fn.source,
            eq.line,
            f"the derivative of {name} in {_named(eq, moved[0])}, which adcompiler's rules for {name} leave out",
            "pass that argument a value with no derivative (a constant, data not differentiated), or give "
            f"{name} rules in it with adcompiler.defrule(fn, jvp=..., vjp=...)",
            MissingRuleError,
        )


def _named(eq: Eq, k: int) -> str:
    """How a refusal names the ``k``-th argument of a call: ``its argument 1 (s)``, or ``its argument 1`` for
    a value the code computed there."""
    name = root(eq.ins[k].name)
    return f"its argument {k + 1}" + ("" if re.fullmatch(r"t\d+", name) else f" ({name})")


def _argument(eq: Eq, k: int) -> str:
    """How a refusal names the ``k``-th argument of a library call: the user's variable (``y``), or, for a
    value the code computed there (a temporary, ``y ** 2``), its place in the call (``its argument 1``,
    ``its argument dx=``)."""
    name = root(eq.ins[k].name)
    if not re.fullmatch(r"t\d+", name):
        return name
    keys, positional = eq.param[2], len(eq.ins) - len(eq.param[2])
    return f"its argument {k + 1}" if k < positional else f"its argument {keys[k - positional]}="
