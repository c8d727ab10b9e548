"""Dup form -> reverse-mode (adjoint) programs: the entry point and the split sweeps.

The primal lines run first (``dup`` is rendered as plain reuse); then, in
reverse order, each line's adjoint: ``d_x`` is the sensitivity of the output to
``x`` (see ``sweep`` for how branches, loops and the tape work).  Nothing is
computed for inactive variables, and an adjoint that equals another
(``d_x = d_z`` for ``z = x + y``) is an alias, not a line.

A user function called from differentiated code is split in two: its forward
sweep returns the value and the residuals its adjoint needs (its tape among
them); its reverse sweep takes the residuals and the output cotangent and
returns the cotangents of its active parameters.  The entry point fuses both
into one function returning ``(value, cotangents)``; ``gradient`` is the same
with the cotangent 1.0 folded in.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis import values as V
from ..analysis.facts import Facts
from ..errors import UnsupportedSyntaxError
from ..analysis.defuse import writes_block
from ..front.names import Namer
from ..ir import expr as E
from ..ir.nodes import Assign, Comment, Def, Do, Eq, ForS, IfS, Ret, Return, Var, WhileS, calls, flatten, free_names
from ..ir.nodes import rebuild, walk, with_calls
from ..ir.printing import atom
from . import structures
from .adjoints import Adjoints
from .checkpoint_reach import warn_if_unreached
from .guards import distinct, expectations, int_guard
from .handed import fill, handed
from .numbers import float_cotangents
from .owned import owned
from .plan import Kept, TapePlan, shape_like, tape_plan
from .primal import primal_sweep
from .recomputed import in_loops as recomputed_in_loops
from .recomputed import recomputed
from .shadows import Shadows
from .shape_kept import kept_for_shape
from .sweep import adjoint_sweep


@dataclass(frozen=True)
class Sweeps:
    """Both sweeps of one function, and what the entry points ask of them."""

    plan: TapePlan
    shadows: Shadows  # the shadow lists' names (asked for more by split's returned lists)
    kept: Kept  # what the primal sweep keeps for the adjoint sweep
    primal: list  # the primal sweep, starting with ``entry``
    entry: list  # the tapes and shadows the primal sweep starts with
    adjoint: list  # the adjoint sweep
    ct: str | None  # the output cotangent's parameter (None: a literal seed was folded in)
    cotangents: list  # the cotangents of the active parameters (their shadows, for a split sweep's lists)
    value: E.Expr  # the function's value
    shadow_params: list  # a split sweep's parameters for the shadows of its list parameters
    adjoint_names: frozenset  # every adjoint name made
    looped: frozenset  # names defined inside loops (shadows and residuals of calls among them)
    primer: list  # where its levels share tapes: the primal sweep whose calls of itself push nothing


def sweeps(facts: Facts, active_params: tuple, program, namer: Namer, seed=None, split=None) -> Sweeps:
    """Both sweeps of ``facts.fn``: the tape plan, the adjoint sweep and what it keeps, then the primal
    sweep, its entry, the cotangents of ``active_params`` (``seed``: a literal output cotangent folded
    in; ``split``: the names of a called function's two sweeps, apart)."""
    fn = facts.fn
    plan = tape_plan(facts, active_params, program, split is not None, split)
    shadows = Shadows(plan, program, namer)
    ct = namer.fresh("ct") if seed is None else None
    adjoint, adjoints, kept = adjoint_sweep(plan, shadows, program, namer, seed if seed is not None else E.Name(ct), ct)
    primal = primal_sweep(plan, kept, shadows, program)
    primer = primal_sweep(plan, kept, shadows, program, priming=True) if kept.own is not None else []
    if plan.options.recomputed_residuals:  # (and those a loop's tape holds: modes.recomputed)
        primer = recomputed_in_loops(primer, adjoint)[0]  # (it pushes what the primal sweep pushes)
        primal, adjoint = recomputed_in_loops(primal, adjoint)
    lists = [p for p in active_params if p in plan.containers]
    shadow_params = [shadows.of(p) for p in lists] if split else []
    # a list parameter not differentiated may still receive active values: it gets a shadow too
    unasked = [p for p in fn.params if p in plan.containers and p in plan.act and p not in active_params]
    entry = [
        Assign((shadows.of(p),), shadows.zeros(p, E.Name(p)))
        for p in ([] if split else [p for p in lists if p in plan.act]) + unasked
    ]
    entry[:0] = kept.starts()
    primal[:0] = entry
    snapshots = {}  # written arrays that are returned: copied before the reverse sweep restores them
    ret = next(s for s in reversed(fn.body) if isinstance(s, Return))
    for a in flatten(ret.value):
        # a returned array may be a written one, or a view of it (u[:], u.reshape(4)): copied either way
        if isinstance(a, Var) and (plan.written or plan.mutable) and a.name in plan.arrays:
            snapshots[a.name] = namer.fresh(a.name + "_out")
            primal.append(Assign((snapshots[a.name],), E.Call("numpy.copy", (plan.ref(a),))))
    refs = (
        E.Name(snapshots[a.name]) if isinstance(a, Var) and a.name in snapshots else plan.ref(a)
        for a in flatten(ret.value)
    )
    value = E.tuple_of(rebuild(ret.value, iter(refs)))
    scalars = [p for p in active_params if not (split and p in plan.containers)]
    made = [_cotangent(p, plan, adjoints, shadows, program) for p in scalars]
    cotangents = distinct(scalars, made, plan.arrays, adjoint, adjoints.fresh)
    adjoint = owned(adjoint, cotangents)  # arrays stored into shadows where their own
    looped = plan.in_loop | shadows.looped() | kept.looped_residuals
    return Sweeps(
        plan,
        shadows,
        kept,
        primal,
        entry,
        adjoint,
        ct,
        cotangents,
        value,
        shadow_params,
        frozenset(adjoints.names),
        looped,
        primer,
    )


def _cotangent(p: str, plan: TapePlan, adjoints: Adjoints, shadows: Shadows, program) -> E.Expr:
    """The cotangent of the parameter ``p`` as the caller gets it: its adjoint, of its type and shape."""
    aval = plan.facts.avals.get(p, V.TOP)
    if p in plan.containers:
        shadow = E.Name(shadows.of(p)) if p in plan.act else shadows.zeros(p, E.Name(p))
        if structures.lists_of_numbers(aval) and structures.lists_all_down(aval):  # the shadow is the cotangent
            return shadow
        made = structures.like(aval, shadow, E.Name(p), shadows.namer.fresh)
        if made is not None and (structures.numbers_only(aval) or plan.options.written_shadows):
            return made
        like = "like_arrays" if V.leaves_may_be_arrays(aval) else "like"
        return E.Call(program.helper(like), (shadow, E.Name(p)))
    d = adjoints.of(p)
    if p in plan.arrays:
        float64 = isinstance(aval, V.Arr) and aval.dtype == "float64" and aval.ndim != 0  # 0-D: not a NumPy scalar
        narrow = any(isinstance(a, V.Arr) and a.dtype in ("float32", "float16") for a in plan.facts.avals.values())
        if isinstance(d, E.Name) and d.id not in adjoints.zeroes and float64 and not narrow:  # (a float32 operand's
            return d  # product with a float64 array is float32: np.dot(x32, w64)'s d_w64) surely an array of p's
            # shape and dtype already
        return E.Call("@array_like", (d or E.Num(0.0), E.Name(p)))
    if d is None and p not in plan.act:  # unused: a zero shaped like whatever was passed
        return E.Call("@zeros_like", (E.Name(p),))
    d = d or E.Num(0.0)
    if isinstance(aval, V.Num) and aval.dtype not in ("float", "int", "bool"):  # a NumPy float32: its type
        return E.Call(f"numpy.{aval.dtype}", (d,))
    if plan.arrays and not isinstance(d, E.Num):  # arrays' cotangents reached it: a 0-d array made a number
        return E.Call("@array_like", (d, E.Name(p)))
    return d


def fused(facts: Facts, name: str, active_params: tuple, program, namer: Namer) -> Def:
    """``name(*params, ct=1.0) -> (value, cotangents)``: both sweeps in one function."""
    fn = facts.fn
    s = sweeps(facts, active_params, program, namer)
    warn_if_unreached(s, program)
    ones = _ones_returned(fn.body[-1].value, facts)
    heading = [Comment("adjoints, last line first")] if s.adjoint else []
    cts = float_cotangents(facts.avals, active_params, s.cotangents, s.adjoint)
    body = s.primal + heading + s.adjoint + [Ret(E.Tuple((s.value, E.Tuple(tuple(cts)))))]
    body = expectations(facts, name, program) + body
    doc = f"Reverse mode of {fn.name}: (value, cotangents)."
    return Def(name, fn.params + (s.ct,), tuple(atom(d) for d in fn.defaults) + (ones,), tuple(body), doc, fn.source)


def gradient(facts: Facts, name: str, active_params: tuple, program, namer: Namer, with_value: bool) -> Def:
    """``name(*params)``: the gradient of a scalar output (with its value if asked), in one call.

    The entry point behind ``f.grad``: it refuses integer arguments for the
    active parameters, then runs both sweeps with the cotangent 1.0 folded in.
    """
    fn = facts.fn
    s = sweeps(facts, active_params, program, namer, seed=E.Num(1.0))
    warn_if_unreached(s, program)
    cts = float_cotangents(facts.avals, active_params, s.cotangents, s.adjoint)
    grads = cts[0] if len(cts) == 1 else E.Tuple(tuple(cts))
    arrays = E.Num(any(V.leaves_may_be_arrays(a) for a in facts.sig.avals))
    guard = int_guard(program, arrays, active_params)
    result = E.Tuple((s.value, grads)) if with_value else grads
    body = guard + s.primal + s.adjoint + [Ret(result)]
    return Def(name, fn.params, tuple(atom(d) for d in fn.defaults), tuple(body), f"Gradient of {fn.name}.", fn.source)


def jacobian(facts: Facts, name: str, active_params: tuple, program, namer: Namer) -> Def:
    """``name(*params)``: the rows of the Jacobian of an output of ``m`` numbers (a number, a tuple of
    them, a list or tuple of a known length) with respect to parameters that hold numbers the same
    way, as ``m`` lists of ``n`` numbers (TypeError for other outputs and parameters).

    Row ``k`` is the adjoint sweep with the literal seed ``e_k`` folded in (its zeros flow nowhere);
    in straight-line code with the same names as every other row, so a row's numbers, bound again by
    the next, are let go.
    Straight-line code whose adjoints change nothing the primal sweep computed runs the primal
    sweep once for all rows, as a hand-written Jacobian does; other code runs both sweeps per row.
    """
    fn = facts.fn
    if not jacobian_applies(facts, active_params):
        raise TypeError(f"{fn.name}: the Jacobian's rows are made for numbers in and numbers of a known count out")
    m = _numbers_in(facts.summary.out)
    plain = all(isinstance(x, (Eq, Return)) and getattr(x, "prim", "") != "call" for x in walk(fn.body))
    # straight-line code (no branch, loop or call): rows named alike, so each row's numbers are let go
    # when the next binds the names again
    namers = [namer.child() for _ in range(m)] if plain else [namer] * m
    rows = _rows(facts, active_params, program, namers)
    warn_if_unreached(rows[0][0], program)
    for row_namer in namers:
        namer.take_all(row_namer)
    core = rows[0][1]
    shared = all(not s.kept.tapes and c == core and not (writes_block(s.adjoint) & writes_block(core)) for s, c in rows)
    shared = shared and not any(isinstance(x, (ForS, WhileS)) for x in core)
    shared = shared and not any(set(free_names(core)) & writes_block(s.entry) for s, _ in rows)  # a row's shadows
    shared = shared and not any(writes_block(c) & set(s.shadows.owner) for s, c in rows)  # (shadow lists the
    # primal sweep makes, ys = [x] * 1, which each row's adjoint adds into: made again for each row)
    body = int_guard(program, E.Num(any(V.leaves_may_be_arrays(a) for a in facts.sig.avals)), active_params)
    given = {p: namer.fresh(p + "_given") for p in fn.params}  # each row's primal starts from the arguments
    body += core if shared else [Assign((given[p],), E.Name(p)) for p in fn.params]
    results = []
    for k, (s, c) in enumerate(rows):
        again = [] if shared else [Assign((p,), E.Name(given[p])) for p in fn.params]
        results.append(namer.fresh(f"row_{k}"))
        row = [Assign((results[-1],), _flat_cotangents(s, active_params))]  # before the next row changes names
        body += [Comment(f"row {k}")] + s.entry + again + ([] if shared else c) + s.adjoint + row
    result = E.Tuple(tuple(E.Name(r) for r in results))
    doc = f"Jacobian of {fn.name}: one row per output number, one entry per input number."
    return Def(name, fn.params, tuple(atom(d) for d in fn.defaults), tuple(body) + (Ret(result),), doc, fn.source)


def _rows(facts: Facts, active_params: tuple, program, namers: list) -> list:
    """``(sweeps, primal sweep)`` for each row of the Jacobian, row ``k`` named by ``namers[k]``."""
    m, rows = len(namers), []
    for k in range(m):
        s = sweeps(facts, active_params, program, namers[k], seed=_unit_seed(facts.summary.out, iter(range(m)), k))
        rows.append((s, s.primal[len(s.entry) :]))
    return rows


def jacobian_applies(facts: Facts, active_params: tuple) -> bool:
    """Whether ``jacobian`` makes a function for these facts: numbers in, numbers of a known count out."""
    if not _numbers_in(facts.summary.out) or any(facts.summary.written):  # a list it changes: no second run
        return False
    return all(_flat_numbers(facts.avals.get(p)) for p in active_params)


def _flat_numbers(aval) -> bool:
    """Whether a parameter of this abstract value holds numbers: a number, or a flat list or tuple."""
    return aval == V.FLOAT or isinstance(aval, V.Seq) and aval.elem == V.FLOAT


def _flat_cotangents(s: Sweeps, params) -> E.Expr:
    """The cotangents of ``params`` (numbers, flat lists and tuples) as one list of numbers."""
    parts = []
    for p, c in zip(params, s.cotangents):
        if s.plan.facts.avals.get(p) == V.FLOAT:
            parts.append(E.List((c,)))
        elif p in s.plan.act:
            parts.append(E.Name(s.shadows.of(p)))
        else:
            parts.append(E.BinOp("*", E.List((E.Num(0.0),)), E.Call("len", (E.Name(p),))))
    flat = parts[0]
    for part in parts[1:]:
        flat = E.BinOp("+", flat, part, True)  # lists joined
    return flat


def _numbers_in(out) -> int:
    """How many numbers an output of abstract value ``out`` holds, or 0 if not only numbers of a known count."""
    if isinstance(out, tuple):
        counts = [_numbers_in(o) for o in out]
        return sum(counts) if all(counts) else 0
    if out == V.FLOAT:
        return 1
    if isinstance(out, V.Seq) and out.items is not None and out.items and all(i == V.FLOAT for i in out.items):
        return len(out.items)
    return 0


def _unit_seed(out, positions, k) -> E.Expr:
    """The seed ``e_k`` shaped like the output ``out`` (positions counts its numbers)."""
    if isinstance(out, tuple):
        return E.Tuple(tuple(_unit_seed(o, positions, k) for o in out))
    if isinstance(out, V.Seq):
        elts = tuple(E.Num(1.0 if next(positions) == k else 0.0) for _ in out.items)
        return E.List(elts) if out.kind == "list" else E.Tuple(elts)
    return E.Num(1.0 if next(positions) == k else 0.0)


def split(facts: Facts, names: tuple, active_params: tuple, program, namer: Namer) -> list:
    """The forward sweep and the reverse sweep of a called function.

    ``g_forward_sweep(*params, *shadows of list params) -> (value, [shadows of returned lists,] residuals)``
    and ``g_reverse_sweep(residuals, ct, *accumulators, *shadows of list params) -> cotangents of its number
    parameters``: the shadows the caller holds are handed to the reverse sweep, which adds into them, as
    arguments, not through the residuals (code that differentiates the two sweeps again then sees the
    caller's lists changed by the call: through the residuals it lost what the reverse sweep added).  A
    function that calls itself keeps them in its residuals (its tapes are shared by every level).
    """
    fwd_name, rev_name = names
    fn = facts.fn
    s = sweeps(facts, active_params, program, namer, split=names)
    adjoint, cotangents, accumulators = _handed_in(s, facts, active_params, program, namer)
    out = cotangents[0] if len(cotangents) == 1 else E.Tuple(tuple(cotangents))
    inside = s.looped | s.plan.targets  # restored by the tape or by the reversed loops themselves
    inside |= writes_block(adjoint) | set(accumulators)  # and what the adjoint code defines itself
    residuals = [n for n in free_names(adjoint + [Ret(out)]) if n not in s.adjoint_names and n not in inside]
    res = namer.fresh("residuals")
    ret = fn.body[-1]
    lists = [a for a in flatten(ret.value) if isinstance(a, Var) and a.name in s.plan.containers]
    shadows, made_once = _returned_shadows(s, lists, namer)
    shaped = kept_for_shape(s.adjoint + [Ret(out)], residuals, s.plan, program) if s.kept.own is None else {}
    again = []
    if s.plan.options.recomputed_residuals and s.kept.own is None:
        residuals, again = recomputed(s.primal, residuals, shaped)
    handed_shadows = tuple(s.shadow_params) if s.kept.own is None else ()  # (the caller hands them to both)
    residuals = [r for r in residuals if r not in handed_shadows]
    residuals, rows = _rows_read_back(s.primal, residuals)
    saved = E.Tuple(tuple(shape_like(E.Name(r), shaped) for r in residuals))
    value = E.Tuple((s.value, shadows, saved) if lists else (s.value, saved))
    fwd_body = s.primal + made_once + [Ret(value)]
    unpack = [Assign((tuple(residuals),), E.Name(res))] if residuals else []
    rev_body = unpack + rows + again + adjoint + [Ret(out)]
    params = fn.params + tuple(s.shadow_params)
    onto = []
    if s.kept.own is not None:  # it calls itself: one set of tapes for every level (plan.shares_tapes)
        rev_onto = program.module.fresh(f"{rev_name}_onto")
        names = (rev_name, rev_onto, accumulators)
        onto, res, fwd_body, rev_body = _onto_shared_tapes(s, residuals, params, rev_body[len(unpack) :], names, namer)
    return [
        Def(
            fwd_name,
            params,
            (),
            tuple(fwd_body),
            f"Forward sweep of {fn.name}: (value, {'shadows of returned lists, ' if lists else ''}residuals for {rev_name}).",
            fn.source,
        ),
        Def(
            rev_name,
            (res, s.ct) + tuple(accumulators) + handed_shadows,
            (),
            tuple(rev_body),
            f"Reverse sweep of {fn.name}: cotangents of its number parameters"
            + (f" (added into {', '.join(accumulators)})." if accumulators else "."),
            fn.source,
        ),
    ] + onto


def _rows_read_back(primal: list, residuals: list) -> tuple:
    """``(residuals, reads)``: the residuals without the lists that are rows of another residual, a list
    the forward sweep made by a display of them (``d_t3 = [d_t1, d_t2]``: the shadow of ``np.array`` of
    nested lists, whose rows the reverse sweep adds into through ``d_t3`` and reads by their own names),
    and the reads giving the rows back in the reverse sweep (``d_t1 = d_t3[0]``).  Handed over apart, the
    rows and the list holding them were three unrelated lists to code that differentiates the reverse
    sweep again: what it added into the rows through the list was lost (``vjp(grad(f))``: 0 for 0.7)."""
    kept, reads = set(residuals), {}
    for stmt in primal:
        if not (isinstance(stmt, Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, E.List)):
            continue
        whole = stmt.targets[0]
        if whole not in kept or sum(1 for t in _bound(primal) if t == whole) != 1:
            continue
        for k, row in enumerate(stmt.value.elts):
            if isinstance(row, E.Name) and row.id in kept and row.id not in reads and row.id != whole:
                reads[row.id] = Assign((row.id,), E.Subscript(E.Name(whole), E.Num(k)))
    if not reads:
        return residuals, []
    held = [r for r in residuals if r not in reads]
    return held, [reads[r] for r in residuals if r in reads]


def _bound(body: list):
    """The names the top-level assignments of ``body`` bind (a name bound twice is no row kept)."""
    for stmt in body:
        if isinstance(stmt, Assign):
            yield from (t for t in flatten(stmt.targets) if isinstance(t, str))


def _handed_in(s: Sweeps, facts: Facts, active_params: tuple, program, namer: Namer) -> tuple:
    """``(adjoint code, cotangents, accumulator parameters)`` of a called function's reverse sweep, with
    the accumulators of the parameters ``handed.handed`` names taken from its caller (see ``handed``)."""
    params = program.anf(facts.origin).params  # (as the callers name them: ``program.reverse_sweep``'s mask)
    mask = tuple(p in active_params for p in params)
    adjoint, cotangents, accumulators = list(s.adjoint), list(s.cotangents), []
    scalars = [p for p in active_params if p not in s.plan.containers]
    for k in handed(program, facts.origin, mask, facts.sig):
        i = scalars.index(params[k])
        adjoint, cotangents[i], name = fill(adjoint, cotangents[i], params[k], namer)
        accumulators.append(name)
    return adjoint, cotangents, accumulators


def _onto_shared_tapes(s: Sweeps, residuals: list, params: tuple, adjoint: list, names: tuple, namer: Namer) -> tuple:
    """The sweeps of a function that calls itself, its levels sharing tapes (``plan.shares_tapes``):
    ``(defs, the reverse sweep's parameter, forward body, reverse body)``.  The forward sweep makes the
    tapes and hands them to ``NAME_onto(*params, *tapes) -> value``, the function's lines pushing onto
    them, whose calls of itself hand them down.  Each level pushes its residuals outside loops as one
    frame at its end; the reverse sweep takes the tapes as one tuple and hands them, one by one, to
    ``NAME_reverse_sweep_onto(tape, ct, *accumulators, *other tapes)`` (the accumulators where every
    reverse sweep takes them, ``handed.is_reverse_sweep``), which pops its level's frame and hands them to
    its calls of itself, which pop theirs.  (Each tape a parameter of its own: under Numba a tuple of
    them unpacked at every level counts a reference to each, det's gradient 78 -> 64 us at ell = 5.
    Numba types a list from what is appended to it before it is handed on: the forward sweep's lines
    appear once, never run, before.)  A parameter every level hands down as it is (det's ``A``) is one
    object at every level: the reverse sweep's tuple holds it once, not each level's frame."""
    onto, tapes, frames = s.kept.own
    rev_name, rev_onto, accumulators = names
    slots = {n for k, n in s.kept.tapes.items() if k in s.kept.slots}  # a level's own: in its frame
    kept = [n for n in s.kept.tapes.values() if n not in slots]
    starts = len(s.kept.tapes)  # (the primal's first statements: each tape's and slot's start)

    def level(code):  # a level's statements: its slots' starts, not the tapes' (made once, handed down)
        return [a for a in code[:starts] if a.targets[0] in slots] + list(code[starts:])

    frame = [r for r in residuals if r not in kept and r != tapes]
    steady = [r for r in frame if r in params and _handed_down(params.index(r), r, onto, level(s.primal))]
    frame = [r for r in frame if r not in steady]
    held = kept + ([frames] if frame else [])
    if not held:  # nothing to keep, not even a branch's direction: every path calls itself again
        fn = s.plan.fn
        raise UnsupportedSyntaxError(
            f"{fn.name}, which calls itself on every path (it never returns: Python raises RecursionError, and"
            " compiled code would overflow its stack)",
            "give it a case that returns without calling itself (if n == 0: return x)",
            fn.source.filename,
            fn.body[0].line if fn.body else 0,
            0,
        )
    handed = tuple(E.Name(n) for n in held + steady)

    def own_calls(call: E.Call) -> E.Expr:  # a call of the next level: the tapes one by one
        if call.func == onto and call.args[-1:] == (E.Name(tapes),):
            return E.Call(onto, call.args[:-1] + handed[: len(held)], call.keywords)
        if call.func == rev_name and call.args[:1] == (E.Name(tapes),):
            return E.Call(rev_onto, handed[:1] + call.args[1:] + handed[1:], call.keywords)
        return call

    line = s.plan.fn.body[0].line if s.plan.fn.body else 0
    push = [Do(E.Method(E.Name(frames), "append", (E.Tuple(tuple(E.Name(r) for r in frame)),)))] if frame else []
    pop = [Assign((tuple(frame),), E.Method(E.Name(frames), "pop", ()))] if frame else []
    made = [Assign((n,), E.List(())) for n in held]
    never = E.Compare("<", E.Call("len", (E.Name(held[0]),)), E.Num(0))  # (no tape is shorter than nothing)
    typed = [IfS(never, tuple(level(s.entry) + s.primer + push), (), line)]
    value = namer.fresh("value")
    run = [
        Assign((tapes,), E.Tuple(handed)),
        Assign((value,), E.Call(onto, tuple(E.Name(p) for p in params) + handed[: len(held)])),
    ]
    fwd_body = made + typed + run + [Ret(E.Tuple((E.Name(value), E.Name(tapes))))]
    onto_body = with_calls(level(s.primal), own_calls) + push + [Ret(s.value)]
    doc = f"The forward sweep of {s.plan.fn.name} onto the tapes of the level that calls it: its value."
    rest = tuple(held[1:] + steady)  # (after the accumulators: modes.handed.is_reverse_sweep)
    rev_params = (held[0], s.ct) + tuple(accumulators) + rest
    rev_doc = f"The reverse sweep of {s.plan.fn.name} from the tapes its levels share: {rev_name}'s value."
    defs = [
        Def(onto, params + tuple(held), (), tuple(onto_body), doc, s.plan.fn.source),
        Def(rev_onto, rev_params, (), tuple(pop + with_calls(adjoint, own_calls)), rev_doc, s.plan.fn.source),
    ]
    unpack = [Assign((tuple(held + steady),), E.Name(tapes))]
    return defs, tapes, fwd_body, unpack + [Ret(E.Call(rev_onto, tuple(E.Name(p) for p in rev_params)))]


def _returned_shadows(s: Sweeps, lists: list, namer) -> tuple:
    """The shadows of the lists a forward sweep returns, and the lines that make one of them once: a list
    returned twice (a gradient's list, returned and kept in its residuals) has one shadow, made before the
    return and returned twice, as the list is one object (two lists of zeros, and reverse mode over the code
    lost what the caller added into one: grad(grad) of an inner gradient over a list gave 0)."""
    roots = [s.plan.shared.get(a.name, a.name) for a in lists]
    twice = {r for r in roots if roots.count(r) > 1}
    made: dict = {}
    lines: list = []
    items = []
    for a, root in zip(lists, roots):
        if root in twice and a.name not in s.plan.act:
            if root not in made:
                made[root] = namer.fresh("d_" + root)
                lines.append(Assign((made[root],), s.shadows.value(a)))
            items.append(E.Name(made[root]))
        else:
            items.append(s.shadows.value(a))
    return E.Tuple(tuple(items)), lines


def _handed_down(k: int, name: str, onto: str, body) -> bool:
    """Whether the statements ``body`` of a level never bind the parameter ``name`` and hand it, itself, as
    the ``k``-th argument of every call of ``onto`` (the next level)."""
    if name in writes_block(body):
        return False
    return all(len(c.args) > k and c.args[k] == E.Name(name) for c in calls(body) if c.func == onto)


def _ones_of(aval) -> E.Expr:
    """The default cotangent of an output of abstract value ``aval``: 1.0 in each item of a tuple, list or
    record of a known length (the number 1.0 for an array: that number in every entry)."""
    if isinstance(aval, V.Seq) and aval.items is not None:
        return E.Tuple(tuple(_ones_of(a) for a in aval.items))
    return E.Num(1.0)


def _ones_returned(value, facts: Facts) -> E.Expr:
    """The default cotangent of a function's returned ``value`` (atoms, nested tuples of them): ``_ones_of``
    each returned variable's abstract value (a list or record of a known length returned in a tuple, or by
    name: ones of its items)."""
    if isinstance(value, tuple):
        return E.Tuple(tuple(_ones_returned(v, facts) for v in value))
    return _ones_of(facts.of(value)) if isinstance(value, Var) else E.Num(1.0)
