"""Residuals of a called function's sweeps computed again in its reverse sweep, where that is one step of
arithmetic on other residuals, instead of kept; and the same for what a loop pushes onto its tape each
iteration, computed again after its adjoint loop pops the rest (``in_loops``).

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

from ..analysis.defuse import reads, writes
from ..ir import expr as E
from ..ir.nodes import Assign, Do, ForS, IfS, WhileS, every_statement

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


def in_loops(primal: list, adjoint: list) -> tuple:
    """``(primal, adjoint)`` with the residuals a loop pushes onto its tape each iteration computed again
    after the adjoint loop pops them, where that is one step of arithmetic on others it pushes (as
    ``recomputed`` does for a called function's tuple): a loop of lstm's cells, written in place
    (``lower.inline_calls``), pushes ``1.0 + exp(-x)`` beside ``exp(-x)`` for each gate.  A tape is taken
    with one push, ``tape.append((a, b, ...))`` at the top level of a loop's body, and one pop, ``a, b, ... =
    tape.pop()``, binding each value the name it was pushed as."""
    pops = {}  # tape -> its pop's names, for the tapes popped once
    for s in every_statement(adjoint):
        tape = _tape_of(s, "pop")
        if tape is not None:
            pops[tape] = None if tape in pops else s
    pushes: dict = {}  # tape -> the names it no longer keeps and the statements computing them again

    def block(stmts) -> list:
        out = []
        for k, s in enumerate(stmts):
            tape = _tape_of(s, "append")
            if tape is not None and pops.get(tape) is not None and tape not in pushes:
                s = _pushed_fewer(s, stmts[:k], pops[tape], pushes, tape)
            out.append(_rebuilt(s, block))
        return out

    primal = block(primal)
    if not pushes:
        return primal, adjoint

    def back(stmts) -> list:
        out, waiting = [], []  # (the computations popped values wait for: each placed before its first reader)
        for s in stmts:
            tape = _tape_of(s, "pop")
            if tape in pushes:
                dropped, again = pushes[tape]
                names = [n for n in _popped(s) if n not in dropped]
                out.extend(_placed(waiting, s))
                out.append(Assign((names[0] if len(names) == 1 else tuple(names),), s.value, s.line, s.effect))
                waiting.extend(again)
                continue
            out.extend(_placed(waiting, s))
            out.append(_rebuilt(s, back))
        return out + waiting

    return primal, back(adjoint)


def _placed(waiting: list, s) -> list:
    """The computations of ``waiting`` that must run before ``s`` (it reads or binds what they bind, or binds
    what they read), taken out of ``waiting``, in their order (each reads popped values only, none another's:
    ``recomputed``).  Placed just before its one reader, a computation folds into it (``optimize.inline``:
    ``1.0 + t2`` into the line that adds the gate's cotangent, where the Numba target computes it element by
    element)."""
    touched, bound = reads(s) | writes(s), writes(s)
    placed = [a for a in waiting if a.targets[0] in touched or _operands(a.value) & bound]
    for a in placed:
        waiting.remove(a)
    return placed


def _pushed_fewer(push, before: list, pop, pushes: dict, tape: str):
    """The push ``push`` without the values computed again after ``pop`` (recorded in ``pushes``)."""
    entries = _pushed(push)
    popped = _popped(pop)
    if len(entries) != len(popped):
        return push
    values = [n for e, n in zip(entries, popped) if e == E.Name(n)]  # (pushed as themselves: no shapes)
    kept, again = recomputed(before, values, frozenset())
    if not again or not kept and len(values) == len(entries):
        return push  # (nothing to compute again, or nothing left to push)
    dropped = {a.targets[0] for a in again}
    pushes[tape] = (dropped, again)
    left = tuple(e for e, n in zip(entries, popped) if n not in dropped)
    value = left[0] if len(left) == 1 else E.Tuple(left)
    return Do(E.Method(push.value.obj, "append", (value,)), push.line)


def _tape_of(s, method: str):
    """The tape ``s`` pushes onto (``method`` "append": ``tape.append(...)`` as a statement) or pops from
    (``"pop"``: ``names = tape.pop()``), or None."""
    value = s.value if isinstance(s, (Do, Assign)) else None
    if not (isinstance(value, E.Method) and value.name == method and isinstance(value.obj, E.Name)):
        return None
    if method == "append" and isinstance(s, Do) and len(value.args) == 1:
        return value.obj.id
    if method == "pop" and isinstance(s, Assign) and not value.args and len(s.targets) == 1:
        return value.obj.id
    return None


def _pushed(push) -> tuple:
    value = push.value.args[0]
    return value.elts if isinstance(value, E.Tuple) else (value,)


def _popped(pop) -> tuple:
    target = pop.targets[0]
    return tuple(target) if isinstance(target, tuple) else (target,)


def _rebuilt(s, block):
    """``s`` with ``block`` applied to its nested blocks."""
    if isinstance(s, ForS):
        return ForS(s.target, s.iterable, tuple(block(list(s.body))), s.line, s.parallel)
    if isinstance(s, IfS):
        return IfS(s.test, tuple(block(list(s.body))), tuple(block(list(s.orelse))), s.line)
    if isinstance(s, WhileS):
        return WhileS(tuple(block(list(s.header))), s.test, tuple(block(list(s.body))), s.line)
    return s
