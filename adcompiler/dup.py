"""ANF -> dup form: every variable is used exactly once.

A variable read ``n > 1`` times gets ``n - 1`` explicit binary ``dup``s right
after its definition (parameters: at the top), and each read is renamed to its
own copy.  Reverse mode relies on this: a use in the primal is a definition in
the adjoint, so one use means one definition, and the adjoint of ``dup`` is
``add``.
"""

from __future__ import annotations

from collections import Counter

from .ir import Eq, Function, Return, Var, flatten, rebuild, uses
from .names import Namer, root

DUP = "dup"


def insert_dups(fn: Function, namer: Namer) -> Function:
    """Return ``fn`` in dup form."""
    counts = Counter(v for stmt in fn.body for v in uses(stmt))
    copies: dict = {}  # var -> list of copies, consumed left to right by the uses

    def dups_for(var: Var) -> list:
        n = counts.get(var, 0)
        if n < 2:
            return []
        made, chain, current = [], [], var
        for k in range(n - 1):
            first = Var(namer.fresh(root(var.name)))
            rest = Var(namer.fresh(root(var.name)))
            made.append(Eq((first, rest), DUP, (current,), 0))
            chain.append(first)
            current = rest
        chain.append(current)
        copies[var] = chain
        return made

    def rename(atom):
        if isinstance(atom, Var) and atom in copies:
            return copies[atom].pop(0)
        return atom

    body = []
    for p in fn.params:
        body.extend(dups_for(Var(p)))
    for stmt in fn.body:
        if isinstance(stmt, Eq):
            new = Eq(
                stmt.outs,
                stmt.prim,
                tuple(rename(a) for a in stmt.ins),
                stmt.line,
                stmt.param,
            )
            body.append(new)
            for out in stmt.outs:
                for d in dups_for(out):
                    body.append(Eq(d.outs, d.prim, d.ins, stmt.line))
        else:
            body.append(
                Return(
                    rebuild(stmt.value, iter(rename(a) for a in flatten(stmt.value))),
                    stmt.line,
                )
            )
    return fn.with_body(body)
