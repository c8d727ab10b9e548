"""Which values of generated code are surely Python floats (rewrites that change ``x * 1.0`` into
``x``, or ``0.0 + x`` into ``x``, are exact only for floats: they would keep an int an int).

An expression is *surely a float* when a float takes part in every way it can be computed
(``int * float`` is a float): a float literal, a name known to hold floats, an element of a list
of floats, ``math``'s functions of real numbers.
"""

from __future__ import annotations

from ..analysis.defuse import target_names
from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, ForS, every_statement


def surely_float(e, floats, float_lists) -> bool:
    """Whether ``e`` is a Python float whatever ints the names not in ``floats`` hold."""
    if isinstance(e, E.Num):
        return isinstance(e.value, float)
    if isinstance(e, E.Name):
        return e.id in floats
    if isinstance(e, E.Subscript):
        return isinstance(e.value, E.Name) and e.value.id in float_lists
    if isinstance(e, E.Unary):
        return e.op == "-" and surely_float(e.operand, floats, float_lists)
    if isinstance(e, E.BinOp) and e.op in ("+", "-", "*"):
        return surely_float(e.left, floats, float_lists) or surely_float(e.right, floats, float_lists)
    if isinstance(e, E.IfExp):
        return surely_float(e.body, floats, float_lists) and surely_float(e.orelse, floats, float_lists)
    if isinstance(e, E.Call):  # math's functions of real numbers return floats, but for these
        return e.func.startswith("math.") and e.func[5:] not in _MATH_NOT_FLOAT
    return False


_MATH_NOT_FLOAT = {"floor", "ceil", "trunc", "factorial", "comb", "perm", "gcd", "lcm", "isqrt", "prod"}
_MATH_NOT_FLOAT |= {"isfinite", "isinf", "isnan", "isclose", "frexp", "modf"}


def float_names(body, floats: set, float_lists) -> set:
    """``floats`` with every name each of whose assignments is surely a float (``d = d + x`` and
    ``d += x`` keep a float a float), to a fixpoint."""
    assigned: dict = {}
    for s in every_statement(body):
        if isinstance(s, Assign):
            for t in s.targets:
                if isinstance(t, str):
                    assigned.setdefault(t, []).append(s.value)
                elif not isinstance(t, E.Subscript):
                    for n in target_names(t):
                        assigned.setdefault(n, []).append(None)  # unpacked: not known
        elif isinstance(s, AugAssign) and isinstance(s.target, str):
            assigned.setdefault(s.target, []).append(E.BinOp(s.op, E.Name(s.target), s.value))
        elif isinstance(s, ForS):
            assigned.setdefault(s.target, []).append(None)
    changed = True
    while changed:
        changed = False
        for name, values in assigned.items():
            if name in floats or name in float_lists:
                continue
            if all(v is not None and _float_or_self(v, name, floats, float_lists) for v in values):
                floats.add(name)
                changed = True
    return floats


def _float_or_self(e, name, floats, float_lists) -> bool:
    """Whether ``e`` is surely a float once ``name`` is (``d + x`` with ``d`` a float so far)."""
    return (
        surely_float(e, floats, float_lists)
        or (isinstance(e, E.BinOp) and E.Name(name) in (e.left, e.right) and e.op in ("+", "-"))
        and surely_float(e, floats | {name}, float_lists)  # (asked last: it copies every float name so far)
    )
