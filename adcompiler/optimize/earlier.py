"""Rewrites of an expression of generated code that read what single-use names were bound to earlier in
its block: the walk ``spread`` and ``sums_first`` share.

``rewritten(body, avals, rule)`` walks every expression of ``body`` bottom up and hands each to
``rule(e, bound, ctx)``, which returns it rewritten or as it is: ``bound`` maps each name bound earlier in
the same block to ``(value, the names value reads, the statement)``, kept only while nothing it reads
(nor the name) is bound again; ``ctx.once`` holds the names read once, by one statement, and bound by one.  A rule
that writes a name's value at its one read calls ``take(name, bound, ctx)``, and the binding goes (and the
name from the ``del`` statements that named it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..analysis.defuse import binds, read_count, reads_expr, writes
from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, Do, ForS, IfS, Release, Ret, WhileS, every_statement, free_names, shell


@dataclass
class Context:
    avals: dict  # the primal's abstract values
    once: set  # the names read by one statement and bound by one
    consumed: set  # the bindings (ids) of such names whose read a rule rewrote: they go
    gone: set  # their names (a ``del`` of them goes too)
    rule: object = None  # rule(e, bound, ctx) -> e rewritten, or e


def rewritten(body: tuple, avals: dict, rule) -> tuple:
    """``body`` with ``rule`` applied to each of its expressions (see the module docstring)."""
    reads, bindings, twice = Counter(), Counter(), set()
    for s in every_statement(body):
        head = shell(s) if isinstance(s, (ForS, IfS, WhileS)) else s
        names = free_names([head])
        reads.update(names)
        bindings.update(binds(s))
        parts = tuple(v for k, v in vars(head).items() if k not in ("body", "orelse", "header"))
        twice |= {n for n in names if read_count(parts, n) > 1}  # (t10 * dt9 beside t9 * t10: one statement)
    once = {n for n, k in reads.items() if k == 1 and bindings[n] == 1 and n not in twice}
    ctx = Context(avals, once, set(), set(), rule)
    body = _block(body, ctx)
    return _unreleased(body, ctx.gone) if ctx.gone else body


def take(e, bound: dict, ctx: Context):
    """The value of ``e``, a name read once bound earlier in the block (its binding to go), or ``e``."""
    if isinstance(e, E.Name) and e.id in bound and e.id in ctx.once:
        ctx.consumed.add(id(bound[e.id][2]))
        ctx.gone.add(e.id)
        return bound[e.id][0]
    return e


def value_of(e, bound: dict, ctx: Context):
    """What ``take`` would give for ``e``, its binding left as it is."""
    if isinstance(e, E.Name) and e.id in bound and e.id in ctx.once:
        return bound[e.id][0]
    return e


def _unreleased(body, gone: set) -> tuple:
    """``body`` with the names ``gone`` out of its ``del`` statements (one left with none goes)."""
    out = []
    for s in body:
        if isinstance(s, Release) and set(s.names) & gone:
            names = tuple(n for n in s.names if n not in gone)
            s = Release(names, s.bound, s.line) if names else None
        elif isinstance(s, ForS):
            s = ForS(s.target, s.iterable, _unreleased(s.body, gone), s.line, s.parallel)
        elif isinstance(s, IfS):
            s = IfS(s.test, _unreleased(s.body, gone), _unreleased(s.orelse, gone), s.line)
        elif isinstance(s, WhileS):
            s = WhileS(_unreleased(s.header, gone), s.test, _unreleased(s.body, gone), s.line)
        if s is not None:
            out.append(s)
    return tuple(out)


def _block(stmts, ctx: Context) -> tuple:
    bound: dict = {}  # name -> the value it was bound to earlier in this block (nothing it reads bound since)
    out = []
    for s in stmts:
        s = _statement(s, bound, ctx)
        out.append(s)
        changed = writes(s)
        for name in [n for n, (value, reads, _) in bound.items() if n in changed or reads & changed]:
            del bound[name]
        if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str):
            reads = reads_expr(s.value, set())
            if s.targets[0] not in reads:
                bound[s.targets[0]] = (s.value, reads, s)
    if ctx.consumed:
        out = [s for s in out if id(s) not in ctx.consumed]
    return tuple(out)


def _statement(s, bound: dict, ctx: Context):
    if isinstance(s, ForS):
        body = _block(s.body, ctx)
        return s if _same(body, s.body) else ForS(s.target, s.iterable, body, s.line, s.parallel)
    if isinstance(s, IfS):
        body, orelse = _block(s.body, ctx), _block(s.orelse, ctx)
        return s if _same(body, s.body) and _same(orelse, s.orelse) else IfS(s.test, body, orelse, s.line)
    if isinstance(s, WhileS):
        body = _block(s.body, ctx)
        return s if _same(body, s.body) else WhileS(s.header, s.test, body, s.line)
    if not isinstance(s, (Assign, AugAssign, Do, Ret)):
        return s
    value = _visit(s.value, bound, ctx)
    if value is s.value:
        return s
    if isinstance(s, Assign):
        return Assign(s.targets, value, s.line, s.effect)
    if isinstance(s, AugAssign):
        return AugAssign(s.target, s.op, value, s.line)
    return type(s)(value, s.line)


def _same(new: tuple, old: tuple) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old))


def _visit(e, bound: dict, ctx: Context):
    if isinstance(e, tuple):
        parts = tuple(_visit(x, bound, ctx) for x in e)
        return e if all(a is b for a, b in zip(parts, e)) else parts
    if not isinstance(e, E.Expr) or isinstance(e, (E.Name, E.Num)):
        return e
    fields = {k: _visit(v, bound, ctx) for k, v in vars(e).items()}
    if any(fields[k] is not v for k, v in vars(e).items()):
        e = type(e)(**fields)
    return ctx.rule(e, bound, ctx)
