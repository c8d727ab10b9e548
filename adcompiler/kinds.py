"""Which variables hold containers (lists, tuples stored as objects) rather than numbers.

Python has no declarations, so the kind of a variable is read off how the code
uses it: what a list primitive makes, what is indexed, appended to, measured
or summed, and what a callee treats as a list.  Copies (``dup``, slot
``read``/``write``) share their kind.  Derivatives of containers are
containers of the same shape (tangent lists, shadow lists of adjoints), so
every pass asks this before choosing a rule.
"""

from __future__ import annotations

from .ir import Eq, Function, Var, walk

MAKES = ("list", "list_copy", "list_repeat", "tuple", "zeros_like", "like")  # outputs are containers
OPERAND = (
    "getitem",
    "setitem",
    "append",
    "pop",
    "len",
    "sum",
    "argmax",
    "argmin",
    "list_copy",
)  # first input is a container
SAME = ("dup", "read", "write")  # outputs have the inputs' kind


def containers(fn: Function, callee_kinds) -> frozenset:
    """Names of container-valued variables; ``callee_kinds(fn)`` gives a callee's (param kinds, output kinds)."""
    eqs = [s for s in walk(fn.body) if isinstance(s, Eq)]
    found: set = set()
    size = -1
    while size != len(found):
        size = len(found)
        for eq in eqs:
            if eq.prim in MAKES:
                found.update(v.name for v in eq.outs)
            if eq.prim in OPERAND and isinstance(eq.ins[0], Var):
                found.add(eq.ins[0].name)
            if eq.prim in SAME:
                names = [v.name for v in eq.outs] + [a.name for a in eq.ins if isinstance(a, Var)]
                if any(n in found for n in names):
                    found.update(names)
            if eq.prim == "call":
                params, outs = callee_kinds(eq.param)
                found.update(a.name for a, c in zip(eq.ins, params) if c and isinstance(a, Var))
                found.update(v.name for v, c in zip(eq.outs, outs) if c)
    return frozenset(found)
