"""Float constants propagated through generated code with a literal seed (a gradient, the rows of a
Jacobian): ``d_s = 1.0`` read in a loop, or an accumulator that is ``0.0`` where each iteration
starts and ``1.0`` after its ``d_r += 1.0``, is read as the literal, ``x * 1.0`` of a float becomes
``x`` (the same number, bit for bit), and what is then never read is dropped.

The values are found by a forward pass over the statements: a name holds a known float while
every path reaching the read assigned it that float (a loop's entry joins the state before it
with the state its body leaves, to a fixpoint; a branch joins its two ways).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..ir import expr as E
from ..ir.nodes import (
    Assign,
    AugAssign,
    Break,
    Continue,
    Do,
    ForS,
    IfS,
    Raise,
    Release,
    Ret,
    WhileS,
    every_statement,
    free_names,
    inner_blocks,
    shell,
)
from ..analysis.defuse import target_names
from ..analysis.liveness import pure
from .floats import surely_float

_BUILD = {"+": E.add, "-": E.sub, "*": E.mul, "/": E.div}
_UNKNOWN = object()


def propagate_constants(body: tuple, floats: set, float_lists, float_arrays=frozenset()) -> tuple:
    """``body`` with reads of known float constants replaced by them, then its dead assignments of
    pure values dropped (``floats``, ``float_lists``: see ``floats``; extended with the constants;
    ``float_arrays``: the names of NumPy arrays of a floating dtype, whose product with 1.0 is a copy)."""
    out, _ = _block(body, {}, _Pass(floats, float_lists, float_arrays))
    return _drop_unread(out)


@dataclass
class _Pass:
    """What one propagation knows: the kinds of names (see ``propagate_constants``), and, so that its cost
    stays linear in the code however deep its loops nest, each loop's facts (its names, what it assigns,
    whether it may stop early) and its result for each state of its own names at its entry: a loop nest
    is gone round to a fixpoint at each level, and without the memo the levels inside would be worked
    out again for every round of the levels outside (twice as long per level)."""

    floats: set
    float_lists: object
    float_arrays: frozenset
    facts: dict = field(default_factory=dict)  # id(statement) -> (names it reads or assigns, sorted; assigned; jumps)
    done: dict = field(default_factory=dict)  # (id(loop), its names' states at entry) -> (loop rewritten, changes)

    def sub(self, e, env: dict):
        return _substitute(e, env, self.floats, self.float_lists, self.float_arrays)

    def facts_of(self, s) -> tuple:
        """(the names ``s`` reads or assigns, sorted; the plain names it assigns; whether it holds a
        ``break`` or ``continue``), made once per statement from its blocks' own."""
        found = self.facts.get(id(s))
        if found is None:
            names, written, jumps = set(_own_reads(s)), set(), isinstance(s, (Break, Continue))
            if isinstance(s, Assign):
                written.update(target_names(s.targets))  # (the names of a tuple unpacked too)
                names.update(target_names(s.targets))
                for t in s.targets:
                    names.update(free_names([Do(t)]) if not isinstance(t, (str, E.Subscript)) else ())
            elif isinstance(s, (AugAssign, ForS)) and isinstance(s.target, str):
                written.add(s.target)
                names.add(s.target)
            for x in (x for block in inner_blocks(s) for x in block):
                inner = self.facts_of(x)
                names.update(inner[0])
                written |= inner[1]
                jumps = jumps or inner[2]
            found = self.facts[id(s)] = (tuple(sorted(names)), frozenset(written), jumps)
            self.facts[id(s), "keep"] = s  # (alive while the pass runs: its id is not reused)
        return found


def _block(stmts, env: dict, p: _Pass) -> tuple:
    """The statements rewritten for the constants in ``env`` at their start, and ``env`` at their end."""
    out = []
    for s in stmts:
        s, env = _statement(s, env, p)
        out.append(s)
    return tuple(out), env


def _statement(s, env: dict, p: _Pass):
    sub = lambda e: p.sub(e, env)  # noqa: E731
    if isinstance(s, Assign):
        s = Assign(
            tuple(sub(t) if isinstance(t, E.Subscript) else t for t in s.targets), sub(s.value), s.line, s.effect
        )
        env = dict(env)
        for t in s.targets:
            names = [t] if isinstance(t, str) else [] if isinstance(t, E.Subscript) else free_names([Do(t)])
            for name in names + (target_names(t) if isinstance(t, tuple) else []):  # (a tuple unpacked)
                env[name] = s.value if isinstance(t, str) and _constant(s.value) else _UNKNOWN
        return s, env
    if isinstance(s, AugAssign):
        target = sub(s.target) if isinstance(s.target, E.Subscript) else s.target
        s = AugAssign(target, s.op, sub(s.value), s.line)
        if isinstance(target, str):
            env = dict(env)
            before = env.get(target, _UNKNOWN)
            value = _BUILD[s.op](before, s.value) if before is not _UNKNOWN and s.op in _BUILD else _UNKNOWN
            env[target] = value if _constant(value) else _UNKNOWN
        return s, env
    if isinstance(s, (Ret, Do)):
        return type(s)(sub(s.value), s.line), env
    if isinstance(s, Raise):
        return Raise(sub(s.value), sub(s.test) if s.test is not None else None), env
    if isinstance(s, IfS):
        body, after_body = _block(s.body, env, p)
        orelse, after_else = _block(s.orelse, env, p)
        return IfS(sub(s.test), body, orelse, s.line), _join(after_body, after_else)
    if isinstance(s, (ForS, WhileS)):
        return _remembered_loop(s, env, p)
    return s, env


_ABSENT = object()


def _remembered_loop(s, env: dict, p: _Pass):
    """``_loop``, worked out once for each state of the loop's own names at its entry (see ``_Pass``)."""
    names = p.facts_of(s)[0]
    key = (id(s), tuple(_state(env.get(n, _UNKNOWN)) for n in names))
    if key not in p.done:
        rewritten, after = _loop(s, env, p)
        changes = {k: after.get(k, _ABSENT) for k in set(env) | set(after) if not _kept(env, after, k)}
        p.done[key] = (rewritten, changes)
    rewritten, changes = p.done[key]
    after = dict(env)
    for k, v in changes.items():
        if v is _ABSENT:
            after.pop(k, None)
        else:
            after[k] = v
    return rewritten, after


def _state(v):
    return None if v is _UNKNOWN else repr(v.value)  # (0.0 is not -0.0)


def _kept(a: dict, b: dict, k) -> bool:
    """Whether states ``a`` and ``b`` say the same of ``k`` (both lack it, or hold the same)."""
    if (k in a) != (k in b):
        return False
    return k not in a or _same(a[k], b[k])


def _loop(s, env: dict, p: _Pass):
    """A loop rewritten for the constants that hold wherever its body starts (before the first
    iteration and after every one), and the state after it (after zero or more iterations)."""
    _, written, jumps = p.facts_of(s)
    entry = {k: v for k, v in env.items()}
    if isinstance(s, ForS):
        entry[s.target] = _UNKNOWN
    if jumps:  # it may stop, or go round, anywhere in its body
        entry.update({k: _UNKNOWN for k in written if k in entry})
    parts = (s.body,) if isinstance(s, ForS) else (s.header, s.body)
    for _ in range(len(written) + 2):  # each round makes at least one more name unknown, or stops
        state, rewritten = entry, []
        for part in parts:
            out, state = _block(part, state, p)
            rewritten.append(out)
        joined = _join(entry, state)
        if joined == entry:  # (the rewritten body of this round is for the entry found: kept)
            break
        entry, rewritten = joined, None
    if isinstance(s, ForS):
        body = rewritten[0] if rewritten is not None else _block(s.body, entry, p)[0]
        iterable = p.sub(s.iterable, env)
        return ForS(s.target, iterable, body, s.line, s.parallel), _join(env, entry)
    header, state = _block(s.header, entry, p)
    test = p.sub(s.test, state)
    body = rewritten[1] if rewritten is not None else _block(s.body, state, p)[0]
    after = {k: _UNKNOWN if jumps and k in written else v for k, v in state.items()}  # (without a break:
    return WhileS(header, test, body, s.line), after  # it ends after its header, whatever ran before)


def _join(a: dict, b: dict) -> dict:
    """The constants both states agree on (a name one of them lacks is unknown; 0.0 is not -0.0)."""
    return {k: v if _same(v, b.get(k, _UNKNOWN)) else _UNKNOWN for k, v in a.items() if k in b}


def _same(a, b) -> bool:
    if a is _UNKNOWN or b is _UNKNOWN:
        return a is b
    return repr(a.value) == repr(b.value)


def _constant(e) -> bool:
    return isinstance(e, E.Num) and e.text is None and type(e.value) is float


def _substitute(e, env: dict, floats, float_lists, float_arrays):
    """``e`` with names of known constants read as the constants, simplified where exact."""
    if isinstance(e, E.Name):
        value = env.get(e.id, _UNKNOWN)
        return value if value is not _UNKNOWN else e
    if isinstance(e, E.BinOp):
        left, right = (_substitute(x, env, floats, float_lists, float_arrays) for x in (e.left, e.right))
        if (left, right) == (e.left, e.right):
            return e
        if e.op == "*" and (_is_one(left) or _is_one(right)):
            other = right if _is_one(left) else left
            return other if surely_float(other, floats, float_lists) else E.BinOp("*", left, right)
        if e.op in ("+", "-") and _constant(left) and _constant(right):
            return _BUILD[e.op](left, right)
        return E.BinOp(e.op, left, right)
    if isinstance(e, E.Call) and e.func == "numpy.multiply" and len(e.args) == 2 and not e.keywords:
        args = tuple(_substitute(x, env, floats, float_lists, float_arrays) for x in e.args)
        if _is_one(args[0]) and args[1] in [E.Name(n) for n in float_arrays]:
            return E.Method(args[1], "copy", ())  # the same numbers, a new array of the same dtype
        return E.Call(e.func, args)
    if isinstance(e, tuple):
        return tuple(_substitute(x, env, floats, float_lists, float_arrays) for x in e)
    if isinstance(e, E.ListComp):  # its own target is not the outer name
        inner = {k: v for k, v in env.items() if k != e.target}
        return E.ListComp(
            _substitute(e.elt, inner, floats, float_lists, float_arrays),
            e.target,
            _substitute(e.iterable, env, floats, float_lists, float_arrays),
        )
    if isinstance(e, E.Expr):
        return type(e)(**{k: _substitute(v, env, floats, float_lists, float_arrays) for k, v in vars(e).items()})
    return e


def _is_one(e) -> bool:
    return _constant(e) and e.value == 1.0


def _drop_unread(body: tuple) -> tuple:
    """``body`` without assignments of pure values to plain names nothing reads, to a fixpoint (the
    counts of readers kept up to date by subtracting what each round drops, not counted again)."""
    reads, inside = Counter(), {}  # (inside: what _inside found of each statement, by id, kept with it)
    for s in every_statement(body):
        reads.update(_own_reads(s))
    while True:
        gone: list = []
        dropped = _without(body, reads, gone, inside)
        if not gone:
            return body
        for s in gone:
            reads.subtract(_own_reads(s))
        body = dropped


def _own_reads(s) -> list:
    """The names a statement reads itself (a compound statement: not in its blocks)."""
    return free_names([s if not isinstance(s, (ForS, IfS, WhileS)) else shell(s)])


def _without(stmts, reads: Counter, gone: list, inside: dict) -> tuple:
    """``stmts`` without what ``reads`` says is unread, and without what is bound again in this block
    before anything reads it (``_rebound``); what goes is added to ``gone``."""
    out, rebound = [], _rebound(stmts, inside)
    for k, s in enumerate(stmts):
        if isinstance(s, (Assign, AugAssign)) and (_unread(s, reads) or k in rebound):
            gone.append(s)
            continue
        if isinstance(s, AugAssign) and isinstance(s.target, str) and not reads[s.target]:
            s = Do(s.value, s.line)  # (a sum nothing reads, of a value with effects: the effects alone,
            # d_ys.pop(); its start, d = 0.0, then goes as unread)
        if isinstance(s, ForS):
            s = ForS(s.target, s.iterable, _without(s.body, reads, gone, inside), s.line, s.parallel)
            if not s.body and pure(s.iterable) and not reads[s.target]:
                gone.append(s)
                continue  # nothing left to do, and nothing reads what it leaves in its target
        elif isinstance(s, IfS):
            s = IfS(s.test, _without(s.body, reads, gone, inside), _without(s.orelse, reads, gone, inside), s.line)
            if not s.body and not s.orelse and pure(s.test):
                gone.append(s)
                continue
        elif isinstance(s, WhileS):
            s = WhileS(_without(s.header, reads, gone, inside), s.test, _without(s.body, reads, gone, inside), s.line)
        out.append(s)
    return tuple(out)


def _rebound(stmts, inside: dict) -> set:
    """The positions of the assignments of values without effects to one plain name that a later
    statement of the block binds again, with nothing reading it before (the rebinding's value included)
    and no statement between that may leave the block: ``d = zeros_like(x)`` where a parallel loop's
    setting-up makes it ``d = array_like(0.0, x)`` once its constant is propagated.  One pass, last
    statement first, with the names bound again before any read of them."""
    rebound, bound_later = set(), set()
    for k in range(len(stmts) - 1, -1, -1):
        s = stmts[k]
        plain = isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str)
        if plain and s.targets[0] in bound_later and not s.effect and pure(s.value):
            rebound.add(k)
        read, leaves = _inside(s, inside)
        if leaves:
            bound_later = set()
            continue
        bound_later -= read
        if isinstance(s, Assign) and not set(_own_reads(s)) & set(s.targets):
            bound_later |= {t for t in s.targets if isinstance(t, str)}
    return rebound


def _inside(s, inside: dict) -> tuple:
    """(the names ``s`` and each statement in it read, a ``del``'s names counted, whether one of them may
    leave the block), found once a statement: a block's statements are asked again by each block around
    them and in each round (quadratic in the depth of the nesting before, 2026-11-29)."""
    hit = inside.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    read, leaves = set(_own_reads(s)) | set(s.names if isinstance(s, Release) else ()), isinstance(s, _LEAVING)
    if isinstance(s, AugAssign) and isinstance(s.target, str):  # d += v reads d (free_names leaves it out): an
        read.add(s.target)  # assignment of d before it is not bound again unread (d = 0.0 went, d += 1.0 stayed)
    for block in inner_blocks(s):
        for u in block:
            names, out = _inside(u, inside)
            read |= names
            leaves = leaves or out
    found = (frozenset(read), leaves)
    inside[id(s)] = (s, found)
    return found


_LEAVING = (Break, Continue, Ret, Raise)  # (a statement after which the block's next ones may not run)


def _unread(s, reads: Counter) -> bool:
    """An assignment to plain names none of which is read anywhere, of a value without effects."""
    targets = s.targets if isinstance(s, Assign) else (s.target,)
    if getattr(s, "effect", False) or not pure(s.value):
        return False
    return all(isinstance(t, str) and not reads[t] for t in targets)
