"""Values a generated function no longer reads, let go around its loops.

A local name keeps its value, and the memory it takes, until it is bound again or the function
returns.  Reverse code runs its primal sweep, then adjoint loops that may be long: the arrays of the
straight-line code between them (the final sum's adjoints, the last step's state) would be held
through every step, and a loop's last temporaries through the code after it.  The gradient of the
paper's particles on NumPy held both: 2.1x the hand-written gradient's peak memory; let go, 1.5x.

Names are let go just before a statement of the function's own block (not a nested one) that holds
a loop, and just after one (where more than a ``return`` follows), where they are

- dead there: no later statement reads them before binding them again (``analysis.liveness``);
- bound before it (by a statement of the block: ``del a, b``; only by a branch or a loop, which may
  not have run: ``a = b = None``, which cannot fail on an unbound name);
- arrays: a primal variable of array value (``arrays``), or a name some assignment binds to a NumPy
  call, a runtime helper's result or arithmetic on such names (numbers, lists of floats and other
  small values are left alone: naming them would make the code longer and free a few bytes).

The values computed do not change: only names nothing reads again are let go.  (Numba frees what
compiled code no longer reads itself: that target asks for none of this.)
"""

from __future__ import annotations

from ..analysis.liveness import live_before
from ..ir import expr as E
from ..ir.nodes import Assign, ForS, IfS, Release, Ret, WhileS, every_statement

_PER_LINE = 8  # names let go by one statement: a line a reader takes in at once
_SHAPES = ("np.shape", "numpy.shape", "np.ndim", "numpy.ndim")  # NumPy calls giving tuples and ints


def release_dead(body: tuple, arrays: frozenset) -> tuple:
    """``body`` (a function's block) with the arrays it no longer reads let go around each of its
    statements that holds a loop; ``arrays``: the primal's variables of array value."""
    loops = [i for i, s in enumerate(body) if _holds_loop(s)]
    if not loops:
        return body
    points = set(loops) | {i + 1 for i in loops if any(not isinstance(s, Ret) for s in body[i + 1 :])}
    live = live_before(list(body), set(), None)
    big = _arrays(body, arrays)
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
    """``arrays`` and the names bound to arrays made from them: the least set holding every name an
    assignment binds to a NumPy call, a runtime helper's result, or an expression reading a name of
    the set."""
    values: dict = {}
    for s in every_statement(body):
        if isinstance(s, Assign):
            for n in _assigned(s):
                values.setdefault(n, []).append(s.value)
    big = set(arrays)
    grown = True
    while grown:
        grown = False
        for n, exprs in values.items():
            if n not in big and any(_makes_array(e, big) for e in exprs):
                big.add(n)
                grown = True
    return big


def _makes_array(e, big: set) -> bool:
    """Whether expression ``e`` may make or hold an array: it calls NumPy or a runtime helper, or
    reads a name of ``big``."""
    if isinstance(e, E.Name):
        return e.id in big
    if isinstance(e, E.Call) and e.func in _SHAPES:
        return False
    if isinstance(e, E.Call) and e.func.startswith(("np.", "numpy.", "@")):
        return True
    return any(_makes_array(x, big) for x in _parts(e))


def _parts(e) -> tuple:
    """The sub-expressions of ``e``."""
    if not isinstance(e, E.Expr):
        return ()
    out = []
    for v in vars(e).values():
        if isinstance(v, E.Expr):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, E.Expr))
    return tuple(out)


def _holds_loop(s) -> bool:
    """Whether statement ``s`` is a loop or holds one."""
    if isinstance(s, (ForS, WhileS)):
        return True
    return isinstance(s, IfS) and any(isinstance(x, (ForS, WhileS)) for x in every_statement(s.body + s.orelse))


def _bound_by(s) -> list:
    """The plain names statement ``s`` of the block surely binds (an assignment's; a branch's or a
    loop's may not run)."""
    return _assigned(s) if isinstance(s, Assign) else []


def _maybe_bound_by(s) -> list:
    """The plain names assignments inside compound statement ``s`` may bind."""
    if not isinstance(s, (IfS, ForS, WhileS)):
        return []
    return [n for x in every_statement([s]) if isinstance(x, Assign) for n in _assigned(x)]


def _assigned(s: Assign) -> list:
    names = []
    for t in s.targets:
        for x in t if isinstance(t, tuple) else (t,):
            if isinstance(x, str):
                names.append(x)
    return names
