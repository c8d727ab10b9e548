"""Values a generated function no longer reads, let go around its loops.

A local name keeps its value, and the memory it takes, until it is bound again or the function
returns.  Reverse code runs its primal sweep, then adjoint loops that may be long: the arrays of the
straight-line code between them (the final sum's adjoints, the last step's state) would be held
through every step, and a loop's last temporaries through the code after it.  The gradient of the
paper's particles on NumPy held both: 2.7x the hand-written gradient's peak memory; let go, 1.5x.

Names are let go just before a statement of the function's own block (not a nested one) that holds
a loop, and just after one (where more than a ``return`` or a copy follows), where they are

- dead there: no later statement reads them before binding them again (``analysis.liveness``);
- bound before it (by a statement of the block: ``del a, b``; only by a branch or a loop, which may
  not have run: ``a = b = None``, which cannot fail on an unbound name);
- arrays the function made: bound to a NumPy call, a runtime helper's result, arithmetic on arrays,
  or a name or view of such an array (an argument's arrays stay with the caller, and numbers, lists
  of floats and other small values are left alone: naming them would make the code longer and free
  a few bytes).

The values computed do not change: only names nothing reads again are let go.  (Numba frees what
compiled code no longer reads itself: that target asks for none of this.)
"""

from __future__ import annotations

from ..analysis.defuse import target_names
from ..analysis.liveness import live_before
from ..ir import expr as E
from ..ir.nodes import Assign, Do, ForS, IfS, Release, Ret, WhileS, every_statement, free_names

_PER_LINE = 8  # names let go by one statement: a line a reader takes in at once
_SHAPES = ("numpy.shape", "numpy.ndim")  # NumPy calls giving tuples and ints (the IR's spelling)


def release_dead(body: tuple, arrays: frozenset, numbers: frozenset = frozenset()) -> tuple:
    """``body`` (a function's block) with the arrays it no longer reads let go around each of its
    statements that holds a loop; ``arrays``, ``numbers``: the primal's variables of array value and
    of number value (a NumPy reduction's result, say: never let go)."""
    loops = [i for i, s in enumerate(body) if _holds_loop(s)]
    if not loops:
        return body
    points = set(loops) | {i + 1 for i in loops if any(_computes(s) for s in body[i + 1 :])}
    live = live_before(list(body), set(), None)
    big = _arrays(body, arrays) - numbers - _appended(body)
    out, bound = [], {}  # name -> whether surely bound, for names bound and not let go (in order)
    for i, s in enumerate(body):
        if i in points:
            dead = [n for n in bound if n not in live[i]]
            out += _release(dead, bound)
            for n in dead:
                del bound[n]
        out.append(s)
        for n in _bound_by(s):
            if n in big:
                bound[n] = True
        for n in _maybe_bound_by(s):
            if n in big and n not in bound:
                bound[n] = False
    return tuple(out)


def _release(dead: list, bound: dict) -> list:
    """The statements letting ``dead`` go: ``del`` of the surely bound, ``= None`` of the others."""
    surely = [n for n in dead if bound[n]]
    maybe = [n for n in dead if not bound[n]]
    return [
        Release(tuple(names[k : k + _PER_LINE]), bound)
        for names, bound in ((surely, True), (maybe, False))
        for k in range(0, len(names), _PER_LINE)
    ]


def _arrays(body: tuple, arrays: frozenset) -> set:
    """The names bound to arrays the function made (not an argument's, which its caller holds): the
    least set holding every name an assignment binds to a NumPy call or a runtime helper's result,
    to arithmetic on an array (``arrays``: the primal's variables of array value) or to an expression
    reading a name of the set (an alias, a view)."""
    values: dict = {}
    for s in every_statement(body):
        if isinstance(s, Assign):
            for n in target_names(s.targets):
                values.setdefault(n, []).append(s.value)
    made: set = set()
    grown = True
    while grown:
        grown = False
        for n, exprs in values.items():
            if n not in made and any(_makes_array(e, made, arrays) for e in exprs):
                made.add(n)
                grown = True
    return made


def _appended(body: tuple) -> set:
    """The names appended to a list (a tape's): the list holds their values, so letting the names go
    would free nothing."""
    out: set = set()
    for s in every_statement(body):
        e = getattr(s, "value", None) if isinstance(s, Do) else None
        if isinstance(e, E.Method) and e.name == "append":
            out |= set(free_names([Do(E.Tuple(e.args))]))
    return out


def _makes_array(e, made: set, arrays: frozenset) -> bool:
    """Whether expression ``e`` may make an array or hold one the function made: it calls NumPy or a
    runtime helper, computes with an array, or reads a name of ``made``."""
    if isinstance(e, E.Name):
        return e.id in made
    if isinstance(e, E.Call) and e.func in _SHAPES:
        return False
    if isinstance(e, E.Call) and e.func.startswith(("numpy.", "@")):
        return True
    if isinstance(e, (E.BinOp, E.Unary)) and any(isinstance(x, E.Name) and x.id in arrays for x in E.parts(e)):
        return True
    return any(_makes_array(x, made, arrays) for x in E.parts(e))


def _computes(s) -> bool:
    """Whether statement ``s`` may make a new value (more than a return or a copy of a name)."""
    return not isinstance(s, Ret) and not (isinstance(s, Assign) and isinstance(s.value, E.Name))


def _holds_loop(s) -> bool:
    """Whether statement ``s`` is a loop or holds one."""
    if isinstance(s, (ForS, WhileS)):
        return True
    return isinstance(s, IfS) and any(isinstance(x, (ForS, WhileS)) for x in every_statement(s.body + s.orelse))


def _bound_by(s) -> list:
    """The plain names statement ``s`` of the block surely binds (an assignment's; a branch's or a
    loop's may not run)."""
    return target_names(s.targets) if isinstance(s, Assign) else []


def _maybe_bound_by(s) -> list:
    """The plain names assignments inside compound statement ``s`` may bind."""
    if not isinstance(s, (IfS, ForS, WhileS)):
        return []
    return [n for x in every_statement([s]) if isinstance(x, Assign) for n in target_names(x.targets)]
