"""Whether the source ``inspect`` finds for a function is the code the function runs.

It is not when the file was edited after the module was imported (a notebook's module, changed on
disk and not reloaded), or when ``f.__code__`` was replaced: the derivative would be built from text
the call never runs.  ``matches(node, fn)`` compiles the parsed ``def`` where ``fn`` was defined (inside
the classes and functions its qualified name names, its free variables cells of the enclosing
function, with its module's ``from __future__`` flags and the names its module imports, which choose
how a call of a module's function compiles) and compares what the code does, not where it is: the bytecode, the names, the constants (nested code objects compared the same way) and the
parameters.  Line numbers, decorators and defaults (``fn.__defaults__`` are used as they are) play no
part.  A module pytest imported (a test module, a conftest) has its asserts rewritten by pytest: its
definitions are compiled with pytest's rewriting too.  Done once per code object and text of its file.
"""

from __future__ import annotations

import __future__
import ast
import copy
import linecache
import sys
import types

_FUTURE = 0
for _feature in __future__.all_feature_names:
    _FUTURE |= getattr(__future__, _feature).compiler_flag

_CHECKED: dict = {}  # code object -> the lines of its file it was found to match
_IMPORTS: dict = {}  # file name -> (its lines, the names its module scope binds by import)


def matches(node: ast.FunctionDef, fn) -> bool:
    """Whether compiling ``node`` (``fn``'s definition as read from its file) gives ``fn``'s code."""
    code = fn.__code__
    if not isinstance(node, ast.FunctionDef) or node.name != code.co_name:  # (the file's lines at the code's first
        return False  # line are another statement now: edited above the def)
    lines = linecache.getlines(code.co_filename)
    if _CHECKED.get(code) is lines:
        return True
    want = _fingerprint(code)
    try:  # compiled in its file (its imports known), or alone (as adc compile reads a file's definitions)
        found = any(made is None or _fingerprint(made) == want for made in _made(node, fn, code, lines))
    except (SyntaxError, RecursionError):  # (a def that only compiles in its place; one nested too deep
        found = True  # to compile again: the code can tell no more than the text)
    if found:
        if len(_CHECKED) >= 256:
            _CHECKED.clear()
        _CHECKED[code] = lines
    return found


def _made(node: ast.FunctionDef, fn, code, lines):
    """The code objects compiling ``node`` can give: where its module imports what its file imports, and alone."""
    yield _compiled(node, fn, _imported(code.co_filename, lines))
    yield _compiled(node, fn, [])


def _imported(filename: str, lines: list) -> list:
    """The names the module scope of a file binds by ``import`` (a call of such a module's function is
    compiled apart from other method calls)."""
    held = _IMPORTS.get(filename)
    if held is None or held[0] is not lines:
        try:
            tree = ast.parse("".join(lines))
        except (SyntaxError, ValueError):
            tree = ast.Module([], [])
        stack, names = list(tree.body), []
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                names += [a.asname or a.name.split(".")[0] for a in stmt.names if a.name != "*"]
            elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack += [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.stmt)]
        if len(_IMPORTS) >= 64:
            _IMPORTS.clear()
        held = _IMPORTS[filename] = (lines, sorted(set(names)))
    return held[1]


def _compiled(node: ast.FunctionDef, fn, imported: list):
    """The code object of ``node`` compiled in the place ``fn``'s qualified name gives it, in a module
    that imports the names ``imported``."""
    code = fn.__code__
    fdef = ast.FunctionDef(code.co_name, node.args, node.body, [], node.returns, type_params=[])  # (its parts: shared)
    frees = [n for n in code.co_freevars if n != "__class__"]
    stmt: ast.stmt = fdef
    scopes = _scopes(code.co_qualname)  # (the code's own: functools.wraps changes the function's)
    placed = False
    for kind, name in reversed(scopes):
        if kind == "class":
            stmt = ast.ClassDef(name, [], [], [stmt], [], type_params=[])
        else:
            cells = [] if placed else [_assign(n) for n in frees]
            placed = True
            stmt = _function(name, cells + [stmt])
    if frees and not placed:  # a function with free variables but no enclosing one named (made by exec)
        scopes.insert(0, ("def", "__adc_cells__"))
        stmt = _function("__adc_cells__", [_assign(n) for n in frees] + [stmt])
    imports = [ast.Import([ast.alias("_", name)]) for name in imported]
    module = ast.Module(imports + [stmt], [])
    for made in _made_nodes(module, fdef):  # positions for the nodes made here (the def's own are the file's)
        made.lineno, made.col_offset, made.end_lineno, made.end_col_offset = node.lineno, 0, node.lineno, 0
    rewriter = _assert_rewriter(fn)
    if rewriter is not None:  # a test module pytest imported: its asserts rewritten, as pytest compiled them
        module = copy.deepcopy(module)  # (the def's parts are the parsed tree's, which lowering reads)
        rewriter(module, "".join(linecache.getlines(code.co_filename)).encode(), code.co_filename, None)
    flags = code.co_flags & _FUTURE
    compiled = compile(module, code.co_filename, "exec", flags=flags, dont_inherit=True)
    return _find(compiled, [name for _, name in scopes] + [code.co_name])


def _assert_rewriter(fn):
    """pytest's ``rewrite_asserts`` where ``fn``'s module was imported by pytest's assertion-rewriting
    import hook (a test module, a conftest, a plugin registered for it); None elsewhere."""
    loader = fn.__globals__.get("__loader__")
    if type(loader).__name__ != "AssertionRewritingHook":
        return None
    rewrite = sys.modules.get("_pytest.assertion.rewrite")
    return getattr(rewrite, "rewrite_asserts", None)


def _made_nodes(module: ast.Module, fdef: ast.FunctionDef):
    """The nodes of ``module`` outside ``fdef``'s arguments and body: those ``_compiled`` made, walked
    without recursion (the def may be deep)."""
    stack: list = [module]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.stmt, ast.expr, ast.alias)):
            yield n
        if n is not fdef:
            stack.extend(ast.iter_child_nodes(n))


def _scopes(qualname: str) -> list:
    """The enclosing scopes a qualified name names, outermost first: ("def", name) or ("class", name)."""
    parts = qualname.split(".")[:-1]
    out, k = [], 0
    while k < len(parts):
        if k + 1 < len(parts) and parts[k + 1] == "<locals>":
            out.append(("def", parts[k]))
            k += 2
        else:
            out.append(("class", parts[k]))
            k += 1
    return out


def _assign(name: str) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], ast.Constant(None))


def _function(name: str, body: list) -> ast.FunctionDef:
    none = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    return ast.FunctionDef(name, none, body, [], None, type_params=[])


def _find(code, path: list):
    """The code object reached from a module's code by the names of ``path`` (a class body's code, a function's)."""
    for name in path:
        code = next((c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name), None)
        if code is None:
            return None
    return code


def _fingerprint(code) -> tuple:
    """What a code object does, without where it is: its bytecode, names, parameters and constants."""
    consts = tuple(
        _fingerprint(c) if isinstance(c, types.CodeType) else (type(c).__name__, repr(c)) for c in code.co_consts
    )
    counts = (code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount)
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, counts, consts)


__all__ = ["matches"]
