"""The primal sweep of reverse mode: the function's own lines, with the tape pushes and the shadow lists of adjoints."""

from __future__ import annotations

from dataclasses import replace
from ..ir import expr as E
from ..analysis import values as V
from ..lower.dup import DUP
from ..ir.nodes import (
    segments,
    jumps,
    Assign,
    AugAssign,
    Break,
    Continue,
    Do,
    INDEX,
    Eq,
    For,
    ForS,
    If,
    IfS,
    Return,
    Var,
    While,
    WhileS,
    flatten,
    rebuild,
    walk,
)
from ..ir.printing import primal_stmt, range_expr
from .calls import record_call


class PrimalSweep:
    """Builds the primal sweep, mixed into ``Sweeps``: ``fwd_block`` gives a block's lines with what the taping
    analysis said to push."""

    def push(self, values, site) -> Do:
        value = values[0] if len(values) == 1 else E.Tuple(tuple(values))
        return Do(E.Method(self.tape(site), "append", (value,)))

    def fwd_block(self, stmts, looped: bool, exits: tuple) -> list:
        """The primal code of a block with its pushes; ``exits`` are pushes owed before a jump out of it."""
        out = []
        for seg in segments(stmts):
            if isinstance(seg, list):
                for eq in seg:
                    out.extend(self.primal_eq(eq))
                if id(seg[0]) in self.pushes:
                    out.append(self.push([E.Name(n) for n in self.pushes[id(seg[0])]], ("run", id(seg[0]))))
            elif isinstance(seg, If):
                owed = exits if jumps(seg) else ()  # a branch that jumps out pays the enclosing block's pushes first
                if id(seg) in self.decisions:
                    branches = [
                        self.fwd_block(b, looped, (self.push([E.Num(d)], ("branch", id(seg))),) + owed)
                        for b, d in ((seg.body, True), (seg.orelse, False))
                    ]
                else:
                    branches = [self.fwd_block(b, looped, owed) for b in (seg.body, seg.orelse)]
                out.append(IfS(self.ref(seg.test), tuple(branches[0]), tuple(branches[1]), seg.line))
                if jumps(seg):
                    return out
            elif isinstance(seg, (For, While)):
                out.extend(self.fwd_loop(seg))
            elif isinstance(seg, (Break, Continue)):
                return out + list(exits) + [seg]
        return out + list(exits)

    def fwd_loop(self, loop) -> list:
        counter, saved = self.loops.get(id(loop), (None, []))
        plan = self.checkpointed.get(id(loop))
        if plan:
            code = self.fwd_checkpointed(loop, plan, self.fwd_block(loop.body, True, ()))
            if plan["looped"]:  # each run of the loop has its own snapshots
                code.append(self.push([E.Name(plan["snapshots"])], ("snapshots", id(loop))))
            return code + ([self.push([E.Name(n) for n in saved], ("loop", id(loop)))] if saved else [])
        count = [AugAssign(counter, "+", E.Num(1), loop.line)] if counter else []
        body = tuple(count + self.fwd_block(loop.body, True, ()))
        if isinstance(loop, For):
            bounds = For(loop.target, *(self.alias_atom(a) for a in (loop.start, loop.stop, loop.step)), (), loop.line)
            stmt = ForS(loop.target.name, range_expr(bounds), body, loop.line)
        else:
            stmt = WhileS(tuple(self.fwd_block(loop.header, True, ())), self.ref(loop.test), body, loop.line)
        init = [Assign((counter,), E.Num(0), loop.line)] if counter else []
        stmts = self.versioned_primal(loop, stmt) if isinstance(loop, For) else [stmt]
        return init + stmts + ([self.push([E.Name(n) for n in saved], ("loop", id(loop)))] if saved else [])

    def primal_eq(self, eq: Eq) -> list:
        if eq.prim == DUP:
            return []
        args = tuple(self.ref(a) for a in eq.ins)
        if eq.prim == "call" and eq in self.saved:
            mask = self.mask(eq)
            value = rebuild(self.program.shape(eq.param), iter(v.name for v in eq.outs))
            sig = self.facts.call_sig(eq)
            as_list = [V.is_seq(a) for a in sig.avals]
            shadows = tuple(
                E.Name(self.shadow_of(a.name))
                for a, on, lst in zip(eq.ins, mask, as_list, strict=True)
                if on and a.name in self.containers and lst
            )
            returned = tuple(self.shadow_of(v.name) for v in eq.outs if v.name in self.containers)
            if self.recomputed(eq):  # the value now, the arguments kept: the adjoint runs the call again
                call = record_call(self.program, eq, sig, args) or primal_stmt(
                    Eq(eq.outs, eq.prim, args_to_atoms(args), eq.line, eq.param), self.program.primal_name
                )
                return [call, Assign((self.saved[eq],), E.Tuple(args), eq.line)]
            sweep = self.program.forward_sweep(eq.param, mask, sig)
            targets = (value, returned, self.saved[eq]) if returned else (value, self.saved[eq])
            return [Assign(targets, E.Call(sweep, args + shadows), eq.line)]
        primal = primal_stmt(Eq(eq.outs, eq.prim, args_to_atoms(args), eq.line, eq.param), self.program.primal_name)
        if eq.prim == "call":  # handed a record: not the user's function (calls)
            primal = record_call(self.program, eq, self.facts.call_sig(eq), args) or primal
        if isinstance(primal, Assign) and self.facts.may_raise(eq):
            primal = replace(primal, effect=INDEX if self.index_read(eq) else True)
        if eq.prim == "call":  # not differentiated (its arguments are constants): a list it returns that gets
            shadows = [  # active values afterwards (u = h([0.0, 0.0]); u[1] = x) starts with zero adjoints
                Assign((self.shadow_of(v.name),), self.zeros(v.name, E.Name(v.name)), eq.line)
                for v in eq.outs
                if v.name in self.containers and v.name in self.act
            ]
            return [primal] + shadows
        if eq.prim == "setitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in self.arrays:
            old = E.Call("numpy.copy", (E.Subscript(args[0], args[1]),))
            return [Do(E.Method(self.tape(("write", id(eq))), "append", (old,)), eq.line), primal]
        return [primal] + self.shadow_code(eq, args)

    def recomputed(self, eq: Eq) -> bool:
        """Whether a call's residuals are recomputed in the adjoint sweep rather than kept: where the
        program asks for it (``recompute_recursion``: the Numba target, whose types cannot nest without
        end), for a call of a recursive function of numbers (arrays could change in place before the
        adjoint runs, lists have shadows passed along)."""
        if not getattr(self.program, "recompute_recursion", False):
            return False
        sig = self.facts.call_sig(eq)
        numbers = all(isinstance(a, (V.Num, V.Static)) for a in sig.avals)
        lists = any(v.name in self.containers for v in eq.outs)
        return numbers and not lists and recursive(self.program, eq.param)

    def index_read(self, eq: Eq) -> bool:
        """Whether ``eq`` is ``xs[i]`` of a list, tuple or array and an int: it can only raise IndexError."""
        if eq.prim != "getitem":
            return False
        where, index = (self.facts.of(a) for a in eq.ins)
        return isinstance(where, (V.Seq, V.Arr)) and index == V.INT

    def shadow_code(self, eq: Eq, args) -> list:
        """Keep shadow lists shaped like their lists: built, stored, appended and copied alongside."""
        names = [v.name for v in eq.outs]
        if eq.prim == "pop" and isinstance(eq.ins[0], Var) and eq.ins[0].name in self.act:
            popped = E.Method(E.Name(self.shadow_of(eq.ins[0].name)), "pop", ())
            if eq.outs[0].name in self.containers and eq.outs[0].name in self.act:
                return [Assign((self.shadow_of(eq.outs[0].name),), popped, eq.line)]
            return [Do(popped, eq.line)]
        if eq.prim in ("setitem", "append"):
            xs = eq.ins[0]
            if not (isinstance(xs, Var) and xs.name in self.act):
                return []
            d = E.Name(self.shadow_of(xs.name))
            value = self.shadow_value(eq.ins[-1])
            if eq.prim == "append":
                return [Do(E.Method(d, "append", (value,)), eq.line)]
            return (
                [Assign((E.Subscript(d, args[1]),), value, eq.line)]
                if isinstance(eq.ins[2], Var) and eq.ins[2].name in self.containers
                else []
            )
        if not names or names[0] not in self.containers or names[0] not in self.act or names[0] in self.seeded:
            return []  # (a list whose elements a literal seed reached directly needs no shadow)
        out = self.shadow_of(names[0])
        if eq.prim in ("zeros_like", "like", "like_arrays"):
            value = self.zeros(names[0], E.Name(names[0]))
        elif eq.prim in ("list", "tuple"):
            value = E.List(tuple(self.shadow_value(a) for a in eq.ins))
        elif eq.prim == "list_repeat":  # [r] * n repeats r itself: its shadow repeats r's shadow
            value = E.BinOp("*", E.List((self.shadow_value(eq.ins[0]),)), args[1])
        elif eq.prim == "list_concat":  # a new list of both lists' elements: a new shadow of both shadows'
            value = E.BinOp("+", *(self.shadow_of_list(a) for a in eq.ins), True)
        elif eq.prim == "list_times":
            value = E.BinOp("*", self.shadow_of_list(eq.ins[0]), args[1], True)
        elif eq.prim == "list_copy":  # a copy of a list whose elements are constants starts with zero adjoints
            source = eq.ins[0].name
            value = (
                E.Call("list", (E.Name(self.shadow_of(source)),)) if source in self.act else self.zeros(source, args[0])
            )
        elif eq.prim == "getitem":
            value = E.Subscript(E.Name(self.shadow_of(eq.ins[0].name)), args[1])
        elif eq.prim in ("read", "write"):
            value = E.Name(self.shadow_of(eq.ins[0].name))
        else:
            return []
        return [Assign((out,), value, eq.line)]

    def shadow_of_list(self, a) -> E.Expr:
        """The shadow of a list operand: its own, or zeros shaped like it where it is constant."""
        if isinstance(a, Var) and a.name in self.act:
            return E.Name(self.shadow_of(a.name))
        return (
            self.zeros(a.name, self.ref(a))
            if isinstance(a, Var)
            else E.Call(self.program.helper("zeros_like"), (self.ref(a),))
        )

    def shadow_value(self, a) -> E.Expr:
        """What a shadow list holds for a stored value: its shadow if it is a list, else a zero adjoint."""
        if isinstance(a, Var) and a.name in self.containers:
            if a.name in self.act:
                return E.Name(self.shadow_of(a.name))
            return self.zeros(a.name, E.Name(a.name))
        return E.Num(0.0)

    def value(self) -> E.Expr:
        ret = next(s for s in reversed(self.fn.body) if isinstance(s, Return))
        refs = (
            E.Name(self.snapshots[a.name]) if isinstance(a, Var) and a.name in self.snapshots else self.ref(a)
            for a in flatten(ret.value)
        )
        return E.tuple_of(rebuild(ret.value, iter(refs)))


def args_to_atoms(args) -> tuple:
    """Expressions of references back to atoms (after dup copies were renamed)."""
    return tuple(Var(a.id) if isinstance(a, E.Name) else _const(a) for a in args)


def _const(e):
    from ..ir.nodes import Const

    return Const(e.value, e.text)


def recursive(program, fn) -> bool:
    """Whether the user function ``fn`` calls itself, directly or through other user functions."""
    seen, pending = set(), [fn]
    while pending:
        for eq in walk(program.anf(pending.pop()).body):
            if isinstance(eq, Eq) and eq.prim == "call":
                if eq.param is fn:
                    return True
                if eq.param not in seen:
                    seen.add(eq.param)
                    pending.append(eq.param)
    return False
