"""What a program's functions do, read off their ANF through the calls: which call which (``callees``),
whether one calls itself (``fn_recursive``, ``reaches_recursion``), whether any may change an array or
a list in place (``changes_in_place``), and whether one may draw random numbers (``may_draw``).  The
reverse mode's plan (``plan``) and the API's entries ask these of the program."""

from __future__ import annotations

from ..ir.nodes import IN_PLACE, Eq, walk
from ..rules import CHANGES

_CHANGES_IN_PLACE = ("setitem", "append", "pop", "custom", "library")  # (with IN_PLACE operators and rules.CHANGES)


def changes_in_place(program) -> bool:
    """Whether a function of the program (each it generates code for, and each they call) may change an
    array or a list in place: a write, an append or a pop, ``x += v``, a call of a library or of a
    custom rule (which may change what it is handed)."""
    todo, seen = [key[1] for key in program.specs], set()
    while todo:
        fn = todo.pop()
        if fn in seen or not callable(fn):
            continue
        seen.add(fn)
        for s in walk(program.anf(fn).body):
            if not isinstance(s, Eq):
                continue
            if s.prim in _CHANGES_IN_PLACE or s.prim in CHANGES or s.param == IN_PLACE:
                return True
            if s.prim == "call":
                todo.append(s.param)
    return False


def callees(program, fn) -> set:
    """The user functions ``fn`` calls, directly or through others."""
    seen, pending = set(), [fn]
    while pending:
        for eq in walk(program.anf(pending.pop()).body):
            if isinstance(eq, Eq) and eq.prim == "call" and eq.param not in seen:
                seen.add(eq.param)
                pending.append(eq.param)
    return seen


def fn_recursive(program, fn) -> bool:
    """Whether the user function ``fn`` calls itself, directly or through other user functions."""
    return fn in callees(program, fn)


def reaches_recursion(program, fn) -> bool:
    """Whether ``fn`` or a function it calls (at any depth) is recursive: its reverse code keeps a
    residual tuple per call, many small objects alive until the adjoint sweep ends."""
    return fn_recursive(program, fn) or any(fn_recursive(program, g) for g in callees(program, fn))


_PURE_LIBRARIES = ("numpy", "scipy", "math", "cmath", "builtins", "operator")  # (np.random's functions are refused)


def may_draw(program, fn) -> bool:
    """Whether ``fn`` or a function it calls may draw from ``np.random``'s global generator: an ``np.random``
    draw (``lower.draws``), or a call whose source is not read (a library function outside NumPy, SciPy and
    Python's pure modules, a custom rule, a method of an object).  The several passes of one Jacobian or
    Hessian of such a function each start from one state of the generator (``api.higher``)."""
    for g in (fn, *callees(program, fn)):
        for eq in walk(program.anf(g).body):
            if isinstance(eq, Eq) and (eq.prim in ("draw", "custom", "method") or _opaque_library(eq)):
                return True
    return False


def _opaque_library(eq: Eq) -> bool:
    """Whether ``eq`` calls a library function with no rule (``lower.expressions.library_call``) of a
    library that may hold a state."""
    return eq.prim == "library" and eq.param[1].split(".")[0] not in _PURE_LIBRARIES
