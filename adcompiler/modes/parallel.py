"""Reverse mode of a ``prange`` loop on a target that runs iterations at once: a parallel adjoint loop.

The paper's Section 12 differentiates a parallel program into a parallel derivative: a fork in the
primal is a join in the reverse pass, and independent work stays independent.  A ``prange`` loop
(its iterations checked independent by ``analysis.parallel``) on a target whose options ask for it
(``parallel_loops``: Numba) gets

- a primal loop that pushes nothing: it is the user's loop, run in parallel (no tape is appended to
  in an order, which threads would not keep); the arrays it writes by row are copied before it;
- an adjoint loop over the iterations, in parallel too, each iteration computing its own primal values
  again from what the loop read (they are the iteration's own: no other iteration changes them) and
  then its adjoint lines, with tapes of its own for the loops and branches inside it;
- the cotangents of values private to an iteration written directly: the row ``d_x[i]`` of an array
  the loop reads only at ``x[i]``, and the row ``d_y[i]`` of an array it writes (read, then cleared);
- the cotangents of values the iterations share (``W`` in ``y[i] = W @ x[i]``, a parameter read by every
  iteration) added into as they are (``d_W = d_W + e``): sums of the loop, which the target adds up
  without a race (the Numba target: partial sums per chunk of iterations, ``targets.numba.parallel``);
  an accumulator the iterations also read (the cotangent of a total ``s += e``) gets a copy per
  iteration, whose change is the sum.

Elsewhere (``backend="python"``, a called function's split sweeps, a ``prange`` inside another one's
body, or inside any loop of the sweep: a time step's, whose values each run reads differ from run to run)
the loop is a ``range`` loop in the reverse sweep and the sweep's usual tape serves, giving the same numbers.
"""

from __future__ import annotations

from ..analysis import values as V
from ..analysis.defuse import reads, reads_expr, writes, writes_block
from ..analysis.liveness import live_before, live_step, pure
from ..analysis.parallel import ParallelLoop, parallel_loop
from ..errors import at_line
from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, Break, Continue, Do, Eq, ForS, IfS, WhileS, walk
from .plan import ParallelKept, body_of
from .primal import PrimalSweep, iteration_index


def runs_parallel(sweep, loop) -> bool:
    """Whether the adjoint sweep ``sweep`` makes ``loop`` a parallel adjoint loop."""
    plan = sweep.plan
    return (
        bool(getattr(loop, "parallel", False)) and plan.options.parallel_loops and not plan.split and not sweep.parallel
    )


def parallel_adjoint(sweep, loop, site: tuple) -> list:
    """The adjoint of the ``prange`` loop ``loop`` at ``site`` (see the module docstring); what the primal
    sweep does for it recorded in ``sweep.keeping.parallel``."""
    plan, program, adjoints, keeping, namer = sweep.plan, sweep.program, sweep.adjoints, sweep.keeping, sweep.namer
    record = parallel_loop(plan.facts, loop, program)
    body_site = body_of(loop, site)
    before, made = set(keeping.tapes), set(adjoints.acc.values())
    sweep.parallel = True
    try:
        adjoint = sweep.block(loop.body, body_site, False)
    finally:
        sweep.parallel = False
    tapes = frozenset(name for key, name in keeping.tapes.items() if key not in before)
    snapshots = tuple(
        (plan.alias.get(a, a), namer.fresh(plan.alias.get(a, a) + "_before")) for a in sorted(record.written)
    )
    keeping.parallel[site] = ParallelKept(tapes, snapshots, bool(adjoint))
    if not adjoint:
        return [_restore(a, copy, loop.line) for a, copy in snapshots]
    again = PrimalSweep(plan, keeping.frozen(), sweep.shadows, program).block(loop.body, body_site, False, ())
    # the iteration's values computed again; the totals it adds into are left as the loop left them
    totals = {plan.alias.get(s, s): namer.fresh(plan.alias.get(s, s) + "_again") for s in record.reductions}
    again = [_renamed_in(s, totals, read=False) for s in again]
    split = _Split(sweep, record, loop, adjoints.acc)
    body = split.body(adjoint)
    # the accumulators of the iteration's own variables made outside the loop (a slot's, at the top of the
    # function) start from zero in each iteration, as the serial sweep leaves them after an iteration
    fresh = sorted(a for v, a in adjoints.acc.items() if a in made and a not in split.outer and a in writes_block(body))
    body = [Assign((a,), E.Num(0.0), loop.line) for a in fresh] + body
    index = iteration_index(plan.range_of(loop), loop.target.name)
    again, slots = kept_in_slots(plan, namer, again, body + split.finish(), tapes, index)
    keeping.parallel[site] = ParallelKept(tapes, snapshots, True, slots)
    own = [Assign((t,), E.List(()), loop.line) for t in sorted(tapes)]
    iteration = split.start() + own + list(again) + body + split.finish()
    stmt = ForS(loop.target.name, plan.range_of(loop), tuple(iteration), loop.line, True)
    # the arrays written by row as they were before the loop: each iteration then computes from its rows
    # what it did (y[i] += e reads y[i]), and leaves its rows as they were, as the serial sweep does
    restore = [_restore(a, copy, loop.line) for a, copy in snapshots]
    return restore + split.before() + [stmt] + split.after()


def kept_in_slots(plan, namer, again: list, after: list, tapes: frozenset, index: E.Expr) -> tuple:
    """``again`` (an iteration's primal code, run again before its adjoint lines ``after``) with each loop at
    its top level whose adjoint needs nothing from inside it (it reads and pushes to no tape: a sum, a
    linear recurrence, monte_carlo's path) and which only binds names, to numbers where ``again`` or
    ``after`` reads them later, replaced by reads of slots, ``name = slot[index]``; and the slots
    (``ParallelKept.slots``), which the primal loop fills as it runs that loop: a path of many steps is
    then run once, not again in the adjoint loop."""
    live = live_before(list(again) + list(after), set(), None)
    out, slots, k = [], [], 0
    for j, s in enumerate(again):
        if not isinstance(s, (ForS, WhileS)):
            out.append(s)
            continue
        left = sorted(writes(s) & live[j + 1])
        if _binds_only(s) and not (reads(s) | writes(s)) & tapes and all(_number(plan, n) for n in left):
            kept = tuple((n, namer.fresh(n + "_slots"), _number(plan, n)) for n in left)
            slots.append((k, s.line, kept))
            out.extend(Assign((n,), E.Subscript(E.Name(slot), index), s.line) for n, slot, _ in kept)
        else:
            out.append(s)
        k += 1
    return _without_dead(out, after) if slots else out, tuple(slots)


def _without_dead(again: list, after: list) -> list:
    """``again`` without the bindings no later statement reads (those that started a loop now read from
    slots): the primal loop evaluated each already, so none raises here."""
    live, out = live_before(list(after), set(), None)[0], []
    for s in reversed(again):
        if not (isinstance(s, Assign) and _binds_only(s) and not writes(s) & live):
            out.append(s)
            live = live_step(s, live, None)
    return out[::-1]


def _binds_only(s) -> bool:
    """Whether the generated statement ``s`` (with its nested blocks) only binds names to pure values."""
    if isinstance(s, Assign):
        return all(isinstance(t, str) for t in s.targets) and pure(s.value)
    if isinstance(s, AugAssign):
        return isinstance(s.target, str) and pure(s.value)
    if isinstance(s, (ForS, IfS, WhileS)):
        heads = [getattr(s, "iterable", None), getattr(s, "test", None)]
        blocks = (getattr(s, "header", ()), s.body, getattr(s, "orelse", ()))
        return all(pure(e) for e in heads if e is not None) and all(_binds_only(x) for b in blocks for x in b)
    return isinstance(s, (Break, Continue))


_SLOT_ZEROS = {V.FLOAT: E.Num(0.0), V.INT: E.Num(0), V.BOOL: E.Num(False)}


def _number(plan, name: str):
    """The zero of the kind of number the generated name ``name`` (a variable of the function, or a copy's)
    holds, which its slots are filled with first (``numpy.full``); None for anything else."""
    names = [name] + [v for v, a in plan.alias.items() if a == name]
    return next((_SLOT_ZEROS[a] for a in map(plan.facts.avals.get, names) if a in _SLOT_ZEROS), None)


def _restore(a: str, copy: str, line: int) -> Assign:
    """``a[:] = copy``: an array the loop wrote by row as it was before the loop."""
    return Assign((E.Subscript(E.Name(a), E.Slice(None, None)),), E.Name(copy), line)


class _Split:
    """The accumulators an adjoint loop's iterations add into, each in its place: a row of the
    accumulator itself, or a sum of the loop (see the module docstring)."""

    def __init__(self, sweep, record: ParallelLoop, loop, acc: dict):
        self.sweep, self.record, self.loop = sweep, record, loop
        plan = sweep.plan
        local = record.local | {s for s in plan.fn.slots if s not in record.reductions and _assigned_in(s, loop)}
        self.outer = {a: v for v, a in acc.items() if plan.alias.get(v, v) not in local and v not in local}
        self.rows = {}  # accumulator -> the array whose rows the iterations own (d_x of x[i], d_y of y[i] = ...)
        self.sums = set()  # accumulators the iterations only add into: sums of the loop
        self.read = {}  # accumulator the iterations read too -> (its iteration's copy, the sum of their changes)
        self.discard = sweep.program.discard

    # ---- the adjoint lines of one iteration, each accumulator in its place ------------------------

    def body(self, code) -> list:
        assigned = writes_block(code)
        for a in sorted(set(self.outer) & assigned):
            self.classify(a, code)
        here = {a: copy for a, (copy, _) in self.read.items()}
        return [self.statement(s, here) for s in code]

    def classify(self, a: str, code) -> None:
        """Where the iterations' additions into the accumulator ``a`` go."""
        v = self.outer[a]
        root = self.sweep.plan.alias.get(v, v)
        uses = list(_uses(code, a))
        by_row = all(kind in ("scatter", "clear") and self.own_row(index) for kind, index in uses)
        owner = _base(self.sweep.plan, v)
        if by_row and (owner in self.record.rows or owner in self.record.written):
            self.rows[a] = root
        elif any(kind == "clear" for kind, _ in uses):
            raise at_line(
                self.sweep.plan.fn.source,
                self.loop.line,
                f"a prange loop whose adjoint clears part of {root!r} at an index not its own",
                "write each iteration's row only",
            )
        elif any(kind == "read" for kind, _ in uses):  # (a total's cotangent: each iteration reads it)
            namer = self.sweep.namer
            self.read[a] = (namer.fresh(a + "_here"), namer.fresh(a + "_sum"))
        else:
            self.sums.add(a)

    def own_row(self, index) -> bool:
        """Whether the index expression ``index`` starts with the loop's variable."""
        names = self.record.index | self.record.row_indices
        return isinstance(index, E.Name) and index.id in names

    def statement(self, s, here: dict):
        """``s`` with its accumulators in their places (``here``: those read, to the iteration's copies)."""
        if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.value, E.Call):
            target, call = s.targets[0], s.value
            if call.func == "@scatter_add" and target in self.rows:
                _, _, index, g = call.args
                row = E.Subscript(E.Name(target), index)
                return Assign((row,), E.add(row, g), s.line)
            if call.func == "@take_and_clear" and isinstance(target, tuple) and target[0] in self.rows:
                return Assign(((self.discard, target[1]),), call, s.line)  # (cleared in place: an array of x's shape)
        inner = lambda block: tuple(self.statement(x, here) for x in block)  # noqa: E731
        if isinstance(s, IfS):
            return IfS(_renamed(s.test, here), inner(s.body), inner(s.orelse), s.line)
        if isinstance(s, ForS):
            return ForS(s.target, _renamed(s.iterable, here), inner(s.body), s.line, s.parallel)
        if isinstance(s, WhileS):
            return WhileS(inner(s.header), _renamed(s.test, here), inner(s.body), s.line)
        if (reads(s) | writes(s)) & set(self.rows):
            raise at_line(
                self.sweep.plan.fn.source,
                getattr(s, "line", 0) or self.loop.line,
                "a prange loop whose adjoint reads a whole array the iterations own a row each of",
                "read the array only at the iteration's row (x[i]), or loop with range",
            )
        return _renamed_in(s, here)

    # ---- around the loop and each iteration -----------------------------------------------------

    def _array(self, a: str) -> str | None:
        """The array whose adjoint the accumulator ``a`` is, or None for a number's."""
        plan = self.sweep.plan
        v = plan.alias.get(self.outer[a], self.outer[a])
        return v if v in plan.arrays else None

    def before(self) -> list:
        """Each accumulator the iterations write into an array of its array's shape (itself, where it is
        one: the accumulator is the function's own); the sums of the changes of those they read, zero."""
        line, out = self.loop.line, []
        for a in sorted(set(self.rows) | self.sums | set(self.read)):
            v = self.rows.get(a) or self._array(a)
            if v is not None:
                out.append(Assign((a,), E.Call("@array_like", (E.Name(a), E.Name(v))), line))
        for a, (_, total) in sorted(self.read.items()):
            v = self._array(a)
            zero = E.Num(0.0) if v is None else E.Call("numpy.zeros", (E.Call("numpy.shape", (E.Name(v),)),))
            out.append(Assign((total,), zero, line))
        return out

    def start(self) -> list:
        """An iteration's copies of the accumulators it reads."""
        out = []
        for a, (copy, _) in sorted(self.read.items()):
            value = E.Name(a) if self._array(a) is None else E.Call("numpy.copy", (E.Name(a),))
            out.append(Assign((copy,), value, self.loop.line))
        return out

    def finish(self) -> list:
        """An iteration's changes of the accumulators it reads, added into their sums."""
        return [
            Assign((total,), E.add(E.Name(total), E.sub(E.Name(copy), E.Name(a))), self.loop.line)
            for a, (copy, total) in sorted(self.read.items())
        ]

    def after(self) -> list:
        """The sums of the changes added into the accumulators."""
        return [
            Assign((a,), E.add(E.Name(a), E.Name(total)), self.loop.line) for a, (_, total) in sorted(self.read.items())
        ]


def _assigned_in(slot: str, loop) -> bool:
    return any(isinstance(s, Eq) and s.prim == "write" and s.outs[0].name == slot for s in walk(loop.body))


def _base(plan, v: str) -> str:
    """The name ``v`` copies (a dup copy's first name), as ``analysis.parallel`` names arrays."""
    seen = v
    while seen in plan.alias and plan.alias[seen] != seen:
        seen = plan.alias[seen]
    return seen


def _uses(code, a: str):
    """How the generated statements use the accumulator ``a``: ("scatter", index) for
    ``a = scatter_add(a, x, index, g)``, ("clear", index) for ``a, part = take_and_clear(a, x, index)``,
    ("add", None) for ``a = a + e`` and ``a += e``, ("read", None) for any other read."""
    for s in code:
        if isinstance(s, (IfS, ForS, WhileS)):
            test = getattr(s, "test", None) or getattr(s, "iterable", None)
            if test is not None and a in _expr_names(test):
                yield "read", None
            for inner in (getattr(s, "body", ()), getattr(s, "orelse", ()), getattr(s, "header", ())):
                yield from _uses(inner, a)
            continue
        value = getattr(s, "value", None)
        targets = s.targets if isinstance(s, Assign) else ((s.target,) if isinstance(s, AugAssign) else ())
        if isinstance(s, Assign) and isinstance(value, E.Call) and value.args and value.args[0] == E.Name(a):
            if value.func == "@scatter_add" and targets == (a,):
                yield "scatter", value.args[2]
                if any(a in _expr_names(x) for x in value.args[1:]):
                    yield "read", None
                continue
            if value.func == "@take_and_clear" and isinstance(targets[0], tuple) and targets[0][0] == a:
                yield "clear", value.args[2]
                continue
        if isinstance(s, AugAssign) and s.target == a and s.op == "+":
            if a in _expr_names(value):
                yield "read", None
            yield "add", None
            continue
        if isinstance(s, Assign) and targets == (a,) and isinstance(value, E.BinOp) and value.op == "+":
            left, right = value.left, value.right
            if left == E.Name(a) and a not in _expr_names(right) or right == E.Name(a) and a not in _expr_names(left):
                yield "add", None
                continue
        if (
            value is not None
            and a in _expr_names(value)
            or any(isinstance(t, E.Expr) and a in _expr_names(t) for t in targets)
        ):
            yield "read", None


def _expr_names(e) -> set:
    return reads_expr(e, set())


def _renamed(e, names: dict):
    """The expression ``e`` with the names of ``names`` renamed."""
    if not names:
        return e
    if isinstance(e, E.Name):
        return E.Name(names[e.id]) if e.id in names else e
    if isinstance(e, tuple):
        return tuple(_renamed(x, names) for x in e)
    if isinstance(e, E.Expr):
        return type(e)(**{k: _renamed(v, names) for k, v in vars(e).items()})
    return e


def _target(t, names: dict):
    if isinstance(t, str):
        return names.get(t, t)
    if isinstance(t, tuple):
        return tuple(_target(x, names) for x in t)
    return _renamed(t, names)


def _renamed_in(s, names: dict, read: bool = True):
    """The generated statement ``s`` with the names of ``names`` renamed where it assigns them, and
    where it reads them too (``read``); its nested blocks alike."""
    if not names:
        return s
    value = (lambda e: _renamed(e, names)) if read else (lambda e: e)  # noqa: E731
    inner = lambda block: tuple(_renamed_in(x, names, read) for x in block)  # noqa: E731
    if isinstance(s, Assign):
        return Assign(tuple(_target(t, names) for t in s.targets), value(s.value), s.line, s.effect)
    if isinstance(s, AugAssign):
        return AugAssign(_target(s.target, names), s.op, value(s.value), s.line)
    if isinstance(s, Do):
        return Do(value(s.value), s.line)
    if isinstance(s, IfS):
        return IfS(value(s.test), inner(s.body), inner(s.orelse), s.line)
    if isinstance(s, ForS):
        return ForS(s.target, value(s.iterable), inner(s.body), s.line, s.parallel)
    if isinstance(s, WhileS):
        return WhileS(inner(s.header), value(s.test), inner(s.body), s.line)
    return s
