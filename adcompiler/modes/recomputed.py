"""Residuals of a called function's sweeps computed again in its reverse sweep, where that is one step of
arithmetic on other residuals, instead of kept.

A called function's forward sweep returns what its reverse sweep reads as a tuple of residuals
(``reverse.split``).  Where a residual is ``t3 = 1.0 + t2`` and ``t2`` is a residual too (GradBench
lstm's sigmoid, ``1.0 / (1.0 + np.exp(-x))``, whose adjoint reads ``exp(-x)`` and ``1.0 + exp(-x)``),
the reverse sweep can compute ``t3`` from ``t2`` as cheaply as it reads it: ``t3`` is then read once in
the forward sweep and folds into its use there, and once in the reverse sweep, where it folds too.  On a
target where each array costs its allocation and the counting of its references (Numba: the option
``recomputed_residuals``), that is an array fewer in each sweep, and one fewer in the tuple.  The numbers
are the same: the same operation on the same values.

Only ``+ - * /`` and negation of residuals and numbers, each bound once in the forward sweep, at its top
level (so the value the reverse sweep computes is the one the forward sweep had); never a residual the
reverse sweep reads only for its shape (that one is kept as a shape already, no array), nor from one
(kept as a shape, its values are not there: ba's ``proj = Xcam[:, 0:2] / Xcam[:, 2:3]``).
"""

from __future__ import annotations

from ..analysis.defuse import writes
from ..ir import expr as E
from ..ir.nodes import Assign

ARITHMETIC = ("+", "-", "*", "/")


def recomputed(primal: list, residuals: list, shaped) -> tuple:
    """(the residuals left to keep, the assignments that compute the others again, for the top of the reverse
    sweep, in the order the forward sweep ran them); ``shaped``: the residuals kept for their shapes only."""
    bound: dict = {}  # name -> how many statements at the top level bind it (a loop or branch: one each)
    for s in primal:
        for name in writes(s):
            bound[name] = bound.get(name, 0) + 1
    kept, again = set(residuals), []
    for s in primal:
        if not (isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str)):
            continue
        name = s.targets[0]
        if name not in kept or name in shaped or bound.get(name) != 1:
            continue
        operands = _operands(s.value)
        if not operands or not all(n in kept and n not in shaped and bound.get(n) == 1 for n in operands):
            continue
        kept.discard(name)
        again.append(Assign((name,), s.value, s.line))
    return [r for r in residuals if r in kept], again


def _operands(e):
    """The names of ``e``, one step of arithmetic on names and numbers, or None for anything else."""
    if isinstance(e, E.BinOp) and e.op in ARITHMETIC and not e.lists:
        sides = (e.left, e.right)
    elif isinstance(e, E.Unary) and e.op == "-":
        sides = (e.operand,)
    else:
        return None
    if not all(isinstance(x, (E.Name, E.Num)) for x in sides):
        return None
    return {x.id for x in sides if isinstance(x, E.Name)}
