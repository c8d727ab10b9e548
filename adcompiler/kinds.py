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
    holders: set = set()  # lists with lists among their elements (rows)
    items = {eq.outs[0].name: eq.ins for eq in eqs if eq.prim == "tuple"}  # a tuple's elements, each its own kind
    size = -1
    while size != len(found) + len(holders):
        size = len(found) + len(holders)
        for eq in eqs:
            if eq.prim in MAKES:
                found.update(v.name for v in eq.outs)
            _rows(eq, found, holders, items)
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


def _rows(eq: Eq, found: set, holders: set, items: dict) -> None:
    """Kinds of elements: a list holding lists gives lists when indexed; a tuple, the kind of the element
    a constant index picks (so a list a helper returned in a tuple, or one read from a list of rows, is a
    list even where nothing indexes it)."""
    names = [a.name if isinstance(a, Var) else None for a in eq.ins]
    if eq.prim == "list" and any(n in found for n in names):
        holders.add(eq.outs[0].name)
    elif eq.prim in ("append", "setitem") and names[-1] in found:
        holders.add(names[0])
    elif eq.prim in ("list_repeat", "list_copy") + SAME and any(n in holders for n in names):
        holders.update(v.name for v in eq.outs)
        holders.update(n for n in names if n is not None and eq.prim in SAME)
    elif eq.prim == "getitem" and names[0] in holders:
        found.add(eq.outs[0].name)
    elif eq.prim == "getitem" and names[0] in items and not isinstance(eq.ins[1], Var):
        k, elements = getattr(eq.ins[1], "value", None), items[names[0]]
        picked = elements[k] if isinstance(k, int) and -len(elements) <= k < len(elements) else None
        if isinstance(picked, Var) and picked.name in found:
            found.add(eq.outs[0].name)


ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "pos", "matmul", "getitem", "custom")
NOT_ARRAYS = ("numpy.shape", "numpy.ndim", "numpy.size", "numpy.argsort", "numpy.argmax", "numpy.argmin")


def arrays(fn: Function, array_params, callee_arrays) -> frozenset:
    """Names holding NumPy arrays: made by NumPy, computed from arrays, or passed in as arrays.

    ``callee_arrays(fn, arg_flags)`` gives which outputs of a callee are arrays when these arguments are.
    """
    eqs = [s for s in walk(fn.body) if isinstance(s, Eq)]
    found: set = {p for p in array_params if not p.endswith("[]")}
    holders = {p[:-2] for p in array_params if p.endswith("[]")}  # lists whose elements are arrays (or such lists)
    lists = containers(fn, lambda f: ((), ())) if holders else frozenset()
    size = -1
    while size != len(found) + len(holders):
        size = len(found) + len(holders)
        for eq in eqs:
            ins = [isinstance(a, Var) and a.name in found for a in eq.ins]
            if eq.prim in ("getitem", "pop") + SAME and isinstance(eq.ins[0], Var) and eq.ins[0].name in holders:
                for v in eq.outs:
                    (holders if v.name in lists or eq.prim in SAME else found).add(v.name)
                continue
            if eq.prim.startswith("numpy.") and eq.prim not in NOT_ARRAYS:
                found.update(v.name for v in eq.outs)
            elif eq.prim in ARITHMETIC + SAME and any(ins):
                found.update(v.name for v in eq.outs)
            elif eq.prim in SAME and any(v.name in found for v in eq.outs):
                found.update(a.name for a in eq.ins if isinstance(a, Var))
            elif eq.prim == "call" and any(ins):
                found.update(v.name for v, on in zip(eq.outs, callee_arrays(eq.param, tuple(ins))) if on)
    return frozenset(found)
