"""ANF -> forward-mode (tangent) program.

After each primal line comes its tangent line, ``dz = ...`` from the rule
table; lines whose output is not active get none, and a tangent that is just
another tangent (``dz = dx``) is an alias rather than a copy.  A call of a user
function ``g`` becomes a call of ``g``'s own forward function, which returns the
value and its tangent.
"""

from __future__ import annotations

from . import expr as E
from . import rules
from .activity import active
from .ir import Assign, Def, Eq, Function, Ret, Var, atom, flatten, prim_expr, rebuild
from .names import Namer


def forward(
    fn: Function, name: str, active_params: tuple, program, namer: Namer
) -> Def:
    """The tangent program of ``fn`` for the given active parameters.

    Its signature is the parameters, then one tangent per active parameter; it
    returns ``(value, tangent)`` with the tangent shaped like the value.
    """
    act = active(fn, active_params, program.callee_outputs)
    tangent: dict = {}
    tangent_params = []
    for p in active_params:
        tangent_params.append(namer.fresh("d" + p))
        tangent[p] = E.Name(tangent_params[-1])
    body = []
    for stmt in fn.body[:-1]:
        primal = prim_expr(stmt, program.primal_name)
        ins_t = [tangent.get(a.name) if isinstance(a, Var) else None for a in stmt.ins]
        live = [v.name in act for v in stmt.outs]
        if not any(live) or all(t is None for t in ins_t):
            body.append(Assign(tuple(v.name for v in stmt.outs), primal, stmt.line))
            continue
        if stmt.prim == "call":
            body.extend(_call(stmt, ins_t, program, namer, tangent))
            continue
        body.append(Assign((stmt.outs[0].name,), primal, stmt.line))
        t = rules.jvp(
            stmt.prim, [atom(a) for a in stmt.ins], E.Name(stmt.outs[0].name), ins_t
        )
        if t is None:
            continue
        if isinstance(t, E.Name):
            tangent[stmt.outs[0].name] = t
        else:
            dname = namer.fresh("d" + stmt.outs[0].name)
            body.append(Assign((dname,), t, stmt.line))
            tangent[stmt.outs[0].name] = E.Name(dname)
    ret = fn.body[-1]
    out_tangent = rebuild(
        ret.value, iter(_tangent_of(a, tangent) for a in flatten(ret.value))
    )
    body.append(Ret(E.Tuple((atom(ret.value), _tuple_expr(out_tangent))), ret.line))
    return Def(
        name,
        fn.params + tuple(tangent_params),
        (),
        tuple(body),
        f"Forward mode of {fn.name}: (value, tangent).",
        fn.source,
    )


def _call(stmt: Eq, ins_t: list, program, namer: Namer, tangent: dict) -> list:
    """``outs, douts = g_forward(args, active tangents)``; constant output tangents are discarded."""
    mask = tuple(t is not None for t in ins_t)
    callee, outs_varied = program.forward_callee(stmt.param, mask)
    dnames = []
    for v, on in zip(stmt.outs, outs_varied, strict=True):
        if on:
            tangent[v.name] = E.Name(namer.fresh("d" + v.name))
        dnames.append(tangent[v.name].id if on else program.discard)
    shape = program.shape(stmt.param)
    targets = (
        rebuild(shape, iter(v.name for v in stmt.outs)),
        rebuild(shape, iter(dnames)),
    )
    args = tuple(atom(a) for a in stmt.ins) + tuple(t for t in ins_t if t is not None)
    return [Assign(targets, E.Call(callee, args), stmt.line)]


def _tangent_of(a, tangent: dict) -> E.Expr:
    if isinstance(a, Var) and a.name in tangent:
        return tangent[a.name]
    return E.Num(0.0)


def _tuple_expr(value):
    if isinstance(value, tuple):
        return E.Tuple(tuple(_tuple_expr(v) for v in value))
    return value
