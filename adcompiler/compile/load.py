"""Source -> callables: compile under a unique filename registered in ``linecache``.

Registering the text means tracebacks, ``inspect.getsource`` and pdb show the
generated code, and that generated functions can themselves be differentiated.

Generated code runs in the user's module: its functions' globals are the module's own dictionary,
so a constant, an array or a helper it reads is the module's as it is when the code runs, and
nothing is written into that dictionary.  The names the code defines itself (its functions,
imports and runtime helpers) and the names it is handed (the builtins it calls, functions it
calls by a name the module does not bind) are local variables of one function whose body is the
generated module: closure variables of the generated functions, as quick to read as globals.  The
runtime helpers are library code: they are made by a function of their own whose globals hold only
the builtins, so a name of the user's module (a global ``slice``, ``any`` or ``enumerate``) never
reaches them.
"""

from __future__ import annotations

import ast
import builtins
import itertools
import linecache
import sys
import types

from ..front.environment import Closure, Scope
from ..front.scopes import name_ids
from .memory import keep_arrays
from .origins import LOADED

_counter = itertools.count(1)
_MODULE = "__adc_module__"  # the function whose body is the generated module (never bound anywhere)


def load(source: str, globals_: dict, label: str, supply=None, generated=None, path=None, told=None) -> dict:
    """Run generated ``source`` in the module dictionary ``globals_`` and return the names it defines.

    ``supply(names)`` gives, for the names the source reads but does not define, the values it is to
    be handed (a dict; names left out are the module's globals, or builtins).  ``generated``: the names
    of the functions made from the user's code; when given, every other function of the source is a
    runtime helper, made apart with only the builtins as its globals.
    Every function the source defines gets ``__adc_scope__``, the ``Scope`` its body reads names from
    (see ``front.environment.namespace_of``), so it can be differentiated in turn.
    ``path``: a file that holds ``source`` (``targets.numba.cache``): the code is compiled as that file's, and
    its functions are made at the top level of a module whose globals are a copy of ``globals_`` with the
    names handed (no closure variables: Numba caches a function by its file and its bytecode; it
    freezes the globals it reads anyway), unless a name is handed a closure's cell.  ``told``: where each of
    its lines comes from (``origins.Told``), kept for the errors later met in the code (``origins.LOADED``)."""
    keep_arrays()  # (once a process: the arrays the code makes and frees each call kept by malloc)
    filename = path or f"<adcompiler {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    if told is not None:
        LOADED[filename] = told
    tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST)  # the generated text as a tree
    defined = _defined(tree.body)
    names = {id(s): name_ids(s) for s in tree.body}  # (one walk)
    read = set().union(*names.values()) - set(defined)
    handed = dict(supply(read)) if supply is not None else {}
    cells = {n: v for n, v in handed.items() if isinstance(v, types.CellType)}  # a closure's: read from the cell
    handed = {n: v for n, v in handed.items() if n not in cells}
    helpers = [
        s for s in tree.body if isinstance(s, ast.FunctionDef) and generated is not None and s.name not in generated
    ]
    if helpers:  # made first, apart (with the module's imports and the constants they read): handed to the rest
        reads = set().union(*(names[id(h)] for h in helpers))
        constants = [s for s in tree.body if isinstance(s, ast.Assign) and set(_defined([s])) <= reads]
        moved = {id(s) for s in helpers + constants}
        tree.body = [s for s in tree.body if id(s) not in moved]
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        apart = ast.Module(imports + constants + helpers, [])
        made = [h.name for h in helpers] + _defined(constants)
        handed.update(_run(apart, filename, handed, made, _RUNTIME, {}, names))
    namespace = dict(handed)
    own = [n for n in defined if n not in handed]
    if path is not None and not cells:
        module = {**globals_, **handed}
        exec(compile(tree, filename, "exec"), module)
        namespace.update({n: module[n] for n in own})
    else:
        namespace.update(_run(tree, filename, handed, own, globals_, cells, names))
    scope = Scope(namespace, Closure(cells, globals_) if cells else globals_)
    for name in defined:
        value = namespace[name]
        if isinstance(value, types.FunctionType) and value.__code__.co_filename == filename:
            value.__qualname__ = value.__name__
            value.__adc_scope__ = scope
    return namespace


def reads(source: str) -> set:
    """The names ``source`` reads and does not define (those ``load`` asks ``supply`` for)."""
    tree = ast.parse(source)
    return name_ids(tree) - set(_defined(tree.body))


_RUNTIME = {
    "__builtins__": vars(builtins),
    "__name__": "adcompiler.targets.python.runtime",
}  # the runtime helpers' globals
# (named after a module that exists: Numba imports it to load code cached on disk that calls them)


def _run(tree: ast.Module, filename: str, handed: dict, defined: list, globals_: dict, cells: dict, names) -> dict:
    """The names ``defined`` by running the module ``tree`` as the body of a function of ``globals_``
    that is handed ``handed`` (those it reads) and reads ``cells`` as its free variables; ``names``: the
    names each top-level statement reads or binds (by ``id``)."""
    read = set().union(*(names[id(s)] for s in tree.body))
    given = {n: v for n, v in handed.items() if n in read}
    module = _as_function(tree, list(given), defined, [n for n in cells if n in read])
    body = _code_named(compile(module, filename, "exec"), _MODULE)
    closure = tuple(cells[n] for n in body.co_freevars)
    values = types.FunctionType(body, globals_, _MODULE, None, closure)(*given.values())
    return dict(zip(defined, values))


def _defined(body: list) -> list:
    """The names the top level of a module binds (functions, imports, assignments), in order."""
    names: list = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            names.append(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names += [a.asname or a.name.split(".")[0] for a in stmt.names]
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return list(dict.fromkeys(names))


def _code_named(code: types.CodeType, name: str) -> types.CodeType:
    """The code object of the function ``name`` defined somewhere in ``code``."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            found = c if c.co_name == name else _code_named(c, name)
            if found is not None:
                return found
    return None


def _as_function(tree: ast.Module, params: list, defined: list, cells: list) -> ast.Module:
    """``def __adc_module__(*params): <the module's statements>; return (<defined names>)``: the same
    statements at the same lines and columns, so tracebacks point into the registered source.  Names
    of ``cells`` are its free variables (it is made inside a function that assigns them), bound to the
    closure cells of the user's function the code reads them from."""
    last = tree.body[-1].end_lineno if tree.body else 1
    ret = ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in defined], ast.Load()))
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], kwonlyargs=[], kw_defaults=[], defaults=[])
    fdef = ast.FunctionDef(name=_MODULE, args=args, body=tree.body + [ret], decorator_list=[], returns=None)
    if sys.version_info >= (3, 12):
        fdef.type_params = []
    for node in (fdef, ret, *ast.walk(ret), args, *args.args):
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = 1 if node is fdef else last, 0, last, 0
    if cells:
        sets = [ast.Assign([ast.Name(n, ast.Store())], ast.Constant(None)) for n in cells]
        none = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        outer = ast.FunctionDef(name="__adc_cells__", args=none, body=sets + [fdef], decorator_list=[], returns=None)
        if sys.version_info >= (3, 12):
            outer.type_params = []
        for node in (outer, none, *(n for s in sets for n in ast.walk(s))):
            node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = 1, 0, last, 0
        fdef = outer
    return ast.Module([fdef], [])
