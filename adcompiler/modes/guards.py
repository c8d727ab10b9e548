"""The checks generated code makes of its arguments before it runs: integers refused where a
derivative is asked for (``reject_ints``), and, in the modules ``adc compile`` writes, arguments of
the kinds the code was generated for (``expect``: with no call to learn from, those were assumed);
and of its results after: array cotangents that are distinct objects (``distinct``).
"""

from __future__ import annotations

from ..ir import expr as E
from ..analysis.show import show, spec
from ..analysis.facts import Facts
from ..ir.nodes import Assign, Do, IfS


def expectations(facts: Facts, name: str, program) -> list:
    """In a module ``adc compile`` writes: the checks that each argument is of the kind the code was
    generated for (with no call to learn from, those kinds were assumed: a wrong one is an error)."""
    if not program.options.guard:
        return []
    return [
        Do(E.Call(program.helper("expect"), (E.Num(f"{name}'s {p}: {show(a)}"), E.Num(spec(a)), E.Name(p))))
        for p, a in zip(facts.fn.params, facts.sig.avals)
    ]


def int_guard(program, arrays: E.Num, params: tuple) -> list:
    """The check that refuses integer arguments; for numbers it runs only when one is not a float, so
    that ``f.grad(x, y)`` costs little more than the derivative itself.  (``parse`` reads the guarded
    form back as the plain check, for derivatives of this code.)"""
    if not params:
        return []
    check = Do(E.Call(program.helper("reject_ints"), (arrays,) + tuple(E.Name(p) for p in params)))
    if arrays.value:
        return [check]
    float_type = E.Num(float, "float")  # rendered as builtins.float where the user's code binds float
    floats = [E.Compare("is not", E.Call("type", (E.Name(p),)), float_type) for p in params]
    return [IfS(floats[0] if len(floats) == 1 else E.BoolOp("or", tuple(floats)), (check,), (), None)]


def distinct(params: list, cotangents: list, arrays, out: list, fresh) -> list:
    """The cotangents of ``params``, two arrays (``arrays``: names of those) never the same object
    (``x + y`` gives both the same one): lines added to ``out`` name them, and the helper ``distinct``
    copies one where it is an earlier one, so changing one gradient in place leaves the other as it was."""
    if sum(p in arrays for p in params) < 2:
        return cotangents
    result, earlier = list(cotangents), []
    for k, (p, c) in enumerate(zip(params, cotangents)):
        if p not in arrays:
            continue
        name = fresh(f"d_{p}_out")
        out.append(Assign((name,), E.Call("@distinct", (c, *earlier)) if earlier else c))
        earlier.append(E.Name(name))
        result[k] = E.Name(name)
    return result
