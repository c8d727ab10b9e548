"""Def/use of generated statements: the names a statement binds and the names it reads.

Every pass over generated code (tidying, folding, liveness, the finishing passes, reverse mode's
checkpoints and owned arrays) asks these here.  An assignment binds the plain names of its targets,
tuples unpacked (``a, (b, c) = ...`` binds a, b and c); a store into a subscript (``xs[i] = v``)
binds none (it reads ``xs`` and ``i``); ``x += v`` binds x, a for loop its target.  ``reads`` and
``writes`` take nested blocks with them; they are memoised per build (``memo``).
"""

from __future__ import annotations

from ..ir import expr as E
from ..ir.nodes import AugAssign, Assign, Do, ForS, IfS, Raise, Ret, WhileS
from .memo import MEMO, memoised


def flat_targets(t):
    """The targets in a (nested) tuple of targets, in order."""
    for x in t:
        if isinstance(x, tuple):
            yield from flat_targets(x)
        else:
            yield x


def target_names(t) -> list:
    """The plain names a target binds, in order: a name, each name of a tuple of targets (an
    assignment's ``targets`` among them), none for a subscript."""
    if isinstance(t, str):
        return [t]
    if isinstance(t, tuple):
        return [n for x in t for n in target_names(x)]
    return []


def binds(s) -> list:
    """The names statement ``s`` itself binds, in order (not those of statements nested in it)."""
    if isinstance(s, Assign):
        return target_names(s.targets)
    if isinstance(s, (AugAssign, ForS)) and isinstance(s.target, str):
        return [s.target]
    return []


def writes(s) -> set:
    """Names a statement (with its nested blocks) binds."""
    hit = MEMO.facts["writes"].get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    return memoised("writes", s, _writes)


def _writes(s) -> set:
    if isinstance(s, Assign):
        return set(target_names(s.targets))
    if isinstance(s, AugAssign):
        return {s.target} if isinstance(s.target, str) else set()
    if isinstance(s, IfS):
        return set().union(set(), *(writes(x) for x in s.body + s.orelse))
    if isinstance(s, ForS):
        return {s.target}.union(*(writes(x) for x in s.body))
    if isinstance(s, WhileS):
        return set().union(set(), *(writes(x) for x in s.header + s.body))
    return set()


def writes_block(stmts) -> set:
    """Every name the statements (with their nested blocks) bind."""
    return set().union(set(), *(writes(x) for x in stmts))


def reads_expr(e, out: set) -> set:
    """The names expression ``e`` reads (a dotted name by its first part), added to ``out``."""
    cls = e.__class__  # the common kinds first, by class: this walk is a tenth of tidying
    if cls is E.Name:
        out.add(e.id.split(".")[0])
    elif cls is str:  # an operator, a function's name
        pass
    elif cls is E.BinOp:
        reads_expr(e.left, out)
        reads_expr(e.right, out)
    elif isinstance(e, E.ListComp):  # its target is its own
        reads_expr(e.iterable, out)
        out |= reads_expr(e.elt, set()) - {e.target}
    elif isinstance(e, (tuple, list)):
        for x in e:
            reads_expr(x, out)
    elif isinstance(e, E.Expr):
        for value in vars(e).values():
            reads_expr(value, out)
    return out


def reads(s) -> set:
    """Names a statement (with its nested blocks) reads."""
    hit = MEMO.facts["reads"].get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    return memoised("reads", s, _reads)


def _reads(s) -> set:
    out: set = set()
    if isinstance(s, Assign):
        reads_expr(s.value, out)
        for t in s.targets:
            if isinstance(t, E.Expr):
                reads_expr(t, out)
            elif isinstance(t, tuple):
                for x in flat_targets(t):
                    if isinstance(x, E.Expr):
                        reads_expr(x, out)
    elif isinstance(s, AugAssign):
        reads_expr(s.value, out)
        reads_expr(s.target if isinstance(s.target, E.Expr) else E.Name(s.target), out)
    elif isinstance(s, (Ret, Do)):
        reads_expr(s.value, out)
    elif isinstance(s, Raise):
        reads_expr((s.value, s.test), out)
    elif isinstance(s, IfS):
        reads_expr(s.test, out)
        for x in s.body + s.orelse:
            out |= reads(x)
    elif isinstance(s, ForS):
        reads_expr(s.iterable, out)
        for x in s.body:
            out |= reads(x)
    elif isinstance(s, WhileS):
        reads_expr(s.test, out)
        for x in s.header + s.body:
            out |= reads(x)
    return out


def reads_block(stmts) -> set:
    return set().union(set(), *(reads(x) for x in stmts))


def head_reads(s) -> set:
    """Names the test of a branch or while loop, or the iterable of a for loop, reads."""
    return memoised("head", s, lambda s: reads_expr(s.iterable if isinstance(s, ForS) else s.test, set()))


def read_count(e, name: str) -> int:
    """How many times the expression ``e`` (or a tuple or list of them) reads ``name``."""
    cls = e.__class__  # (by class first: optimize.inline asks it of a using statement after each fold into it)
    if cls is E.Name:
        return int(e.id == name)
    if cls is str or cls is E.Num:
        return 0
    if cls is tuple or cls is list:
        return sum(read_count(x, name) for x in e)
    if isinstance(e, E.Expr):
        return sum(read_count(v, name) for v in vars(e).values())
    return 0
