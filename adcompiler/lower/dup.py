"""ANF -> dup form: every variable is used exactly once.

A variable read ``n > 1`` times gets ``n - 1`` explicit binary ``dup``s right
after its definition (parameters: at the top; a loop variable: at the top of
its loop body), and each read is renamed to its own copy.  Reverse mode relies
on this: a use in the primal is a definition in the adjoint, so one use means
one definition, and the adjoint of ``dup`` is ``add``.  Slots (variables
assigned in several places) are not values but places: they are read into
fresh variables, and those are dup'd.  A use inside a loop body is one use of
the program text; reverse mode accumulates its adjoint over the iterations.
"""

from __future__ import annotations

from collections import Counter

from ..ir.nodes import Eq, For, Function, If, Return, Var, While, flatten, rebuild, uses, walk
from ..front.names import Namer, root

DUP = "dup"


def insert_dups(fn: Function, namer: Namer) -> Function:
    """Return ``fn`` in dup form."""
    counts = Counter(v for stmt in walk(fn.body) for v in value_reads(stmt) if v.name not in fn.slots)
    copies: dict = {}  # var -> its copies, consumed by the uses in program order

    def dups_for(var: Var, line: int) -> list:
        n = counts.get(var, 0)
        if n < 2:
            return []
        made, chain, current = [], [], var
        for _ in range(n - 1):
            first, rest = Var(namer.fresh(root(var.name))), Var(namer.fresh(root(var.name)))
            made.append(Eq((first, rest), DUP, (current,), line))
            chain.append(first)
            current = rest
        copies[var] = chain + [current]
        return made

    def rename(atom):
        if isinstance(atom, Var) and atom in copies:
            return copies[atom].pop(0)
        return atom

    def block(stmts, defined=()) -> tuple:
        out = [d for v in defined for d in dups_for(v, 0)]
        for stmt in stmts:
            if isinstance(stmt, Eq):
                ins = stmt.ins if stmt.prim == "read" else tuple(rename(a) for a in stmt.ins)
                out.append(Eq(stmt.outs, stmt.prim, ins, stmt.line, stmt.param))
                if stmt.prim != "write":
                    out.extend(d for v in stmt.outs for d in dups_for(v, stmt.line))
            elif isinstance(stmt, If):
                test = rename(stmt.test)
                out.append(If(test, block(stmt.body), block(stmt.orelse), stmt.line))
            elif isinstance(stmt, For):
                start, stop, step = rename(stmt.start), rename(stmt.stop), rename(stmt.step)
                out.append(
                    For(stmt.target, start, stop, step, block(stmt.body, (stmt.target,)), stmt.line, stmt.parallel)
                )
            elif isinstance(stmt, While):
                header = block(stmt.header)
                out.append(While(header, rename(stmt.test), block(stmt.body), stmt.line))
            elif isinstance(stmt, Return):
                out.append(Return(rebuild(stmt.value, iter([rename(a) for a in flatten(stmt.value)])), stmt.line))
            else:
                out.append(stmt)
        return tuple(out)

    return fn.with_body(block(fn.body, tuple(Var(p) for p in fn.params if p not in fn.slots)))


def value_reads(stmt) -> list:
    """The variables a statement reads, in the order dup renames them (a While's test after its header)."""
    if isinstance(stmt, Eq) and stmt.prim == "read":
        return []
    if isinstance(stmt, While):
        return [stmt.test] if isinstance(stmt.test, Var) else []
    return uses(stmt)
