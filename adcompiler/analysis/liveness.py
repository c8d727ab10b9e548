"""Which names are live before a generated statement, and which expressions change nothing: the facts
about names that tidying and inlining rewrite by (the names each statement reads and writes: ``defuse``).

Statements and expressions are immutable, so every fact is memoised on the object's identity for the
length of one tidying, in the tables of the build running in this thread (``memo``); ``forget`` drops
them when it ends."""

from __future__ import annotations

from ..ir import expr as E
from ..ir.nodes import AugAssign, Assign, Break, Continue, Do, ForS, IfS, Ret, WhileS
from .defuse import head_reads, reads, writes
from .memo import MEMO, memoised

COUNT: dict = {"statements": 0}  # statements whole-block liveness has walked (tests check it grows linearly)
PURE_CALLS = {"abs", "min", "max", "len", "float", "int", "range", "reversed", "sum", "list", "type"}


def forget() -> None:
    """Drop the memoised facts: the statements they are about are gone once a tidying ends."""
    MEMO.forget()


# ---- liveness ------------------------------------------------------------------------


def live_before(stmts, after: set, jump: set | None) -> list:
    """Conservative liveness: the names live before each statement, then ``after`` (index ``len``).

    Memoised on the statements' identities (statements are immutable) and the live sets: nested loops
    ask for the liveness of the same body many times while their heads reach a fixpoint."""
    key = ("l", tuple(map(id, stmts)), frozenset(after), None if jump is None else frozenset(jump))
    hit = MEMO.live.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], stmts)):
        return hit[1]
    out = _liveness(stmts, after, jump)
    MEMO.live[key] = (tuple(stmts), out)
    return out


def _liveness(stmts, after: set, jump: set | None) -> list:
    COUNT["statements"] += len(stmts)
    live = set(after)
    out = [None] * len(stmts) + [set(after)]
    for i in range(len(stmts) - 1, -1, -1):
        live = live_step(stmts[i], live, jump)
        out[i] = set(live)
    return out


def live_step(s, live: set, jump: set | None) -> set:
    """The names live before ``s``, given those live after it."""
    if isinstance(s, (Break, Continue)):
        return set(jump or ())
    if isinstance(s, Ret):
        return reads(s)
    if isinstance(s, (IfS, ForS, WhileS)):
        gen, kill = effect(s, jump)
        return set(gen) if kill is None else (live - kill) | gen
    if isinstance(s, AugAssign) and isinstance(s.target, str):
        return live | reads(s)
    return (live - writes(s)) | reads(s)


def step(s, live: set, jump: set | None) -> set:
    """``live_step``, changing ``live`` in place (the caller's set is spent): a backward walk then costs
    what the statements mention, not the size of the live set at each."""
    if isinstance(s, (Break, Continue, Ret)):
        return set(live_step(s, live, jump))  # never a memoised set
    gen, kill = effect(s, jump)
    if kill is None:
        return set(gen)
    live -= kill
    live |= gen
    return live


def effect(s, jump: set | None) -> tuple:
    """``(gen, kill)`` with ``live_step(s, live, jump) == gen | (live - kill)`` whatever ``live`` is, or
    ``(gen, None)`` when nothing live after ``s`` is live before it (it always jumps).

    Liveness is a fact about each name apart: a statement makes a name live before it, dead before it,
    or passes on what holds after it.  So a branch or loop is summed up once, and a walk past it costs
    what it mentions, not the size of the live set (large in reverse code, which reads the primal's
    values at the end)."""
    if s.__class__ is Assign:  # most statements: first
        return reads(s), writes(s)
    if isinstance(s, (Break, Continue, Ret)):
        return live_step(s, set(), jump), None
    if isinstance(s, IfS):
        return memoised("effect", s, _branch) if not _jumps(s) else _branch(s, jump)
    if isinstance(s, (ForS, WhileS)):
        return memoised("effect", s, lambda s: (_loop_head(s), set()))  # a loop may run no time: nothing is killed
    if isinstance(s, AugAssign) and isinstance(s.target, str):
        return reads(s), set()
    return reads(s), writes(s)


_AFTER = "<after>"  # no name: stands for every name live after a branch, to see which get through


def _branch(s, jump=None) -> tuple:
    """``effect`` of a branch: what is live before it when nothing, or only what it writes, is live after."""
    gen = live_before(s.body, set(), jump)[0] | live_before(s.orelse, set(), jump)[0] | head_reads(s)
    probe = writes(s) | {_AFTER}
    through = live_before(s.body, probe, jump)[0] | live_before(s.orelse, probe, jump)[0]
    return gen, (writes(s) - through if _AFTER in through else None)


def _jumps(s) -> bool:
    """Whether a branch holds a break or continue of the loop around it (then its effect depends on
    ``jump``); worked out without recursion, innermost branch first (an elif chain of hundreds)."""
    table = MEMO.facts["jumps"]
    pending, order = [s], []
    while pending:  # the branches in s not yet known, each after the one holding it
        x = pending.pop()
        hit = table.get(id(x))
        if hit is None or hit[0] is not x:
            order.append(x)
            pending += [y for y in x.body + x.orelse if isinstance(y, IfS)]
    for x in reversed(order):
        jumps = any(
            isinstance(y, (Break, Continue)) or isinstance(y, IfS) and table[id(y)][1] for y in x.body + x.orelse
        )
        table[id(x)] = (x, jumps)
    return table[id(s)][1]


def loop_head(s, after: set) -> set:
    """Names live at the head of a loop: needed on exit, or by some later iteration before it writes them."""
    return set(after) | effect(s, None)[0]


def _loop_head(s) -> set:
    """``loop_head`` with nothing needed on exit: the fixpoint over the body."""
    body = MEMO.loop_bodies.get(id(s))
    if body is None or body[0] is not s:
        body = (s, list(s.header) + [Do(s.test)] + list(s.body) if isinstance(s, WhileS) else list(s.body))
        MEMO.loop_bodies[id(s)] = body
    body = body[1]
    head = head_reads(s) if isinstance(s, ForS) else set()
    while True:
        grown = head | (live_before(body, head, head)[0] - ({s.target} if isinstance(s, ForS) else set()))
        if grown == head:
            return head
        head = grown


# ---- effects -------------------------------------------------------------------------


def pure(e) -> bool:
    """Whether evaluating ``e`` changes nothing."""
    cls = e.__class__
    if cls is E.Name or cls is str or cls is E.Num:  # the leaves, most of what is asked: no memo needed
        return True
    return memoised("pure", e, _pure_expr)


def _pure_expr(e) -> bool:
    if isinstance(e, E.Method):
        return False
    if isinstance(e, E.Call) and not (e.func.startswith(("math.", "numpy.")) or e.func in PURE_CALLS):
        return False
    if isinstance(e, E.Call) and e.func.startswith("numpy.random."):  # a draw advances the generator
        return False  # math and the NumPy functions generated code calls return new values, changing nothing
    if isinstance(e, (tuple, list)):
        return all(pure(x) for x in e)
    if isinstance(e, E.Expr):
        return all(pure(v) for v in vars(e).values())
    return True
