"""Functions made from the user's for one kind of call: a function with ``*xs`` at a fixed number of
arguments, and a helper handed a local function.

``fixed_arity(f, n)``: ``def f(a, *xs)`` as ``def f(a, xs0, ..., xs{n-1})`` (``front.closures``).
``given_local_functions(h, {i: local})``: ``def apply(fn, x): return fn(fn(x))`` called as
``apply(g, x)`` with ``g`` a local function reading ``w`` becomes ``def apply(fn_w, x)`` in which ``fn``
is that local function, called as ``g(fn_w, ...)``: the caller passes ``w``, so its derivative follows.
Each is a function of the user's module (generated code calls it for its value), made once per file
text and kind of call.
"""

from __future__ import annotations

import ast
import copy
import inspect
import types

from .closures import fixed_arity_tree
from .parse import compiled_function, read_function, source_lines

_MADE: dict = {}  # (function, what the call fixes) -> (the file's text then, the function made)


def fixed_arity(fn, n: int, keywords: tuple = ()):
    """``fn``, which has ``*xs`` (or ``**kw``), as a function of ``n`` parameters in its place (and of the
    ``keywords`` a call passes to ``**kw``): one function, with its own derivatives, per number of
    positional arguments it is called with."""
    key = (fn, n, keywords)
    if key not in _MADE or _MADE[key][0] is not source_lines(fn):
        node, source = read_function(fn)
        values = (fn.__defaults__ if n == 0 else None, fn.__kwdefaults__)  # given defaults before *xs: all given
        tree = fixed_arity_tree(node, n, keywords=keywords)
        given = len(tree.args.args) - len(node.args.args) - n  # parameters for the keywords, given at each call
        values = (values[0] + (None,) * given if values[0] and given > 0 else values[0], values[1])
        function = compiled_function(tree, source, fn, values=values)
        function.__qualname__ = fn.__qualname__
        _MADE[key] = (source_lines(fn), function)  # made again when the file's text changed
    return _MADE[key][1]


def what_runs(fn):
    """The function whose code a call of ``fn`` runs, as it is differentiated: ``fn`` itself, a
    ``functools.wraps`` wrapper at the parameters it declares (``declared``), or the generated code an
    entry of adcompiler's own wraps (``backend="numba"``'s)."""
    if not isinstance(fn, types.FunctionType):
        return fn
    wrapped = getattr(fn, "__wrapped__", None)
    if hasattr(wrapped, "__adc_scope__"):
        return wrapped
    return declared(fn) or fn


def declared(fn):
    """For a ``functools.wraps`` wrapper that takes ``*args`` (and ``**kwargs``) and passes them on, the
    wrapper's own code as a function of the parameters it declares (those of the function it wraps,
    their defaults as they are now): ``def f(x, k=2.0)`` wrapped by ``def wrapper(*args, **kwargs):
    return 2 * fn(*args, **kwargs)`` is differentiated as ``def f(x, k=2.0): return 2 * fn(x, k)``, what
    a call of it runs.  None for any other function (a wrapper with parameters of its own is itself)."""
    code = getattr(fn, "__code__", None)
    if not (hasattr(fn, "__wrapped__") and code is not None and code.co_flags & inspect.CO_VARARGS):
        return None
    if code.co_argcount or code.co_kwonlyargcount:
        return None
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
        return None  # (*xs, keyword-only: fn's own code at the arity of each call: variadic)
    names = tuple(p.name for p in params)
    values = tuple(p.default for p in params if p.default is not p.empty)
    key = (fn, names)
    made = _MADE.get(key)
    if made is None or made[0] is not source_lines(fn) or list(map(id, made[2])) != list(map(id, values)):
        node, source = read_function(fn)
        tree = fixed_arity_tree(node, len(names), names)
        tree.args.defaults = [ast.Constant(None)] * len(values)  # (their values: given below)
        function = compiled_function(tree, source, fn, values=(values, None))
        function.__name__, function.__qualname__, function.__module__ = fn.__name__, fn.__qualname__, fn.__module__
        function.__doc__ = fn.__doc__
        _MADE[key] = made = (source_lines(fn), function, values)
    return made[1]


def given_local_functions(fn, passed: dict, error):
    """``fn`` called with local functions as some positional arguments (``passed``: position -> (its
    lifted function, its free variables)): a function taking those functions' free variables first, in
    place of them, in which each such parameter names its local function (``Parsed.local_functions``).
    ``error(construct, remedy)`` makes the located refusal."""
    key = (fn, tuple(sorted((i, local[0]) for i, local in passed.items())))
    if key in _MADE and _MADE[key][0] is source_lines(fn):
        return _MADE[key][1]
    lifted = getattr(fn, "__adc_lifted__", None)
    node, source = (copy.deepcopy(lifted[0]), lifted[1]) if lifted else read_function(fn)
    siblings = dict(lifted[2]) if lifted else {}
    params = node.args.args
    taken = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)
    }
    stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    fresh, prefix, cells = [], [], {}
    for i, (function, frees) in sorted(passed.items()):
        if i >= len(params) or params[i].arg in stored:
            raise error(f"a local function passed to {fn.__name__} as a parameter it assigns or as *args", "call it")
        p = params[i].arg
        names = [_fresh(f"{p}_{v}", taken) for v in frees]
        fresh += names
        siblings[p] = (function, tuple(names))
        cells[f"__adc_local{i}__"] = types.CellType(function)  # what p is when the function runs for its value
        call = ast.Call(ast.Name(f"__adc_local{i}__", ast.Load()), [ast.Name(n, ast.Load()) for n in names], [])
        call.args.append(ast.Starred(ast.Name("args", ast.Load()), ast.Load()))
        whole = ast.arguments(
            posonlyargs=[], args=[], vararg=ast.arg("args"), kwonlyargs=[], kw_defaults=[], defaults=[]
        )
        prefix.append(ast.copy_location(ast.Assign([ast.Name(p, ast.Store())], ast.Lambda(whole, call)), node))
    kept = [j for j in range(len(params)) if j not in passed]
    first = len(params) - len(node.args.defaults)  # the parameters from first on have defaults
    defaults = tuple((fn.__defaults__ or ())[j - first] for j in kept if j >= first)
    node.args.defaults = [node.args.defaults[j - first] for j in kept if j >= first]
    node.args.args = [ast.copy_location(ast.arg(n), node) for n in fresh] + [params[j] for j in kept]
    function = compiled_function(node, source, fn, cells, (defaults, fn.__kwdefaults__), prefix)
    function.__qualname__ = fn.__qualname__
    function.__adc_lifted__ = (node, source, siblings)
    _MADE[key] = (source_lines(fn), function)
    return function


def _fresh(base: str, taken: set) -> str:
    name = base
    while name in taken:
        name += "_"
    taken.add(name)
    return name


__all__ = ["declared", "fixed_arity", "given_local_functions", "what_runs"]
