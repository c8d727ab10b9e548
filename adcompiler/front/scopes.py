"""Facts about a function's ``ast`` that lowering needs before it starts.

``find_slots`` decides which user variables cannot be plain SSA values: those
assigned in several blocks, read where more than one assignment may reach
(after an ``if`` that assigns them, in the next iteration of a loop), or read
outside the block that assigns them.  Such a variable becomes a *slot*: ANF
reads it into a fresh variable (``read``) and assigns it with ``write``.
Everything else is versioned SSA (``x``, ``x_1``, ...).

``may_jump`` and ``falls_through`` drive the normalisation that moves the
statements after a conditional ``return``/``break``/``continue`` into the paths
that fall through, so jumps only ever end a block.
"""

from __future__ import annotations

import ast
from collections import defaultdict


def nodes(tree) -> list:
    """``list(ast.walk(tree))``, made once per tree: the passes over a whole parsed function share it
    (a function's tree does not change after parsing)."""
    found = getattr(tree, "_adc_nodes", None)
    if found is None:
        found = tree._adc_nodes = every_node(tree)
    return found


def every_node(tree) -> list:
    """``list(ast.walk(tree))``, in its order, without its generator per node: a long function's tree
    has tens of thousands of nodes, and the walk was a tenth of its transformation."""
    found, node_type = [tree], ast.AST
    for node in found:  # the list grows as it is read: breadth first, as ast.walk goes
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, node_type):
                found.append(value)
            elif value.__class__ is list:
                found.extend(v for v in value if isinstance(v, node_type))
    return found


_LEAVES = ("ctx", "op", "ops", "id", "attr", "arg", "name", "asname", "module", "kind", "conversion", "type_comment")
_BRANCHES: dict = {}  # AST class -> the fields of its nodes that may hold a Name


def name_ids(tree) -> set:
    """The ids of the ``ast.Name`` nodes in ``tree``: ``{n.id for n in every_node(tree) if n.__class__ is
    ast.Name}``, walking only the fields that may hold one (generated modules are read so on every load)."""
    found, pending, node_type = set(), [tree], ast.AST
    for node in pending:  # (the list grows as it is read)
        cls = node.__class__
        if cls is ast.Name:
            found.add(node.id)
            continue
        fields = _BRANCHES.get(cls)
        if fields is None:
            fields = _BRANCHES[cls] = () if cls is ast.Constant else tuple(f for f in cls._fields if f not in _LEAVES)
        for field in fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                pending.extend(v for v in value if isinstance(v, node_type))
            elif isinstance(value, node_type):
                pending.append(value)
    return found


def _loads(node) -> list:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def _stores(target) -> list:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _own_parts(stmt):
    """(expressions read, targets written, nested blocks) of one statement."""
    if isinstance(stmt, ast.Assign):
        return [stmt.value] + [t for t in stmt.targets if not isinstance(t, (ast.Name, ast.Tuple))], stmt.targets, []
    if isinstance(stmt, ast.AugAssign):
        return (
            [
                stmt.value,
                stmt.target if not isinstance(stmt.target, ast.Name) else ast.Name(stmt.target.id, ast.Load()),
            ],
            [stmt.target],
            [],
        )
    if isinstance(stmt, ast.If):
        return [stmt.test], [], [stmt.body, stmt.orelse]
    if isinstance(stmt, ast.For):
        return [stmt.iter], [], [stmt.body]
    if isinstance(stmt, ast.While):
        return [], [], [stmt.body]
    if isinstance(stmt, ast.Return):
        return [stmt.value] if stmt.value is not None else [], [], []
    if isinstance(stmt, ast.Expr):
        return [stmt.value], [], []
    return [], [], []


def find_slots(fdef: ast.FunctionDef) -> set:
    """The user variables that must be slots (see the module docstring)."""
    writes: dict = defaultdict(list)
    reads: dict = defaultdict(list)
    for a in fdef.args.args:
        writes[a.arg].append(((), -1))

    def visit(stmts, path):
        for i, stmt in enumerate(stmts):
            exprs, targets, nested = _own_parts(stmt)
            for e in exprs:
                for name in _loads(e):
                    reads[name].append((path, i))
            for t in targets:
                for name in _stores(t):
                    writes[name].append((path, i))
            for k, block in enumerate(nested):
                inner = path + ((i, k),)
                if isinstance(stmt, ast.While):
                    for name in _loads(stmt.test):
                        reads[name].append((inner, -1))
                visit(block, inner)

    visit(fdef.body, ())
    slots = set()
    for name, ws in writes.items():
        paths = {p for p, _ in ws}
        if len(paths) > 1:
            slots.add(name)
            continue
        (home,) = paths
        first = min(i for _, i in ws)
        for rpath, ri in reads.get(name, ()):
            if rpath[: len(home)] != home:
                slots.add(name)
            elif rpath == home and ri <= first:
                slots.add(name)
            elif rpath != home and rpath[len(home)][0] <= first:
                slots.add(name)
    return slots


def loop_targets(fdef: ast.FunctionDef) -> set:
    return {n.target.id for n in nodes(fdef) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)}


def may_jump(stmt, loop_depth: int = 0) -> bool:
    """Whether ``stmt`` may leave its block by return, or by break/continue of an enclosing loop."""
    if isinstance(stmt, ast.Return):
        return True
    if isinstance(stmt, (ast.Break, ast.Continue)):
        return loop_depth == 0
    if isinstance(stmt, ast.If):
        return any(may_jump(s, loop_depth) for s in stmt.body + stmt.orelse)
    if isinstance(stmt, (ast.For, ast.While)):
        return any(may_jump(s, loop_depth + 1) for s in stmt.body)
    return False


def may_return(stmt) -> bool:
    return any(isinstance(n, ast.Return) for n in nodes(stmt))


def falls_through(stmts) -> bool:
    """Whether control can reach the end of a block (it does not always jump away)."""
    for stmt in stmts:
        if isinstance(stmt, (ast.Return, ast.Break, ast.Continue)):
            return False
        if isinstance(stmt, ast.If) and not falls_through(stmt.body) and not falls_through(stmt.orelse):
            return False
        if (
            isinstance(stmt, ast.While)
            and isinstance(stmt.test, ast.Constant)
            and stmt.test.value is True
            and not _breaks(stmt.body)
        ):
            return False
    return True


def _breaks(stmts) -> bool:
    """Whether a loop body contains a break of that loop (not of a nested one)."""
    for stmt in stmts:
        if isinstance(stmt, ast.Break):
            return True
        if isinstance(stmt, ast.If) and (_breaks(stmt.body) or _breaks(stmt.orelse)):
            return True
    return False


def integer_only(node: ast.FunctionDef) -> tuple:
    """The parameters the function reads only where Python takes an integer: bounds of ``range``,
    indices and slice bounds, list repetition counts (``def pend(theta, n=200)``: ``n``).  Parameters it
    reassigns, or reads anywhere else, are not among them."""
    params = [a.arg for a in node.args.args]
    integer_reads: dict = {p: 0 for p in params}
    for sub in nodes(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "range":
            for arg in sub.args:
                if isinstance(arg, ast.Name) and arg.id in integer_reads:
                    integer_reads[arg.id] += 1
        elif isinstance(sub, ast.Subscript):
            index = sub.slice
            for part in (index.lower, index.upper, index.step) if isinstance(index, ast.Slice) else (index,):
                if isinstance(part, ast.Name) and part.id in integer_reads:
                    integer_reads[part.id] += 1
        elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mult):
            for list_side, count in ((sub.left, sub.right), (sub.right, sub.left)):
                if isinstance(list_side, ast.List) and isinstance(count, ast.Name) and count.id in integer_reads:
                    integer_reads[count.id] += 1
    reads: dict = {p: 0 for p in params}
    written = set()
    for sub in nodes(node):
        if isinstance(sub, ast.Name) and sub.id in reads:
            if isinstance(sub.ctx, ast.Load):
                reads[sub.id] += 1
            else:
                written.add(sub.id)
    return tuple(p for p in params if reads[p] and reads[p] == integer_reads[p] and p not in written)
