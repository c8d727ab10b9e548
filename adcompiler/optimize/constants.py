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
    Ret,
    WhileS,
    every_statement,
    free_names,
    inner_blocks,
    shell,
)
from ..analysis.defuse import writes
from ..analysis.liveness import pure
from .floats import surely_float

_BUILD = {"+": E.add, "-": E.sub, "*": E.mul, "/": E.div}
_UNKNOWN = object()


def propagate_constants(body: tuple, floats: set, float_lists, float_arrays=frozenset()) -> tuple:
    """``body`` with reads of known float constants replaced by them, then its dead assignments of
    pure values dropped (``floats``, ``float_lists``: see ``floats``; extended with the constants;
    ``float_arrays``: the names of NumPy arrays of a floating dtype, whose product with 1.0 is a copy)."""
    out, _ = _block(body, {}, floats, float_lists, float_arrays)
    return _drop_unread(out)


def _block(stmts, env: dict, floats, float_lists, float_arrays) -> tuple:
    """The statements rewritten for the constants in ``env`` at their start, and ``env`` at their end."""
    out = []
    for s in stmts:
        s, env = _statement(s, env, floats, float_lists, float_arrays)
        out.append(s)
    return tuple(out), env


def _statement(s, env: dict, floats, float_lists, float_arrays):
    sub = lambda e: _substitute(e, env, floats, float_lists, float_arrays)  # noqa: E731
    if isinstance(s, Assign):
        s = Assign(
            tuple(sub(t) if isinstance(t, E.Subscript) else t for t in s.targets), sub(s.value), s.line, s.effect
        )
        env = dict(env)
        for t in s.targets:
            for name in [t] if isinstance(t, str) else [] if isinstance(t, E.Subscript) else free_names([Do(t)]):
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
        body, after_body = _block(s.body, env, floats, float_lists, float_arrays)
        orelse, after_else = _block(s.orelse, env, floats, float_lists, float_arrays)
        return IfS(sub(s.test), body, orelse, s.line), _join(after_body, after_else)
    if isinstance(s, (ForS, WhileS)):
        return _loop(s, env, floats, float_lists, float_arrays)
    return s, env


def _loop(s, env: dict, floats, float_lists, float_arrays):
    """A loop rewritten for the constants that hold wherever its body starts (before the first
    iteration and after every one), and the state after it (after zero or more iterations)."""
    written = writes(s)
    entry = {k: v for k, v in env.items()}
    if isinstance(s, ForS):
        entry[s.target] = _UNKNOWN
    jumps = any(isinstance(x, (Break, Continue)) for x in every_statement(_blocks_of(s)))
    if jumps:  # it may stop, or go round, anywhere in its body
        entry.update({k: _UNKNOWN for k in written if k in entry})
    for _ in range(len(written) + 2):  # each round makes at least one more name unknown, or stops
        parts = (s.body,) if isinstance(s, ForS) else (s.header, s.body)
        state = entry
        for part in parts:
            _, state = _block(part, state, floats, float_lists, float_arrays)
        joined = _join(entry, state)
        if joined == entry:
            break
        entry = joined
    if isinstance(s, ForS):
        body, _ = _block(s.body, entry, floats, float_lists, float_arrays)
        iterable = _substitute(s.iterable, env, floats, float_lists, float_arrays)
        return ForS(s.target, iterable, body, s.line), _join(env, entry)
    header, state = _block(s.header, entry, floats, float_lists, float_arrays)
    test = _substitute(s.test, state, floats, float_lists, float_arrays)
    body, _ = _block(s.body, state, floats, float_lists, float_arrays)
    after = {k: _UNKNOWN if jumps and k in written else v for k, v in state.items()}  # (without a break:
    return WhileS(header, test, body, s.line), after  # it ends after its header, whatever ran before)


def _blocks_of(s) -> tuple:
    return tuple(x for block in inner_blocks(s) for x in block)


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
    reads = Counter()
    for s in every_statement(body):
        reads.update(_own_reads(s))
    while True:
        gone: list = []
        dropped = _without(body, reads, gone)
        if not gone:
            return body
        for s in gone:
            reads.subtract(_own_reads(s))
        body = dropped


def _own_reads(s) -> list:
    """The names a statement reads itself (a compound statement: not in its blocks)."""
    return free_names([s if not isinstance(s, (ForS, IfS, WhileS)) else shell(s)])


def _without(stmts, reads: Counter, gone: list) -> tuple:
    """``stmts`` without what ``reads`` says is unread; what goes is added to ``gone``."""
    out = []
    for s in stmts:
        if isinstance(s, (Assign, AugAssign)) and _unread(s, reads):
            gone.append(s)
            continue
        if isinstance(s, ForS):
            s = ForS(s.target, s.iterable, _without(s.body, reads, gone), s.line)
            if not s.body and pure(s.iterable) and not reads[s.target]:
                gone.append(s)
                continue  # nothing left to do, and nothing reads what it leaves in its target
        elif isinstance(s, IfS):
            s = IfS(s.test, _without(s.body, reads, gone), _without(s.orelse, reads, gone), s.line)
            if not s.body and not s.orelse and pure(s.test):
                gone.append(s)
                continue
        elif isinstance(s, WhileS):
            s = WhileS(_without(s.header, reads, gone), s.test, _without(s.body, reads, gone), s.line)
        out.append(s)
    return tuple(out)


def _unread(s, reads: Counter) -> bool:
    """An assignment to plain names none of which is read anywhere, of a value without effects."""
    targets = s.targets if isinstance(s, Assign) else (s.target,)
    if getattr(s, "effect", False) or not pure(s.value):
        return False
    return all(isinstance(t, str) and not reads[t] for t in targets)
