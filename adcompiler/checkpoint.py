"""Checkpointed loops: the reverse mode of a long loop in O(sqrt N) memory instead of O(N).

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

A loop qualifies when reverse mode would tape inside it and recomputing it is
safe and cheap to describe: a ``for`` loop over a ``range`` in the
differentiated function itself (not a called one), with no nested loop, no
``break``/``continue``/``return``, no list or array it changes (a snapshot
holds numbers and references, not copies), no call that is handed a list, and
every state variable assigned before the loop.  Other loops are taped as
usual: checkpointing changes memory and time, never the derivative.
"""

from __future__ import annotations

from . import expr as E
from .ir import Assign, Break, Continue, Do, Eq, For, ForS, IfS, Return, Var, While, range_expr, walk

CHANGES_LISTS = ("setitem", "append", "pop", "add_into", "add_scalars_into")


class Checkpoints:
    """The checkpointed-loop part of ``sweep.Sweeps`` (a mixin: it uses the sweeps' analyses)."""

    def checkpoint_plan(self, loop, body: list, fwd: list):
        """If ``loop`` is checkpointed: its names and state, else None.  Decided while building the
        adjoint sweep (``body`` is the loop's adjoint code, ``fwd`` its primal code with pushes)."""
        every = getattr(self.program, "checkpoint", None)
        if not every or self.split or not isinstance(loop, For) or not self._checkpointable(loop):
            return None
        if not any(_pushes(s) for s in fwd):
            return None  # nothing is taped per iteration: there is nothing to save memory on
        written = set().union(set(), *(_written(s) for s in fwd))
        state = [
            n
            for n in _reads(fwd)
            if (n in self.fn.slots or (n in self.in_loop and n not in written)) and n not in self.targets
        ]
        before = _assigned_before(self.fn.body, loop, set(self.fn.params))
        if before is None or any(n not in before for n in state):
            return None  # a state variable may be unbound when the loop starts
        plan = {
            "every": every,
            "state": state,
            "snapshots": self.namer.fresh("snapshots"),
            "steps": self.namer.fresh("steps"),
            "k": self.namer.fresh("every"),
            "start": self.namer.fresh("c"),
        }
        self.checkpointed[id(loop)] = plan
        return plan

    def _checkpointable(self, loop) -> bool:
        for s in walk(loop.body):
            if isinstance(s, (For, While, Break, Continue, Return)):
                return False
            if isinstance(s, Eq) and s.prim in CHANGES_LISTS:
                return False
            if (
                isinstance(s, Eq)
                and s.prim == "call"
                and any(isinstance(a, Var) and (a.name in self.containers or a.name in self.arrays) for a in s.ins)
            ):
                return False
        return True

    def _segments_of(self, plan, loop) -> list:
        """``steps = range(...)``, ``every = k``: what both sweeps compute the segments from."""
        bounds = For(loop.target, *(self.alias_atom(a) for a in (loop.start, loop.stop, loop.step)), (), loop.line)
        steps = E.Name(plan["steps"])
        if plan["every"] is True:
            k = E.BoolOp("or", (E.Call("int", (E.BinOp("**", E.Call("len", (steps,)), E.Num(0.5)),)), E.Num(1)))
        else:
            k = E.Num(int(plan["every"]))
        return [Assign((plan["steps"],), range_expr(bounds), loop.line), Assign((plan["k"],), k)]

    def _segment(self, plan) -> E.Expr:
        start = E.Name(plan["start"])
        return E.Subscript(E.Name(plan["steps"]), E.Slice(start, start + E.Name(plan["k"])))

    def _state(self, plan) -> E.Expr:
        names = [E.Name(n) for n in plan["state"]]
        return names[0] if len(names) == 1 else E.Tuple(tuple(names))

    def fwd_checkpointed(self, loop, plan, body: list) -> list:
        """The primal sweep: the loop in segments, a snapshot of the state before each, no taping."""
        quiet = _without_pushes(body)
        starts = E.Call("range", (E.Num(0), E.Call("len", (E.Name(plan["steps"]),)), E.Name(plan["k"])))
        segment = [ForS(loop.target.name, self._segment(plan), tuple(quiet), loop.line)]
        keep = [Do(E.Method(E.Name(plan["snapshots"]), "append", (self._state(plan),)))] if plan["state"] else []
        return (
            [Assign((plan["snapshots"],), E.List(()), loop.line)]
            + self._segments_of(plan, loop)
            + [ForS(plan["start"], starts, tuple(keep + segment), loop.line)]
        )

    def rev_checkpointed(self, loop, plan, body: list, fwd: list) -> list:
        """The adjoint sweep: per segment, last first, restore its snapshot, run it again taping, reverse it."""
        starts = E.Call("range", (E.Num(0), E.Call("len", (E.Name(plan["steps"]),)), E.Name(plan["k"])))
        state = plan["state"]
        restore = [
            Assign((state[0] if len(state) == 1 else tuple(state),), E.Method(E.Name(plan["snapshots"]), "pop", ()))
        ]
        again = ForS(loop.target.name, self._segment(plan), tuple(fwd), loop.line)
        back = ForS(loop.target.name, E.Call("reversed", (self._segment(plan),)), tuple(body), loop.line)
        segments = ForS(
            plan["start"], E.Call("reversed", (starts,)), tuple((restore if state else []) + [again, back]), loop.line
        )
        return self._segments_of(plan, loop) + [segments]


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


def _written(s) -> set:
    if isinstance(s, Assign):
        out: set = set()
        for t in s.targets:
            _target_names(t, out)
        return out
    return set().union(set(), *(_written(x) for x in getattr(s, "body", ()) + getattr(s, "orelse", ())))


def _target_names(t, out: set) -> None:
    if isinstance(t, str):
        out.add(t)
    elif isinstance(t, tuple):
        for x in t:
            _target_names(x, out)


def _reads(stmts) -> list:
    from .sweep import _free_names

    return _free_names(stmts)


def _assigned_before(stmts, loop, assigned: set):
    """The names surely assigned when ``loop`` starts (it sits in ``stmts`` or a block nested there),
    or None if it is not found.  Assignments inside branches and earlier loops do not count."""
    from .ir import blocks

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
