"""Function or file -> ``ast``, and the fence that rejects unsupported syntax early.

``parse_function`` reads a function's source with ``inspect``, parses it with
``ast`` and shifts line and column numbers so they are the file's own.  The
fence walks the tree once and raises ``UnsupportedSyntaxError`` naming file,
line, column, construct and what to write instead, so later passes only ever
see the supported subset.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import inspect
import linecache
import os
import re
import sys
import textwrap
import types
from pathlib import Path

from ..errors import StaleSourceError, UnsupportedSyntaxError, located
from ..ir.nodes import Source
from .closures import inline_transforms, lift
from .code_match import matches
from .lambdas import lambda_def
from .environment import namespace_of
from .scopes import every_node, nodes

# Constructs outside the subset: node type -> (what it is, what to write instead).
UNSUPPORTED = {
    ast.ClassDef: (
        "a class definition",
        "define classes outside the differentiated function and pass plain floats in",
    ),
    ast.Try: (
        "try/except",
        "check the condition with if/else before the operation instead of catching errors",
    ),
    ast.With: (
        "a with statement",
        "move the context manager outside the differentiated function",
    ),
    ast.AsyncFunctionDef: ("an async function", "write a plain (synchronous) function"),
    ast.AsyncFor: ("async for", "write a plain for loop"),
    ast.AsyncWith: ("async with", "move it outside the differentiated function"),
    ast.Await: ("await", "write a plain (synchronous) function"),
    ast.Yield: ("yield (a generator)", "build and return a list instead"),
    ast.YieldFrom: ("yield from (a generator)", "build and return a list instead"),
    ast.Global: (
        "a global statement",
        "pass the value in as a parameter and return the new value",
    ),
    ast.Nonlocal: (
        "a nonlocal statement",
        "pass the value in as a parameter and return the new value",
    ),
    ast.FunctionDef: (
        "a nested function definition",
        "define the helper at module level and call it",
    ),
    ast.NamedExpr: ("an assignment expression (:=)", "assign on its own line first"),
    ast.Delete: ("del", "leave the variable in place or reassign it"),
    ast.SetComp: ("a set comprehension", "use a list"),
    ast.Set: ("a set", "use a tuple or a list"),
    ast.Raise: ("raise", "check arguments before calling the differentiated function"),
    ast.Import: ("an import inside the function", "import at module level"),
    ast.ImportFrom: ("an import inside the function", "import at module level"),
    ast.Match: ("a match statement", "use if/elif/else"),
    ast.AnnAssign: ("an annotated assignment", "drop the annotation: write x = ..."),
}

BINOPS = {
    ast.MatMult: "matmul",
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "truediv",
    ast.Pow: "pow",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.BitAnd: "bitand",  # (m1 & m2 of masks, bits of integers: no derivative)
    ast.BitOr: "bitor",
    ast.BitXor: "bitxor",
}
UNARYOPS = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}
COMPARES = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
IDENTITY = {ast.Is: "is_", ast.IsNot: "is_not"}  # only with None: derivative code keeps what is None


# The node types the fence looks at (the others are fine wherever they are).
_CHECKED = frozenset(UNSUPPORTED) | {
    ast.Constant,
    ast.BinOp,
    ast.AugAssign,
    ast.UnaryOp,
    ast.Compare,
    ast.Call,
    ast.Expr,
    ast.Starred,
}


def _spelled(op) -> str:
    """An operator as Python spells it (``is not``, never the ast's ``IsNot``), for messages."""
    a, b = ast.Name("a"), ast.Name("b")
    node = ast.Compare(a, [op], [b]) if isinstance(op, ast.cmpop) else ast.BinOp(a, op, b)
    node = ast.UnaryOp(op, b) if isinstance(op, ast.unaryop) else node
    return ast.unparse(node).removeprefix("a ").removesuffix(" b").removesuffix("b")


def _none_test(node: ast.Compare) -> bool:
    """``x is None`` or ``x is not None`` (None on either side, one comparison)."""
    sides = [node.left, node.comparators[0]]
    return len(node.ops) == 1 and any(isinstance(s, ast.Constant) and s.value is None for s in sides)


class Parsed:
    """A function's ``ast.FunctionDef`` with file-absolute positions, and its ``Source``."""

    def __init__(self, node: ast.FunctionDef, source: Source, obj):
        self.node = node
        self.source = source
        self.obj = obj
        self.reads: list = []  # environment.Read: the globals lowering it read, with their values then
        self.local_functions: dict = {}  # name -> (its lifted function, its free variables): front.closures

    def error(self, node, construct: str, remedy: str, cls=UnsupportedSyntaxError):
        return located(node, self.source.filename, self.source.lines, construct, remedy, cls)


_SOURCES: dict = {}  # code object -> (its file's lines as linecache held them, getsourcelines' answer then)


def source_lines(fn) -> tuple:
    """``inspect.getsourcelines`` of the code ``fn`` runs (a ``functools.wraps`` wrapper's own, never the
    function it wraps), which tokenizes the function's text on every call, done once per code object
    and text of its file: a function is read several times per transformation (its parameters, the
    fence, lowering), and again by every call that lowers a call of it."""
    code = getattr(fn, "__code__", None)
    if code is None:  # a class, say
        return inspect.getsourcelines(fn)
    linecache.checkcache(code.co_filename)  # as inspect does: a file changed since is read again
    held = linecache.cache.get(code.co_filename)
    if held is None and not code.co_filename.startswith("<"):  # read into linecache, as inspect would
        linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))  # (through the module's loader)
        held = linecache.cache.get(code.co_filename)
    text = held[2] if held is not None and len(held) == 4 else None
    hit = _SOURCES.get(code)
    if hit is not None and text is not None and hit[0] is text:
        return hit[1]
    found = _held_block(code, text) if text is not None else None
    found = found or inspect.getsourcelines(code)
    held = linecache.cache.get(code.co_filename)
    if held is not None and len(held) == 4:
        if len(_SOURCES) >= 256:  # the functions of a session are few; generated code is many
            _SOURCES.clear()
        _SOURCES[code] = (held[2], found)
    return found


_DEFINITION = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")  # (inspect's)


def _held_block(code, lines: list):
    """``inspect.getsourcelines(code)`` from the lines of its file that ``linecache`` holds: the block from
    the ``def`` (or decorator, or lambda) at or above the code's first line, as inspect finds it.  inspect
    itself first looks for the module the file belongs to among every loaded module (milliseconds once
    NumPy and SciPy are loaded), only to read the same lines.  None where inspect should answer."""
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines):
        return None
    while start > 0 and not _DEFINITION.match(lines[start]):
        start -= 1
    return inspect.getblock(lines[start:]), start + 1


def parse_function(fn) -> Parsed:
    """Read the source of the code ``fn`` runs and parse it; raise a located error if there is none."""
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"adcompiler differentiates plain Python functions, not {type(fn).__name__} {fn!r}")
    lifted = getattr(fn, "__adc_lifted__", None)
    if lifted is not None:  # a local function of another, taken out of it (front.closures)
        return _finished(copy.deepcopy(lifted[0]), lifted[1], fn, lifted[2])
    return _finished(*read_function(fn), fn)


def read_function(fn) -> tuple:
    """``fn``'s ``ast.FunctionDef`` (positions as in its file) and its ``Source``."""
    filename = fn.__code__.co_filename
    try:
        lines, first = source_lines(fn)
    except (OSError, TypeError) as exc:
        if os.path.isfile(filename):  # the file is there, the def no longer where the code says: edited since
            raise StaleSourceError(
                f"the source of {fn.__qualname__} as its file holds it now, which no longer has the def at line "
                f"{fn.__code__.co_firstlineno} (the file was changed after the module was imported)",
                "reload the module (importlib.reload, or run the cell that defines it again) and differentiate the "
                "function it defines then",
                filename,
                fn.__code__.co_firstlineno,
                0,
            ) from exc
        raise UnsupportedSyntaxError(
            f"the function {fn.__qualname__} (no source available)",
            "define it in a .py file (functions typed at a REPL or made by exec have no source to transform)",
            filename,
            fn.__code__.co_firstlineno,
            0,
        ) from exc
    if fn.__code__.co_name == "<lambda>":  # the def it stands for, read from its whole file
        made = lambda_def(fn)
        if made is None:
            raise UnsupportedSyntaxError(
                "this lambda (its place in the file was not found)", "define it with def", filename, first, 0
            )
        node, numbered = made
        namespace = namespace_of(fn)
        node.body = [_unguarded(stmt, namespace) for stmt in node.body]
        return node, Source(filename, numbered, namespace, fn.__module__)
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = len(lines[0]) - len(lines[0].lstrip()) if dedented != text else 0
    tree = ast.parse("\n" * (first - 1) + dedented)  # line numbers as in the file, without a pass to shift them
    if indent:
        for node in ast.walk(tree):
            if hasattr(node, "col_offset"):
                node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:  # a valid range: local functions are compiled
                node.end_col_offset += indent
    node = tree.body[0]
    if isinstance(node, ast.AsyncFunctionDef):
        lines = {first + i: line.rstrip("\n") for i, line in enumerate(lines)}
        awaited = next((n for n in ast.walk(node) if isinstance(n, ast.Await)), None)
        where, what = (awaited, "await (an async function)") if awaited else (node, "an async function")
        raise located(where, filename, lines, what, "write a plain (synchronous) function")
    if not hasattr(fn, "__adc_scope__") and not matches(node, fn):  # (generated code: its own text)
        numbered = {first + i: line.rstrip("\n") for i, line in enumerate(lines)}
        raise located(
            node,
            filename,
            numbered,
            f"the source of {fn.__qualname__} as its file holds it now, which is not the code {fn.__name__} runs "
            "(the file was changed after the module was imported, or its __code__ replaced)",
            "reload the module (importlib.reload, or run the cell that defines it again) and differentiate the "
            "function it defines then",
            StaleSourceError,
        )
    namespace = namespace_of(fn)
    source = Source(filename, {first + i: line.rstrip("\n") for i, line in enumerate(lines)}, namespace, fn.__module__)
    node.body = [_unguarded(stmt, namespace) for stmt in node.body]
    if hasattr(fn, "__adc_scope__"):
        _releases_dropped(node)
    return node, source


def _releases_dropped(node: ast.FunctionDef) -> None:
    """Generated code differentiated again (``differentiate(d.grad)``) without its ``del`` statements: they let
    arrays go that it no longer reads (``optimize.release``) and change no value, and the derivative of the
    code makes its own (a ``del`` of the user's is refused, ``UNSUPPORTED``)."""
    for block in ast.walk(node):
        for field in ("body", "orelse"):
            stmts = getattr(block, field, None)
            if isinstance(stmts, list) and any(isinstance(s, ast.Delete) for s in stmts):
                kept = [s for s in stmts if not isinstance(s, ast.Delete)]
                setattr(block, field, kept or [ast.copy_location(ast.Pass(), stmts[0])])


def _finished(node: ast.FunctionDef, source: Source, fn, siblings=None) -> Parsed:
    """``fn``'s tree, its local functions lifted out of it (``front.closures``) and fenced, then itself
    fenced.  ``siblings``: for a lifted function, the local functions of its enclosing one that it calls."""
    parsed = Parsed(node, source, fn)
    parsed.local_functions.update(siblings or {})
    inline_transforms(node, getattr(fn, "__globals__", {}))  # (g = adcompiler.grad(f); g(x): a nested derivative)
    locals_ = lift(node, parsed.error)
    made = {name: compiled_function(local.node, source, fn) for name, local in locals_.items()}
    parsed.local_functions.update((name, (made[name], local.frees)) for name, local in locals_.items())
    for name, local in locals_.items():
        made[name].__adc_lifted__[2].update((c, parsed.local_functions[c]) for c in local.calls)
    for name, local in locals_.items():  # refused where it is written, even if never called
        _finished(copy.deepcopy(local.node), source, made[name], made[name].__adc_lifted__[2])
    fence(parsed)
    return parsed


def compiled_function(node: ast.FunctionDef, source: Source, enclosing, cells=None, values=None, prefix=()):
    """A lifted definition as a function of ``enclosing``'s module (what generated code calls for its
    value), reading the cells ``enclosing`` reads (and ``cells``, a dict), its defaults ``values``
    (positional, keyword-only; else its constant defaults), its body after ``prefix`` (statements only
    the function run for its value has); ``__adc_lifted__`` holds its tree, where it is written, and the
    local functions it calls."""
    cells = dict(zip(enclosing.__code__.co_freevars, enclosing.__closure__ or ())) | (cells or {})
    sets = [ast.Assign([ast.Name(n, ast.Store())], ast.Constant(None)) for n in cells]  # names of cells: free in it
    none = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    body = copy.deepcopy(node)
    body.body = list(prefix) + body.body
    outer = ast.FunctionDef("__adc_cells__", none, sets + [body], [], None, type_params=[])
    module = ast.fix_missing_locations(ast.copy_location(ast.Module([outer], []), node))
    code = next(c for c in compile(module, source.filename, "exec").co_consts if isinstance(c, types.CodeType))
    code = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name)
    if values is None:  # a local function's: constants only (front.closures)
        kw = zip(node.args.kwonlyargs, node.args.kw_defaults)
        values = tuple(map(ast.literal_eval, node.args.defaults)), {a.arg: ast.literal_eval(d) for a, d in kw if d}
    closure = tuple(cells[n] for n in code.co_freevars)
    function = types.FunctionType(code, enclosing.__globals__, node.name, values[0] or None, closure)
    function.__kwdefaults__ = values[1] or None
    function.__qualname__ = f"{enclosing.__qualname__}.<locals>.{node.name}"
    function.__adc_lifted__ = (node, source, {})
    return function


def _unguarded(stmt, globals_):
    """Generated gradients call their integer check only when an argument is not a float
    (``if type(x) is not float: reject_ints(...)``); differentiating such code again reads the plain check."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1):
        return stmt
    call = stmt.body[0].value if isinstance(stmt.body[0], ast.Expr) else None
    func = globals_.get(call.func.id) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else None
    return stmt.body[0] if getattr(func, "__adc_primitive__", None) == "reject_ints" else stmt


def fence(parsed: Parsed) -> None:
    """Reject every construct outside the subset, with its location."""
    fdef = parsed.node
    args = fdef.args
    for kind, arg, remedy in (
        ("*args", args.vararg, "list the parameters explicitly"),
        ("**kwargs", args.kwarg, "list the parameters explicitly"),
    ):
        if arg is not None:
            raise parsed.error(arg, f"a {kind} parameter", remedy)
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if default is None:  # keyword-only parameters with defaults follow the others (lower/anf.py)
            raise parsed.error(arg, "a keyword-only parameter without a default", "give it a default")
    if args.posonlyargs:
        raise parsed.error(
            args.posonlyargs[0],
            "a positional-only parameter",
            "make it an ordinary positional parameter",
        )
    subscripts, ellipses, operands = _exempt(fdef, parsed.source.globals)
    unpacked = {  # a, *rest = t: the starred name of an assignment's tuple (a call's *args: refused below)
        id(e)
        for n in nodes(fdef)
        for e in (
            [e for t in n.targets if isinstance(t, ast.Tuple) for e in t.elts]
            if isinstance(n, ast.Assign)
            else [a for a in n.args if isinstance(a, ast.Starred)] if isinstance(n, ast.Call) else []
        )
        if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name) | isinstance(n, ast.Call)
    }
    for stmt in fdef.body:
        for node in every_node(stmt):
            if type(node) not in _CHECKED:  # names, attributes, contexts, operators: most of the tree
                continue
            entry = UNSUPPORTED.get(type(node))
            if entry is not None:
                raise parsed.error(node, *entry)
            if isinstance(node, ast.Starred) and id(node) not in unpacked:
                raise parsed.error(
                    node,
                    "a starred expression (*x) here",
                    "star a name only on the left of an assignment (a, *rest = t); join lists with +",
                )
            if (
                isinstance(node, ast.Constant)
                and node.value is not None
                and not isinstance(node.value, (int, float, bool))
                and (not isinstance(node.value, str) or id(node) in operands)  # print("x =", x): a str is fine
                and id(node) not in subscripts
                and id(node) not in ellipses
                and not _is_docstring(fdef, node)
            ):
                raise parsed.error(
                    node,
                    f"a {type(node.value).__name__} constant ({node.value!r})",
                    "use numbers only inside differentiated code",
                )
            if isinstance(node, ast.BinOp) and type(node.op) not in BINOPS:
                raise parsed.error(
                    node,
                    f"the operator {_spelled(node.op)!r}",
                    "use + - * / ** // % on floats",
                )
            if isinstance(node, ast.AugAssign) and type(node.op) not in BINOPS:
                raise parsed.error(
                    node,
                    f"the augmented assignment '{_spelled(node.op)}='",
                    "use += -= *= /= **=",
                )
            if isinstance(node, ast.UnaryOp) and type(node.op) not in UNARYOPS and not isinstance(node.op, ast.Not):
                raise parsed.error(node, f"the unary operator {_spelled(node.op)!r}", "use - or + on floats")
            if isinstance(node, ast.Compare) and any(type(op) not in COMPARES for op in node.ops):
                op = next(_spelled(op) for op in node.ops if type(op) not in COMPARES)
                if not (type(node.ops[0]) in IDENTITY and _none_test(node)):
                    remedy = "compare numbers with < <= > >= == !=, and test for None with x is None"
                    raise parsed.error(node, f"the comparison {op!r}", remedy)
            if isinstance(node, ast.Call):
                if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                    raise parsed.error(
                        node,
                        "a call with *args or **kwargs",
                        "pass each argument explicitly",
                    )
            if (
                isinstance(node, ast.Expr)
                and not hasattr(parsed.obj, "__adc_scope__")  # (generated code's: a product's check, known_arrays)
                and not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))  # a comment
                and not isinstance(
                    node.value, (ast.Call, ast.Yield, ast.YieldFrom, ast.Await)
                )  # those: their own entry
            ):
                raise parsed.error(
                    node,
                    "an expression statement (its value is discarded)",
                    "assign the value to a variable or remove the line",
                )


def _exempt(fdef: ast.FunctionDef, globals_) -> tuple:
    """The ids of the constants the fence lets through, and of the operands where it does not let strs
    through, found in one pass over the tree: (subscripts, ellipses, operands)."""
    subscripts: set = set()  # the strings adcompiler reads: numpy.einsum's subscripts, the runtime helpers' arguments
    ellipses: set = set()  # x[..., 0], and index tuples held in a name (generated code's (..., 0)): indices only
    operands: set = set()  # the operands of arithmetic: no str there ("a" * 2 is not differentiable code)
    for n in nodes(fdef):
        if isinstance(n, ast.Call):
            einsum = getattr(n.func, "attr", getattr(n.func, "id", None)) == "einsum"
            helper = isinstance(n.func, ast.Name) and hasattr(globals_.get(n.func.id), "__adc_primitive__")
            subscripts.update(id(arg) for k, arg in enumerate(n.args) if k == 0 and einsum or helper)
            if _numpy_function(
                n.func, globals_
            ):  # str arguments: np.linalg.eigh(a, UPLO="U"), np.pad(x, 1, mode="edge")
                every = list(n.args) + [k.value for k in n.keywords]
                subscripts.update(id(a) for a in every if isinstance(a, ast.Constant) and isinstance(a.value, str))
        elif isinstance(n, (ast.Subscript, ast.Tuple)):
            parts = n.elts if isinstance(n, ast.Tuple) else [n.slice]
            ellipses.update(id(p) for p in parts if isinstance(p, ast.Constant) and p.value is Ellipsis)
        elif isinstance(n, ast.BinOp):
            operands.update((id(n.left), id(n.right)))
        elif isinstance(n, (ast.UnaryOp, ast.AugAssign)):
            operands.add(id(n.operand if isinstance(n, ast.UnaryOp) else n.value))
    return subscripts, ellipses, operands


def _is_docstring(fdef: ast.FunctionDef, node) -> bool:
    first = fdef.body[0]
    return (
        isinstance(first, ast.Expr)
        and first.value is node
        and isinstance(node, ast.Constant)
        and isinstance(node.value, str)
    )


def load_file(path: str | Path) -> types.ModuleType:
    """Import a user's file as a module (not as __main__) so its functions can be read."""
    path = Path(path).resolve()
    name = f"_adc_user_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def module_functions(module: types.ModuleType) -> dict:
    """The plain functions a module defines itself, in source order (a ``@numba.njit`` one: the Python
    function behind it), and those a ``def`` of its file names that a decorator of the module replaced by
    another function of it (``@twice def half``, without ``functools.wraps``: ``half`` is twice's inner,
    named ``inner``), under the name the file gives them."""
    found = {}
    defined = _defined_names(module)
    for name, value in vars(module).items():
        value = getattr(value, "py_func", value)
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            if name == value.__name__ or name in defined:
                found[name] = value
    return dict(sorted(found.items(), key=lambda kv: kv[1].__code__.co_firstlineno))


def _defined_names(module: types.ModuleType) -> set:
    """The names the top-level ``def`` statements of ``module``'s file bind (none where it has no source)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return set()
    return {s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _numpy_function(func, globals_) -> bool:
    """Whether a called expression is a function of a NumPy module (np.pad, np.linalg.eigh, numpy.sum)."""
    while isinstance(func, ast.Attribute):
        func = func.value
    module = globals_.get(func.id) if isinstance(func, ast.Name) else None
    return isinstance(module, types.ModuleType) and module.__name__.split(".")[0] == "numpy"
