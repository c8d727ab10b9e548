"""Dup form -> the adjoint sweep of reverse mode, and the record of what the primal sweep must keep.

The *primal sweep* (``primal``) runs the function, saving on a tape what the adjoints will need and
the loops and branches will have overwritten; the *adjoint sweep*, built here first, walks the
program backwards: for each line, in reverse order, the adjoint rule of its primitive
(``adjoints``); for a branch, the branch that was taken; for a loop, the iterations in reverse.

The tape is a list per push site.  Inside a loop, each run of lines pushes the values its adjoints
read, once, at its end; each branch pushes which way it went (before a ``break`` or ``continue``
too, so the tape stays balanced); a loop whose trip count is not its ``range`` pushes the count.
The adjoint sweep pops them in the mirror order.  Outside loops nothing is overwritten and nothing
is pushed, except in a split sweep (a called function, whose residuals are returned), where a branch's
values are kept too: a push site there runs at most once a call, so it is a variable (a *slot*,
``kept = (...)``, ``taken = True``), not a list (``plan.Keeping``).  What to push is decided here, as the adjoint code shows what it reads, and returned as
``plan.Kept``; the primal sweep is then written from the plan and that record.
"""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E
from ..errors import at_line
from ..front.names import root
from ..ir.nodes import Assign, Break, Do, Eq, For, ForS, If, IfS, Return, Var, While, flatten, free_names, jumps
from ..ir.nodes import rebuild, walk
from ..rules import CHANGES
from ..lower.dup import DUP
from .adjoints import Adjoints
from .checkpoint import checkpoint_plan, rev_checkpointed
from .callgraph import callees
from .plan import Kept, Keeping, LoopKept, TapePlan, body_of, placed
from .parallel import parallel_adjoint, runs_parallel
from .primal import PrimalSweep
from .rereads import Rereads
from .shape_kept import kept_for_shape
from .shadows import Shadows
from .versions import versioned_adjoint


def adjoint_sweep(plan: TapePlan, shadows: Shadows, program, namer, seed: E.Expr, ct: str | None) -> tuple:
    """``(adjoint code, adjoints, kept)``: the adjoint sweep of ``plan.fn`` from the output cotangent
    ``seed`` (the parameter ``ct``, or a literal), the adjoints it made, and what the primal sweep
    must keep for it."""
    sweep = _AdjointSweep(plan, shadows, program, namer, ct)
    code = sweep.block(plan.fn.body, (), False, seed)
    return code, sweep.adjoints, sweep.keeping.frozen()


class _AdjointSweep:
    """The walk of the adjoint sweep, block by block, last statement first."""

    def __init__(self, plan: TapePlan, shadows: Shadows, program, namer, ct: str | None):
        self.plan, self.shadows, self.program, self.namer, self.ct = plan, shadows, program, namer, ct
        self.keeping = Keeping(namer, plan, program)
        self.adjoints = Adjoints(plan, shadows, self.keeping, program, namer)
        self.rereads = Rereads(plan, shadows, self.looped)
        self.copies = self.adjoints.copies = _copies(plan)
        if ct is not None:
            self.adjoints.names.add(ct)

    @property
    def parallel(self) -> bool:
        """Whether the sweep is inside the body of a parallel adjoint loop (modes.parallel)."""
        return self.adjoints.parallel

    @parallel.setter
    def parallel(self, inside: bool) -> None:
        self.adjoints.parallel = inside

    def looped(self, name: str) -> bool:
        """Whether ``name`` is defined inside a loop (a shadow or residuals where their values are)."""
        if name in self.plan.in_loop or name in self.keeping.looped_residuals:
            return True
        owner = self.shadows.owner.get(name)
        return owner is not None and owner in self.plan.in_loop

    def block(self, stmts, block: tuple, looped: bool, seed=None) -> list:
        """The adjoint code of the block ``stmts`` (at ``block``): its accumulators, then its
        statements' adjoints, last first."""
        out = self._accumulators(block)
        for site, seg in reversed(placed(stmts, block)):
            if isinstance(seg, list):
                self._run(seg, site, block, looped, out)
            elif isinstance(seg, Return):
                self._returned(seg, seed, out)
            elif isinstance(seg, If):
                out.extend(self._branch(seg, site, looped))
            elif isinstance(seg, (For, While)):
                out.extend(self.loop(seg, site, looped))
        return out

    def _accumulators(self, block: tuple) -> list:
        """``d_x = 0.0`` for each variable the block defines whose adjoint is accumulated."""
        plan, adj, out = self.plan, self.adjoints, []
        for v in plan.defined_in.get(block, ()) + (tuple(sorted(plan.fn.slots)) if block == () else ()):
            if v in plan.accumulated and v in plan.act and v not in adj.acc and plan.mutable.get(v, v) == v:
                copy = next((w for w in self.copies.get(v, ()) if w in adj.shared), None)
                if copy is not None and self._shareable(v):  # one accumulator for the copies of one value
                    adj.acc[v] = adj.acc[copy]
                    adj.shared.add(v)
                    adj.shared_accs.add(adj.acc[v])
                    continue
                adj.acc[v] = adj.fresh("d_" + v)
                if self._shareable(v):
                    adj.shared.add(v)
                adj.zeroes.add(adj.acc[v])
                self.program.accumulators[adj.acc[v]] = plan.alias.get(v, v)  # Numba: an array's a type of its own
                if plan.options.typed_zeros:  # its zeros in a loop or branch (targets.numba.translate); the
                    # map is the module's: a name two functions' accumulators of two kinds share is left alone
                    aval = plan.facts.of(Var(v))
                    ndim = _ndim(aval)
                    known = self.program.array_accumulators
                    if known.setdefault(adj.acc[v], ndim) != ndim:
                        known[adj.acc[v]] = None
                out.append(Assign((adj.acc[v],), E.Num(0.0)))
                for member, rep in plan.mutable.items():  # one object, one adjoint array
                    if rep == v:
                        adj.acc[member] = adj.acc[v]
        return out

    def _shareable(self, v: str) -> bool:
        """Whether the accumulator of ``v``, a copy of an array of one or more axes (dup), only ever has adjoints added into
        it and is read once, where the copy is made (not a slot's, which a write reads and clears, nor
        an array's changed in place, whose adjoint is taken and cleared at each write): the copies of
        that value may then add into one accumulator, whose sum is the value's adjoint.  Arrays only:
        what sharing saves is an array of zeros and a sum per copy; numbers lose by it (three sums into
        one number in a loop wait for each other, into three they do not: monte_carlo's d_vol, 20%)."""
        plan = self.plan
        root = plan.alias.get(v, v)
        aval = plan.facts.of(Var(v))  # (a 0-d array is a number here: Numba types 0.0 and it apart)
        if v not in plan.arrays or v in plan.fn.slots or not (isinstance(aval, V.Arr) and (aval.ndim or 0) >= 1):
            return False
        return not {v, root} & (set(plan.mutable) | plan.written)

    def _run(self, seg: list, site: tuple, block: tuple, looped: bool, out: list) -> None:
        """The adjoints of a run of equations; inside a loop, the values they read popped first."""
        first = site[-1]
        eqs = reversed(list(enumerate(seg)))
        code = [line for k, eq in eqs for line in self.adjoints.equation(eq, site[:-1] + (first + k,))]
        if looped:
            names = self.adjoints.names
            saved = [n for n in free_names(code) if self.looped(n) and n not in names and n not in self.plan.targets]
            rereads: list = []
            taped, _ = self.rereads.rereads(saved, rereads)
            saved = [n for n in taped if not self.rereads.taped_outside(n, block)]
            if saved:
                self.keeping.runs[site] = tuple(saved)
                shaped = kept_for_shape(code + rereads, saved, self.plan, self.program)
                if shaped:
                    self.keeping.shaped[("run", site)] = shaped
                out.append(self.keeping.pop(saved, ("run", site)))
            out.extend(rereads)
        out.extend(code)

    def _returned(self, seg: Return, seed, out: list) -> None:
        """The output cotangent ``seed`` handed to the returned values."""
        leaves = flatten(seg.value)
        if not isinstance(seg.value, tuple):
            self.seed(seg.value, seed, seg.line, out)
            return
        if isinstance(seed, E.Tuple) and len(seed.elts) == len(leaves):  # a literal seed (jacobian)
            for a, g in zip(leaves, seed.elts):
                self.seed(a, g, seg.line, out)
            return
        discard = self.program.discard
        names = [
            self.adjoints.fresh("ct_" + a.name) if isinstance(a, Var) and a.name in self.plan.act else discard
            for a in leaves
        ]
        if any(n != discard for n in names):
            out.append(Assign((rebuild(seg.value, iter(names)),), seed, seg.line))
        for a, n in zip(leaves, names, strict=True):
            if n != discard:
                self.seed(a, E.Name(n), seg.line, out)

    def _branch(self, seg: If, site: tuple, looped: bool) -> list:
        """The adjoint of a branch: the branch taken (popped inside loops and split sweeps)."""
        looped_here = looped or self.plan.split
        floor, self.rereads.floor = self.rereads.floor, len(self.rereads.frames)  # a branch's reads stay inside it
        body, orelse = self.block(seg.body, site + (0,), looped_here), self.block(seg.orelse, site + (1,), looped_here)
        self.rereads.floor = floor
        if not (body or orelse):
            return []
        if looped_here:
            self.keeping.branches.add(site)
        test = self.keeping.taken(("branch", site)) if looped_here else self.plan.ref(seg.test)
        return [IfS(test, tuple(body), tuple(orelse), seg.line)]

    def seed(self, a, ct, line: int, out: list) -> None:
        """The output cotangent flows into a returned value (added into a returned list's shadow; a
        number given to vjp for a returned array is that number in every entry, like a tangent 0 in jvp;
        grad seeds 1.0 into the scalar output it needs)."""
        plan, split = self.plan, self.plan.split
        if isinstance(a, Var) and a.name in plan.arrays and self.ct is not None and not split:
            ct = E.Call("@array_like", (ct, plan.ref(a)))
        if isinstance(a, Var) and a.name in plan.arrays and split and isinstance(ct, E.Name):
            self.adjoints.zeroes.add(ct.id)  # a caller that used only another output passes the number 0.0 for this one
        if _literal_zero(ct):  # a literal seed's zero (jacobian): nothing flows back
            return
        if isinstance(a, Var) and a.name in plan.containers and self.seeds_elements(a, ct, line, out):
            return
        if isinstance(a, Var) and a.name in plan.containers:
            if a.name in plan.act and not split:  # a caller adds into the shadow a split sweep returns
                out.append(Do(E.Call(self.program.helper("add_into"), (E.Name(self.shadows.of(a.name)), ct)), line))
            return
        self.adjoints.contribute(a, ct, line, out)

    def seeds_elements(self, a: Var, ct, line: int, out: list) -> bool:
        """A literal seed for a list the function builds of numbers at its top level and returns
        (``return [rx, ry, rz]``, a row of a Jacobian): each number gets its element of the seed
        directly, and the list's own adjoint is left out (True); else False."""
        build = self.plan.built_at_top.get(a.name)
        if not (isinstance(ct, (E.List, E.Tuple)) and build is not None and len(build.ins) == len(ct.elts)):
            return False
        if any(isinstance(x, Var) and x.name in self.plan.containers for x in build.ins):
            return False
        self.keeping.seeded.add(a.name)
        for x, g in zip(build.ins, ct.elts):
            if not _literal_zero(g):
                self.adjoints.contribute(x, g, line, out)
        return True

    def loop(self, loop, site: tuple, looped: bool) -> list:
        """The adjoint of a loop: its iterations in reverse, what it pushed after each run popped first."""
        plan, rereads = self.plan, self.rereads
        if isinstance(loop, While):
            _refuse_active_header(loop, plan, self.program)
        elif runs_parallel(self, loop) and not looped:  # (inside another loop: the values it reads differ from
            # one run of it to the next, which its parallel adjoint does not keep: the serial sweep's tape)
            return parallel_adjoint(self, loop, site)
        frame = {"target": loop.target.name if isinstance(loop, For) else None, "hoisted": [], "names": set()}
        floor = rereads.floor
        if isinstance(loop, While) or any(jumps(s) for s in loop.body if isinstance(s, If)):
            rereads.floor = len(rereads.frames) + 1  # an iteration may stop early: nothing is hoisted out of it
        rereads.frames.append(frame)
        body = self.block(loop.body, body_of(loop, site), True)
        rereads.frames.pop()
        rereads.floor = floor
        if not body:
            return []
        counter = None
        if isinstance(loop, While) or _breaks(loop.body):
            counter = self.namer.fresh("n_" + (loop.target.name if isinstance(loop, For) else "iter"))
        if isinstance(loop, For):
            start, stop, step = (plan.ref(a) for a in (loop.start, loop.stop, loop.step))
            if counter:  # the iterations that ran: start, start + step, ... (count of them)
                stop = E.Name(counter) if start == E.Num(0) and step == E.Num(1) else start + E.Name(counter) * step
            args = (
                (stop,)
                if start == E.Num(0) and step == E.Num(1)
                else (start, stop) if step == E.Num(1) else (start, stop, step)
            )
            iterable = E.Call("reversed", (E.Call("range", args),))
            target = loop.target.name
            needed = [
                plan.alias.get(a.name, a.name)  # the name the code uses for it
                for a in (loop.start, loop.step) + (() if counter else (loop.stop,))
                if isinstance(a, Var) and self.looped(plan.alias.get(a.name, a.name))
            ]
        else:
            iterable, target, needed = E.Call("range", (E.Name(counter),)), self.program.discard, []
        reread: list = []
        needed += [n for n in rereads.outer_saved.get(site, []) if n not in needed]
        saved, already = [], set()
        if looped:
            taped, already = rereads.rereads(needed, reread)
            saved = ([counter] if counter else []) + taped
        self.keeping.loops[site] = LoopKept(counter, tuple(saved))
        hoisted = [a for a in frame["hoisted"] if a.targets[0] not in already]
        guard = None
        if hoisted:  # values the loop's iterations share, read once if it runs at all
            guard = _nonempty(iterable.args[0].args if isinstance(loop, For) else iterable.args)
        popped = [self.keeping.pop(saved, ("loop", site))] if saved else []
        plan_of = None
        if not counter and plan.options.checkpoint:
            plan_of = checkpoint_plan(
                plan, self.program, self.namer, loop, self._primal(loop, site), looped, self.looped
            )
        if plan_of:
            self.keeping.checkpoints[site] = plan_of
            snapshots = [self.keeping.pop([plan_of.names["snapshots"]], ("snapshots", site))] if looped else []
            again = rev_checkpointed(plan, self.program, plan_of, loop, body, self._primal(loop, site))
            return popped + snapshots + reread + _guarded(guard, hoisted, again)
        generic = ForS(target, iterable, tuple(body), loop.line)
        same = self.adjoints.same_calls.get(site)
        loops = versioned_adjoint(plan, self.keeping, same, self.namer, loop, site, generic, looped)
        return popped + reread + _guarded(guard, hoisted, loops)

    def _primal(self, loop, site: tuple) -> list:
        """The primal code of a loop's body with its pushes, as the record stands (checkpointing runs it
        again in the adjoint sweep)."""
        kept: Kept = self.keeping.frozen()
        return PrimalSweep(self.plan, kept, self.shadows, self.program).block(loop.body, body_of(loop, site), True, ())


def _copies(plan: TapePlan) -> dict:
    """Each copy of a value (an output of dup) -> the other copies of that value its block makes: those
    of the same line, and of the lines that copy one of them again (dup form makes copies two at a
    time, ``x_1, x_2 = dup(x)``, ``x_3, x_4 = dup(x_2)``: x_1, x_2, x_3 and x_4 are one group; x is not)."""
    group: dict = {}
    for eq in walk(plan.fn.body):
        if not (isinstance(eq, Eq) and eq.prim == DUP):
            continue
        source = eq.ins[0].name if isinstance(eq.ins[0], Var) else None
        home = plan.home.get(eq.outs[0].name)
        members = group[source] if source in group and plan.home.get(source) == home else []
        members += [v.name for v in eq.outs]
        for v in eq.outs:
            group[v.name] = members
    return {v: tuple(w for w in members if w != v) for v, members in group.items()}


def _literal_zero(e) -> bool:
    return isinstance(e, E.Num) and e.text is None and e.value == 0 and not isinstance(e.value, bool)


def _guarded(guard, hoisted: list, loop: list) -> list:
    """``loop`` preceded by the reads hoisted out of it, all under ``if guard:`` (it runs at all)."""
    return [IfS(guard, tuple(hoisted + loop), (), None)] if hoisted else loop


def _nonempty(args) -> E.Expr:
    """Whether ``range(*args)`` has any element."""
    if len(args) == 1:
        return E.Compare(">", args[0], E.Num(0))
    if len(args) == 2:
        return E.Compare("<", args[0], args[1])
    return E.Call("len", (E.Call("range", args),))


def _breaks(stmts) -> bool:
    return any(isinstance(s, Break) or (isinstance(s, If) and _breaks(s.body + s.orelse)) for s in stmts)


_CHANGING = ("setitem", "append", "pop")  # (with CHANGES: what stores into its first argument)


def _refuse_active_header(loop: While, plan: TapePlan, program) -> None:
    """A ``while`` loop's test (its header: what runs before ``if not test: break``, the last time too)
    that changes a value the derivative follows, refused at its line: the adjoint sweep runs the loop's
    body backwards, not its test (``while j < 2 and grow(ys, x) < 10``, where ``grow`` appends to
    ``ys``, lost the appended values' adjoints and read the shadow of ``ys`` at the wrong places)."""
    for eq in walk(loop.header):
        if not isinstance(eq, Eq):
            continue
        active = [a for a in eq.ins if isinstance(a, Var) and a.name in plan.act]
        if eq.prim in _CHANGING + CHANGES and active[:1] == [eq.ins[0]]:
            changed = eq.ins[0].name
        elif eq.prim == "call" and _changes_arguments(program, eq.param):
            changed = next((a.name for a in active if a.name in plan.containers), None)
        else:
            changed = next((v.name for v in eq.outs if v.name in plan.act), None)
        if changed is not None:
            raise at_line(
                plan.fn.source,
                eq.line,
                f"a while loop's condition that changes {root(changed)!r}, which the derivative follows",
                "make the call before the loop and again at the end of its body, and test its result there",
            )


def _changes_arguments(program, fn) -> bool:
    """Whether the user function ``fn``, or one it calls, stores into a list (perhaps one it was handed)."""
    for g in (fn, *callees(program, fn)):
        if any(isinstance(eq, Eq) and eq.prim in _CHANGING + CHANGES for eq in walk(program.anf(g).body)):
            return True
    return False


def _ndim(aval: V.Aval) -> int:
    """An accumulator's entry in ``array_accumulators``: its array's ndim, 0 for a number, -1 where the
    kind is not known (no argument types: the module ``adc compile --target numba`` writes), whose zero
    the target then types from its variable."""
    if isinstance(aval, V.Arr):
        return aval.ndim if aval.ndim is not None else -1
    return -1 if isinstance(aval, (V.Numeric, V.Top)) else 0
