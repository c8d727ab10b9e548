"""A primal loop left with nothing but index checks becomes one check of its last index.

A gradient needs no primal value that its adjoints do not read, so after ``tidy`` the primal
sweep of ``dot`` is ``for i in range(n): t2 = xs[i]; t3 = ys[i]``: reads kept only because they
may raise (a derivative never succeeds where its primal fails), whose values nobody reads.  Such a
read of a list, tuple or array with an int index (``Assign.effect == INDEX``) raises exactly when
the index is out of range, and the loop's indices run from its start up to ``n - 1``; so the loop
raises exactly when its last read does, and it becomes ``if n > start: xs[n - 1]; ys[n - 1]``.
"""

from __future__ import annotations

from collections import Counter

from ..ir import expr as E
from ..ir.nodes import INDEX, Assign, Def, Do, ForS, IfS, WhileS, free_names, inner_blocks, shell


def hoist_index_checks(d: Def) -> Def:
    """``d`` with every loop that only checks indices replaced by a check of the last one."""
    reads = Counter()
    _count_reads(d.body, reads)
    body = _block(d.body, reads)
    return d if body == d.body else Def(d.name, d.params, d.defaults, body, d.doc, d.source)


def _count_reads(stmts, reads: Counter) -> None:
    """How many statements read each name; a for loop's reads of its own target are not counted
    (they read the value the loop gives it, not one from before or after)."""
    for s in stmts:
        if isinstance(s, (ForS, IfS, WhileS)):
            reads.update(free_names([shell(s)]))
            inner: Counter = Counter()
            for block in inner_blocks(s):
                _count_reads(block, inner)
            if isinstance(s, ForS):
                inner.pop(s.target, None)
            reads.update(inner)
        else:
            reads.update(free_names([s]))


def _block(stmts, reads: Counter) -> tuple:
    out = []
    for s in stmts:
        if isinstance(s, ForS):
            s = ForS(s.target, s.iterable, _block(s.body, reads), s.line, s.parallel)
            out.extend(_hoisted(s, reads) or [s])
        elif isinstance(s, IfS):
            out.append(IfS(s.test, _block(s.body, reads), _block(s.orelse, reads), s.line))
        elif isinstance(s, WhileS):
            out.append(WhileS(_block(s.header, reads), s.test, _block(s.body, reads), s.line))
        else:
            out.append(s)
    return tuple(out)


def _hoisted(loop: ForS, reads: Counter) -> list | None:
    """The check of the last index that replaces ``loop``, or None if the loop does more."""
    bounds = _counting_up(loop.iterable)
    if bounds is None or not loop.body:
        return None
    start, stop = bounds
    if reads[loop.target]:
        return None  # the value the loop leaves in its target is read afterwards
    checked = []
    for s in loop.body:
        if not (isinstance(s, Assign) and s.effect == INDEX and len(s.targets) == 1):
            return None
        target, value = s.targets[0], s.value
        if not (isinstance(target, str) and reads[target] == 0):
            return None  # its value is read somewhere
        if not (isinstance(value, E.Subscript) and value.index == E.Name(loop.target)):
            return None
        if not isinstance(value.value, E.Name) or value.value.id == loop.target:
            return None
        checked.append(value.value)
    last = E.BinOp("-", stop, E.Num(1))
    checks = tuple(Do(E.Subscript(where, last), loop.line) for where in dict.fromkeys(checked))
    return [IfS(E.Compare(">", stop, start), checks, (), loop.line)]


def _counting_up(iterable) -> tuple | None:
    """``(start, stop)`` of ``range(stop)`` or ``range(start, stop)`` with pure bounds and a
    non-negative literal start (so every index is one the last read also covers), else None."""
    if not (isinstance(iterable, E.Call) and iterable.func == "range" and not iterable.keywords):
        return None
    args = iterable.args
    if len(args) == 1:
        start, stop = E.Num(0), args[0]
    elif len(args) == 2:
        start, stop = args
    else:
        return None
    if not (isinstance(start, E.Num) and isinstance(start.value, int) and start.value >= 0):
        return None
    if not isinstance(stop, (E.Name, E.Num)) and not (
        isinstance(stop, E.Call) and stop.func == "len" and all(isinstance(a, E.Name) for a in stop.args)
    ):
        return None
    return start, stop
