"""Checkpointed loops: the reverse mode of a long loop in O(sqrt N) or O(log N) memory instead of O(N).

Without checkpointing, every iteration of a loop pushes on the tape what its
adjoint needs, so the tape grows with the trip count.  With
``differentiate(f, checkpoint=k)`` a qualifying loop is run in segments of
``k`` iterations (``checkpoint=True``: ``k = isqrt(N)``, chosen when the loop
runs):

* the primal sweep runs the loop without taping, keeping only a *snapshot* of
  the loop's state (the variables its body reads that earlier iterations or
  earlier code may have changed) at the start of each segment;
* the adjoint sweep takes the segments last to first: it restores the
  segment's snapshot, runs its ``k`` iterations again, this time taping, then
  runs their adjoints in reverse.

The tape then holds one segment (``k`` iterations) and the snapshots ``N/k``
states: ``O(sqrt N)`` for ``k = sqrt N``, for the price of running the loop
body twice.

Binomial checkpointing (Griewank's *revolve*), ``checkpoint=("revolve", c)``,
holds at most ``c`` states and one iteration's tape (``checkpoint="revolve"``:
``c = N.bit_length()``, about ``log2 N``, chosen when the loop runs):

* the primal sweep runs the loop without taping and keeps one snapshot, of the
  state at its start;
* the adjoint sweep keeps a stack of snapshots (the step each was taken at, and
  the state).  The runtime helper ``revolve`` says, from the top snapshot, which
  step to run to: there a snapshot is taken, or, for the last step not yet
  reversed, that step is run again taping and reversed at once (the top
  snapshot is dropped when its own step is reversed).  Its schedule is
  Griewank's optimal one: with ``s`` snapshots and each step run again at most
  ``r`` times, ``C(s + r, s)`` steps can be reversed, so the loop body runs at
  most ``r + 2`` times per step (in the primal sweep, again, taping) for the
  smallest such ``r``: ``r = 6`` for ``N = 10**5`` and ``c = 17``, 5.7 runs
  again per step on average.

A loop qualifies when reverse mode would tape inside it and recomputing it is
safe and cheap to describe: a ``for`` loop over a ``range`` in the
differentiated function itself (not a called one), with no nested loop, no
``break``/``continue``/``return``, no list or array it changes (a snapshot
holds numbers and references, not copies), no call that is handed a list, and
every state variable assigned before the loop.  Other loops are taped as
usual: checkpointing changes memory and time, never the derivative.
"""

from __future__ import annotations

from types import MappingProxyType

from ..analysis.defuse import writes_block
from ..ir import expr as E
from ..ir.nodes import Assign, Break, Continue, Do, Eq, For, ForS, IfS, Return, Var, While, WhileS, free_names, walk
from ..rules import CHANGES
from ..lower.library import library_changes
from .plan import CheckpointPlan, TapePlan

CHANGES_LISTS = ("setitem", "append", "pop") + CHANGES


def checkpoint_plan(plan: TapePlan, program, namer, loop, fwd: list, looped: bool, in_loop) -> CheckpointPlan | None:
    """If ``loop`` is checkpointed: its names and state, else None.  Decided while building the adjoint
    sweep (``fwd`` is the loop body's primal code with pushes; ``in_loop(name)``: whether a name is
    defined inside a loop; ``looped``: whether the loop runs inside another)."""
    every, fn = plan.options.checkpoint, plan.fn
    if not every or plan.split or not isinstance(loop, For) or not _checkpointable(plan, program, loop):
        return None
    if not any(_pushes(s) for s in fwd):
        return None  # nothing is taped per iteration: there is nothing to save memory on
    written = writes_block(fwd)
    state = [n for n in _reads(fwd) if (n in fn.slots or (in_loop(n) and n not in written)) and n not in plan.targets]
    before = _assigned_before(fn.body, loop, set(fn.params))
    if before is None or any(n not in before for n in state):
        return None  # a state variable may be unbound when the loop starts
    if revolve_limit(every) is None:  # the generated names each kind of loop uses (key: base name)
        names = {"snapshots": "snapshots", "steps": "steps", "k": "every", "start": "c"}
    else:
        names = {n: n for n in ("snapshots", "steps", "most", "left", "at", "to")}
    made = {key: namer.fresh(base) for key, base in names.items()}
    return CheckpointPlan(every, tuple(state), looped, MappingProxyType(made))


def _checkpointable(plan: TapePlan, program, loop) -> bool:
    for s in walk(loop.body):
        if isinstance(s, (For, While, Break, Continue, Return)):
            return False
        if isinstance(s, Eq) and (s.prim in CHANGES_LISTS or library_changes(s)):  # (np.copyto(p, ...): p changed
            return False  # in place, which a snapshot of the loop's state would not hold)
        if isinstance(s, Eq) and any(isinstance(a, Var) and a.name in plan.containers for a in s.ins + s.outs):
            return False  # (a list, tuple or dict read or made: its shadow and its later changes are not in a
            # snapshot, so the loop is taped as any other: the gradient 0 of a tuple state, a list written after)
        if isinstance(s, Eq) and _draws(program, s, set()):  # run again, it would draw again: taped
            return False
        if (
            isinstance(s, Eq)
            and s.prim == "call"
            and any(isinstance(a, Var) and (a.name in plan.containers or a.name in plan.arrays) for a in s.ins)
        ):
            return False
    return True


def _segments_of(plan: TapePlan, cp: CheckpointPlan, loop) -> list:
    """``steps = range(...)``, ``every = k``: what both sweeps compute the segments from."""
    steps = E.Name(cp.names["steps"])
    if cp.every is True:
        k = E.BoolOp("or", (E.Call("int", (E.BinOp("**", E.Call("len", (steps,)), E.Num(0.5)),)), E.Num(1)))
    else:
        k = E.Num(int(cp.every))
    return [Assign((cp.names["steps"],), plan.range_of(loop), loop.line), Assign((cp.names["k"],), k)]


def _segment(cp: CheckpointPlan) -> E.Expr:
    start = E.Name(cp.names["start"])
    return E.Subscript(E.Name(cp.names["steps"]), E.Slice(start, start + E.Name(cp.names["k"])))


def _state(cp: CheckpointPlan) -> E.Expr:
    names = [E.Name(n) for n in cp.state]
    return names[0] if len(names) == 1 else E.Tuple(tuple(names))


def fwd_checkpointed(plan: TapePlan, cp: CheckpointPlan, loop, body: list) -> list:
    """The primal sweep: the loop in segments, a snapshot of the state before each, no taping."""
    quiet, names = _without_pushes(body), cp.names
    if revolve_limit(cp.every) is not None:  # the schedule recomputes from the loop's start
        start = Assign((names["snapshots"],), E.List((_snapshot(cp, E.Num(0)),)), loop.line)
        return [start, ForS(loop.target.name, plan.range_of(loop), tuple(quiet), loop.line)]
    starts = E.Call("range", (E.Num(0), E.Call("len", (E.Name(names["steps"]),)), E.Name(names["k"])))
    segment = [ForS(loop.target.name, _segment(cp), tuple(quiet), loop.line)]
    keep = [Do(E.Method(E.Name(names["snapshots"]), "append", (_state(cp),)))] if cp.state else []
    return (
        [Assign((names["snapshots"],), E.List(()), loop.line)]
        + _segments_of(plan, cp, loop)
        + [ForS(names["start"], starts, tuple(keep + segment), loop.line)]
    )


def rev_checkpointed(plan: TapePlan, program, cp: CheckpointPlan, loop, body: list, fwd: list) -> list:
    """The adjoint sweep: per segment, last first, restore its snapshot, run it again taping, reverse it."""
    if revolve_limit(cp.every) is not None:
        return _rev_revolve(plan, program, cp, loop, body, fwd)
    names = cp.names
    starts = E.Call("range", (E.Num(0), E.Call("len", (E.Name(names["steps"]),)), E.Name(names["k"])))
    state = cp.state
    restore = [
        Assign((state[0] if len(state) == 1 else tuple(state),), E.Method(E.Name(names["snapshots"]), "pop", ()))
    ]
    again = ForS(loop.target.name, _segment(cp), tuple(fwd), loop.line)
    back = ForS(loop.target.name, E.Call("reversed", (_segment(cp),)), tuple(body), loop.line)
    segments = ForS(
        names["start"], E.Call("reversed", (starts,)), tuple((restore if state else []) + [again, back]), loop.line
    )
    return _segments_of(plan, cp, loop) + [segments]


def _snapshot(cp: CheckpointPlan, step: E.Expr) -> E.Expr:
    """A revolve snapshot: the step it is taken before, then the loop's state."""
    return E.Tuple((step,) + tuple(E.Name(n) for n in cp.state)) if cp.state else step


def _rev_revolve(plan: TapePlan, program, cp: CheckpointPlan, loop, body: list, fwd: list) -> list:
    """The adjoint sweep of a revolve loop: the ``revolve`` helper says, from the top snapshot, which
    step to run to, then either a snapshot is taken there or that step is run taping and reversed."""
    names = cp.names
    steps, snapshots = E.Name(names["steps"]), E.Name(names["snapshots"])
    at, to, left, most = (E.Name(names[k]) for k in ("at", "to", "left", "most"))
    limit = revolve_limit(cp.every)
    count = E.Call("len", (steps,))
    target, line = loop.target.name, loop.line
    restore = Assign(((names["at"], *cp.state) if cp.state else names["at"],), E.Subscript(snapshots, E.Num(-1)), line)
    free = most - E.Call("len", (snapshots,))
    choose = Assign((names["to"],), E.Call(program.helper("revolve"), (at, left, free)), line)
    advance = ForS(target, E.Subscript(steps, E.Slice(at, to)), tuple(_without_pushes(fwd)), line)
    keep = Do(E.Method(snapshots, "append", (_snapshot(cp, to),)), line)
    done = IfS(E.Compare("==", at, to), (Do(E.Method(snapshots, "pop", ()), line),), (), line)
    reverse = [
        Assign((target,), E.Subscript(steps, to), line),
        *fwd,
        *body,
        Assign((names["left"],), to, line),
        done,
    ]
    step = IfS(E.Compare("<", to, left - E.Num(1)), (keep,), tuple(reverse), line)
    return [
        Assign((names["steps"],), plan.range_of(loop), line),
        Assign((names["most"],), E.Method(count, "bit_length", ()) if limit is True else E.Num(limit), line),
        Assign((names["left"],), count, line),
        WhileS((), E.Compare(">", left, E.Num(0)), (restore, choose, advance, step), line),
    ]


def _draws(program, eq, seen: set) -> bool:
    """Whether ``eq`` makes an np.random draw, itself or in a function it calls (``lower.draws``)."""
    if eq.prim == "draw":
        return True
    if eq.prim != "call" or eq.param in seen:
        return False
    seen.add(eq.param)
    return any(isinstance(s, Eq) and _draws(program, s, seen) for s in walk(program.anf(eq.param).body))


def revolve_limit(checkpoint):
    """The most snapshots a loop holds under binomial checkpointing: ``c`` for ``("revolve", c)``, True
    for ``"revolve"`` (``N.bit_length()``, chosen when the loop runs), None for the other values."""
    if isinstance(checkpoint, str) and checkpoint == "revolve":
        return True
    if isinstance(checkpoint, tuple) and len(checkpoint) == 2 and checkpoint[0] == "revolve":
        return checkpoint[1]
    return None


def checkpoint_problem(checkpoint) -> str | None:
    """Why ``differentiate`` refuses a ``checkpoint`` value, or None when it takes it."""
    if checkpoint is None or checkpoint is True or _whole(checkpoint) or _revolve(checkpoint):
        return None
    if isinstance(checkpoint, tuple) and len(checkpoint) == 2 and _revolve(checkpoint[0]):
        if _whole(checkpoint[1]):
            return None
        return (
            'checkpoint must be ("revolve", c) with c an int >= 1 (the most loop states held at once), '
            f"not {checkpoint!r}"
        )
    return (
        'checkpoint must be True or an int >= 1 (iterations per segment), "revolve" or ("revolve", c) '
        f"(binomial checkpointing, c an int >= 1: the most loop states held at once), not {checkpoint!r}"
    )


def _whole(k) -> bool:
    return isinstance(k, int) and not isinstance(k, bool) and k >= 1


def _revolve(x) -> bool:
    return isinstance(x, str) and x == "revolve"


def _pushes(s) -> bool:
    """Whether a statement (or one nested in it) pushes on the tape."""
    if isinstance(s, Do) and isinstance(s.value, E.Method) and s.value.name == "append":
        return True
    return any(_pushes(x) for x in getattr(s, "body", ()) + getattr(s, "orelse", ()))


def _without_pushes(stmts: list) -> list:
    out = []
    for s in stmts:
        if isinstance(s, Do) and _pushes(s):
            continue
        if isinstance(s, IfS):
            s = IfS(s.test, tuple(_without_pushes(list(s.body))), tuple(_without_pushes(list(s.orelse))), s.line)
        out.append(s)
    return out


def _reads(stmts) -> list:
    return free_names(stmts)


def _assigned_before(stmts, loop, assigned: set):
    """The names surely assigned when ``loop`` starts (it sits in ``stmts`` or a block nested there),
    or None if it is not found.  Assignments inside branches and earlier loops do not count."""
    from ..ir.nodes import blocks

    for s in stmts:
        if s is loop:
            return assigned
        for b in blocks(s):
            found = _assigned_before(b, loop, set(assigned))
            if found is not None:
                return found
        if isinstance(s, Eq):
            assigned |= {v.name for v in s.outs}
    return None
