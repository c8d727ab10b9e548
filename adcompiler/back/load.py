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
import glob
import os
import secrets
import stat
import sys
import time
import types
from pathlib import Path

from ..front.environment import Closure, Scope
from ..front.scopes import every_node

_counter = itertools.count(1)
_MODULE = "__adc_module__"  # the function whose body is the generated module (never bound anywhere)


def load(source: str, globals_: dict, label: str, supply=None, generated=None) -> dict:
    """Run generated ``source`` in the module dictionary ``globals_`` and return the names it defines.

    ``supply(names)`` gives, for the names the source reads but does not define, the values it is to
    be handed (a dict; names left out are the module's globals, or builtins).  ``generated``: the names
    of the functions made from the user's code; when given, every other function of the source is a
    runtime helper, made apart with only the builtins as its globals.
    Every function the source defines gets ``__adc_scope__``, the ``Scope`` its body reads names from
    (see ``front.environment.namespace_of``), so it can be differentiated in turn."""
    filename = f"<adcompiler {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST)  # the generated text as a tree
    defined = _defined(tree.body)
    read = {n.id for n in every_node(tree) if n.__class__ is ast.Name} - set(defined)
    handed = dict(supply(read)) if supply is not None else {}
    cells = {n: v for n, v in handed.items() if isinstance(v, types.CellType)}  # a closure's: read from the cell
    handed = {n: v for n, v in handed.items() if n not in cells}
    helpers = [
        s for s in tree.body if isinstance(s, ast.FunctionDef) and generated is not None and s.name not in generated
    ]
    if helpers:  # made first, apart (with the module's imports, which they may read): handed to the rest
        tree.body = [s for s in tree.body if not any(s is h for h in helpers)]
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        apart = ast.Module(imports + helpers, [])
        handed.update(_run(apart, filename, handed, [h.name for h in helpers], _RUNTIME, {}))
    namespace = dict(handed)
    namespace.update(_run(tree, filename, handed, [n for n in defined if n not in handed], globals_, cells))
    scope = Scope(namespace, Closure(cells, globals_) if cells else globals_)
    for name in defined:
        value = namespace[name]
        if isinstance(value, types.FunctionType) and value.__code__.co_filename == filename:
            value.__qualname__ = value.__name__
            value.__adc_scope__ = scope
    return namespace


_RUNTIME = {"__builtins__": vars(builtins), "__name__": "adcompiler.runtime"}  # the runtime helpers' globals


def _run(tree: ast.Module, filename: str, handed: dict, defined: list, globals_: dict, cells: dict) -> dict:
    """The names ``defined`` by running the module ``tree`` as the body of a function of ``globals_``
    that is handed ``handed`` (those it reads) and reads ``cells`` as its free variables."""
    read = {n.id for n in every_node(tree) if n.__class__ is ast.Name}
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


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and a rename.

    Readers see the old file or the new one, never a part; on failure ``path`` is untouched and the
    temporary file removed. The file gets the permissions an ordinary ``open(path, "w")`` would give:
    the permission bits of the file it replaces, else ``0o666`` less the umask (not ``0o600``, as a
    ``tempfile.mkstemp`` file would have, which only its owner could read).
    """
    path = Path(path)
    try:
        old = os.stat(path)
        mode = old.st_mode & 0o777 if stat.S_ISREG(old.st_mode) else None
    except OSError:  # no such file yet (or unreadable metadata): a new file's permissions
        mode = None
    _remove_stale_temporaries(path)
    tmp, fd = _create_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:  # Python reads source files as UTF-8
            if mode is not None:
                os.chmod(f.fileno() if os.chmod in os.supports_fd else tmp, mode)
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _remove_stale_temporaries(path: Path, age: float = 60.0) -> None:
    """Remove the temporary files an earlier write of ``path`` left when it was killed mid-write (older
    than ``age`` seconds, so a write running now keeps its own)."""
    now = time.time()
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        try:
            if now - tmp.stat().st_mtime > age:
                tmp.unlink()
        except OSError:
            pass


def _create_beside(path: Path) -> tuple[Path, int]:
    """A new, empty, hidden file next to ``path`` (same directory, so the rename is atomic): its path and
    an open descriptor. Created with mode ``0o666`` and ``O_EXCL``, so the umask applies and no existing
    file is ever opened."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")
