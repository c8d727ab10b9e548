"""Fresh shadows of the Numba target made without zeros where every element is stored before it is read.

``optimize.copies`` takes the adjoint loop of ``dot`` out as slice copies into fresh shadows::

    d_xs = numpy.zeros(len(xs))
    t1 = len(xs)
    if t1 > 0:
        check_index(d_xs, t1 - 1)
        d_xs[:t1] = ys if len(ys) == t1 else ys[:t1]
    return (d_xs, d_ys)

Zeroing ``d_xs`` first writes it twice.  Where, at a function's top level, a shadow ``d = zeros(m)``
(its only assignment) is next touched by a slice store ``d[:n] = v`` at the top of ``if n > 0:`` (``n``
assigned once, ``n = len(...)``, so ``n >= 0``), with nothing in between but ``check_index(d, k)``
(which reads its length only), it is made ``numpy.empty(m)``, and ``d[n:] = 0.0`` follows the ``if``:
the store writes ``d[:n]``, the zeros the rest (none where ``n`` is ``len(d)``, as for ``dot``), before
anything reads ``d``.  Where the store raises (lengths that differ), ``d`` is never read.
"""

from __future__ import annotations

import ast


def empty_shadows(function: ast.FunctionDef, numpy: str, check_index: str) -> None:
    """Each such shadow of ``function`` (already in the Numba target's form) made without zeros, in place;
    ``numpy`` and ``check_index``: the names the function's code calls them by."""
    body = function.body
    counts = _assignments(function)
    for i, stmt in enumerate(body):
        name = _zeros_of(stmt, numpy)
        if name is None or counts.get(name) != 1:
            continue
        for j in range(i + 1, len(body)):
            covered = _covering_if(body[j], name, counts, body[:j], check_index)
            if covered is not None:
                stmt.value.func = ast.Attribute(ast.Name(numpy, ast.Load()), "empty", ast.Load())
                rest = ast.Slice(lower=ast.Name(covered, ast.Load()), upper=None, step=None)
                tail = ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), rest, ast.Store())], ast.Constant(0.0))
                body.insert(j + 1, ast.fix_missing_locations(ast.copy_location(tail, body[j])))
                break
            if _touches(body[j], name, check_index):
                break


def _zeros_of(stmt, numpy: str) -> str | None:
    """``d`` for ``d = numpy.zeros(m)`` (one argument: a flat array of floats), else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    zeros = isinstance(call, ast.Call) and ast.unparse(call.func) == f"{numpy}.zeros"
    return stmt.targets[0].id if zeros and len(call.args) == 1 and not call.keywords else None


def _covering_if(stmt, name: str, counts: dict, before: list, check_index: str) -> str | None:
    """``n`` where ``stmt`` is ``if n > 0:`` whose body stores ``name[:n] = v`` after only checks of
    ``name``'s indices, ``n`` assigned once, by ``n = len(...)`` among the statements ``before``."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.test, ast.Compare)):
        return None
    test = stmt.test
    n = test.left.id if isinstance(test.left, ast.Name) else None
    positive = len(test.ops) == 1 and isinstance(test.ops[0], ast.Gt) and ast.unparse(test.comparators[0]) == "0"
    if n is None or not positive or counts.get(n) != 1 or not any(_len_of(s, n) for s in before):
        return None
    for s in stmt.body:
        if _slice_store(s, name, n) and not _mentions(s.value, name):
            return n
        if _touches(s, name, check_index):
            return None
    return None


def _len_of(stmt, n: str) -> bool:
    """Whether ``stmt`` is ``n = len(...)``."""
    return (
        isinstance(stmt, ast.Assign)
        and [ast.unparse(t) for t in stmt.targets] == [n]
        and isinstance(stmt.value, ast.Call)
        and ast.unparse(stmt.value.func) == "len"
    )


def _slice_store(stmt, name: str, n: str) -> bool:
    """Whether ``stmt`` is ``name[:n] = v``."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    return (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == name
        and isinstance(target.slice, ast.Slice)
        and target.slice.lower is None
        and target.slice.step is None
        and isinstance(target.slice.upper, ast.Name)
        and target.slice.upper.id == n
    )


def _touches(stmt, name: str, check_index: str) -> bool:
    """Whether ``stmt`` mentions ``name`` other than as the array ``check_index(name, k)`` checks."""
    checks = {
        id(node.args[0])
        for node in ast.walk(stmt)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == check_index and node.args
    }
    return any(isinstance(node, ast.Name) and node.id == name and id(node) not in checks for node in ast.walk(stmt))


def _mentions(node, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _assignments(function: ast.FunctionDef) -> dict:
    """How many times each plain name is bound in ``function`` (parameters, targets, loop variables)."""
    counts: dict = {a.arg: 1 for a in function.args.args}
    for node in ast.walk(function):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = [node.target]
        elif isinstance(node, ast.NamedExpr):
            targets = [node.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    counts[n.id] = counts.get(n.id, 0) + 1
    return counts
