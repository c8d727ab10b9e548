"""Dup form -> reverse-mode (adjoint) program.

The primal lines run first (``dup`` is rendered as plain reuse); then, in
reverse order, each line's adjoint: ``d_x`` is the sensitivity of the output to
``x``.  Because every variable is used exactly once, every adjoint is defined
exactly once, by plain assignment; the adjoint of ``dup`` is the sum of its
outputs' adjoints.  Nothing is computed for inactive variables, and an adjoint
that equals another (``d_x = d_z`` for ``z = x + y``) is an alias, not a line.

A user function called from differentiated code is split in two: its forward
sweep returns the value and the residuals its adjoint needs; its reverse sweep
takes the residuals and the output cotangent and returns input cotangents.  The
entry point fuses both into one function returning ``(value, cotangents)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import expr as E
from . import rules
from .activity import active
from .dup import DUP
from .ir import (
    Assign,
    Comment,
    Def,
    Eq,
    Function,
    Raise,
    Ret,
    Var,
    atom,
    flatten,
    prim_expr,
    rebuild,
)
from .names import Namer


@dataclass
class Sweeps:
    """The two halves of a reverse program, and what the second needs from the first."""

    primal: list
    adjoint: list
    value: E.Expr
    cotangents: list
    ct: str
    residuals: list


def sweeps(
    fn: Function,
    active_params: tuple,
    program,
    namer: Namer,
    seed: E.Expr | None = None,
) -> Sweeps:
    """Build the primal sweep and the adjoint sweep of ``fn`` (in dup form).

    The output cotangent is a parameter ``ct`` unless ``seed`` gives it (``1.0``
    for a gradient, which the rules then multiply away).
    """
    act = active(fn, active_params, program.callee_outputs)
    alias: dict = {}  # dup copy -> the name it reuses in primal code

    def ref(a) -> E.Expr:
        if isinstance(a, Var):
            return E.Name(alias.get(a.name, a.name))
        return atom(a)

    primal, saved = [], {}
    for stmt in fn.body[:-1]:
        if stmt.prim == DUP:
            for out in stmt.outs:
                alias[out.name] = alias.get(stmt.ins[0].name, stmt.ins[0].name)
            continue
        args = tuple(ref(a) for a in stmt.ins)
        if stmt.prim == "call" and _differentiated(stmt, act):
            mask = _mask(stmt, act)
            saved[stmt] = namer.fresh(f"{stmt.param.__name__}_res")
            value = rebuild(program.shape(stmt.param), iter(v.name for v in stmt.outs))
            primal.append(
                Assign(
                    (value, saved[stmt]),
                    E.Call(program.forward_sweep(stmt.param, mask), args),
                    stmt.line,
                )
            )
            continue
        rhs = prim_expr(
            Eq(stmt.outs, stmt.prim, stmt.ins, stmt.line, stmt.param),
            program.primal_name,
        )
        if args:
            rhs = _with_args(rhs, args)
        primal.append(Assign(tuple(v.name for v in stmt.outs), rhs, stmt.line))

    ret = fn.body[-1]
    ct = namer.fresh("ct") if seed is None else None
    adj: dict = {}
    adjoint: list = []

    def define(var: Var, contribution: E.Expr, line: int) -> None:
        assert var.name not in adj, f"{var.name} used twice in dup form"
        if isinstance(contribution, (E.Name, E.Num)):
            adj[var.name] = contribution
            return
        name = namer.fresh("d_" + var.name)
        adjoint.append(Assign((name,), contribution, line))
        adj[var.name] = E.Name(name)

    _seed(ret, act, E.Name(ct) if seed is None else seed, namer, adj, adjoint, program)
    for stmt in reversed(fn.body[:-1]):
        gs = [adj.get(v.name) for v in stmt.outs]
        mask = _mask(stmt, act)
        if all(g is None for g in gs) or not any(mask):
            continue
        if stmt.prim == DUP:
            define(stmt.ins[0], E.sum_exprs(gs), stmt.line)
        elif stmt.prim == "call":
            _call_adjoint(stmt, gs, mask, saved[stmt], program, namer, adj, adjoint)
        else:
            args = [ref(a) for a in stmt.ins]
            for a, c in zip(
                stmt.ins,
                rules.vjp(
                    stmt.prim, args, E.Name(stmt.outs[0].name), gs[0], list(mask)
                ),
                strict=True,
            ):
                if c is not None:
                    define(a, c, stmt.line)
    cotangents = [adj.get(p, E.Num(0.0)) for p in active_params]
    defined = {t for s in adjoint for t in _names(s.targets)} | {ct}
    residuals = _free_names(adjoint + [Ret(E.Tuple(tuple(cotangents)))], defined)
    return Sweeps(primal, adjoint, ref_value(ret.value, ref), cotangents, ct, residuals)


def ref_value(value, ref) -> E.Expr:
    if isinstance(value, tuple):
        return E.Tuple(tuple(ref_value(v, ref) for v in value))
    return ref(value)


def fused(fn: Function, name: str, active_params: tuple, program, namer: Namer) -> Def:
    """``name(*params, ct=1.0) -> (value, cotangents)``: both sweeps in one function."""
    s = sweeps(fn, active_params, program, namer)
    ones = _ones(program.shape_of(fn))
    heading = [Comment("adjoints, last line first")] if s.adjoint else []
    body = (
        s.primal
        + heading
        + s.adjoint
        + [Ret(E.Tuple((s.value, E.Tuple(tuple(s.cotangents)))))]
    )
    return Def(
        name,
        fn.params + (s.ct,),
        tuple(atom(d) for d in fn.defaults) + (ones,),
        tuple(body),
        f"Reverse mode of {fn.name}: (value, cotangents).",
        fn.source,
    )


def gradient(
    fn: Function,
    name: str,
    active_params: tuple,
    program,
    namer: Namer,
    with_value: bool,
) -> Def:
    """``name(*params)``: the gradient of a scalar output (with its value if asked), in one call.

    The entry point behind ``f.grad``: it refuses integer arguments for the
    active parameters, then runs both sweeps with the cotangent 1.0 folded in.
    """
    if program.shape_of(fn) is not None:
        raise TypeError(
            f"grad needs a function with one output; {fn.name} returns a tuple: use vjp or jacobian"
        )
    s = sweeps(fn, active_params, program, namer, seed=E.Num(1.0))
    grads = s.cotangents[0] if len(s.cotangents) == 1 else E.Tuple(tuple(s.cotangents))
    test = E.BoolOp(
        "or",
        tuple(
            E.Compare("is", E.Call("type", (E.Name(p),)), E.Name("int"))
            for p in active_params
        ),
    )
    message = f"{fn.name}: cannot differentiate with respect to an int argument ({', '.join(active_params)}); pass floats"
    guard = (
        [
            Raise(
                E.Call("TypeError", (E.Num(message),)),
                test if len(active_params) > 1 else test.values[0],
            )
        ]
        if active_params
        else []
    )
    result = E.Tuple((s.value, grads)) if with_value else grads
    return Def(
        name,
        fn.params,
        tuple(atom(d) for d in fn.defaults),
        tuple(guard + s.primal + s.adjoint + [Ret(result)]),
        f"Gradient of {fn.name}.",
        fn.source,
    )


def split(
    fn: Function, names: tuple, active_params: tuple, program, namer: Namer
) -> list:
    """The forward sweep ``(value, residuals)`` and the reverse sweep ``(residuals, ct) -> cotangents``."""
    fwd_name, rev_name = names
    s = sweeps(fn, active_params, program, namer)
    res = namer.fresh("residuals")
    fwd_body = s.primal + [
        Ret(E.Tuple((s.value, E.Tuple(tuple(E.Name(r) for r in s.residuals)))))
    ]
    unpack = [Assign((tuple(s.residuals),), E.Name(res))] if s.residuals else []
    out = s.cotangents[0] if len(s.cotangents) == 1 else E.Tuple(tuple(s.cotangents))
    rev_body = unpack + s.adjoint + [Ret(out)]
    return [
        Def(
            fwd_name,
            fn.params,
            (),
            tuple(fwd_body),
            f"Forward sweep of {fn.name}: (value, residuals for {rev_name}).",
            fn.source,
        ),
        Def(
            rev_name,
            (res, s.ct),
            (),
            tuple(rev_body),
            f"Reverse sweep of {fn.name}: cotangents of its active parameters.",
            fn.source,
        ),
    ]


def _seed(
    ret, act, ct: E.Expr, namer: Namer, adj: dict, adjoint: list, program
) -> None:
    """Give each returned active variable its share of the output cotangent."""
    leaves = flatten(ret.value)
    if not isinstance(ret.value, tuple):
        if isinstance(ret.value, Var) and ret.value.name in act:
            adj[ret.value.name] = ct
        return
    names = [
        (
            namer.fresh("ct_" + a.name)
            if isinstance(a, Var) and a.name in act
            else program.discard
        )
        for a in leaves
    ]
    if all(n == program.discard for n in names):
        return
    adjoint.append(Assign((rebuild(ret.value, iter(names)),), ct, ret.line))
    for a, n in zip(leaves, names, strict=True):
        if n != program.discard:
            adj[a.name] = E.Name(n)


def _call_adjoint(
    stmt: Eq,
    gs: list,
    mask: tuple,
    saved: str,
    program,
    namer: Namer,
    adj: dict,
    adjoint: list,
) -> None:
    """``d_a, d_b = g_reverse_sweep(g_res, ct)`` for a differentiated call."""
    shape = program.shape(stmt.param)
    ct = rebuild(shape, iter(g if g is not None else E.Num(0.0) for g in gs))
    ct_expr = ref_value(ct, lambda e: e)
    targets = [
        namer.fresh("d_" + a.name) for a, on in zip(stmt.ins, mask, strict=True) if on
    ]
    target = targets[0] if len(targets) == 1 else tuple(targets)
    adjoint.append(
        Assign(
            (target,),
            E.Call(program.reverse_sweep(stmt.param, mask), (E.Name(saved), ct_expr)),
            stmt.line,
        )
    )
    for a, name in zip(
        [a for a, on in zip(stmt.ins, mask, strict=True) if on], targets, strict=True
    ):
        adj[a.name] = E.Name(name)


def _differentiated(stmt: Eq, act: set) -> bool:
    return any(_mask(stmt, act)) and any(v.name in act for v in stmt.outs)


def _mask(stmt: Eq, act: set) -> tuple:
    from .activity import slots

    return tuple(
        isinstance(a, Var) and a.name in act and s
        for a, s in zip(stmt.ins, slots(stmt), strict=True)
    )


def _with_args(rhs: E.Expr, args: tuple) -> E.Expr:
    """The same right-hand side with its arguments replaced (dup copies -> reused names)."""
    if isinstance(rhs, E.BinOp):
        return E.BinOp(rhs.op, *args)
    if isinstance(rhs, E.Unary):
        return E.Unary(rhs.op, args[0])
    if isinstance(rhs, E.Call):
        return E.Call(rhs.func, args)
    return rhs


def _ones(shape) -> E.Expr:
    if isinstance(shape, tuple):
        return E.Tuple(tuple(_ones(s) for s in shape))
    return E.Num(1.0)


def _names(targets) -> list:
    out = []
    for t in targets:
        out.extend(_names(t) if isinstance(t, tuple) else [t])
    return out


def _free_names(stmts: list, defined: set) -> list:
    """Names read by ``stmts`` that they do not define, in order of first use."""
    seen: list = []

    def visit(e):
        if isinstance(e, E.Name):
            if e.id not in defined and e.id not in seen:
                seen.append(e.id)
        elif isinstance(e, (tuple, list)):
            for x in e:
                visit(x)
        elif isinstance(e, E.Expr):
            for value in vars(e).values():
                visit(value)

    for s in stmts:
        visit(s.value)
    return seen
