"""The primal sweep of reverse mode: the function's own lines, with the pushes the adjoint sweep asked
for (``plan.Kept``) and the shadow lists of adjoints built alongside the lists."""

from __future__ import annotations

from dataclasses import replace

from ..analysis import values as V
from ..ir import expr as E
from ..ir.nodes import (
    INDEX,
    RECOMPUTED,
    Assign,
    AugAssign,
    Break,
    Const,
    Continue,
    Do,
    Eq,
    For,
    ForS,
    If,
    IfS,
    Var,
    While,
)
from ..ir.nodes import LIST_SLICE, WhileS, jumps, rebuild
from ..ir.printing import primal_stmt
from ..lower.dup import DUP
from .calls import record_call, written_arguments
from .checkpoint import fwd_checkpointed
from . import structures
from .plan import Kept, TapePlan, body_of, placed, recomputed, shares_tapes
from .shadows import Shadows
from .versions import versioned_primal


def primal_sweep(plan: TapePlan, kept: Kept, shadows: Shadows, program, priming: bool = False) -> list:
    """The primal sweep of ``plan.fn``: its lines, with what ``kept`` says the adjoint sweep reads
    (``priming``: its calls of itself give their value alone, pushing nothing, see ``plan.shares_tapes``)."""
    return PrimalSweep(plan, kept, shadows, program, priming).block(plan.fn.body, (), False, ())


class PrimalSweep:
    """The primal code of blocks, loops and equations, given the plan and the record."""

    def __init__(self, plan: TapePlan, kept: Kept, shadows: Shadows, program, priming: bool = False):
        self.plan, self.kept, self.shadows, self.program = plan, kept, shadows, program
        self.priming = priming

    def block(self, stmts, block: tuple, looped: bool, exits: tuple) -> list:
        """The primal code of a block with its pushes; ``exits`` are pushes owed before a jump out of it."""
        out, kept = [], self.kept
        for site, seg in placed(stmts, block):
            if isinstance(seg, list):
                for k, eq in enumerate(seg):
                    out.extend(self.equation(eq, site[:-1] + (site[-1] + k,)))
                if site in kept.runs:
                    out.append(kept.push([E.Name(n) for n in kept.runs[site]], ("run", site)))
            elif isinstance(seg, If):
                owed = exits if jumps(seg) else ()  # a branch that jumps out pays the enclosing block's pushes first
                if site in kept.branches:
                    key = ("branch", site)  # (a slot starts False: the branch taken sets it)
                    pushes = [
                        (kept.push([E.Num(d)], key),) if d or key not in kept.slots else () for d in (True, False)
                    ]
                    branches = [
                        self.block(b, site + (k,), looped, pushes[k] + owed)
                        for k, b in enumerate((seg.body, seg.orelse))
                    ]
                else:
                    branches = [self.block(b, site + (k,), looped, owed) for k, b in enumerate((seg.body, seg.orelse))]
                out.append(IfS(self.plan.ref(seg.test), tuple(branches[0]), tuple(branches[1]), seg.line))
                if jumps(seg):
                    return out
            elif isinstance(seg, (For, While)):
                out.extend(self.loop(seg, site))
            elif isinstance(seg, (Break, Continue)):
                return out + list(exits) + [seg]
        return out + list(exits)

    def loop(self, loop, site: tuple) -> list:
        """A loop's primal code: its trip count kept where the adjoint needs it, then what it pushes after."""
        plan, kept = self.plan, self.kept
        if site in kept.parallel:  # a prange loop whose adjoint runs its iterations again, in parallel
            return self.parallel_loop(loop, site, kept.parallel[site])
        counter, saved = (kept.loops[site].counter, kept.loops[site].saved) if site in kept.loops else (None, ())
        after = [kept.push([E.Name(n) for n in saved], ("loop", site))] if saved else []
        body_site = body_of(loop, site)
        checkpoint = kept.checkpoints.get(site)
        if checkpoint:
            code = fwd_checkpointed(plan, checkpoint, loop, self.block(loop.body, body_site, True, ()))
            if checkpoint.looped:  # each run of the loop has its own snapshots
                code.append(kept.push([E.Name(checkpoint.names["snapshots"])], ("snapshots", site)))
            return code + after
        count = [AugAssign(counter, "+", E.Num(1), loop.line)] if counter else []
        body = tuple(count + self.block(loop.body, body_site, True, ()))
        if isinstance(loop, For):
            stmt = ForS(loop.target.name, plan.range_of(loop), body, loop.line)
        else:
            stmt = WhileS(tuple(self.block(loop.header, site + (0,), True, ())), plan.ref(loop.test), body, loop.line)
        init = [Assign((counter,), E.Num(0), loop.line)] if counter else []
        stmts = versioned_primal(plan, kept, loop, site, stmt) if isinstance(loop, For) else [stmt]
        return init + stmts + after

    def parallel_loop(self, loop, site: tuple, parallel) -> list:
        """A ``prange`` loop of the primal sweep (``modes.parallel``): the arrays it writes by row copied
        first, then the loop, in parallel, pushing nothing; marked RECOMPUTED where the adjoint loop computes
        its iterations again (``optimize.tidy`` drops it where nothing reads what it leaves)."""
        body = without_pushes(self.block(loop.body, body_of(loop, site), False, ()), parallel.tapes)
        copies = [Assign((copy,), E.Call("numpy.copy", (E.Name(a),)), loop.line) for a, copy in parallel.snapshots]
        iterations = self.plan.range_of(loop)
        slots = [
            Assign((slot,), E.Call("numpy.full", (E.Call("len", (iterations,)), zero)), loop.line)
            for _, _, kept in parallel.slots
            for _, slot, zero in kept
        ]
        body = with_slot_writes(body, parallel.slots, iteration_index(iterations, loop.target.name))
        mark = RECOMPUTED if parallel.again else True
        return copies + slots + [ForS(loop.target.name, iterations, tuple(body), loop.line, mark)]

    def equation(self, eq: Eq, site: tuple) -> list:
        """The primal code of the equation at ``site``: a line, with its shadow's and its pushes."""
        if eq.prim == DUP:
            return []
        plan, program, kept = self.plan, self.program, self.kept
        args = tuple(plan.ref(a) for a in eq.ins)
        if eq.prim == "call" and site in kept.residuals:
            return self.call(eq, site, args)
        primal = primal_stmt(
            Eq(eq.outs, eq.prim, args_to_atoms(args), eq.line, eq.param), program.primal_name, shape_of=program.shape
        )
        if eq.prim == "call":  # handed a record: not the user's function (calls)
            generated = plan.options.calls_generated
            primal = record_call(program, eq, plan.facts.call_sig(eq), args, generated) or primal
        if isinstance(primal, Assign) and plan.facts.may_raise(eq):
            primal = replace(primal, effect=INDEX if self.index_read(eq) else True)
        if eq.prim == "call":  # not differentiated (its arguments are constants): a list it returns that gets
            shadows = [  # active values afterwards (u = h([0.0, 0.0]); u[1] = x) starts with zero adjoints
                Assign((self.shadows.of(v.name),), self.shadows.zeros(v.name, E.Name(v.name)), eq.line)
                for v in eq.outs
                if v.name in plan.containers and v.name in plan.act
            ]
            return self.kept_before(eq, site, args) + [primal] + shadows
        if eq.prim == "setitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in plan.arrays:
            if ("write", site) not in kept.tapes:  # (its adjoint puts nothing back: plan.unread_writes)
                return [primal]
            old = E.Subscript(args[0], args[1])  # a number as it is (gmm's q[j]); a part of the array copied
            old = old if _number_at(plan.facts, eq.ins[0], eq.ins[1]) else E.Call("numpy.copy", (old,))
            return [Do(E.Method(E.Name(kept.tapes[("write", site)]), "append", (old,)), eq.line), primal]
        return self.kept_before(eq, site, args) + [primal] + self.shadow_code(eq, args)  # (np.put's array kept)

    def kept_before(self, eq: Eq, site: tuple, args: tuple) -> list:
        """The arrays a call not differentiated writes into, pushed as they were (put back by
        ``adjoints.restored``)."""
        kept = self.kept
        return [
            Do(E.Method(E.Name(kept.tapes[key]), "append", (E.Call("numpy.copy", (args[k],)),)), eq.line)
            for k in written_arguments(self.program, self.plan.facts, eq)
            for key in [("write", site, k)]
            if key in kept.tapes
        ]

    def call(self, eq: Eq, site: tuple, args: tuple) -> list:
        """A differentiated call: its forward sweep, giving the value and the residuals (or, where they
        are recomputed, the call itself and its arguments kept)."""
        plan, program = self.plan, self.program
        mask = plan.mask(eq)
        value = rebuild(program.shape(eq.param), iter(v.name for v in eq.outs))
        sig = plan.facts.call_sig(eq)
        as_list = [V.is_seq(a) for a in sig.avals]
        shadows = tuple(
            E.Name(self.shadows.of(a.name))
            for a, on, lst in zip(eq.ins, mask, as_list, strict=True)
            if on and a.name in plan.containers and lst
        )
        returned = tuple(self.shadows.of(v.name) for v in eq.outs if v.name in plan.containers)
        residuals = self.kept.residuals[site]
        shared = shares_tapes(plan, program, eq)
        if shared and not self.priming:  # it calls itself: the value, its residuals pushed onto these tapes
            onto, tapes, _ = self.kept.own
            return [Assign((value,), E.Call(onto, args + (E.Name(tapes),)), eq.line)]
        if shared or recomputed(plan, program, eq):  # the value now (the adjoint runs the call again)
            call = record_call(program, eq, sig, args, plan.options.calls_generated) or primal_stmt(
                Eq(eq.outs, eq.prim, args_to_atoms(args), eq.line, eq.param),
                program.primal_name,
                shape_of=program.shape,
            )
            return [call] if shared else [call, Assign((residuals,), E.Tuple(args), eq.line)]
        sweep = program.forward_sweep(eq.param, mask, sig)
        targets = (value, returned, residuals) if returned else (value, residuals)
        return [Assign(targets, E.Call(sweep, args + shadows), eq.line)]

    def index_read(self, eq: Eq) -> bool:
        """Whether ``eq`` is ``xs[i]`` of a list, tuple or array and an int: it can only raise IndexError."""
        if eq.prim != "getitem":
            return False
        where, index = (self.plan.facts.of(a) for a in eq.ins)
        return isinstance(where, (V.Seq, V.Arr)) and index == V.INT

    def shadow_code(self, eq: Eq, args) -> list:
        """Keep shadow lists shaped like their lists: built, stored, appended and copied alongside."""
        plan, shadows = self.plan, self.shadows
        names = [v.name for v in eq.outs]
        if eq.prim == "pop" and isinstance(eq.ins[0], Var) and eq.ins[0].name in plan.act:
            popped = E.Method(E.Name(shadows.of(eq.ins[0].name)), "pop", ())
            if eq.outs[0].name in plan.containers and eq.outs[0].name in plan.act:
                return [Assign((shadows.of(eq.outs[0].name),), popped, eq.line)]
            return [Do(popped, eq.line)]
        if eq.prim in ("setitem", "append"):
            xs = eq.ins[0]
            if (
                not (isinstance(xs, Var) and xs.name in plan.act)
                or plan.shared.get(xs.name, xs.name) in plan.last_copies
            ):
                return []  # (a list whose last copy's adjoint gives its shadow: none built here)
            d = E.Name(shadows.of(xs.name))
            value = shadows.value(eq.ins[-1])
            if eq.prim == "append":
                return [Do(E.Method(d, "append", (value,)), eq.line)]
            return (
                [Assign((E.Subscript(d, args[1]),), value, eq.line)]
                if isinstance(eq.ins[2], Var) and eq.ins[2].name in plan.containers
                else []
            )
        if not names or names[0] not in plan.containers or names[0] not in plan.act or names[0] in self.kept.seeded:
            return []  # (a list whose elements a literal seed reached directly needs no shadow)
        if names[0] in plan.last_copies:
            return []
        out = shadows.of(names[0])
        if eq.prim in ("zeros_like", "like", "like_arrays"):
            value = shadows.zeros(names[0], E.Name(names[0]))
        elif eq.prim in ("list", "tuple"):
            value = E.List(tuple(shadows.value(a) for a in eq.ins))
        elif eq.prim == "list_repeat" and shadows.changes_in_place(eq.ins[0]):  # one zero array each element
            value = shadows.zeros(names[0], E.Name(names[0]))
        elif eq.prim == "list_repeat":  # [r] * n repeats r itself: its shadow repeats r's shadow
            value = E.BinOp("*", E.List((shadows.value(eq.ins[0]),)), args[1])
        elif eq.prim == "list_concat":  # a new list of both lists' elements: a new shadow of both shadows'
            value = E.BinOp("+", *(shadows.of_list(a) for a in eq.ins), True)
        elif eq.prim == "list_times":
            value = E.BinOp("*", shadows.of_list(eq.ins[0]), args[1], True)
        elif eq.prim == "list_copy":
            # a copy of a list of arrays (or of numbers, where a checkpointed loop runs the copy again when
            # the list's shadow may hold adjoints) starts with zeros of its own, which its adjoint adds into
            # the list's: sharing the list's elements counted twice what was added into one in place (Numba's
            # arrays of zeros) or what the list had; a list of lists shares them, as the copy does (the
            # shadow of a copy of numbers stays a list: Numba makes [0.0] * n an array)
            source, aval = eq.ins[0].name, plan.facts.avals.get(eq.ins[0].name)
            if names[0] in plan.joined_copies:  # (its shadow the join's adjoint makes)
                return []
            own = structures.leaves_only(aval) and (plan.options.checkpoint or not structures.numbers_only(aval))
            shares = source in plan.act and not own
            value = E.Call("list", (E.Name(shadows.of(source)),)) if shares else shadows.zeros(source, args[0])
        elif eq.prim == "getitem":  # (a slice of a list: a new shadow list, as the slice is a new list)
            value = E.Subscript(E.Name(shadows.of(eq.ins[0].name)), args[1], eq.param == LIST_SLICE)
        elif eq.prim in ("read", "write"):
            value = E.Name(shadows.of(eq.ins[0].name))
        else:
            return []
        return [Assign((out,), value, eq.line)]


def args_to_atoms(args) -> tuple:
    """Expressions of references back to atoms (after dup copies were renamed)."""
    return tuple(Var(a.id) if isinstance(a, E.Name) else Const(a.value, a.text) for a in args)


def iteration_index(iterations: E.Call, target: str) -> E.Expr:
    """The number of the iteration of ``for target in iterations`` (a ``range(...)``) that runs: 0, 1, ..."""
    args = iterations.args
    if len(args) == 1:
        return E.Name(target)
    first = E.sub(E.Name(target), args[0])
    return first if len(args) == 2 else E.BinOp("//", first, args[2])


def with_slot_writes(body: list, slots: tuple, index: E.Expr) -> list:
    """``body`` (an iteration of a parallel loop's primal code) with ``slot[index] = name`` after the k-th
    loop at its top level for each ``(k, line, ((name, slot, zero), ...))`` of ``slots`` (``ParallelKept``)."""
    after = {k: (line, kept) for k, line, kept in slots}
    out, k = [], 0
    for s in body:
        out.append(s)
        if isinstance(s, (ForS, WhileS)):
            if k in after:
                line, kept = after[k]
                assert s.line == line, (s.line, line)  # the loop the adjoint sweep found, in the same code
                out.extend(Assign((E.Subscript(E.Name(slot), index),), E.Name(name), line) for name, slot, _ in kept)
            k += 1
    return out


def without_pushes(code, tapes: frozenset) -> list:
    """``code`` (generated statements) without its appends to ``tapes``."""
    out = []
    for s in code:
        if isinstance(s, Do) and isinstance(s.value, E.Method) and s.value.name == "append":
            if isinstance(s.value.obj, E.Name) and s.value.obj.id in tapes:
                continue
        if isinstance(s, IfS):
            s = IfS(s.test, tuple(without_pushes(s.body, tapes)), tuple(without_pushes(s.orelse, tapes)), s.line)
        elif isinstance(s, ForS):
            s = ForS(s.target, s.iterable, tuple(without_pushes(s.body, tapes)), s.line, s.parallel)
        elif isinstance(s, WhileS):
            s = WhileS(tuple(without_pushes(s.header, tapes)), s.test, tuple(without_pushes(s.body, tapes)), s.line)
        out.append(s)
    return out


def _number_at(facts, x, index) -> bool:
    """Whether ``x[index]`` is surely no view of the array ``x``: a number into a vector, a tuple of as many
    numbers as ``x`` has axes (its old value is then taped as it is; a copy of it is an array, made per write)."""
    arr = facts.of(x)
    if not (isinstance(arr, V.Arr) and isinstance(arr.ndim, int)):
        return False
    i = facts.of(index)
    if _number_index(i):
        return arr.ndim == 1
    items = i.items if isinstance(i, V.Seq) else None
    return items is not None and len(items) == arr.ndim and all(_number_index(item) for item in items)


def _number_index(a) -> bool:
    """Whether ``a`` is one number (an int, NumPy's integer read from an array: ``c[c[j]]``, or their join): such
    an index of a 1-D array, or one per axis, never makes a view (a bool makes a new array, a float raises)."""
    return isinstance(a, V.Num)
