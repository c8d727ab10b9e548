"""A lambda as a function: the ``def`` it stands for, read from its file.

``inspect`` gives a lambda's source as the lines of the statement holding it, which may hold several
lambdas (``fs = [lambda x: x, lambda x: 2 * x]``) or not parse alone (a lambda inside a call that goes
on to the next line).  The whole file is parsed instead, and the lambda is the one whose span holds
every position its code object records (Python 3.11's ``co_positions``): the lambda that was made,
even among several on one line or in a comprehension.  It becomes ``def NAME(params): return body``,
named for the variable it is assigned to, else for its line (``lambda_12``).
"""

from __future__ import annotations

import ast
import linecache

_TREES: dict = {}  # filename -> (the lines linecache held, the parsed file)


def lambda_def(fn) -> tuple[ast.FunctionDef, dict] | None:
    """``(def, lines)``: the lambda ``fn`` as a ``def`` with its file's positions, and the lines it
    spans by number; None where its file or its node cannot be found."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    tree = _parsed(code.co_filename, lines)
    if tree is None:
        return None
    spans = [p for p in code.co_positions() if None not in p and (p[0], p[2]) != (p[1], p[3])]  # (RESUME: empty)
    found, assigned = None, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[id(node.value)] = node.targets[0].id
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno and _holds(node, spans):
            if found is None or _holds(found, [(node.lineno, node.end_lineno, node.col_offset, node.end_col_offset)]):
                found = node  # the innermost lambda holding every position
    if found is None:
        return None
    name = assigned.get(id(found)) or f"lambda_{found.lineno}"
    body = ast.copy_location(ast.Return(found.body), found.body)
    fdef = ast.FunctionDef(name, found.args, [body], [], None, type_comment=None)
    fdef = ast.copy_location(fdef, found)
    fdef.end_lineno, fdef.end_col_offset = found.end_lineno, found.end_col_offset
    return fdef, {i: lines[i - 1].rstrip("\n") for i in range(found.lineno, found.end_lineno + 1)}


def _holds(node: ast.Lambda, spans) -> bool:
    """Whether ``node``'s source span holds every ``(line, end line, column, end column)`` of ``spans``."""
    start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
    return bool(spans) and all(start <= (a, c) and (b, d) <= end for a, b, c, d in spans)


def _parsed(filename: str, lines: list):
    """The file's tree, parsed once per text of it; None where it does not parse."""
    held = _TREES.get(filename)
    if held is not None and held[0] is lines:
        return held[1]
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    if len(_TREES) >= 64:
        _TREES.clear()
    _TREES[filename] = (lines, tree)
    return tree


def def_name(fn) -> str:
    """The name generated code gives ``fn``'s derivatives: its own, or for a lambda the name of the
    ``def`` it stands for (``<lambda>`` is no identifier)."""
    name = fn.__name__
    if name.isidentifier() or not hasattr(fn, "__code__"):
        return name
    made = lambda_def(fn)
    return made[0].name if made is not None else "anonymous"
