"""Library functions as lowering meets them: which are computed as the primal computes them without reading
their source (NumPy's and SciPy's own Python, the standard library's, a few pure builtins), how a call of one
is spelled (``library_path``), and what a callee's source does to a parameter whose default a call uses
(``changes_parameter``: a mutable default it changes is one object for every call), and a call's arguments by
position where its keywords name parameters of the function's signature (``by_position``: a function with rules
takes them so)."""

from __future__ import annotations

import ast
import inspect
import os
import sys
import types

from ..front.parse import read_function
from ..ir.nodes import Const

CHANGING = ("append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "sort")


def changes_parameter(fn, name: str) -> bool:
    """Whether ``fn``'s source changes the object its parameter ``name`` holds: a method that changes a list or
    a dict, a store or ``del`` at an index, ``+=`` (what a mutable default would keep between calls)."""
    try:
        tree = read_function(fn)[0]
    except Exception:  # (no source: its own lowering says so)
        return False
    named = lambda n: isinstance(n, ast.Name) and n.id == name  # noqa: E731
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CHANGING:
            if named(node.func.value):
                return True
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            if any(named(t.value) for t in targets if isinstance(t, ast.Subscript)):
                return True
            if isinstance(node, ast.AugAssign) and named(node.target):
                return True
    return False


# Builtins with no rule computed as the primal computes them (open, exec, input, setattr: refused).
CHANGED_BY = {  # NumPy's functions that write into an argument (its position), computed as the primal computes them
    "numpy.put": 0,
    "numpy.copyto": 0,
    "numpy.place": 0,
    "numpy.putmask": 0,
    "numpy.fill_diagonal": 0,
}


def library_changes(eq) -> tuple:
    """The positions of the arguments a call of a library function (a ``library`` equation) writes into."""
    at = CHANGED_BY.get(eq.param[1]) if eq.prim == "library" else None
    return () if at is None or at >= len(eq.ins) else (at,)


PURE_BUILTINS = ("divmod", "chr", "ord", "bin", "hex", "oct", "hash", "isinstance", "callable", "repr", "format")
# Libraries whose functions compute values and change nothing: the kind of value one returns is learnt
# from a call on example arguments at build time (analysis.library_values); another's is not called then.
PURE_LIBRARIES = ("numpy", "scipy", "math", "cmath", "builtins")
# The packages whose functions passed as an argument are not the user's (not lowered from their source)
LIBRARIES = PURE_LIBRARIES + ("adcompiler", "jax", "torch", "numba")


_STDLIB = None
_READ_FROM_THE_STANDARD_LIBRARY = ("dataclasses",)  # (dataclasses.replace: refused by the call's binding, saying so)


def standard_library(target) -> bool:
    """Whether ``target`` is a Python function of the standard library (copy, statistics, heapq): computed as the
    primal computes it, its source never read (an error in it would name Python's file, not the user's line)."""
    global _STDLIB
    if not isinstance(target, types.FunctionType):
        return False
    module = (getattr(target, "__module__", None) or "").split(".")[0]
    if module in _READ_FROM_THE_STANDARD_LIBRARY or module not in sys.stdlib_module_names:
        return False
    if _STDLIB is None:
        import sysconfig

        _STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])
    filename = os.path.realpath(target.__code__.co_filename)
    return filename.startswith(_STDLIB + os.sep) and "site-packages" not in filename


def library_path(func, target, resolve) -> str | None:
    """The dotted name ``module.attr`` of a library function, as written (``np.vander`` -> ``numpy.vander``)
    or where it was defined (``multigammaln`` -> ``scipy.special._spfun_stats.multigammaln``); None when no
    module holds it under its name."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    if parts and isinstance(func, ast.Name):
        base = resolve(func)
        for part in parts[:-1]:  # np.linalg.x: through the modules to the function
            base = getattr(base, part, None) if isinstance(base, types.ModuleType) else None
        if isinstance(base, types.ModuleType) and getattr(base, parts[-1], None) is target:
            return f"{base.__name__}.{parts[-1]}"
    module, name = getattr(target, "__module__", None), getattr(target, "__name__", None)
    found = sys.modules.get(module) if isinstance(module, str) else None
    if found is not None and isinstance(name, str) and getattr(found, name, None) is target:
        return f"{module}.{name}"
    return None


def by_position(target, node: ast.Call) -> list | None:
    """The arguments of ``node``, a call of ``target``, by position: its positional ones, then for each keyword
    the parameter's place, the defaults between (constants) filled in; None where that cannot be said (no
    signature, a starred argument or ``**``, a keyword not a positional parameter, a default not a constant)."""
    if not node.keywords:
        return list(node.args)
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return None
    places = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    named = {k.arg: k.value for k in node.keywords}
    if not set(named) <= {p.name for p in places[len(node.args) :]}:
        return None
    last = max(i for i, p in enumerate(places) if i < len(node.args) or p.name in named)
    out: list = list(node.args)
    for p in places[len(node.args) : last + 1]:
        if p.name in named:
            out.append(named[p.name])
        elif p.default is p.empty or not (p.default is None or isinstance(p.default, (bool, int, float, str))):
            return None
        else:
            out.append(Const(p.default))
    return out


def _scipy_member(target, module: str) -> bool:
    """Whether ``target`` is a function of SciPy's ``module`` (when SciPy was imported: nothing is here)."""
    found = sys.modules.get(module)
    name = getattr(target, "__name__", None)
    return found is not None and isinstance(name, str) and getattr(found, name, None) is target


def scipy_rules(target) -> None:
    """Where ``target`` is a function of ``scipy.special`` or ``scipy.linalg``, those modules' rules given (once:
    SciPy is imported by then, and stays optional until a call of it is lowered)."""
    if _scipy_member(target, "scipy.special"):
        from ..rules import scipy_special

        scipy_special.register()
    elif _scipy_member(target, "scipy.linalg"):
        from ..rules import scipy_linalg

        scipy_linalg.register()  # (expm)


def public_name(fn) -> str:
    """``scipy.special.logsumexp``: a library function by its public module (``scipy.special._logsumexp`` read as
    ``scipy.special``) and its name."""
    module = (getattr(fn, "__module__", None) or "").split("._")[0]
    return f"{module}.{fn.__name__}" if module else getattr(fn, "__name__", repr(fn))
