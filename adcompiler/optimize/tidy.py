"""Generated program -> the same program, tidied: copies propagated, dead lines dropped.

Every earlier pass emits what is simplest to prove correct: a slot read is a
copy ``s_1 = s``, a slot write is a copy ``s = s_2``, an accumulator starts at
``d = 0.0``.  This pass removes what a person would not write, using only
facts about names (liveness), never about values:

- ``a = b`` followed by reads of ``a``: read ``b`` instead, while neither is
  reassigned and ``a`` is dead afterwards (forward copy propagation);
- ``b = e ... a = b``: compute ``e`` into ``a`` directly when ``a`` is neither
  read nor written in between and ``b`` is dead after (coalescing);
- ``d = 0.0 ... d += e`` with no use of ``d`` in between: ``d = e`` (in each way a branch goes, too);
- an assignment to a name that is dead, of an expression without effects;
- *faint* code: assignments whose values never reach an effect (a return, a
  store into a list, the tape, a call), even if they feed each other around a
  loop, like a running sum a gradient never reads; then empty loops and
  branches.
"""

from __future__ import annotations

import heapq

from ..ir import expr as E
from ..ir.nodes import (
    Assign,
    AugAssign,
    Break,
    Continue,
    Def,
    Do,
    ForS,
    RECOMPUTED,
    Comment,
    inner_blocks,
    IfS,
    Raise,
    Release,
    Ret,
    WhileS,
)
from ..analysis.defuse import flat_targets, head_reads, reads, reads_block, writes
from ..analysis.liveness import forget, loop_head, pure, step
from ..analysis.memo import MEMO
from ..analysis.positions import Block
from ..rules import VALUES
from ..rules.arrays import CONSTRUCTORS
from .aliases import changed_in_place, held
from .inline import fold_temporaries


def tidy(d: Def, user_names=frozenset(), made=frozenset()) -> Def:
    """The same function, with the copies and dead lines above removed, then its single-use
    temporaries folded into their use (see inline.py; ``user_names`` are never folded).  ``made``: the
    module's names of the helpers that make a new structure and change nothing (``rules.MAKES``, the
    shadows' ``zeros_like``), whose calls may go where nothing reads what they made."""
    body = list(d.body)
    MEMO.tidying.update(in_place=None, body=body, made=made)  # (the build's own: see analysis.memo)
    for _ in range(3):
        before, body = body, _block(_drop_faint(body), set(), None)
        if _same(body, before) or body == before:  # a fixpoint: another round would change nothing
            break
    body = fold_temporaries(body, set(), None, user_names)
    forget()
    MEMO.candidates.clear()
    MEMO.tidying.update(in_place=None, body=(), made=frozenset())
    return Def(d.name, d.params, d.defaults, tuple(body), d.doc, d.source)


# ---- the rewrites ----------------------------------------------------------------------


def _block(stmts: list, after: set, jump: set | None) -> list:
    tidied, live = [], set(after)
    for s in reversed(stmts):  # last first: a nested block sees the liveness of what follows it, tidied
        s = _nested(s, live, jump)
        tidied.append(s)
        live = step(s, live, jump)
    block = Block(tidied[::-1], after, jump)  # indexed once; the rewrites below keep the index current
    _fold_zero_accumulate(block)
    _propagate_copies(block)
    _coalesce(block)
    return _drop_dead(block.compact(), after, jump)


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
            return s if _same(body, s.body) else ForS(s.target, s.iterable, tuple(body), s.line, s.parallel)
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
        return ForS(s.target, sub(s.iterable), tuple(_rename(x, old, new) for x in s.body), s.line, s.parallel)
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


def _propagate_copies(block: Block) -> None:
    """``a = b`` then reads of ``a``: reads of ``b``, while neither is written and ``a`` is dead after; one
    pass, first copy first, each asking the index, not a new liveness of the block, whether ``a`` is dead."""
    stmts, end, jumps = block.stmts, len(block.stmts), block.where(Break, Continue, Ret)
    for i in range(end):
        s = stmts[i]
        if s is None or not _is_copy(s):
            continue
        a, b = s.targets[0], s.value.id
        if a == b:
            block.remove(i)
            continue
        j = block.next_of(jumps, i + 1)  # the first jump, or write of a or b, after the copy
        for n in (a, b):
            w = block.first(n, i + 1, j, block.writers)
            j = j if w is None else w
        if not block.live(a, j) and (j == end or a not in reads(stmts[j])):  # a is dead from j on
            for k in list(block.positions(a, i + 1, j)):
                block.replace(k, _rename(stmts[k], a, b))
            block.remove(i)


def _coalesce(block: Block) -> None:
    """``b = e ... a = b`` -> ``a = e ...``; after a rewrite, the statements it renamed are looked at again
    (the only ones whose answer can have changed) before going on."""
    stmts, again, i = block.stmts, [], 0
    while again or i < len(stmts):
        p = heapq.heappop(again) if again and again[0] < i else i
        i += p == i
        s = stmts[p]
        if s is None or not _is_copy(s) or s.targets[0] == s.value.id:
            continue
        a, b = s.targets[0], s.value.id
        k = block.last_write(b, p)
        if k is not None and isinstance(stmts[k], Assign) and stmts[k].targets == (b,):
            clean = block.first(a, k + 1, p) is None
            if clean and not block.live(b, p + 1) and b not in reads(s) - {b}:
                if stmts[k].value == E.Name(a):  # b = a ... a = b: a keeps its value throughout
                    block.remove(k)
                else:
                    block.replace(k, Assign((a,), stmts[k].value, stmts[k].line, stmts[k].effect))
                renamed = list(block.positions(b, k + 1, p))
                for q in renamed:
                    block.replace(q, _rename(stmts[q], b, a))
                block.remove(p)
                for q in renamed:
                    heapq.heappush(again, q)


def _fold_zero_accumulate(block: Block) -> None:
    """``d = 0.0`` then ``d += e`` (or ``d = d + e``) with nothing reading or writing ``d`` between, and
    no loop, branch or jump between: ``d = e``."""
    stmts, walls, skip = block.stmts, block.where(Break, Continue, IfS, ForS, WhileS), False
    for i, s in enumerate(stmts):
        if s is None or skip:
            skip = skip and s is None  # the statement after a folded one waits for the next round (as it did)
            continue
        if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str) and s.value == E.Num(0.0):
            d = s.targets[0]
            j = block.first(d, i + 1, block.next_of(walls, i + 1))
            x = stmts[j] if j is not None else None
            if isinstance(x, AugAssign) and x.target == d and x.op == "+" and d not in reads(Do(x.value)):
                block.replace(j, Assign((d,), x.value, x.line))
            elif x is not None and _adds_to(x, d) and not ({d} | held(x.value.right)) & _in_place():
                block.replace(j, Assign((d,), x.value.right, x.line))  # d = d + e, as array adjoints add: d = e
            elif x is None and (branch := _zero_into_branch(block, block.next_of(walls, i + 1), d)) is not None:
                block.replace(block.next_of(walls, i + 1), branch)
            else:
                continue
            block.remove(i)
            skip = True


def _zero_into_branch(block: Block, at: int, d: str) -> IfS | None:
    """``d = 0.0`` then the branch ``s`` at ``at``, where each way ``s`` goes adds into ``d`` first (``d = d + e``) or
    leaves it alone: the branch with ``d = e`` in the first case, ``d = 0.0`` at its start in the second,
    and no zero before it (the adjoint of rodrigues's ``X``, read in both branches: no array of zeros
    made, then added into); None where that is not so (``s``'s test reads ``d``, a way adds into it
    only after a jump, or in a nested block, or in place)."""
    s = block.stmts[at] if at < len(block.stmts) else None
    if not isinstance(s, IfS) or d in head_reads(s):
        return None
    ways = [_zero_into(list(stmts), d) for stmts in (s.body, s.orelse)]
    if None in ways or all(way[0] == Assign((d,), E.Num(0.0)) for way in ways):
        return None
    return IfS(s.test, tuple(ways[0]), tuple(ways[1]), s.line)


def _zero_into(stmts: list, d: str) -> list | None:
    """``stmts`` run after ``d = 0.0``, with its first sum into ``d`` made ``d = e`` (see
    ``_zero_into_branch``), or with ``d = 0.0`` first where none of them reads or writes ``d``."""
    for k, s in enumerate(stmts):
        if isinstance(s, (Break, Continue, Ret, Raise)):
            return None
        if d not in reads(s) and d not in writes(s):
            continue
        if _adds_to(s, d) and not ({d} | held(s.value.right)) & _in_place():
            return stmts[:k] + [Assign((d,), s.value.right, s.line)] + stmts[k + 1 :]
        return None
    return [Assign((d,), E.Num(0.0))] + stmts


def _in_place() -> set:
    """The names of the function being tidied whose arrays may be changed in place: the first argument
    of a helper that adds into an adjoint array (``aliases.IN_PLACE``), the target of ``+=``, an array
    ``add_new`` stores, and every name that may hold one of those arrays (``aliases.held``: ``d = e`` makes
    ``d`` an alias of ``e``'s array, ``d = e + f`` a new one).  ``d = e`` for ``d = d + e`` is then
    safe where neither ``d`` nor what ``e`` holds is one of them: no array the rewrite shares is
    changed later (a helper given the number 0.0 to start from makes a new array: it changes nothing).
    Found on first asking."""
    state = MEMO.tidying  # the set for the function being tidied (None: not known yet)
    if state["in_place"] is None:
        state["in_place"] = changed_in_place(state["body"])
    return state["in_place"]


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


UNNEEDED_HELPERS = frozenset("@" + name for name in VALUES)  # (rules.helpers: they change nothing)


def unneeded_if_unread(e) -> bool:
    """Whether ``e`` need not run where its value is not read: it changes nothing (``pure``), or it is a
    call of one of the helpers above on such arguments (the adjoint of an argument not differentiated,
    ``d_x = unbroadcast(t1 * d_x_1, x)``, that the sweep wrote and nothing reads).  Only for dropping a
    dead assignment: folding still moves no helper's call (its place in its line stays as written)."""
    if pure(e):
        return True
    if isinstance(e, (E.List, E.Tuple)):  # (a shadow list: ``[zeros_like(rows), zeros_like(cols)]``)
        return all(unneeded_if_unread(x) for x in e.elts)
    if not (isinstance(e, E.Call) and (e.func in UNNEEDED_HELPERS or e.func in MEMO.tidying["made"])):
        return False
    return all(unneeded_if_unread(a) for a in e.args) and all(unneeded_if_unread(v) for _, v in e.keywords)


def _drop_dead(stmts: list, after: set, jump) -> list:
    """Without the assignments of pure values to dead names; last first, so a chain of them goes at once."""
    live, out = set(after), []
    for s in reversed(stmts):
        if not _dead(s, live):
            out.append(s)
            live = step(s, live, jump)
    out.reverse()
    return out


def _dead(s, live: set) -> bool:
    """Whether ``s`` changes nothing that is read later (``live``: the names live after it)."""
    if isinstance(s, ForS):
        if s.parallel == RECOMPUTED:  # (its errors are the adjoint loop's too: that loop computes it again)
            return not writes(s) & live and _leaves_nothing(s)
        return not s.body and pure(s.iterable) and s.target not in live
    if isinstance(s, (Assign, AugAssign)):
        names = writes(s)
        if not names or names & live:  # what is asked first: most statements assign a live name
            return False
        if not unneeded_if_unread(s.value) or getattr(s, "effect", False):
            return False
        return (
            isinstance(s, AugAssign)
            and isinstance(s.target, str)
            or isinstance(s, Assign)
            and all(isinstance(t, (str, tuple)) for t in s.targets)
        )
    return False


def _leaves_nothing(loop: ForS) -> bool:
    """Whether ``loop`` does nothing but bind names (to values that change nothing else: they may raise),
    run loops and branches of such statements, and write into arrays each iteration makes anew (``q``
    of ``q = np.zeros(k)``, the first statement of the body that names it, and its only binding)."""
    made, named = _made_here(loop.body), set()
    for s in loop.body:  # an array is made before the iteration reads or writes it
        if isinstance(s, Assign) and len(s.targets) == 1 and s.targets[0] in made:
            named.add(s.targets[0])
        elif (made - named) & (reads(s) | writes(s) | _written_into(s)):
            return False
    return all(_only_values(s, made) for s in loop.body)


NEW_ARRAYS = frozenset(f"numpy.{f}" for f in CONSTRUCTORS + ("empty_like", "copy"))  # each call a new array


def _made_here(body) -> set:
    """The names bound in ``body`` only at its top level, each time to an array a NumPy call makes."""
    made = {
        s.targets[0]
        for s in body
        if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str) and _new_array(s.value)
    }
    for s in body:
        if not (isinstance(s, Assign) and len(s.targets) == 1 and s.targets[0] in made and _new_array(s.value)):
            made -= writes(s)
    return made


def _new_array(e) -> bool:
    return isinstance(e, E.Call) and e.func in NEW_ARRAYS


def _written_into(s) -> set:
    """The arrays a statement (with its nested blocks) writes into by subscript."""
    if isinstance(s, (Assign, AugAssign)):
        targets = flat_targets(s.targets) if isinstance(s, Assign) else (s.target,)
        return {t.value.id for t in targets if isinstance(t, E.Subscript) and isinstance(t.value, E.Name)}
    if isinstance(s, (ForS, IfS, WhileS)):
        return set().union(*(_written_into(x) for b in inner_blocks(s) for x in b))
    return set()


def _only_values(s, made: set) -> bool:
    """Whether ``s`` binds names and writes into the arrays ``made`` only (see ``_leaves_nothing``)."""
    if isinstance(s, (Assign, AugAssign)):
        targets = list(flat_targets(s.targets)) if isinstance(s, Assign) else [s.target]
        into = all(isinstance(t, str) or _into(t, made) for t in targets)
        return into and unneeded_if_unread(s.value)
    if isinstance(s, ForS):
        return pure(s.iterable) and all(_only_values(x, made) for x in s.body)
    if isinstance(s, IfS):
        return pure(s.test) and all(_only_values(x, made) for x in s.body + s.orelse)
    if isinstance(s, WhileS):
        return pure(s.test) and all(_only_values(x, made) for x in s.header + s.body)
    return isinstance(s, (Comment, Release, Break, Continue))


def _into(t, made: set) -> bool:
    """A subscript of one of the arrays ``made`` by an index that changes nothing."""
    return isinstance(t, E.Subscript) and isinstance(t.value, E.Name) and t.value.id in made and pure(t.index)


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

    _collect(body, (), writers, mark)
    needed: set = set()
    while work:
        n = work.pop()
        if n not in needed:
            needed.add(n)
            for s, parents in writers.get(n, ()):
                mark(s, parents)
    return _sweep(body, needed)


def _collect(stmts, parents: tuple, writers: dict, mark) -> None:
    """Note in ``writers`` each removable assignment of ``stmts`` (inside the statements ``parents``) under
    the names it assigns, and ``mark`` every effect (a function of the module, not a closure that calls
    itself: such a cycle keeps what it reads alive until the garbage collector runs)."""
    for s in stmts:
        if isinstance(s, IfS):
            if not pure(s.test):  # a tape pop: the loops around it must run it as often as pushed
                mark(s, parents)
            _collect(s.body, parents + (s,), writers, mark)
            _collect(s.orelse, parents + (s,), writers, mark)
        elif isinstance(s, ForS):
            if not pure(s.iterable):
                mark(s, parents)
            _collect(s.body, parents + (s,), writers, mark)
        elif _candidate(s):
            for n in writes(s):
                writers.setdefault(n, []).append((s, parents))
        else:  # an effect (a while loop counts as one, whole)
            mark(s, parents)


def _candidate(s) -> bool:
    """An assignment without effects to plain names: removable if nothing needs what it assigns."""
    hit = MEMO.candidates.get(id(s))  # asked of each statement in every round, and again when sweeping
    if hit is not None and hit[0] is s:
        return hit[1]
    if isinstance(s, Assign):
        plain = not s.effect and all(
            isinstance(t, (str, tuple)) and all(isinstance(x, str) for x in flat_targets((t,))) for t in s.targets
        )
    else:
        plain = isinstance(s, AugAssign) and isinstance(s.target, str)
    found = plain and unneeded_if_unread(s.value)
    MEMO.candidates[id(s)] = (s, found)
    return found


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
                out.append(s if _same(body, s.body) else ForS(s.target, s.iterable, tuple(body), s.line, s.parallel))
        elif not _removable(s, needed):
            out.append(s)
    return out
