"""Generated program -> the same program, tidied: copies propagated, dead lines dropped.

Every earlier pass emits what is simplest to prove correct: a slot read is a
copy ``s_1 = s``, a slot write is a copy ``s = s_2``, an accumulator starts at
``d = 0.0``.  This pass removes what a person would not write, using only
facts about names (liveness), never about values:

- ``a = b`` followed by reads of ``a``: read ``b`` instead, while neither is
  reassigned and ``a`` is dead afterwards (forward copy propagation);
- ``b = e ... a = b``: compute ``e`` into ``a`` directly when ``a`` is neither
  read nor written in between and ``b`` is dead after (coalescing);
- ``d = 0.0 ... d += e`` with no use of ``d`` in between: ``d = e``;
- an assignment to a name that is dead, of an expression without effects;
- *faint* code: assignments whose values never reach an effect (a return, a
  store into a list, the tape, a call), even if they feed each other around a
  loop, like a running sum a gradient never reads; then empty loops and
  branches.
"""

from __future__ import annotations

from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, Break, Continue, Def, Do, ForS, IfS, Raise, Ret, WhileS, calls
from ..analysis.liveness import (
    flat_targets,
    forget,
    head_reads,
    live_before,
    live_step,
    loop_head,
    pure,
    reads,
    reads_block,
    writes,
)
from .inline import fold_temporaries

IN_PLACE = ("scatter_add", "take_and_clear")  # runtime helpers that change an adjoint array in place
_STATE: dict = {"in_place": None, "body": ()}  # whether the function being tidied calls one (None: not known yet)


def tidy(d: Def, user_names=frozenset()) -> Def:
    """The same function, with the copies and dead lines above removed, then its single-use
    temporaries folded into their use (see inline.py; ``user_names`` are never folded)."""
    body = list(d.body)
    _STATE.update(in_place=None, body=body)
    for _ in range(3):
        before, body = body, _block(_drop_faint(body), set(), None)
        if _same(body, before) or body == before:  # a fixpoint: another round would change nothing
            break
    body = fold_temporaries(body, set(), None, user_names)
    forget()
    _STATE.update(in_place=None, body=())
    return Def(d.name, d.params, d.defaults, tuple(body), d.doc, d.source)


# ---- the rewrites ----------------------------------------------------------------------


def _block(stmts: list, after: set, jump: set | None) -> list:
    tidied, live = [], set(after)
    for s in reversed(stmts):  # last first: a nested block sees the liveness of what follows it, tidied
        s = _nested(s, live, jump)
        tidied.append(s)
        live = live_step(s, live, jump)
    stmts = _fold_zero_accumulate(tidied[::-1])
    stmts = _propagate_copies(stmts, after, jump)
    stmts = _coalesce(stmts, after, jump)
    return _drop_dead(stmts, after, jump)


def _nested(s, after: set, jump):
    """A compound statement with its blocks tidied: the same object when nothing in them changed, so
    the memoised facts about it (its liveness above all) stay valid for the next round."""
    if isinstance(s, IfS):
        body, orelse = _block(list(s.body), after, jump), _block(list(s.orelse), after, jump)
        if _same(body, s.body) and _same(orelse, s.orelse):
            return s
        return IfS(s.test, tuple(body), tuple(orelse), s.line)
    if isinstance(s, (ForS, WhileS)):
        head = loop_head(s, after)
        if isinstance(s, ForS):
            body = _block(list(s.body), head, head)
            return s if _same(body, s.body) else ForS(s.target, s.iterable, tuple(body), s.line)
        body = _block(list(s.body), head | head_reads(s) | reads_block(s.header), head)
        return s if _same(body, s.body) else WhileS(s.header, s.test, tuple(body), s.line)
    return s


def _same(new: list, old: tuple) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old))


def _is_copy(s) -> bool:
    return (
        isinstance(s, Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], str)
        and isinstance(s.value, E.Name)
        and "." not in s.value.id
    )


def _rename(s, old: str, new: str):
    """Statement ``s`` with reads of ``old`` replaced by ``new`` (``s`` does not assign either)."""
    if old not in reads(s):
        return s  # the same object: memoised liveness of a loop that does not read old stays valid

    def sub(e):
        if isinstance(e, E.Name):
            return E.Name(new) if e.id == old else e
        if isinstance(e, tuple):
            return tuple(sub(x) for x in e)
        if isinstance(e, E.Expr):
            return type(e)(**{k: sub(v) for k, v in vars(e).items()})
        return e

    if isinstance(s, Assign):
        return Assign(tuple(sub(t) if isinstance(t, E.Expr) else t for t in s.targets), sub(s.value), s.line, s.effect)
    if isinstance(s, AugAssign):
        return AugAssign(sub(s.target) if isinstance(s.target, E.Expr) else s.target, s.op, sub(s.value), s.line)
    if isinstance(s, (Ret, Do)):
        return type(s)(sub(s.value), s.line)
    if isinstance(s, IfS):
        return IfS(
            sub(s.test),
            tuple(_rename(x, old, new) for x in s.body),
            tuple(_rename(x, old, new) for x in s.orelse),
            s.line,
        )
    if isinstance(s, ForS):
        return ForS(s.target, sub(s.iterable), tuple(_rename(x, old, new) for x in s.body), s.line)
    if isinstance(s, WhileS):
        return WhileS(
            tuple(_rename(x, old, new) for x in s.header),
            sub(s.test),
            tuple(_rename(x, old, new) for x in s.body),
            s.line,
        )
    if isinstance(s, Raise):
        return Raise(sub(s.value), sub(s.test))
    return s


def _propagate_copies(stmts: list, after: set, jump) -> list:
    i, live = 0, None  # liveness is recomputed only after the statements change
    while i < len(stmts):
        s = stmts[i]
        if _is_copy(s) and s.targets[0] == s.value.id:
            stmts, live = stmts[:i] + stmts[i + 1 :], None
            continue
        if _is_copy(s):
            a, b = s.targets[0], s.value.id
            j = i + 1
            while (
                j < len(stmts) and not ({a, b} & writes(stmts[j])) and not isinstance(stmts[j], (Break, Continue, Ret))
            ):
                j += 1
            live = live or live_before(stmts, after, jump)
            dead_after = a not in live[j] and (j == len(stmts) or a not in reads(stmts[j]))
            if dead_after:
                stmts, live = stmts[:i] + [_rename(x, a, b) for x in stmts[i + 1 : j]] + stmts[j:], None
                continue
        i += 1
    return stmts


def _coalesce(stmts: list, after: set, jump) -> list:
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if _is_copy(s) and s.targets[0] != s.value.id:
            a, b = s.targets[0], s.value.id
            k = next((k for k in range(i - 1, -1, -1) if b in writes(stmts[k])), None)
            if k is not None and isinstance(stmts[k], Assign) and stmts[k].targets == (b,):
                between = stmts[k + 1 : i]
                clean = all(a not in reads(x) and a not in writes(x) for x in between)
                live = live_before(stmts, after, jump)
                if clean and b not in live[i + 1] and b not in reads(s) - {b}:
                    definition = [Assign((a,), stmts[k].value, stmts[k].line, stmts[k].effect)]
                    if stmts[k].value == E.Name(a):  # b = a ... a = b: a keeps its value throughout
                        definition = []
                    stmts = stmts[:k] + definition + [_rename(x, b, a) for x in between] + stmts[i + 1 :]
                    i = k + len(definition)
                    continue
        i += 1
    return stmts


def _fold_zero_accumulate(stmts: list) -> list:
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str) and s.value == E.Num(0.0):
            d = s.targets[0]
            for j in range(i + 1, len(stmts)):
                x = stmts[j]
                if isinstance(x, AugAssign) and x.target == d and x.op == "+" and d not in reads(Do(x.value)):
                    stmts = stmts[:i] + stmts[i + 1 : j] + [Assign((d,), x.value, x.line)] + stmts[j + 1 :]
                    break
                if _adds_to(x, d) and not _in_place():  # d = d + e, as array adjoints add; d = e aliases e
                    stmts = stmts[:i] + stmts[i + 1 : j] + [Assign((d,), x.value.right, x.line)] + stmts[j + 1 :]
                    break
                if d in reads(x) or d in writes(x) or isinstance(x, (Break, Continue, IfS, ForS, WhileS)):
                    break
        i += 1
    return stmts


def _in_place() -> bool:
    """Whether the function being tidied calls a helper that changes an adjoint array in place
    (then ``d = e`` would make ``d`` an alias of an array changed later); found on first asking."""
    if _STATE["in_place"] is None:
        found = calls(_STATE["body"])
        _STATE["in_place"] = any(isinstance(c, E.Call) and c.func.lstrip("@").startswith(IN_PLACE) for c in found)
    return _STATE["in_place"]


def _adds_to(s, d: str) -> bool:
    """Whether ``s`` is ``d = d + e`` with ``e`` not reading ``d``."""
    return (
        isinstance(s, Assign)
        and s.targets == (d,)
        and isinstance(s.value, E.BinOp)
        and s.value.op == "+"
        and s.value.left == E.Name(d)
        and d not in reads(Do(s.value.right))
    )


def _drop_dead(stmts: list, after: set, jump) -> list:
    """Without the assignments of pure values to dead names; last first, so a chain of them goes at once."""
    live, out = set(after), []
    for s in reversed(stmts):
        if not _dead(s, live):
            out.append(s)
            live = live_step(s, live, jump)
    out.reverse()
    return out


def _dead(s, live: set) -> bool:
    """Whether ``s`` changes nothing that is read later (``live``: the names live after it)."""
    if isinstance(s, ForS):
        return not s.body and pure(s.iterable) and s.target not in live
    if isinstance(s, (Assign, AugAssign)) and pure(s.value) and not getattr(s, "effect", False):
        names = writes(s)
        targets_plain = (
            isinstance(s, AugAssign)
            and isinstance(s.target, str)
            or isinstance(s, Assign)
            and all(isinstance(t, (str, tuple)) for t in s.targets)
        )
        return bool(targets_plain and names and not (names & live))
    return False


# ---- faint code ----------------------------------------------------------------------


def _drop_faint(body: list) -> list:
    """``body`` without the assignments no effect depends on (mark and sweep over names, so a
    loop-carried value that only feeds itself goes too), then without loops and branches left empty."""
    writers: dict = {}  # name -> the removable assignments to it, with their enclosing statements
    work: list = []
    marked: set = set()

    def mark(s, parents) -> None:
        for x in (s,) + parents:
            if id(x) not in marked:
                marked.add(id(x))
                work.extend(_own_reads(x))

    def collect(stmts, parents) -> None:
        for s in stmts:
            if isinstance(s, IfS):
                if not pure(s.test):  # a tape pop: the loops around it must run it as often as pushed
                    mark(s, parents)
                collect(s.body, parents + (s,))
                collect(s.orelse, parents + (s,))
            elif isinstance(s, ForS):
                if not pure(s.iterable):
                    mark(s, parents)
                collect(s.body, parents + (s,))
            elif _candidate(s):
                for n in writes(s):
                    writers.setdefault(n, []).append((s, parents))
            else:  # an effect (a while loop counts as one, whole)
                mark(s, parents)

    collect(body, ())
    needed: set = set()
    while work:
        n = work.pop()
        if n not in needed:
            needed.add(n)
            for s, parents in writers.get(n, ()):
                mark(s, parents)
    return _sweep(body, needed)


def _candidate(s) -> bool:
    """An assignment without effects to plain names: removable if nothing needs what it assigns."""
    if isinstance(s, Assign):
        if s.effect:
            return False
        plain = all(
            isinstance(t, (str, tuple)) and all(isinstance(x, str) for x in flat_targets((t,))) for t in s.targets
        )
    elif isinstance(s, AugAssign):
        plain = isinstance(s.target, str)
    else:
        return False
    return plain and pure(s.value)


def _removable(s, needed: set) -> bool:
    return _candidate(s) and not (writes(s) & needed)


def _own_reads(s) -> set:
    """What a statement reads itself, apart from its nested blocks."""
    if isinstance(s, (IfS, ForS)):
        return head_reads(s)
    if isinstance(s, WhileS):
        return head_reads(s) | reads_block(s.header) | reads_block(s.body)
    return reads(s)


def _sweep(stmts, needed: set) -> list:
    out = []
    for s in stmts:
        if isinstance(s, IfS):
            body, orelse = _sweep(s.body, needed), _sweep(s.orelse, needed)
            if not (body or orelse or not pure(s.test)):
                continue
            same = _same(body, s.body) and _same(orelse, s.orelse)  # then s itself: its memoised facts stay
            out.append(s if same else IfS(s.test, tuple(body), tuple(orelse), s.line))
        elif isinstance(s, ForS):
            body = _sweep(s.body, needed)
            if body or not pure(s.iterable) or s.target in needed:  # an empty loop may still set its target
                out.append(s if _same(body, s.body) else ForS(s.target, s.iterable, tuple(body), s.line))
        elif not _removable(s, needed):
            out.append(s)
    return out
