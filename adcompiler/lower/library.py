"""Library functions as lowering meets them: which are computed as the primal computes them without reading
their source (NumPy's and SciPy's own Python, the standard library's, a few pure builtins), how a call of one
is spelled (``library_path``), and what a callee's source does to a parameter whose default a call uses
(``changes_parameter``: a mutable default it changes is one object for every call)."""

from __future__ import annotations

import ast
import os
import sys
import types

from ..front.parse import read_function

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
