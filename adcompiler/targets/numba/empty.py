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

The shadow of a list of lists (``sum_mat_vec``'s ``d_M``) is filled a row per iteration of its
adjoint loop, ``d_row = d_M[i]`` then ``d_row[:n] = v``.  Where ``d = zeros_rows(X)`` (its only
assignment) is next touched by ``if m > 0:`` over ``for i in range(m)`` (``m = len(X)``, the number of
rows, each assigned once), whose body at the top of ``if n > 0:`` binds ``r = d[i]`` (``d``'s only
mention in the loop, ``r`` bound once) and stores ``r[:n] = v`` before anything but ``check_index``
reads ``r``, it is made ``empty_rows(X)``; ``r[n:] = 0.0`` follows the store, and after the loop
every row is zeroed where ``n > 0`` does not hold (no iteration stored one).  Every row is then
stored before anything reads it: 720 kB not zeroed for 300x300 rows, a fifth of that gradient's time.
"""

from __future__ import annotations

import ast


def empty_shadows(function: ast.FunctionDef, numpy: str, check_index: str, rows: tuple) -> bool:
    """Each such shadow of ``function`` (already in the Numba target's form) made without zeros, in place;
    ``numpy``, ``check_index`` and ``rows`` (``zeros_rows``, ``empty_rows``): the names the function's code
    calls them by.  Whether ``empty_rows`` is called."""
    body = function.body
    counts = _assignments(function)
    used = False
    for i, stmt in enumerate(body):
        name = _call_of(stmt, rows[0])
        if name is not None and counts.get(name) == 1:
            used |= _rows_stored(body, i, name, counts, check_index, rows[1])
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
    return used


def _rows_stored(body: list, i: int, name: str, counts: dict, check_index: str, empty: str) -> bool:
    """``body[i]``, ``name = zeros_rows(X)``, made ``empty_rows(X)`` where a loop stores every row
    before it is read (the module's docstring says when), the zeros the stores leave out added."""
    rows = body[i].value.args[0]
    for j in range(i + 1, len(body)):
        stmt = body[j]
        loop = _over_rows(stmt, rows, counts, body[:j], name, check_index)
        if loop is not None:
            found = _row_store(loop, name, counts, check_index)
            if found is None:
                return False
            block, k, n, row = found
            block.insert(k + 1, _located(f"{row}[{n}:] = 0.0", block[k]))
            each = _unused(f"{name}_row", body)
            zero_all = f"if not {n} > 0:\n    for {each} in {name}:\n        {each}[:] = 0.0"
            stmt.body.insert(stmt.body.index(loop) + 1, _located(zero_all, loop))
            body[i].value.func = ast.Name(empty, ast.Load())
            return True
        if _touches(stmt, name, check_index):
            return False
    return False


def _over_rows(stmt, rows, counts: dict, before: list, name: str, check_index: str):
    """The loop ``for i in range(m)`` (or counting down) of ``stmt``, ``if m > 0:``, where ``m = len(rows)``
    is assigned once among ``before`` and nothing ahead of the loop in the ``if`` touches ``name``."""
    test = getattr(stmt, "test", None)
    if not (isinstance(stmt, ast.If) and not stmt.orelse and _positive(test)):
        return None
    m = test.left.id
    if counts.get(m) != 1 or not any(
        _len_of(s, m) and ast.unparse(s.value.args[0]) == ast.unparse(rows) for s in before
    ):
        return None
    for s in stmt.body:
        if isinstance(s, ast.For) and not s.orelse and isinstance(s.target, ast.Name) and not _rebinds(s):
            spans = ast.unparse(s.iter) in (f"range({m})", f"range({m} - 1, -1, -1)")
            return s if spans else None
        if _touches(s, name, check_index):
            return None
    return None


def _row_store(loop: ast.For, name: str, counts: dict, check_index: str):
    """``(block, k, n, r)`` where ``loop``'s body is ``if n > 0:`` binding ``r = name[i]``, then storing
    ``r[:n] = v`` as ``block[k]`` (at the top of ``if n > 0:`` or not) before ``r`` is read (but by
    ``check_index``), ``name`` mentioned nowhere else in the loop; else None."""
    index = loop.target.id
    if any(isinstance(n, (ast.Break, ast.Continue, ast.Return)) for n in ast.walk(loop)):
        return None  # an iteration might end before its store
    mentions = [n for n in ast.walk(ast.Module(loop.body, [])) if isinstance(n, ast.Name) and n.id == name]
    guards = [s for s in loop.body if _touches(s, name, check_index)]
    if len(mentions) != 1 or not guards or not _positive(getattr(guards[0], "test", None)):
        return None
    guard = guards[0]
    n = guard.test.left.id
    if guard.orelse or counts.get(n) != 1 or _binds_in(loop, n):
        return None  # n the same in every iteration: assigned once, before the loop
    row = None
    for k, s in enumerate(guard.body):
        if row is None:
            if _touches(s, name, check_index):
                bound = isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                if not (bound and ast.unparse(s.value) == f"{name}[{index}]" and counts.get(s.targets[0].id) == 1):
                    return None
                row = s.targets[0].id
            continue
        if _slice_store(s, row, n) and not _mentions(s.value, row):
            return guard.body, k, n, row
        if isinstance(s, ast.If) and not s.orelse and ast.unparse(s.test) == f"{n} > 0":
            for k2, inner in enumerate(s.body):
                if _slice_store(inner, row, n) and not _mentions(inner.value, row):
                    return s.body, k2, n, row
                if _touches(inner, row, check_index):
                    return None
        if _touches(s, row, check_index):
            return None
    return None


def _binds_in(node, name: str) -> bool:
    """Whether ``node`` (a statement, a loop with its variable) assigns ``name``."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(node))


def _rebinds(loop: ast.For) -> bool:
    """Whether ``loop``'s body assigns its own variable."""
    return any(_binds_in(s, loop.target.id) for s in loop.body)


def _positive(test) -> bool:
    """Whether ``test`` is ``n > 0`` for a name ``n``."""
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Gt)
        and ast.unparse(test.comparators[0]) == "0"
    )


def _call_of(stmt, function: str) -> str | None:
    """``d`` for ``d = function(X)`` with a name ``X``, else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    if isinstance(call, ast.Call) and ast.unparse(call.func) == function and len(call.args) == 1:
        return stmt.targets[0].id if isinstance(call.args[0], ast.Name) and not call.keywords else None
    return None


def _unused(name: str, body: list) -> str:
    """``name``, or it with a number, bound nowhere in ``body``."""
    taken = {n.id for n in ast.walk(ast.Module(body, [])) if isinstance(n, ast.Name)}
    k = 0
    while (name if k == 0 else f"{name}_{k}") in taken:
        k += 1
    return name if k == 0 else f"{name}_{k}"


def _located(text: str, near) -> ast.stmt:
    """The statement ``text`` at ``near``'s location."""
    return ast.fix_missing_locations(ast.copy_location(ast.parse(text).body[0], near))


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
