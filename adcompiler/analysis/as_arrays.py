"""ANF or dup form + abstract values -> the same program with each list NumPy reads made the array it reads.

``np.square(xs)``, ``np.dot(xs, xs)``, ``np.maximum(xs, 0.5)`` of a list (or tuple) of numbers compute
on the array NumPy makes of it; their derivative rules are written for that array (``2 * x * dx``,
``x > 0.5``), which Python's list does not do (``2 * xs`` repeats it).  So each such operand is first
made that array by a line of its own, ``xs_array = np.asarray(xs)``, and the NumPy function reads it:
the rules then see an array, and ``np.asarray`` of a list has the derivatives a list's needs (its
tangent the array of the list's tangent, its cotangent added into the list's shadow: a list's
cotangent stays a list).

Which operand: one the function is differentiable in (an axis, a shape or an index list stays what it
is), whose abstract value is a list or tuple of numbers at every depth (a list of arrays is a
sequence a function such as ``np.stack`` takes as one); which function: every ``numpy.*`` primitive
but the conversions themselves and the functions of a sequence of arrays, which take lists by design.
The new lines are the only change; their abstract values are added to the facts'.
"""

from __future__ import annotations

from . import values as V
from .infer_numpy import numpy_transfer
from ..front.names import root
from ..ir.nodes import Eq, Function, Var, map_equations
from ..rules import arrays as N
from ..rules import differentiable_slots, has_rule

CONVERSIONS = ("numpy.asarray", "numpy.array", "numpy.copy", "numpy.asarray/dtype", "numpy.array/dtype")


def lists_as_arrays(facts, anf: Function, fresh) -> tuple[Function, Function]:
    """``facts.fn`` (the dup form) and ``anf`` (the same function in ANF) with ``name = numpy.asarray(xs)``
    before each NumPy equation that reads a list ``xs`` of numbers as an array, each new name's abstract
    value added to ``facts.avals``; ``fresh(base)`` gives a new variable name.  The same conversion has the
    same name in both forms (forward mode reads the ANF, reverse mode the dup form)."""
    names: dict = {}  # (equation's outputs, primitive, operand) -> the names given there, in order
    dup_form = _converted(facts.fn, facts.of, fresh, names, facts.avals)
    return dup_form, _converted(anf, facts.of, fresh, names, facts.avals)


def _converted(fn: Function, of, fresh, names: dict, avals: dict) -> Function:
    """``fn`` with its lists NumPy reads made arrays (see ``lists_as_arrays``), the new names' abstract
    values added to ``avals``."""
    taken: dict = {}  # per key of ``names``, how many of its names this function used

    def name_for(key, base: str) -> str:
        given, k = names.setdefault(key, []), taken.get(key, 0)
        taken[key] = k + 1
        if k == len(given):
            given.append(fresh(base))
        return given[k]

    def eq(e: Eq):
        slots = _array_slots(e, of)
        if not slots:
            return e
        lines, ins, made = [], list(e.ins), {}
        for k in slots:
            if ins[k] in made:  # np.dot(xs, xs) in ANF: one array (the dup form has two names, two arrays)
                ins[k] = made[ins[k]]
                continue
            array = made[ins[k]] = Var(name_for((e.outs, e.prim, k), f"{root(ins[k].name)}_array"))
            convert = Eq((array,), "numpy.asarray", (ins[k],), e.line)
            avals[array.name] = numpy_transfer(convert, [of(ins[k])])[0]
            lines.append(convert)
            ins[k] = array
        return lines + [Eq(e.outs, e.prim, tuple(ins), e.line, e.param)]

    return fn.with_body(map_equations(fn.body, eq))


def _array_slots(e: Eq, of) -> list:
    """The positions of ``e``'s operands that are lists of numbers a NumPy function reads as arrays."""
    prim = e.prim
    if not prim.startswith("numpy.") or prim in CONVERSIONS or prim in N.INACTIVE:
        return []
    if prim in N.SEQUENCE or prim.endswith("/list") or not has_rule(prim, len(e.ins)):
        return []
    slots = differentiable_slots(prim, len(e.ins))
    return [k for k, (a, on) in enumerate(zip(e.ins, slots)) if on and isinstance(a, Var) and _numbers(of(a))]


def _numbers(a: V.Aval) -> bool:
    """Whether ``a`` is a list or tuple whose leaves are all numbers (not a record)."""
    if not isinstance(a, V.Seq) or a.keys is not None:
        return False
    items = a.items if a.items is not None else (a.elem,)
    return bool(items) and all(isinstance(i, V.Num) or _numbers(i) for i in items)
