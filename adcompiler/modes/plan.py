"""The tape plan of reverse mode, and the record of what the primal sweep keeps.

``tape_plan`` reads a function in dup form and its facts, once, before either sweep is written, and
returns a frozen ``TapePlan``: which variables are active, where each is defined (its *home* block),
which live inside loops (overwritten by the next iteration: what the adjoint needs of them is taped
or read again), which need accumulators, the loops and branches around every block, the values the
adjoint sweep can compute again instead of taping them (``rereadable``), and the loops whose arrays
may all have one shape (``versions``).

The adjoint sweep (``sweep``) then decides, site by site, what it reads of the primal and returns it
as ``Kept``: the names each run of lines pushes at its end, the branches whose direction is pushed,
each loop's trip counter and the names pushed after it runs, its checkpointing plan and its shape
version, the residuals of each call, and the name of every tape.  The primal sweep (``primal``) is
a function of the plan and that record.

A *site* is a statement's place in the function: its index in its block, after the place of that
block.  The function's body is the block ``()``; the statement ``j`` of block ``b`` is ``b + (j,)``;
block ``k`` of the statement at ``s`` is ``s + (k,)`` (a branch's body 0 and orelse 1, a for loop's
body 0, a while loop's header 0 and body 1).  A run of equations is placed at its first equation.
Sites are plain tuples: the same program gives the same sites in every build, and a site says which
loops are around it (its prefixes), which a pass that keeps one slot per iteration instead of a
list per site (a parallel reverse sweep) needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from collections.abc import Mapping

from ..analysis import values as V
from ..analysis.activity import active, slots
from ..analysis.facts import check_values, mutable_arrays
from ..analysis.loop_shapes import same_shape_loop
from ..analysis.same_shapes import representatives
from ..analysis.unread import unread_writes
from ..ir import expr as E
from ..ir.nodes import Assign, Const, Do, Eq, For, Var, While, blocks, walk
from ..ir.printing import atom, range_expr
from ..lower.dup import DUP, value_reads
from ..options import Options
from .callgraph import callees, changes_in_place, fn_recursive
from .rereadable import rereadable
from .structures import leaves_only

Site = tuple  # a statement's or block's place: see the module docstring


@dataclass(frozen=True)
class TapePlan:
    """What reverse mode knows of one function in dup form before writing either sweep."""

    fn: object  # the function (ir.nodes.Function)
    facts: object  # its facts (analysis.facts.Facts)
    split: bool  # a forward and a reverse sweep apart (a called function): see reverse.split
    options: Options
    containers: frozenset  # lists and tuples: their adjoints live in shadow lists
    arrays: frozenset  # names that may hold arrays: their adjoint code is shape-generic
    mutable: Mapping  # array written in place -> the variable whose adjoint it shares
    act: frozenset  # active variables
    alias: Mapping  # dup copy -> the primal name it reuses
    shared: Mapping  # dup copy of a container -> the variable whose shadow it shares
    home: Mapping  # name -> the block that defines it
    defined_in: Mapping  # block -> the names it defines, in the order they were found
    in_loop: frozenset  # names defined inside a loop
    targets: frozenset  # loop targets
    loop_of: Mapping  # block -> the innermost loop around it (None outside loops)
    parent_loop: Mapping  # loop -> the loop around it (None)
    accumulated: frozenset  # names whose adjoint is an accumulator (used in another block, slots, mutable)
    written: frozenset  # arrays written in place (x[i] = v)
    rereadable: Mapping  # name -> how the adjoint sweep computes it again (see rereadable.py)
    same_shapes: Mapping  # for loop -> its shape facts (analysis.loop_shapes.SameShape), see versions.py
    built_at_top: Mapping  # list -> the equation building it of its elements, at the function's top level
    shapes: Mapping  # an array -> one of its shape, read for its shape instead (analysis.same_shapes)
    joined_copies: frozenset  # copies only a join in their block reads: see joined_copies
    last_copies: Mapping  # list -> the joined copy that is its last use: see last_copies
    own: tuple | None = None  # a called function's (forward sweep, reverse sweep) names: see shares_tapes
    unread_writes: frozenset = frozenset()  # arrays written in place whose old entries nothing reads: see below

    def ref(self, a) -> E.Expr:
        """An atom as generated code spells it (a dup copy by the name it reuses)."""
        if isinstance(a, Var):
            return E.Name(self.alias.get(a.name, a.name))
        return atom(a)

    def alias_atom(self, a):
        """An atom with dup copies replaced by the name they reuse."""
        return Var(self.alias.get(a.name, a.name)) if isinstance(a, Var) else a

    def range_of(self, loop) -> E.Expr:
        """``range(...)`` of a for loop's iterations, as the generated code names its bounds."""
        bounds = For(loop.target, *(self.alias_atom(a) for a in (loop.start, loop.stop, loop.step)), (), loop.line)
        return range_expr(bounds)

    def mask(self, eq: Eq) -> tuple:
        """For each argument of ``eq``: whether it is active and differentiable there."""
        return tuple(isinstance(a, Var) and a.name in self.act and s for a, s in zip(eq.ins, slots(eq), strict=True))

    def shape_loop(self, site: Site):
        """The loop with shape facts whose body holds the statement at ``site`` directly, or None."""
        block = site[:-1]
        if block and block[-1] == 0 and block[:-1] in self.same_shapes:
            return block[:-1]
        return None


def tape_plan(facts, active_params: tuple, program, split: bool = False, own: tuple | None = None) -> TapePlan:
    """The tape plan of ``facts.fn`` with respect to ``active_params`` (see the module docstring); ``own``:
    the names of its split sweeps, where it is a called function."""
    fn, options = facts.fn, program.options
    mutable = mutable_arrays(fn, facts.numeric_arrays)
    act = active(fn, active_params, program.outputs_of(facts), facts.containers | set(mutable), facts.linked(fn))
    check_values(facts, act)
    lay = _Layout(fn, split)
    accumulated = {v for v, homes in lay.used_in.items() if homes - {lay.home.get(v)}} | set(fn.slots)
    accumulated -= facts.containers
    accumulated |= set(mutable)  # cleared and refilled in place: never an alias
    written = {
        eq.ins[0].name
        for eq in walk(fn.body)
        if isinstance(eq, Eq) and eq.prim == "setitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in facts.arrays
    }
    found = rereadable(lay, facts, program, split)
    defined_in: dict = {}
    for v, home in lay.home.items():
        defined_in.setdefault(home, []).append(v)
    same_shapes = {}
    if options.versioned_loops and not options.checkpoint:
        for site, loop in lay.loops.items():
            shapes = same_shape_loop(loop, facts.of, lay.alias) if isinstance(loop, For) else None
            if shapes is not None:
                same_shapes[site] = shapes
    built = {eq.outs[0].name: eq for eq in fn.body if isinstance(eq, Eq) and eq.prim in ("list", "tuple")}
    shapes = {  # (by the names code uses; a representative defined in the block or one around it)
        lay.alias.get(n, n): lay.alias.get(r, r)
        for n, r in representatives(fn, facts.of).items()
        if lay.home.get(n, ())[: len(lay.home.get(r, ()))] == lay.home.get(r, ())
        and lay.alias.get(n, n) != lay.alias.get(r, r)
    }
    joined = joined_copies(fn, lay.home, act, facts)
    return TapePlan(
        fn=fn,
        facts=facts,
        split=split,
        options=options,
        containers=frozenset(facts.containers),
        arrays=frozenset(facts.arrays),
        mutable=_frozen(mutable),
        act=frozenset(act),
        alias=_frozen(lay.alias),
        shared=_frozen(lay.shared),
        home=_frozen(lay.home),
        defined_in=_frozen({b: tuple(names) for b, names in defined_in.items()}),
        in_loop=frozenset(lay.in_loop),
        targets=frozenset(lay.targets),
        loop_of=_frozen(lay.loop_of),
        parent_loop=_frozen(lay.parent_loop),
        accumulated=frozenset(accumulated),
        written=frozenset(written),
        rereadable=_frozen(found),
        same_shapes=_frozen(same_shapes),
        built_at_top=_frozen(built),
        joined_copies=joined,
        last_copies=_frozen(last_copies(fn, lay.home, lay.shared, joined)),
        own=own,
        shapes=_frozen(shapes),
        unread_writes=unread_writes(fn),
    )


def joined_copies(fn, home: Mapping, act, facts) -> frozenset:
    """The copies of lists of numbers or arrays that a join of a list made at run time reads and nothing
    else (``np.stack(xs)`` joins ``list(xs)``, a copy taken where it is read: lower.arrays), in the join's
    block: the join's adjoint is the one thing added into the copy's shadow, once each time the copy is
    made, so the shadow is made by it (the pieces of the join's cotangent) instead of zeros the primal
    sweep makes and an addition (a list of zeros and an array an element each, under Numba)."""
    made = {
        eq.outs[0].name: eq
        for eq in walk(fn.body)
        if isinstance(eq, Eq)
        and eq.prim == "list_copy"
        and eq.outs[0].name in act
        and eq.outs[0].name in facts.containers
    }
    out = set()
    for eq in walk(fn.body):
        if not (isinstance(eq, Eq) and eq.prim.endswith("/list") and isinstance(eq.ins[0], Var)):
            continue
        copy = eq.ins[0].name
        if copy in made and home.get(copy) == home.get(eq.outs[0].name) and leaves_only(facts.avals.get(copy)):
            out.add(copy)
    return frozenset(out)


def last_copies(fn, home: Mapping, shared: Mapping, joined: frozenset) -> dict:
    """Each list made here (``xs = []``), not a slot, whose last use is a joined copy (``joined_copies``) in
    the list's own block, and whose other uses only append to it or measure it -> that copy.  The copy's
    adjoint is then the first thing added into the list's shadow, when it is still zeros no other shadow
    holds, of the copy's length: the copy's shadow (the join's pieces) is taken as the list's shadow,
    which the primal sweep does not build (GradBench lstm's ``np.stack(new_state)``: no zeros appended
    each layer, no sum an element)."""
    made = {
        eq.outs[0].name
        for eq in walk(fn.body)
        if isinstance(eq, Eq) and eq.prim == "list" and not eq.ins and eq.outs[0].name not in fn.slots
    }
    uses: dict = {}  # list -> [(position in program order, statement)] of its reads (dup copies' too)
    for k, stmt in enumerate(walk(fn.body)):
        if isinstance(stmt, Eq) and stmt.prim == DUP:
            continue
        for v in value_reads(stmt):
            root = shared.get(v.name, v.name)
            if root in made:
                uses.setdefault(root, []).append((k, stmt))
    out = {}
    for root, found in uses.items():
        *before, (_, last) = found
        if not (isinstance(last, Eq) and last.prim == "list_copy" and last.outs[0].name in joined):
            continue
        if home.get(last.outs[0].name) != home.get(root):
            continue
        if all(
            isinstance(s, Eq) and s.prim in ("append", "len") and _root(s.ins[0], shared) == root for _, s in before
        ):
            if not any(_root(a, shared) == root for _, s in before for a in s.ins[1:]):
                out[root] = last.outs[0].name
    return out


def _root(a, shared: Mapping):
    return shared.get(a.name, a.name) if isinstance(a, Var) else None


class _Layout:
    """One walk of the dup form: where each variable is defined and used, the loops around each block."""

    def __init__(self, fn, split: bool):
        self.fn = fn
        self.home: dict = {p: () for p in fn.params}
        self.in_loop: set = set()
        self.targets: set = set()
        self.used_in: dict = {}  # name -> the blocks that read it
        self.alias: dict = {}
        self.shared: dict = {}
        self.loop_of: dict = {}
        self.parent_loop: dict = {}
        self.loops: dict = {}  # loop site -> the loop
        self.counts_up: dict = {}  # loop target -> whether its loop counts up from a constant >= 0
        self.assigned: set = set()  # names an equation other than a dup assigns
        self.split = split
        self._visit(fn.body, (), False, None)

    def _visit(self, stmts, block: Site, looped: bool, loop) -> None:
        self.loop_of[block] = loop
        for j, stmt in enumerate(stmts):
            site = block + (j,)
            for v in value_reads(stmt):
                self.used_in.setdefault(v.name, set()).add(block)
            if isinstance(stmt, Eq) and stmt.prim == DUP:
                for v in stmt.outs:
                    self.alias[v.name] = self.alias.get(stmt.ins[0].name, stmt.ins[0].name)
                    self.shared[v.name] = self.shared.get(stmt.ins[0].name, stmt.ins[0].name)
            if isinstance(stmt, Eq) and stmt.prim != "write":
                if stmt.prim != DUP:
                    self.assigned.update(v.name for v in stmt.outs)
                for v in stmt.outs:
                    self.home[v.name] = block
                    if looped:
                        self.in_loop.add(v.name)
            if isinstance(stmt, For):
                self.home[stmt.target.name] = site + (0,)
                self.targets.add(stmt.target.name)
                up = all(
                    isinstance(a, Const) and type(a.value) is int and a.value >= low
                    for a, low in ((stmt.start, 0), (stmt.step, 1))
                )
                self.counts_up[stmt.target.name] = up and self.counts_up.get(stmt.target.name, True)
            if isinstance(stmt, (For, While)):
                self.parent_loop[site] = loop
                self.loops[site] = stmt
            for k, b in enumerate(blocks(stmt)):
                # a split sweep returns its residuals, so values a branch may not define go on the tape too
                is_loop = isinstance(stmt, (For, While))
                self._visit(b, site + (k,), looped or is_loop or self.split, site if is_loop else loop)


def shape_like(v: E.Expr, shaped: Mapping) -> E.Expr:
    """``v``, or ``shape_like(...)`` of the names its shape is read of where ``shaped`` holds it."""
    if isinstance(v, E.Name) and v.id in shaped:
        return E.Call("@shape_like", tuple(E.Name(n) for n in shaped[v.id]))
    return v


def _frozen(d: dict) -> Mapping:
    return MappingProxyType(dict(d))


# ---- what the adjoint sweep returns -------------------------------------------------------


@dataclass(frozen=True)
class LoopKept:
    """What the primal sweep keeps of one loop: its trip count (a while loop, or one that may break)
    and the names pushed after each run of it (the count first)."""

    counter: str | None
    saved: tuple


@dataclass(frozen=True)
class CheckpointPlan:
    """A checkpointed loop (see checkpoint.py): the option it follows, the names of its state, whether
    it runs inside another loop (each run has its own snapshots), and the names its code uses."""

    every: object
    state: tuple
    looped: bool
    names: Mapping  # snapshots, steps, k, start (segments) or snapshots, steps, most, left, at, to (revolve)


@dataclass(frozen=True)
class Version:
    """A loop written twice (see versions.py): the check's name (None: it cannot fail), the names the
    short version's run pushes, its tape, and whether the check's result is pushed."""

    check: str | None
    kept: tuple
    site: tuple
    pushed: bool


@dataclass(frozen=True)
class ParallelKept:
    """What the primal sweep does for one parallel loop: no pushes to ``tapes`` (the iterations' own,
    made in the adjoint loop), and ``snapshots``, (array, its copy) of the arrays written by row;
    ``again``: the adjoint loop computes each iteration's values again (it has adjoint lines);
    ``slots``: ``(k, line, ((name, slot, zero), ...))`` for each loop inside the body (the k-th at the
    body's top level) whose numbers the primal loop keeps in a slot per iteration (an array of ``zero``s
    made before the loop), ``slot[i] = name`` after it,
    which the adjoint loop reads instead of running that loop again (``parallel.kept_in_slots``)."""

    tapes: frozenset
    snapshots: tuple
    again: bool = False
    slots: tuple = ()


@dataclass(frozen=True)
class Kept:
    """What the adjoint sweep needs of the primal sweep, by site (see the module docstring)."""

    tapes: Mapping  # push key (kind, site, ...) -> the name of its tape, in the order made
    runs: Mapping  # site of a run of lines -> names pushed at its end
    branches: frozenset  # sites of the branches whose direction is pushed
    loops: Mapping  # loop site -> LoopKept
    checkpoints: Mapping  # loop site -> CheckpointPlan
    versions: Mapping  # loop site -> Version
    residuals: Mapping  # site of a call -> the name of its residuals
    seeded: frozenset  # lists whose elements a literal seed reached directly: no shadow
    looped_residuals: frozenset  # residuals of calls inside loops
    parallel: Mapping  # site of a prange loop -> parallel.ParallelKept: the adjoint loop runs in parallel
    own: tuple | None = None  # (its forward sweep onto given tapes, their tuple's name, the frames' tape): shares_tapes
    slots: frozenset = frozenset()  # push keys that run at most once a call: a variable each, not a list
    shaped: Mapping = field(
        default_factory=lambda: MappingProxyType({})
    )  # push key -> the arrays it keeps as shape_like (modes.shape_kept)

    def push(self, values: list, key) -> Do | Assign:
        """``tape.append(value)``: what the primal sweep pushes at the push site ``key``; at a slot (a site
        that runs at most once a call), ``kept = (values,)``, and a branch's direction ``taken = True``."""
        name = self.tapes[key]
        values = [shape_like(v, self.shaped.get(key, {})) for v in values]
        if key in self.slots:
            return Assign((name,), values[0] if key[0] == "branch" else E.Tuple(tuple(values)))
        value = values[0] if len(values) == 1 else E.Tuple(tuple(values))
        return Do(E.Method(E.Name(name), "append", (value,)))

    def starts(self) -> list:
        """The tapes as the primal sweep starts: empty lists; a slot ``None`` (its site may not run: a
        branch not taken), a branch's direction ``False`` (only the branch taken sets it)."""
        return [
            (
                Assign((name,), E.Num(False) if key[0] == "branch" else E.Num(None))
                if key in self.slots
                else Assign((name,), E.List(()))
            )
            for key, name in self.tapes.items()
        ]


class Keeping:
    """``Kept`` while the adjoint sweep fills it in."""

    def __init__(self, namer, plan: TapePlan | None = None, program=None):
        self.namer = namer
        self.framed = plan is not None and _framed(plan, program)
        self.once = _runs_once(plan, program, self.framed) if plan is not None else lambda key: False
        # a function whose levels share tapes keeps a slot in its frame only of values with no derivative and
        # no list: a slot starts as None, to which code differentiated again (hessian) gives no tangent of a
        # tuple's type, and which Numba cannot join with a tuple holding a list (``_calls``)
        self.plain = lambda names: not any(n in plan.act or _list_in(plan.facts.of(Var(n))) for n in names)
        self.slots: set = set()  # push keys kept in a variable (``once``)
        self.tapes: dict = {}
        self.runs: dict = {}
        self.branches: set = set()
        self.loops: dict = {}
        self.checkpoints: dict = {}
        self.versions: dict = {}
        self.residuals: dict = {}
        self.looped_residuals: set = set()  # residuals of calls inside loops
        self.seeded: set = set()
        self.parallel: dict = {}  # site of a prange loop -> parallel.ParallelKept
        self.own: tuple | None = None
        self.shaped: dict = {}  # push key -> {array kept as shape_like: the names of its shape}

    def tape(self, key, names: list | None = None) -> E.Name:
        """The tape of one push site (a run of lines, a branch, a loop, an array write): a list whose
        entries are all alike, popped by the site's adjoint in reverse order; or, for a site that runs
        at most once a call (``_runs_once``), a slot: a variable holding what the site keeps (``names``,
        when the site is asked for first by its pop; in a function whose levels share tapes, a slot
        only of values with no derivative, and a branch's direction)."""
        if key not in self.tapes:
            plain = not self.framed or key[0] == "branch" or names is not None and self.plain(names)
            if self.once(key) and plain:
                self.slots.add(key)
                self.tapes[key] = self.namer.fresh("taken" if key[0] == "branch" else "kept")
            else:
                self.tapes[key] = self.namer.fresh("tape")
        return E.Name(self.tapes[key])

    def pop(self, names: list, key) -> Assign:
        """``names = tape.pop()``: what the adjoint sweep reads back at the push site ``key`` (from a slot,
        ``names = kept``: a tuple, even of one name, which unpacks where ``None`` would not type)."""
        tape = self.tape(key, names)
        if key in self.slots:
            return Assign((tuple(names),), tape)
        target = names[0] if len(names) == 1 else tuple(names)
        return Assign((target,), E.Method(tape, "pop", ()))

    def taken(self, key) -> E.Expr:
        """The direction of the branch at the push site ``key`` as its adjoint reads it back."""
        tape = self.tape(key)
        return tape if key in self.slots else E.Method(tape, "pop", ())

    def residual(self, site: Site, eq: Eq, looped: bool) -> str:
        """The name of the residuals of the call ``eq`` at ``site``."""
        if site not in self.residuals:
            name = eq.param.__name__ if eq.param.__name__.isidentifier() else "lambda"  # (<lambda>: no name)
            self.residuals[site] = self.namer.fresh(f"{name}_res")
            if looped:
                self.looped_residuals.add(self.residuals[site])
        return self.residuals[site]

    def own_tapes(self, plan: TapePlan, program) -> str:
        """The name of the tuple of this function's tapes, which its calls of itself push onto and pop
        (``shares_tapes``); the first ask also names the forward sweep that takes them and the tape of
        each call's own residuals (its frame)."""
        if self.own is None:
            onto = program.module.fresh(f"{plan.own[0]}_onto")
            self.own = (onto, self.namer.fresh("tapes"), self.namer.fresh("frames"))
        return self.own[1]

    def frozen(self) -> Kept:
        return Kept(
            tapes=_frozen(self.tapes),
            runs=_frozen(self.runs),
            branches=frozenset(self.branches),
            loops=_frozen(self.loops),
            checkpoints=_frozen(self.checkpoints),
            versions=_frozen(self.versions),
            residuals=_frozen(self.residuals),
            seeded=frozenset(self.seeded),
            looped_residuals=frozenset(self.looped_residuals),
            parallel=_frozen(self.parallel),
            own=self.own,
            slots=frozenset(self.slots),
            shaped=_frozen(self.shaped),
        )


_SLOT_KINDS = ("run", "branch", "loop")  # push sites a slot may keep (the others: lists, at every site)


def _runs_once(plan: TapePlan, program, framed: bool):
    """Whether a push site runs at most once a call: a run of lines, a branch's direction or what a loop
    keeps after it, outside every loop of a function (a split sweep's branch: rodrigues_rotate_point's
    ``if sqtheta != 0.0``).  A function that may call itself has none, unless its levels share one set of
    tapes (``shares_tapes``): then each level keeps its slots in its frame, pushed at its end and popped at
    its reverse sweep's start (``reverse._onto_shared_tapes``; which slots, ``Keeping.tape``)."""
    origin = plan.facts.origin
    if not framed and plan.options.recompute_recursion and (origin is None or fn_recursive(program, origin)):
        return lambda key: False
    if not framed and plan.options.typed_zeros and (plan.containers or any(_calls(plan.fn.body))):
        return lambda key: False  # (Numba: a slot, None until set, holding a list fails in LLVM; see below)
    return (
        lambda key: key[0] in _SLOT_KINDS
        and len(key) == 2
        and key[1][:-1] in plan.loop_of
        and plan.loop_of[key[1][:-1]] is None
    )


def _framed(plan: TapePlan, program) -> bool:
    """Whether ``plan``'s function is a called function that calls itself where its levels may share one set
    of tapes (``shares_tapes``: the Numba target), each level's slots then in its frame."""
    origin = plan.facts.origin
    return (
        plan.own is not None
        and plan.options.recompute_recursion
        and origin is not None
        and fn_recursive(program, origin)
    )


def _list_in(aval) -> bool:
    """Whether a value of abstract value ``aval`` may be or hold a list (``values.holds_list``; anything may)."""
    return isinstance(aval, V.Top) or V.holds_list(aval)


def _calls(body):
    """The calls of user functions in ``body`` (their residuals may hold lists).  Under Numba
    (``typed_zeros``) a function holding lists or calling others keeps tapes at every site: a value that
    is None on one path and a tuple holding a (reflected) list on the other, handed from a forward sweep
    to its reverse sweep, fails in Numba's lowering ("Instruction does not dominate all uses": GradBench
    saddle's grad_y)."""
    return (s for s in walk(body) if isinstance(s, Eq) and s.prim == "call")


def recomputed(plan: TapePlan, program, eq: Eq) -> bool:
    """Whether a call's residuals are recomputed in the adjoint sweep rather than kept: where the
    program asks for it (``recompute_recursion``: the Numba target, whose types cannot nest without
    end), for a call of a recursive function of numbers, or of arrays and lists too where no function
    of the program changes an array or a list in place (the adjoint runs the call again on the objects
    the call had, which must hold what they held then: GradBench's det, the minors of an array named
    by fresh lists of indices).  Not where a list argument is active or a list is returned: their
    shadows are passed along, not recomputed; nor from a caller outside the recursion (its residuals
    recompute or share tapes, ``shares_tapes``, at the calls within: a type with an end)."""
    if not _recursion_in_numba(plan, program, eq):
        return False
    sig = plan.facts.call_sig(eq)
    caller = plan.facts.origin
    if caller is not None and caller is not eq.param and caller not in callees(program, eq.param):
        return False  # called from outside its recursion: its residuals, of a type with an end, are kept
    if all(isinstance(a, (V.Num, V.Static)) for a in sig.avals):
        return True
    kinds = zip(sig.avals, plan.mask(eq), strict=True)
    objects = all(isinstance(a, (V.Num, V.Static, V.Arr)) or isinstance(a, V.Seq) and not on for a, on in kinds)
    return objects and not changes_in_place(program)


def shares_tapes(plan: TapePlan, program, eq: Eq) -> bool:
    """Whether a call is a called function calling itself (the same derivative of it) where its residuals
    would be recomputed (``recomputed``): instead, every level of the recursion pushes onto one set of tapes,
    handed down, and the reverse sweep of each level pops them, one stack for all (GradBench's det: no
    residual types nested without end, no level run again for its residuals).  Each level's own residuals
    outside loops go onto a tape of frames.  Arrays it writes in place are restored level by level, as in
    a loop.  Not with checkpointed loops (their snapshots are per call), nor for a list argument whose
    shadow is passed along."""
    if plan.own is None or plan.options.checkpoint or not _recursion_in_numba(plan, program, eq):
        return False
    mask = plan.mask(eq)
    if any(on and a.name in plan.containers for a, on in zip(eq.ins, mask, strict=True)):
        return False  # a list's shadow is passed along
    return program.forward_sweep(eq.param, mask, plan.facts.call_sig(eq)) == plan.own[0]


def _recursion_in_numba(plan: TapePlan, program, eq: Eq) -> bool:
    """Whether ``eq`` calls a recursive function, returning no list, where the program's types cannot nest
    without end (``recompute_recursion``: the Numba target)."""
    if not plan.options.recompute_recursion or any(v.name in plan.containers for v in eq.outs):
        return False
    return fn_recursive(program, eq.param)


def placed(stmts, block: Site) -> list:
    """``(site, segment)`` for the runs of equations (lists) and single other statements of a block."""
    out: list = []
    for j, stmt in enumerate(stmts):
        if isinstance(stmt, Eq):
            if out and isinstance(out[-1][1], list):
                out[-1][1].append(stmt)
            else:
                out.append((block + (j,), [stmt]))
        else:
            out.append((block + (j,), stmt))
    return out


def body_of(loop, site: Site) -> Site:
    """The block of a loop's body (a while loop's header is block 0)."""
    return site + ((1,) if isinstance(loop, While) else (0,))
