"""The adjoints of reads of one array added up in one array, in place (issue 35: lstm, ba).

Each read of an array ``x`` (``x[i]``, ``x[a:b]``) has the adjoint ``scatter_add(0.0, x, index, g)``:
a fresh array of ``x``'s shape, zero but at ``index``.  In dup form every read is its own copy of
``x``, so the adjoint sweep then adds those arrays up, one sum at a time::

    d_w_4 = scatter_add(0.0, w, 1, t7)
    d_w_3 = scatter_add(0.0, w, t3, d_t4)
    d_w_2 = d_w_3 + d_w_4

two arrays of ``x``'s shape made and a third for the sum, for what is one array with two entries
added.  Where both terms of such a sum are fresh arrays nothing else reads (a ``scatter_add`` from
``0.0``, or a sum this pass already folded) and the later one starts from ``0.0``, the later one starts
from the earlier one instead, and takes the sum's name::

    d_w_4 = scatter_add(0.0, w, 1, t7)
    d_w_2 = scatter_add(d_w_4, w, t3, d_t4)

``scatter_add`` adds into an array of ``x``'s shape in place, and makes a new one otherwise (so the
result is the same sum whatever the shapes).  The earlier term is read nowhere else, so changing it
in place is unseen.  Works block by block, after tidying.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from ..analysis.defuse import reads
from ..ir import expr as E
from ..ir.nodes import Assign, ForS, IfS, WhileS, every_statement

_SCATTER = "scatter_add"


def chained_scatters(body: tuple) -> tuple:
    """``body`` with the sums of fresh scattered adjoints folded into the ``scatter_add`` calls."""
    uses = Counter(n for s in every_statement(body) for n in _reads_of(s))
    return tuple(_block(list(body), uses))


def _reads_of(s) -> list:
    """The names ``s`` itself reads (not its nested blocks), each time it reads one."""
    if isinstance(s, (ForS, IfS, WhileS)):
        head = s.iterable if isinstance(s, ForS) else s.test
        return _names(head) if head is not None else []
    return [n for n in reads(s)] if not isinstance(s, Assign) else _names(s.value)


def _names(e) -> list:
    out: list = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, E.Name):
            out.append(x.id.split(".")[0])
        elif isinstance(x, E.Expr):
            stack.extend(v for v in vars(x).values() if isinstance(v, (E.Expr, tuple)))
        elif isinstance(x, tuple):
            stack.extend(x)
    return out


def _is_scatter(e) -> bool:
    return isinstance(e, E.Call) and e.func.lstrip("@").split(".")[-1].startswith(_SCATTER) and len(e.args) == 4


def _block(stmts: list, uses: Counter) -> list:
    stmts = [_nested(s, uses) for s in stmts]
    fresh: dict = {}  # name -> position of the statement defining it: a fresh array nothing else has
    out: list = []
    for s in stmts:
        name = _single_target(s)
        if name is None:
            out.append(s)
            continue
        value = s.value
        if _is_scatter(value) and _starts_empty(value):
            fresh[name] = len(out)
            out.append(s)
            continue
        if (
            isinstance(value, E.BinOp)
            and value.op == "+"
            and isinstance(value.left, E.Name)
            and isinstance(value.right, E.Name)
            and value.left.id != value.right.id
            and all(n.id in fresh and uses[n.id] == 1 for n in (value.left, value.right))
        ):
            first, last = sorted((value.left.id, value.right.id), key=fresh.get)
            later = out[fresh[last]]
            between = out[fresh[last] + 1 :]  # (the sum's name is made earlier: nothing there may read it)
            if _is_scatter(later.value) and _starts_empty(later.value) and not any(name in reads(x) for x in between):
                call = later.value
                started = E.Call(call.func, (E.Name(first),) + call.args[1:], call.keywords)
                out[fresh[last]] = dataclasses.replace(later, targets=(name,), value=started)
                fresh[name] = fresh.pop(last)
                fresh.pop(first)
                continue
        if _new_value(value):  # a new array (or a number): a scatter after it may start from it
            fresh[name] = len(out)
        out.append(s)
    return out


def _new_value(e) -> bool:
    """Whether ``e`` makes a new array or number every time: arithmetic of values (not a join of lists)."""
    return isinstance(e, E.Unary) and e.op == "-" or isinstance(e, E.BinOp) and not e.lists


def _starts_empty(call: E.Call) -> bool:
    first = call.args[0]
    return isinstance(first, E.Num) and first.value == 0


def _single_target(s) -> str | None:
    if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str) and not s.effect:
        return s.targets[0]
    return None


def _nested(s, uses: Counter):
    if isinstance(s, ForS):
        return dataclasses.replace(s, body=tuple(_block(list(s.body), uses)))
    if isinstance(s, IfS):
        return dataclasses.replace(
            s, body=tuple(_block(list(s.body), uses)), orelse=tuple(_block(list(s.orelse), uses))
        )
    if isinstance(s, WhileS):
        return dataclasses.replace(
            s, header=tuple(_block(list(s.header), uses)), body=tuple(_block(list(s.body), uses))
        )
    return s
