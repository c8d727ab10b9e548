"""Derivative rules: one table, one line per primitive, so a reader sees the math.

``PARTIALS[prim]`` has one slot per argument: a function of the primal
arguments and the output ``z`` giving the partial derivative, or ``None`` where
it is zero.  Both modes use it: forward mode sums ``partial * tangent`` over the
active arguments; reverse mode sends ``cotangent * partial`` to each one.
``FORWARD``/``REVERSE`` hold the few primitives better written another way
(selections such as ``max``).  A key ``prim/n`` is the rule for ``n`` arguments.

Conventions at non-differentiable points: ``abs'(0) = 0``; ``max``/``min``
send the whole derivative to the argument Python returns (the first one on a
tie); ``floor``, ``ceil``, ``trunc``, ``round``, ``int``, ``//`` and
comparisons have derivative zero; ``d/dy x**y = x**y log x`` is taken as 0 at
``x == 0`` and is NaN where ``x < 0`` (``x**y`` of a negative ``x`` is real only at an
integer ``y``: no derivative in ``y``, as JAX and autograd say; ``d/dx`` is ``y x**(y-1)``).
"""

from __future__ import annotations

import functools

from . import arrays as N
from . import scalar as S
from .custom import CUSTOM, defrule, output_size
from .helpers import CHANGES, HELPER_REVERSE, HELPER_RULES, INERT, MAKES, VALUES, helper_jvp
from ..ir.expr import Call, Expr, sum_exprs

# The tables both modes read: scalar rules, then NumPy's.
PARTIALS = {**S.PARTIALS, **N.PARTIALS}
FORWARD = {**S.FORWARD, **N.FORWARD}
REVERSE = {**S.REVERSE, **N.REVERSE}
PRIMS, CONSTANTS, VARIADIC = S.PRIMS, S.CONSTANTS, S.VARIADIC


def prim_of(obj):
    """The primitive a Python object the user calls is (``math.sin`` -> "math.sin"), or None; a runtime
    helper of generated code says it itself (``__adc_primitive__``)."""
    helper = getattr(obj, "__adc_primitive__", None)
    if helper is not None:
        return helper
    try:
        return PRIMS.get(obj)
    except TypeError:  # unhashable
        return None


def ruled_by(rule):
    """The function a ``defrule`` jvp or vjp ``rule`` is the rule of, or a copy of one (of the same module and name:
    generated code differentiated again runs its own); None if it is none's."""
    named = _named(rule)
    return next((fn for fn, pair in CUSTOM.items() if rule in pair or named in map(_named, pair)), None)


def _named(fn) -> tuple:
    return (getattr(fn, "__module__", None), getattr(fn, "__qualname__", None))


def has_custom_rule(obj) -> bool:
    """Whether the user gave ``obj`` rules with ``defrule``."""
    try:
        return obj in CUSTOM
    except TypeError:  # unhashable
        return False


def _partials(prim: str, nargs: int) -> tuple:
    """The partials of ``prim`` applied to ``nargs`` arguments: its rule for that count, else its rule."""
    specific = f"{prim}/{nargs}"
    if specific in PARTIALS:
        return PARTIALS[specific]
    if prim in VARIADIC:
        return _variadic(prim, nargs)
    return PARTIALS[prim]


@functools.cache
def _variadic(prim: str, nargs: int) -> tuple:
    """A variadic primitive's partials for ``nargs`` arguments, made once (the tables are never changed:
    two threads building at once read the same ones)."""
    return VARIADIC[prim](nargs)


def has_rule(prim: str, nargs: int) -> bool:
    return (
        f"{prim}/{nargs}" in PARTIALS
        or prim in VARIADIC
        or prim in PARTIALS
        or prim in FORWARD
        or prim in N.LINEAR
        or prim in N.BILINEAR
    )


def differentiable_slots(prim: str, nargs: int) -> tuple:
    """For each argument, whether the output can depend on it differentiably."""
    if prim in HELPER_RULES:  # (einsum_vjp's own operand i only gives its shape: helper_jvp leaves it out)
        return tuple(i in HELPER_RULES[prim][1] for i in range(nargs))
    if prim in FORWARD:
        slots = N.SLOTS.get(prim, (True,) * nargs)
        return slots(nargs) if callable(slots) else slots  # (of a primitive of any number of arguments)
    if prim in N.LINEAR:
        return (True,) + (False,) * (nargs - 1)
    if prim in N.BILINEAR:
        return (True, True)
    if prim in N.INACTIVE:
        return (False,) * nargs
    return tuple(p is not None for p in _partials(prim, nargs))


def jvp(prim: str, args: list, out: Expr, tangents: list) -> Expr | None:
    """The output tangent, given argument tangents (``None`` = zero)."""
    if prim in FORWARD:  # (np.add.at's helper has rules of its own: it is a primal primitive too)
        return FORWARD[prim](*args, out, *tangents)
    if prim in HELPER_RULES:
        return helper_jvp(prim, args, tangents)
    if prim in N.LINEAR:
        return None if tangents[0] is None else Call(N.CALLED.get(prim, prim), (tangents[0],) + tuple(args[1:]))
    if prim in N.BILINEAR:
        a, b = args
        da, db = tangents
        apply = (lambda x, y: x @ y) if prim == "matmul" else (lambda x, y: Call(prim, (x, y)))
        return sum_exprs([apply(da, b) if da is not None else None, apply(a, db) if db is not None else None])
    partials = _partials(prim, len(args))
    return sum_exprs(
        _scale(partial(*args, out), t)
        for partial, t in zip(partials, tangents, strict=True)
        if partial is not None and t is not None
    )


class NotDifferentiatedAgain(TypeError):
    """Reverse mode over a runtime helper of derivative code that has no reverse rule (``HELPER_REVERSE``)."""


def vjp(prim: str, args: list, out: Expr, g: Expr, active: list) -> list:
    """The cotangent of each argument (``None`` = zero or not wanted)."""
    if prim in HELPER_REVERSE:
        return [c if a else None for c, a in zip(HELPER_REVERSE[prim](g, *args), active, strict=False)]
    if prim in HELPER_RULES and prim not in REVERSE:
        raise NotDifferentiatedAgain(f"reverse mode over generated NumPy derivative code ({prim})")
    if prim in REVERSE:
        return [c if a else None for c, a in zip(REVERSE[prim](*args, out, g), active, strict=True)]
    if prim in N.LINEAR:
        return [N.LINEAR[prim](g, args[0], out, *args[1:]) if active[0] else None] + [None] * (len(args) - 1)
    if prim in N.BILINEAR:
        return [rule(g, *args) if a else None for rule, a in zip(N.BILINEAR[prim], active, strict=True)]
    partials = _partials(prim, len(args))
    return [
        _scale(partial(*args, out), g) if partial is not None and a else None
        for partial, a in zip(partials, active, strict=True)
    ]


def _scale(partial: Expr, t: Expr) -> Expr:
    """``partial * t`` written the way a person would (``t / y`` for ``(1 / y) * t``)."""
    return partial * t


# Python operators and builtins whose scalar rule branches on a value: on arrays, use the NumPy rule.
ARRAY_VARIANTS = {"pow": "numpy.power", "abs": "numpy.abs"}

# What the rest of the compiler reads of the rules, from one place.
__all__ = [
    "ARRAY_VARIANTS",
    "CHANGES",
    "CONSTANTS",
    "CUSTOM",
    "FORWARD",
    "HELPER_RULES",
    "INERT",
    "MAKES",
    "PARTIALS",
    "PRIMS",
    "REVERSE",
    "VALUES",
    "VARIADIC",
    "defrule",
    "differentiable_slots",
    "has_custom_rule",
    "output_size",
    "has_rule",
    "helper_jvp",
    "jvp",
    "key",
    "prim_of",
    "vjp",
]
