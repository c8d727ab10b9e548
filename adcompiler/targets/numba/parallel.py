"""The Numba target's ``prange`` loops: chunks of iterations, each chunk a function of its own that
Numba compiles as it compiles any function, called from a loop that is all ``@njit(parallel=True)``
compiles.

Numba's parallel compilation turns the expressions of arrays in a parallel function into parallel
loops of their own, and those do not broadcast as NumPy does (``d[:, None] * x`` of shapes (3, 1) and
(4,) gives wrong numbers, silently, in numba 0.68); generated derivative code broadcasts everywhere.
So a ``ForS`` marked parallel (the primal and tangent loops ``modes`` makes of a ``prange`` loop, and
the adjoint loop of ``modes.parallel``) is written, on the IR, as three pieces:

- ``f_chunk_k(chunk, chunks, first, count, step, reads...)``: the iterations of one chunk (a
  ``chunks``-th of them, in order) of the loop's body.  A name the function has before the loop that
  the body adds into (``s = s + e``: a sum of the loop, the user's ``s += e`` or a shared cotangent
  of the adjoint loop) starts from zero in the chunk and is added, at its end, into the chunk's row of
  that sum's partial sums;
- ``f_loop_k(chunks, first, count, step, reads...)``: ``for chunk in prange(chunks): f_chunk_k(...)``,
  the only function compiled with ``parallel=True``, with no expression of arrays in it;
- in ``f``: ``chunks = thread_count()`` (NUMBA_NUM_THREADS, however many threads run), the partial
  sums (zeros, a row a chunk), the call of the loop, and each sum's partial sums added into it.

A thread writes its chunk's row of partial sums once, at the chunk's end (no two threads write one
element, and none write one cache line over and over), and the sums are added in the same order
whatever ``numba.set_num_threads`` says: one thread and all of them give the same numbers.
"""

from __future__ import annotations

from ...analysis.defuse import reads, writes, writes_block
from ...ir import expr as E
from ...ir.nodes import Assign, Def, Do, ForS, IfS, WhileS, inner_blocks, shell


def outlined(defs: list, fresh, adjoints=frozenset()) -> list:
    """``defs`` (generated functions) with every parallel loop split into its own functions (see the
    module docstring); ``fresh(name)`` gives a module-level name no other clashes with; ``adjoints``: the
    accumulators of arrays' adjoints, whose sums start in a chunk as every accumulator starts,
    ``d_x = 0.0``, which the target makes zeros of x's shape (``translate``: then added into in place)."""
    out = []
    for d in defs:
        made: list = []
        body = _block(d, d.body, fresh, made, set(d.params) | writes_block(d.body), adjoints)
        out.append(d if not made else Def(d.name, d.params, d.defaults, tuple(body), d.doc, d.source))
        out.extend(made)
    return out


def _block(d: Def, stmts, fresh, made: list, known: set, adjoints) -> list:
    out = []
    for s in stmts:
        if isinstance(s, ForS) and s.parallel:
            out.extend(_split(d, s, fresh, made, known, adjoints))
        elif isinstance(s, ForS):
            out.append(ForS(s.target, s.iterable, tuple(_block(d, s.body, fresh, made, known, adjoints)), s.line))
        elif isinstance(s, IfS):
            body, orelse = (tuple(_block(d, b, fresh, made, known, adjoints)) for b in (s.body, s.orelse))
            out.append(IfS(s.test, body, orelse, s.line))
        elif isinstance(s, WhileS):
            header, body = (tuple(_block(d, b, fresh, made, known, adjoints)) for b in (s.header, s.body))
            out.append(WhileS(header, s.test, body, s.line))
        else:
            out.append(s)
    return out


def _split(d: Def, loop: ForS, fresh, made: list, known: set, adjoints) -> list:
    """The parallel ``loop`` of ``d`` as a chunk function and a loop function (appended to ``made``),
    and what ``d`` runs in its place."""
    inside = writes_block(loop.body) | {loop.target}
    elsewhere = set(d.params) | _writes_outside(d.body, loop)
    # a name the body assigns and reads before it does, which the function has outside the loop: a sum the
    # iterations add into (analysis.parallel and modes.parallel made it one); any other the body assigns is its own
    totals = sorted(inside & elsewhere & _exposed(loop.body, {loop.target}))
    read = set().union(*(reads(s) for s in loop.body)) if loop.body else set()
    passed = [n for n in sorted((read & known) - inside) if n not in totals]
    partials = {t: fresh(t + "_chunks") for t in totals}
    names = {k: fresh(k) for k in ("chunk", "chunks", "first", "count", "step", "k")}
    chunk, chunks, k = (E.Name(names[x]) for x in ("chunk", "chunks", "k"))
    first, count, step = (E.Name(names[x]) for x in ("first", "count", "step"))
    line = loop.line

    row = lambda t: E.Subscript(E.Name(partials[t]), chunk)  # noqa: E731
    zero = lambda t: E.Num(0.0) if t in adjoints else E.mul(row(t), E.Num(0.0))  # noqa: E731  (of the total's shape)
    start = [Assign((t,), zero(t), line) for t in totals]
    finish = [Assign((row(t),), E.add(row(t), E.Name(t)), line) for t in totals]
    lo, hi = (E.BinOp("//", E.mul(E.add(chunk, E.Num(j)) if j else chunk, count), chunks) for j in (0, 1))
    at = Assign((loop.target,), E.add(first, E.mul(k, step)), line)
    serial = ForS(names["k"], E.Call("range", (lo, hi)), tuple([at] + [_serial(s) for s in loop.body]), line)
    heads = [names[x] for x in ("chunk", "chunks", "first", "count", "step")]
    params = tuple(heads + passed + [partials[t] for t in totals])
    chunk_name, loop_name = fresh(d.name + "_chunk"), fresh(d.name + "_loop")
    doc = f"The iterations of a prange loop of {d.name} in one chunk of them, in order."
    made.append(Def(chunk_name, params, (), tuple(start + [serial] + finish), doc))
    # the chunk's number as an int64: Numba types a prange's variable int64 where it types the loop and uint64
    # where it lowers it, and would compile the chunk function twice, once for each
    index = E.Call("numpy.int64", (chunk,))
    call = Do(E.Call(chunk_name, (index,) + tuple(E.Name(n) for n in params[1:])), line)
    parallel = ForS(names["chunk"], E.Call("range", (chunks,)), (call,), line, True)
    doc = f"A prange loop of {d.name}: its chunks of iterations on Numba's threads."
    made.append(Def(loop_name, params[1:], (), (parallel,), doc))

    begin, size, stride = _range(loop.iterable)
    setup = [Assign((names["chunks"],), E.Call("@thread_count", ()), line)]
    for t in totals:
        shape = E.BinOp("+", E.Tuple((chunks,)), E.Call("numpy.shape", (E.Name(t),)))
        setup.append(Assign((partials[t],), E.Call("numpy.zeros", (shape,)), line))
    run = Do(E.Call(loop_name, (chunks, begin, size, stride) + tuple(E.Name(n) for n in params[5:])), line)
    summed = [Assign((t,), E.add(E.Name(t), E.Method(E.Name(partials[t]), "sum", (E.Num(0),))), line) for t in totals]
    return setup + [run] + summed


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
