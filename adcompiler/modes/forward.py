"""Dup-free ANF -> forward-mode (tangent) program.

After each primal line comes its tangent line, ``dz = ...`` from the rule
table; lines whose output is not active get none, and a tangent that is just
another value's tangent (``dz = dx``) is an alias rather than a copy.  Control
flow is kept as it is: a branch or loop of the primal is the same branch or
loop of the tangent program.  A slot ``s`` has a tangent slot ``ds`` written
wherever ``s`` is.  A call of a user function ``g`` becomes a call of ``g``'s
own forward function, which returns the value and its tangent.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import expr as E
from ..analysis import values as V
from .. import rules
from ..analysis.activity import active, slots
from ..ir.nodes import (
    LIST_SLICE,
    Assign,
    Do,
    Break,
    Continue,
    Def,
    Eq,
    For,
    ForS,
    Function,
    If,
    IfS,
    Ret,
    Return,
    Var,
    While,
    WhileS,
    flatten,
    rebuild,
    walk,
)
from ..ir.printing import atom, primal_stmt, range_expr
from ..analysis.facts import WRITES_INTO, Facts, mutable_arrays
from ..front.names import Namer
from .guards import expectations
from .calls import record_call
from ..rules import CHANGES
from ..errors import ReverseOnlyError, UnsupportedSyntaxError

# Broadcasting operators whose tangent may be one operand's tangent alone, of a smaller shape than the result.
PASS_THROUGH = ("add", "sub")


def forward(fn: Function, facts: Facts, name: str, active_params: tuple, program, namer: Namer) -> Def:
    """The tangent program of ``fn`` (in ANF) for the given active parameters, for arguments whose
    abstract values ``facts`` holds.

    Its signature is the parameters, then one tangent per active parameter; it
    returns ``(value, tangent)`` with the tangent shaped like the value.
    """
    containers = facts.containers
    mutable = set(mutable_arrays(fn, facts.numeric_arrays))  # names of arrays written in place: one object
    act = active(fn, active_params, program.outputs_of(facts), containers | mutable, facts.linked(fn))
    tangent: dict = {}
    tangent_params = []
    for p in active_params:
        tangent_params.append(namer.fresh("d" + p))
        tangent[p] = E.Name(tangent_params[-1])
    for s in sorted(fn.slots & act):
        tangent.setdefault(s, E.Name(namer.fresh("d" + s)))
    # a list parameter not differentiated may still receive active values: its tangent starts at zeros
    unasked = [p for p in fn.params if p in containers and p in act and p not in active_params]
    for p in unasked:
        tangent[p] = E.Name(namer.fresh("d" + p))
    # a parameter reassigned in a branch or loop starts with a zero tangent when it is not differentiated
    start = [
        Assign((tangent[p].id,), E.Num(0.0)) for p in fn.params if p in fn.slots and p in act and p not in active_params
    ]
    start += [Assign((tangent[p].id,), E.Call(program.helper("zeros_like"), (E.Name(p),))) for p in unasked]
    body = tuple(start) + _Forward(fn, facts, act, tangent, program, namer, mutable).block(fn.body)
    body = tuple(expectations(facts, name, program)) + body
    doc = f"Forward mode of {fn.name}: (value, tangent)."
    return Def(name, fn.params + tuple(tangent_params), (), body, doc, fn.source)


class _Forward:
    def __init__(self, fn, facts, act, tangent, program, namer, mutable=frozenset()):
        self.fn, self.facts, self.act, self.tangent, self.program, self.namer = fn, facts, act, tangent, program, namer
        self.containers, self.mutable = facts.containers, mutable
        self.arrays = facts.arrays
        self.written = {
            s.ins[0].name
            for s in walk(fn.body)
            if isinstance(s, Eq)
            and s.prim in WRITES_INTO
            and isinstance(s.ins[0], Var)
            and s.ins[0].name in facts.numeric_arrays
        }
        self.rows_read: set = set()  # lists a row (a list) was read from: their rows' tangents alias theirs

    def block(self, stmts) -> tuple:
        out = []
        for stmt in stmts:
            if isinstance(stmt, Eq):
                out.extend(self.eq(stmt))
            elif isinstance(stmt, If):
                out.append(IfS(atom(stmt.test), self.block(stmt.body), self.block(stmt.orelse), stmt.line))
            elif isinstance(stmt, For):
                parallel = stmt.parallel and self.program.options.parallel_loops
                out.append(ForS(stmt.target.name, range_expr(stmt), self.block(stmt.body), stmt.line, parallel))
            elif isinstance(stmt, While):
                out.append(WhileS(self.block(stmt.header), atom(stmt.test), self.block(stmt.body), stmt.line))
            elif isinstance(stmt, (Break, Continue)):
                out.append(stmt)
            elif isinstance(stmt, Return):
                value = rebuild(stmt.value, iter(self.returned_tangent(a) for a in flatten(stmt.value)))
                out.append(Ret(E.Tuple((atom(stmt.value), E.tuple_of(value))), stmt.line))
        return tuple(out)

    def tangent_of(self, a) -> E.Expr:
        if isinstance(a, Var) and a.name in self.tangent:
            return self.tangent[a.name]
        return E.Num(0.0)

    def returned_tangent(self, a) -> E.Expr:
        """The tangent of a returned value; an array's zero tangent is an array of zeros of its shape."""
        t = self.tangent_of(a)
        if isinstance(t, E.Num) and isinstance(a, Var) and a.name in self.arrays:
            return E.Call("@array_like", (t, atom(a)))
        if isinstance(t, E.Num) and isinstance(a, Var) and a.name in self.containers:
            return self.zero(a)  # a constant list's tangent: zeros of its structure
        return t

    def zero(self, a) -> E.Expr:
        """The zero tangent of an inactive value: 0.0, or a list of zeros shaped like a list."""
        if isinstance(a, Var) and a.name in self.containers:
            return E.Call(self.program.helper("zeros_like"), (atom(a),))
        if isinstance(a, Var) and isinstance(self.facts.of(a), V.Arr) and self.facts.of(a).ndim:
            return E.Call("numpy.zeros_like", (atom(a),))  # an array's: a linear rule of it keeps its shape
        return E.Num(0.0)

    def eq(self, stmt: Eq) -> list:
        primal = primal_stmt(stmt, self.program.primal_name, shape_of=self.program.shape)
        if stmt.prim == "call":  # handed a record: not the user's function (calls)
            args = tuple(atom(a) for a in stmt.ins)
            generated = self.program.options.calls_generated
            primal = record_call(self.program, stmt, self.facts.call_sig(stmt), args, generated) or primal
        if isinstance(primal, Assign) and self.facts.may_raise(stmt):
            primal = replace(primal, effect=True)
        ins_t = [self.tangent.get(a.name) if isinstance(a, Var) else None for a in stmt.ins]
        if stmt.prim in CONTAINER_RULES:
            return [primal] + self.container(stmt, ins_t)
        if stmt.prim == "reject_ints":
            return [primal]
        if stmt.prim == "custom":
            return [primal] + self.custom(stmt, ins_t) + self.changed_later(stmt)
        if stmt.prim == "call":
            lists = any(t is not None and a.name in self.containers for t, a in zip(ins_t, stmt.ins))
            if any(t is not None for t in ins_t) and (lists or any(v.name in self.act for v in stmt.outs)):
                return [self.call(stmt, ins_t)] + self.changed_later(stmt)
            return [primal] + self.changed_later(stmt)
        if not stmt.outs:  # a check (a, b = xs: check_unpack), run for its error only
            return [primal]
        out = stmt.outs[0].name
        if stmt.prim == "write":
            if out not in self.tangent:
                return [primal]
            value = ins_t[0] or E.Num(0.0)
            if ins_t[0] is None and out in self.arrays:  # an array slot's tangent is always an array
                value = E.Call("@array_like", (value, atom(stmt.ins[0])))
            if out in self.mutable and out in self.arrays:  # written into later: its own tangent array
                value = self.fresh_array(out, ins_t[0])
            return [primal, Assign((self.tangent[out].id,), value, stmt.line)]
        fresh = stmt.prim not in ("read", "write", "call", "dup")  # reads and copies name the same object
        prim = rules.ARRAY_VARIANTS.get(stmt.prim, stmt.prim) if out in self.arrays else stmt.prim
        if fresh and stmt.outs and stmt.outs[0].name in self.written and stmt.outs[0].name in self.act:
            ins_t = [t if on else None for t, on in zip(ins_t, slots(stmt))]  # np.zeros_like(x): no tangent of x
            t = (
                None
                if all(t is None for t in ins_t)
                else rules.jvp(prim, [atom(a) for a in stmt.ins], E.Name(out), ins_t)
            )
            return [primal] + self.own_tangent(out, self.spread(prim, out, t), stmt.line)
        if fresh and stmt.prim != "distinct":  # (shape_like(t) of gradient code in a tuple the tape holds: read
            ins_t = [t if on else None for t, on in zip(ins_t, slots(stmt))]  # for a shape, no tangent; distinct
            # compares its tangent with the others' tangents: rules.helpers.helper_jvp)
        if not any(v.name in self.act for v in stmt.outs) or all(t is None for t in ins_t):
            return [primal]
        if stmt.prim == "read":
            dname = self.namer.fresh("d" + out)
            self.tangent[out] = E.Name(dname)
            return [primal, Assign((dname,), ins_t[0], stmt.line)]
        t = rules.jvp(prim, [atom(a) for a in stmt.ins], E.Name(out), ins_t)
        t = self.spread(prim, out, t)
        if stmt.prim in ("numpy.array", "numpy.asarray", "numpy.copy") and stmt.ins[0].name in self.containers:
            made = "numpy.asarray" if stmt.prim == "numpy.asarray" else "numpy.array"  # (a copy where the primal's is)
            dtype = E.Attr(E.Name(out), "dtype") if _narrow_items(self.facts.of(stmt.ins[0])) else E.Name("float")
            t = E.Call(made, (t,), (("dtype", dtype),))
        elif stmt.prim in ("numpy.copy", "numpy.array") and isinstance(t, E.Name):  # (np.array copies an array)
            t = E.Call("numpy.copy", (t,))  # a copy's tangent is a copy too: a later write into one spares the other
        if out in self.written and stmt.prim not in ("read", "dup"):  # a new array written into later: its own tangent
            return [primal] + self.own_tangent(out, t, stmt.line)
        if t is None:
            return [primal]
        if isinstance(t, E.Name):
            self.tangent[out] = t
            return [primal]
        dname = self.namer.fresh("d" + out)
        self.tangent[out] = E.Name(dname)
        return [primal, Assign((dname,), t, stmt.line)]

    def container(self, stmt: Eq, ins_t: list) -> list:
        """Tangent lists mirror their lists: built, indexed, stored into and appended to alike."""
        target = stmt.ins[0] if stmt.prim in ("setitem", "append") + CHANGES else stmt.outs[0]
        if stmt.prim == "pop" and ins_t[0] is not None and target.name not in self.act:
            return [Do(E.Method(ins_t[0], "pop", ()), stmt.line)]  # keep the tangent list in step
        if target.name not in self.act:
            return []
        ts = [t if t is not None else self.zero(a) for t, a in zip(ins_t, stmt.ins, strict=True)]
        if stmt.prim in ("setitem", "append"):
            if ins_t[0] is None:
                return []
            if stmt.prim == "setitem":
                return [Assign((E.Subscript(ins_t[0], atom(stmt.ins[1])),), ts[2], stmt.line)]
            return [Do(E.Method(ins_t[0], "append", (ts[1],)), stmt.line)]
        if stmt.prim == "getitem" and target.name in self.written and target.name in self.arrays:
            # x[idx] of an array (a copy: writes into views are refused) written into later: its own tangent
            t = E.Subscript(ins_t[0], atom(stmt.ins[1])) if ins_t[0] is not None else None
            return self.own_tangent(target.name, t, stmt.line)
        if (
            stmt.prim in ("getitem", "sum", "pop") and ins_t[0] is None
        ):  # a list_copy may be written into: it gets zeros
            return []
        if stmt.prim == "getitem" and target.name in self.containers:
            self.rows_read.add(stmt.ins[0].name)
        if stmt.prim in CHANGES:  # linear in what they add: the same on the tangents
            if ins_t[0] is None or ins_t[1] is None:
                return []
            if stmt.ins[0].name in self.rows_read and self.program.options.typed_zeros:
                self.numba_refused(
                    "adding into a list whose row (a list) was read before (the rows of np.array of nested lists"
                    " in a helper), whose row tangents must see what is added to its own",
                    stmt,
                )
            rest = tuple(atom(a) for a in stmt.ins[2:])
            return [Do(E.Call(self.program.helper(stmt.prim), (ins_t[0], ins_t[1]) + rest), stmt.line)]
        if stmt.prim == "zeros_like":
            value = E.Call(self.program.helper("zeros_like"), (atom(stmt.ins[0]),))
        elif stmt.prim in ("like", "like_arrays"):
            value = E.Call(self.program.helper(stmt.prim), (ts[0], atom(stmt.ins[1])))
        elif stmt.param == LIST_SLICE:  # the tangent list's slice, a new list as the slice is
            value = E.Subscript(ts[0], atom(stmt.ins[1]), True)
        else:
            value = CONTAINER_RULES[stmt.prim]([atom(a) for a in stmt.ins], ts)
        name = self.namer.fresh("d" + target.name)
        self.tangent[target.name] = E.Name(name)
        return [Assign((name,), value, stmt.line)]

    def changed_later(self, stmt: Eq) -> list:
        """Tangents of what a call (of a helper, or of a function with rules) returned that the
        function changes afterwards (``u = h(...)`` then ``u[1] = x``): a list the call gave no
        tangent (its arguments were constants, or its result does not depend on them) gets zeros of
        its structure, and an array its own tangent array, the call's copied (it may be another
        value's tangent, ``da`` of ``a + c``) or zeros, so the writes that follow have a tangent to
        go into."""
        out = []
        lists = [
            v for v in stmt.outs if v.name in self.act and v.name in self.containers and v.name not in self.tangent
        ]
        for v in lists:
            self.tangent[v.name] = E.Name(self.namer.fresh("d" + v.name))
        if len(lists) > 1 and self.program.options.typed_zeros:  # (the Numba target's zeros_like makes each apart)
            self.numba_refused(
                "lists a call returns together (a list and a list it may hold: the shadows of np.array of nested"
                " lists), whose zero tangents must be one list where they are",
                stmt,
            )
        if len(lists) > 1:  # zeros of them together: a list one holds and another is (a called function's residuals,
            # the shadows of a list and of a list in it) has one list of zeros, as it is one list (zeros_like)
            names = tuple(self.tangent[v.name].id for v in lists)
            together = E.Call(self.program.helper("zeros_like"), (E.Tuple(tuple(atom(v) for v in lists)),))
            out.append(Assign((names,), together, stmt.line))
        elif lists:
            out.append(Assign((self.tangent[lists[0].name].id,), self.zero(lists[0]), stmt.line))
        for v in stmt.outs:
            if (
                v.name in self.act
                and v.name not in self.containers
                and v.name in self.mutable
                and v.name in self.arrays
            ):
                out += self.own_tangent(v.name, self.tangent.get(v.name), stmt.line)
        return out

    def numba_refused(self, what: str, stmt: Eq):
        """Refuse ``stmt`` under the Numba target, whose zeros_like makes a list of numbers an array (each
        row of a list of lists its own, which an addition into the list replaces): a Python list keeps them
        one."""
        source = self.fn.source
        raise UnsupportedSyntaxError(
            what + ', under backend="numba"',
            'differentiate it with backend="python", which handles it',
            source.filename if source is not None else "<generated>",
            stmt.line,
            0,
            source.lines.get(stmt.line) if source is not None else None,
        )

    def own_tangent(self, out: str, t, line: int) -> list:
        """A fresh tangent array for an array that will be written into (never an alias of another)."""
        name = self.namer.fresh("d" + out)
        self.tangent[out] = E.Name(name)
        return [Assign((name,), self.fresh_array(out, t), line)]

    def spread(self, prim: str, out: str, t):
        """np.ones(3) + p: the tangent dp, spread to the shape of the result (a tangent may be the number
        0.0 at run time, or an array NumPy broadcasts)."""
        if out in self.arrays and prim in PASS_THROUGH and t is not None:
            return E.Call("@array_like", (t, E.Name(out)))
        return t

    def fresh_array(self, out: str, t) -> E.Expr:
        """A tangent array for ``out`` that nothing else refers to: ``t`` copied, or zeros of its shape."""
        if t is None or isinstance(t, E.Num):
            aval = self.facts.avals.get(out)
            if isinstance(aval, V.Arr) and aval.dtype in ("float32", "float64"):  # (float32's: float32 zeros)
                return E.Call("numpy.zeros_like", (E.Name(out),))
            return E.Call("numpy.zeros_like", (E.Name(out),), (("dtype", E.Name("float")),))
        return E.Call("numpy.copy", (t,))  # even an expression may be a view of another tangent

    def custom(self, stmt: Eq, ins_t: list) -> list:
        """``dy = rule_jvp(*args, *tangents)`` for a function with a user-supplied rule (``dy1, dy2 = ...``
        for one returning a tuple of values)."""
        jvp = rules.CUSTOM[stmt.param][0]
        out = stmt.outs[0].name
        if all(v.name not in self.act for v in stmt.outs) or all(t is None for t in ins_t):
            return []
        if jvp is None:
            code, name = stmt.param.__code__, stmt.param.__name__
            raise ReverseOnlyError(
                f"forward mode (jvp, jacfwd, and hessian: forward over reverse) of {name}, which has a vjp rule "
                "only (defrule(..., vjp=...) or custom_vjp)",
                f"give {name} a jvp rule too (defrule({name}, jvp=..., vjp=...), or define it with custom_jvp), or "
                "use reverse mode only (grad, vjp, jacrev; adc compile --mode reverse)",
                code.co_filename,
                code.co_firstlineno,
                0,
            )
        ts = tuple(t if t is not None else self.zero(a) for t, a in zip(ins_t, stmt.ins, strict=True))
        call = E.Call(self.program.primal_name(jvp), tuple(atom(a) for a in stmt.ins) + ts)
        if len(stmt.outs) > 1:
            names = [self.namer.fresh("d" + v.name) if v.name in self.act else self.program.discard for v in stmt.outs]
            self.tangent.update((v.name, E.Name(n)) for v, n in zip(stmt.outs, names) if v.name in self.act)
            return [Assign((tuple(names),), call, stmt.line)]
        name = self.namer.fresh("d" + out)
        self.tangent[out] = E.Name(name)
        return [Assign((name,), call, stmt.line)]

    def call(self, stmt: Eq, ins_t: list) -> Assign:
        """``outs, douts = g_forward(args, active tangents)``; constant output tangents are discarded."""
        mask = tuple(t is not None for t in ins_t)
        callee, outs_varied = self.program.forward_callee(stmt.param, mask, self.facts.call_sig(stmt))
        dnames = []
        for v, on in zip(stmt.outs, outs_varied, strict=True):
            if on:
                self.tangent[v.name] = E.Name(self.namer.fresh("d" + v.name))
            dnames.append(self.tangent[v.name].id if on else self.program.discard)
        shape = self.program.shape(stmt.param)
        targets = (rebuild(shape, iter(v.name for v in stmt.outs)), rebuild(shape, iter(dnames)))
        args = tuple(atom(a) for a in stmt.ins) + tuple(t for t in ins_t if t is not None)
        return Assign(targets, E.Call(callee, args), stmt.line)


# Tangents of list primitives: given the arguments and their tangents (zeros for inactive ones).
CONTAINER_RULES = {
    "list": lambda args, ts: E.List(tuple(ts)),
    "tuple": lambda args, ts: E.Tuple(tuple(ts)),
    "list_copy": lambda args, ts: E.Call("list", (ts[0],)),
    "list_repeat": lambda args, ts: E.BinOp("*", E.List((ts[0],)), args[1]),
    "list_concat": lambda args, ts: E.BinOp("+", ts[0], ts[1], True),
    "list_times": lambda args, ts: E.BinOp("*", ts[0], args[1], True),
    "getitem": lambda args, ts: E.Subscript(ts[0], args[1]),
    "pop": lambda args, ts: E.Method(ts[0], "pop", ()),
    "sum": lambda args, ts: E.Call("sum", (ts[0],)),
    "setitem": None,
    "append": None,
    "zeros_like": None,
    "like": None,
    "like_arrays": None,
}
CONTAINER_RULES.update({helper: None for helper in CHANGES})  # add into a list: the same on the tangent lists


def _narrow_items(listed) -> bool:
    """Whether a list the code makes an array of holds arrays, or numbers of a float narrower than float64: its
    tangent list is then made an array of the primal's dtype (float32 rows: float32); of Python's floats, of
    float64 (``dtype=float``, which the Numba target reads as numbers where the vector is short)."""
    items = listed.items if getattr(listed, "items", None) is not None else (getattr(listed, "elem", None),)
    return isinstance(listed, V.Seq) and any(
        isinstance(a, V.Arr) or isinstance(a, V.Num) and a.dtype not in ("float", "float64", "int", "bool")
        for a in items
    )
