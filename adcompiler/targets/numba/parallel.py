"""The Numba target's ``prange`` loops: each one's iterations a function of their own, compiled as
Numba compiles any function, called from a loop that is all ``@njit(parallel=True)`` compiles.

Numba's parallel compilation turns the expressions of arrays in a parallel function into parallel
loops of their own, and those do not broadcast as NumPy does (``d[:, None] * x`` of shapes (3, 1) and
(4,) gives wrong numbers, silently, in numba 0.68); generated derivative code broadcasts everywhere.
So a ``ForS`` marked parallel (``modes.parallel``, the primal and the tangent loops of ``modes``) is
written, on the IR, as three pieces:

- ``f_iteration_k(i, reads...)``: the loop's body, in which a total the iterations add into (``s = s +
  e``, a name the function assigns outside the loop too) starts from zero and is added, at its end,
  into the row ``thread_id()`` of that total's partial sums;
- ``f_loop_k(start, count, step, reads...)``: ``for k in prange(count): f_iteration_k(start + k * step,
  ...)``, the only function compiled with ``parallel=True``, with no array expression in it;
- in ``f``, the partial sums made (zeros, a row a thread), the call of the loop, and each total's
  partial sums added into it.
"""

from __future__ import annotations

from ...analysis.defuse import reads, writes, writes_block
from ...ir import expr as E
from ...ir.nodes import Assign, Def, Do, ForS, IfS, WhileS, inner_blocks, shell


def outlined(defs: list, fresh) -> list:
    """``defs`` (generated functions) with every parallel loop split into its own functions (see the
    module docstring); ``fresh(name)`` gives a module-level name no other clashes with."""
    out = []
    for d in defs:
        made: list = []
        body = _block(d, d.body, fresh, made, set(d.params) | writes_block(d.body))
        out.append(d if not made else Def(d.name, d.params, d.defaults, tuple(body), d.doc, d.source))
        out.extend(made)
    return out


def _block(d: Def, stmts, fresh, made: list, known: set) -> list:
    out = []
    for s in stmts:
        if isinstance(s, ForS) and s.parallel:
            out.extend(_split(d, s, stmts, fresh, made, known))
        elif isinstance(s, ForS):
            out.append(ForS(s.target, s.iterable, tuple(_block(d, s.body, fresh, made, known)), s.line))
        elif isinstance(s, IfS):
            body, orelse = (tuple(_block(d, b, fresh, made, known)) for b in (s.body, s.orelse))
            out.append(IfS(s.test, body, orelse, s.line))
        elif isinstance(s, WhileS):
            header, body = (tuple(_block(d, b, fresh, made, known)) for b in (s.header, s.body))
            out.append(WhileS(header, s.test, body, s.line))
        else:
            out.append(s)
    return out


def _split(d: Def, loop: ForS, around, fresh, made: list, known: set) -> list:
    """The parallel ``loop`` of ``d`` as an iteration function and a loop function (appended to
    ``made``), and what ``d`` runs in its place."""
    inside = writes_block(loop.body) | {loop.target}
    elsewhere = set(d.params) | _writes_outside(d.body, loop)
    # a name the body assigns and reads before it does, which the function has outside the loop: a sum the
    # iterations add into (analysis.parallel checked that it is one); any other the body assigns is its own
    totals = sorted(inside & elsewhere & _exposed(loop.body, {loop.target}))
    read = set().union(*(reads(s) for s in loop.body)) if loop.body else set()
    passed = sorted((read & known) - inside | (read & set(totals)))
    passed = [n for n in passed if n not in totals]
    partials = {t: fresh(t + "_threads") for t in totals}
    thread = fresh("thread")
    line = loop.line

    iteration_name, loop_name = fresh(d.name + "_iteration"), fresh(d.name + "_loop")
    start = [Assign((t,), E.mul(E.Subscript(E.Name(partials[t]), E.Name(thread)), E.Num(0.0)), line) for t in totals]
    finish = [_added_into(E.Subscript(E.Name(partials[t]), E.Name(thread)), E.Name(t), line) for t in totals]
    head = [Assign((thread,), E.Call("@thread_id", ()), line)] if totals else []
    body = head + start + [_serial(s) for s in loop.body] + finish
    params = tuple([loop.target] + passed + [partials[t] for t in totals])
    made.append(Def(iteration_name, params, (), tuple(body), f"One iteration of a prange loop of {d.name}."))

    first, count, step = _range(loop.iterable)
    k = fresh("k")
    at = (
        E.add(first, E.mul(E.Name(k), step))
        if step != E.Num(1)
        else E.Name(k) if first == E.Num(0) else E.add(first, E.Name(k))
    )
    call = Do(E.Call(iteration_name, (at,) + tuple(E.Name(n) for n in params[1:])), line)
    bounds = ["start", "count", "step"]
    loop_params = tuple(bounds + list(params[1:]))
    parallel = ForS(k, E.Call("range", (E.Name("count"),)), (call,), line, True)
    made.append(
        Def(loop_name, loop_params, (), (parallel,), f"A prange loop of {d.name}, its iterations on Numba's threads.")
    )

    zeros = [
        Assign(
            (partials[t],),
            E.Call(
                "numpy.zeros",
                (E.BinOp("+", E.Tuple((E.Call("@thread_count", ()),)), E.Call("numpy.shape", (E.Name(t),))),),
            ),
            line,
        )
        for t in totals
    ]
    run = Do(E.Call(loop_name, (first, count, step) + tuple(E.Name(n) for n in params[1:])), line)
    summed = [Assign((t,), E.add(E.Name(t), E.Method(E.Name(partials[t]), "sum", (E.Num(0),))), line) for t in totals]
    return zeros + [run] + summed


def _added_into(row, value, line: int) -> Assign:
    return Assign((row,), E.add(row, value), line)


def _serial(s):
    """``s`` with the parallel loops inside it run in order (a prange inside a prange's iteration)."""
    if isinstance(s, ForS):
        return ForS(s.target, s.iterable, tuple(map(_serial, s.body)), s.line)
    if isinstance(s, IfS):
        return IfS(s.test, tuple(map(_serial, s.body)), tuple(map(_serial, s.orelse)), s.line)
    if isinstance(s, WhileS):
        return WhileS(tuple(map(_serial, s.header)), s.test, tuple(map(_serial, s.body)), s.line)
    return s


def _range(iterable) -> tuple:
    """(first, count, step) of ``range(...)``."""
    args = iterable.args
    if len(args) == 1:
        return E.Num(0), args[0], E.Num(1)
    first, stop = args[0], args[1]
    step = args[2] if len(args) == 3 else E.Num(1)
    if step == E.Num(1):
        return first, E.Call("max", (E.sub(stop, first), E.Num(0))), step
    return first, E.Call("len", (E.Call("range", (first, stop, step)),)), step


def _exposed(stmts, bound: set) -> set:
    """The names the statements read before they surely assign them (``bound``: assigned already)."""
    bound, out = set(bound), set()
    for s in stmts:
        if isinstance(s, (ForS, IfS, WhileS)):
            out |= reads(shell(s)) - bound
            for block in inner_blocks(s):
                out |= _exposed(block, bound | ({s.target} if isinstance(s, ForS) else set()))
            if isinstance(s, IfS):  # assigned on both paths
                bound |= writes_block(s.body) & writes_block(s.orelse)
        else:
            out |= reads(s) - bound
            bound |= writes(s)
    return out


def _writes_outside(stmts, loop) -> set:
    """The names the statements bind, but for those of ``loop`` and of other parallel loops (an
    iteration's own names)."""
    out: set = set()
    for s in stmts:
        if s is loop or isinstance(s, ForS) and s.parallel:
            continue
        if isinstance(s, (ForS, IfS, WhileS)):
            if isinstance(s, ForS):
                out.add(s.target)
            for block in (getattr(s, "header", ()), s.body, getattr(s, "orelse", ())):
                out |= _writes_outside(block, loop)
        else:
            out |= writes(s)
    return out
