"""Derivative rules users give their own functions (``adcompiler.defrule``, and the JAX spellings of
``adcompiler.api.custom_rules`` built on it)."""

from __future__ import annotations

import ast
import builtins
import inspect
import itertools
import linecache
import textwrap
from typing import Any, Callable, TypeVar

F = TypeVar("F")
CUSTOM: dict = {}
# a function with rules -> (the positions of the arguments its rules do not differentiate in, the name a refusal
# gives it): scipy.special's gammainc(a, x) has rules in x only, and rules.scipy_stats' gamma_cdf, scipy.stats.
# gamma.cdf, is written with it.  A call where such an argument has a derivative is refused at its line
# (``analysis.activity.refuse_library_calls``), not given a zero there
NOT_IN: dict = {}
_ENTRIES: dict = {}  # a function with rules -> the function that calls it (see ``through_rule``)
_counter = itertools.count(1)


def defrule(fn: F, jvp: Callable[..., Any] | None = None, vjp: Callable[..., Any] | None = None) -> F:
    """Give ``fn`` derivative rules, used by both modes wherever differentiated code calls it.

    ``jvp(*primals, *tangents)`` returns the output tangent (a zero tangent is
    passed as 0.0); ``vjp(*primals, ct)`` returns a tuple with one cotangent per
    argument.  Typical uses: a function written in C, a numerically stable
    formula, an iterative solver differentiated implicitly.  Differentiating
    ``fn`` itself uses its rules too (not its body).  Returns ``fn``.
    """
    if jvp is None and vjp is None:
        raise ValueError(f"defrule({getattr(fn, '__name__', fn)!r}) needs a jvp rule, a vjp rule, or both")
    CUSTOM[fn] = (jvp, vjp)
    _ENTRIES.pop(fn, None)
    return fn


def function_from_source(source: str, name: str, namespace: dict, label: str):
    """The function ``name`` that ``source`` defines, its globals ``namespace`` (builtins added), its
    text registered with ``linecache`` so it can be read, shown in tracebacks and differentiated."""
    filename = f"<adcompiler {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__builtins__": builtins, "__name__": "adcompiler.rules.custom", **namespace}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own generated text
    return namespace[name]


def output_size(fn) -> int | None:
    """How many values a function with rules returns, where each of its return statements is a tuple
    display of that many values, none a tuple itself (``return (x * 2.0, x * x)``): its call then gives
    that many values, each with its tangent, and its vjp rule takes the tuple of their cotangents.
    None for anything else (one value: a number, an array, or a structure its rules handle whole)."""
    try:
        fdef = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    sizes = set()
    todo = list(getattr(fdef, "body", ()))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue  # a nested function's returns are its own
        if isinstance(node, ast.Return):
            elts = node.value.elts if isinstance(node.value, ast.Tuple) else []
            flat = isinstance(node.value, ast.Tuple) and not any(isinstance(e, (ast.Tuple, ast.Starred)) for e in elts)
            sizes.add(len(elts) if flat else None)
        todo.extend(ast.iter_child_nodes(node))
    return sizes.pop() if len(sizes) == 1 and None not in sizes else None


def through_rule(fn):
    """``fn`` itself, or for a function with rules and plain positional parameters, ``def fn(x, y):
    return fn(x, y)``: differentiating that calls the rules, as differentiating ``fn`` should (JAX's
    ``grad`` of a ``custom_jvp`` function does the same)."""
    try:
        if fn not in CUSTOM:
            return fn
    except TypeError:  # unhashable
        return fn
    found = _ENTRIES.get(fn)
    if found is None:
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params) or not fn.__name__.isidentifier():
            return fn  # the fence reports what it refuses in fn itself
        names = [p.name for p in params]
        defaults = {f"_default_{i}": p.default for i, p in enumerate(params) if p.default is not p.empty}
        spelt = [f"{p.name}=_default_{i}" if p.default is not p.empty else p.name for i, p in enumerate(params)]
        name = fn.__name__ + "_by_its_rules"
        size, call = output_size(fn), f"{fn.__name__}({', '.join(names)})"
        items = [f"_out_{k}" for k in range(size or 0)]
        body = f"{', '.join(items)}, = {call}\n    return ({', '.join(items)},)" if size else f"return {call}"
        source = f"def {name}({', '.join(spelt)}):\n    {body}\n"
        found = function_from_source(source, name, {fn.__name__: fn, **defaults}, f"rules of {fn.__name__}")
        _ENTRIES[fn] = found
    return found
