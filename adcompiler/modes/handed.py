"""Accumulators handed to a called function's reverse sweep: the callee adds into its caller's
adjoint array instead of returning a fresh one the caller then adds.

A function ``g(A, ...)`` that reads its array parameter ``A`` inside a loop has an
accumulator for A's adjoint, which starts as zeros (``d_A = 0.0``) and is added into (``d_A =
scatter_add(d_A, A, i, g)``, ``d_A = d_A + e``).  Called from a loop (GradBench lstm's ``predict`` once
a character) or from itself (det's ``det_of_minor`` at every level of its recursion), each call then
makes an array of A's shape and its caller adds it into its own accumulator: the cost of a call grows
with the size of A, not with what the call reads of it.  Instead the reverse sweep takes the caller's
accumulator as a parameter and starts from it::

    d_A_1 = det_of_minor_A_reverse_sweep(tapes, t17 * d_total, d_A_1)

The callee's accumulator *is* that parameter (its ``d_A = 0.0`` gone), so each level adds into the
one array the outermost call was handed (the python target hands the number 0.0, which the first
``scatter_add`` makes an array; the Numba target hands ``array_like(d_A, A)``, zeros or the array itself:
one type for the variable, and an array of A's shape its sweeps add into in place, ``d_A += e``).

Which parameters are handed is a function of the callee alone (``handed``), so that every caller and
the callee agree on the reverse sweep's parameters: active arrays of one or more axes (float64) that
the callee reads in a loop.  The callee then checks its adjoint code (``fill``): where the
accumulator is only added into and returned, it starts from the handed value; anywhere else (its
cotangent made otherwise, the accumulator read for another purpose) the handed value is added to the
cotangent at the end, as the caller would have (``d_A_in + cotangent``).  A caller hands its own
accumulator where it has one (``Adjoints.call_adjoint``), each accumulator once a call (``f(A, A)``:
the second gets zeros), never in a parallel loop's body (its iterations would add into one array at
once); elsewhere it hands zeros and adds what comes back as before.  ``optimize.aliases`` knows that
the call changes the accumulators it is handed (``REVERSE_SWEEP``), so no tidying makes one an alias of an
adjoint read later.
"""

from __future__ import annotations

import re

from ..analysis import values as V
from ..ir import expr as E
from ..analysis.defuse import head_reads, read_count, reads, target_names, writes
from ..ir.nodes import Assign, AugAssign, Eq, For, ForS, IfS, Var, While, WhileS, every_statement, free_names, walk

# in the names of reverse sweeps and of code made of them (their forward mode): optimize.aliases reads it
REVERSE_SWEEP = "_reverse_sweep"


def is_reverse_sweep(name: str) -> bool:
    """Whether ``name`` is a called function's reverse sweep (``g_reverse_sweep``, ``g_reverse_sweep_2``), whose
    arguments after the residuals and the cotangent are the accumulators it is handed (after the first
    tape and the cotangent, for the reverse sweep of a function calling itself from the tapes its levels
    share, ``g_reverse_sweep_onto``: ``reverse._onto_shared_tapes``)."""
    return re.search(r"_reverse_sweep(_\d+)?(_onto(_\d+)?)?$", name) is not None


def handed(program, fn, mask, sig: V.Sig) -> tuple:
    """The positions of ``fn``'s parameters (active by ``mask``, for arguments of signature ``sig``) whose
    accumulators its reverse sweep takes from its caller: arrays of one or more axes, of float64, that
    it reads inside a loop, and never writes into.  (Read in branches alone, an adjoint starts from the
    first array a branch adds, which tidying makes the accumulator (``optimize.tidy``): no zeros to save,
    and the Numba target folds a way's sums into one expression, one array.)"""
    function = program.anf(fn)
    looped, written = set(), set()
    for s in walk(function.body):
        if isinstance(s, (For, While)):
            for eq in walk(list(s.body) + list(getattr(s, "header", ()))):
                if isinstance(eq, Eq):
                    looped.update(a.name for a in eq.ins if isinstance(a, Var))
        if isinstance(s, Eq) and s.prim == "setitem" and isinstance(s.ins[0], Var):
            written.add(s.ins[0].name)
    out = []
    for k, (p, on, aval) in enumerate(zip(function.params, mask, sig.avals)):
        array = isinstance(aval, V.Arr) and aval.dtype == "float64" and aval.ndim is not None and aval.ndim >= 1
        if on and array and p in looped and p not in written:
            out.append(k)
    return tuple(out)


def fill(adjoint: list, cotangent: E.Expr, param: str, namer) -> tuple:
    """``(adjoint code, cotangent, parameter)``: the adjoint code of a reverse sweep with the accumulator of
    its parameter ``param``, whose cotangent is ``cotangent``, handed in by its caller (see the module
    docstring): the accumulator itself where it is only added into, else a new parameter added to the
    cotangent at the end."""
    acc, finals = _accumulator(adjoint, cotangent, param)
    if acc is not None and _added_only(adjoint, acc, finals):
        k = next(i for i, s in enumerate(adjoint) if _same_start(s, acc))
        return adjoint[:k] + adjoint[k + 1 :], cotangent, acc
    name = namer.fresh("d_" + param + "_in")
    return adjoint, E.BinOp("+", E.Name(name), cotangent), name


def _same_start(s, acc: str) -> bool:
    return isinstance(s, Assign) and s.targets == (acc,) and s.value == E.Num(0.0)


def _accumulator(adjoint: list, c: E.Expr, param: str) -> tuple:
    """``(accumulator, lines)``: the accumulator whose final value the cotangent ``c`` of ``param`` is, or
    is a term of, and the lines at the top of ``adjoint`` that make the cotangent of it: ``d_A_out =
    array_like(d_A_1, A)`` (``guards.distinct``'s copy of another cotangent's array too, which an
    accumulator handed in never is), ``d_A = d_A_2 + d_A_1`` of the copies of A (one of them added into
    the accumulator handed in, the sum the cotangent).  ``(None, ())`` where there is none."""
    finals, seen = [], set()
    while True:
        if isinstance(c, E.Name) and c.id not in seen:
            seen.add(c.id)
            if any(_same_start(s, c.id) for s in adjoint):
                return c.id, tuple(finals)
            named = [s for s in every_statement(adjoint) if c.id in writes(s) and not isinstance(s, _BLOCKS)]
            if not (len(named) == 1 and named[0] in adjoint and named[0].targets == (c.id,)):
                return None, ()
            finals.append(named[0])
            c = named[0].value
        elif isinstance(c, E.Call) and c.func == "@distinct" and c.args:
            c = c.args[0]
        elif isinstance(c, E.Call) and c.func == "@array_like" and c.args[1:] == (E.Name(param),):
            c = c.args[0]
        elif isinstance(c, E.BinOp) and c.op == "+":  # (the term that is an accumulator; the other not read again)
            terms = [
                t for t in (c.left, c.right) if isinstance(t, E.Name) and any(_same_start(s, t.id) for s in adjoint)
            ]
            if len(terms) != 1:
                return None, ()
            c = terms[0]
        else:
            return None, ()


_BLOCKS = (IfS, ForS, WhileS)


def _added_only(adjoint: list, acc: str, finals: tuple) -> bool:
    """Whether the accumulator ``acc`` starts once, at the top of ``adjoint``, as ``acc = 0.0`` and is
    otherwise only added into: ``acc = acc + e``, ``acc += e``, ``acc = scatter_add(acc, ...)``, or handed
    to a reverse sweep that adds into it (``acc = g_reverse_sweep(..., acc)``), nothing else reading it
    but the lines ``finals`` (see ``_accumulator``)."""
    if sum(read_count(f.value, acc) for f in finals) > 1:  # (the cotangent holds the accumulator once)
        return False
    starts = [s for s in adjoint if _same_start(s, acc)]
    if len(starts) != 1 or any(_same_start(s, acc) for s in every_statement(adjoint) if s not in adjoint):
        return False
    for s in every_statement(adjoint):
        if s is starts[0] or any(s is f for f in finals):
            continue
        if isinstance(s, Assign) and s.targets == (acc,):
            if not _adds_into(s.value, acc):
                return False
        elif isinstance(s, Assign) and acc in target_names(s.targets):  # (d_A, d_B = g_reverse_sweep(r, c, d_A, d_B))
            if target_names(s.targets).count(acc) != 1 or not _adds_into(s.value, acc):
                return False
        elif isinstance(s, AugAssign) and s.target == acc:
            if s.op != "+" or acc in free_names([Assign(("_",), s.value)]):
                return False
        elif acc in _names_of(s):
            return False
    return True


def _adds_into(value: E.Expr, acc: str) -> bool:
    """Whether ``value``, assigned to ``acc``, is ``acc`` with something added into it."""

    def reads(e) -> bool:
        return acc in free_names([Assign(("_",), e)])

    if isinstance(value, E.BinOp) and value.op == "+" and value.left == E.Name(acc):
        return not reads(value.right)
    if isinstance(value, E.Call) and value.func == "@scatter_add" and value.args and value.args[0] == E.Name(acc):
        return not any(reads(a) for a in value.args[1:])
    if isinstance(value, E.Call) and is_reverse_sweep(value.func):  # (handed as it is, or as array_like gives it)
        handed = [a for a in value.args[2:] if a == E.Name(acc) or _like(a) == E.Name(acc)]
        return len(handed) == 1 and read_count(value.args, acc) == 1
    return False


def _like(e):
    """``d`` of ``array_like(d, x)``."""
    return e.args[0] if isinstance(e, E.Call) and e.func == "@array_like" and len(e.args) == 2 else None


def _names_of(s) -> set:
    """The names statement ``s`` (not the blocks inside it) reads or binds."""
    if isinstance(s, _BLOCKS):
        return head_reads(s) | ({s.target} if isinstance(s, ForS) and isinstance(s.target, str) else set())
    return reads(s) | writes(s)
