"""Loops of gradient code that copy a list into a fresh shadow element by element, as one slice copy.

After ``stores``, the adjoint loop of ``dot`` is ``for i in reversed(range(n)): d_t2 = ys[i];
d_ys[i] = xs[i]; d_xs[i] = d_t2``: each element of the fresh shadows ``d_xs`` and ``d_ys`` stored
once, from the same index of a list the loop does not change.  Such a store, with nothing else in the
loop touching its shadow, is taken out of the loop as

    if n > 0:
        xs[n - 1]
        d_ys[n - 1]
        d_ys[:n] = xs[:n]

the same elements (the very objects) at C speed (``xs`` itself, not ``xs[:n]``, where that is all of it).  The reads of the last index raise ``IndexError``
exactly where the loop's first iteration would (its indices run from 0 to ``n - 1``), so a slice
never silently lengthens or shortens the shadow.  What else the loop does stays in it.

A shadow is fresh when every assignment of its name makes a new list (``[0.0] * len(x)``), or a row
of such rows (``d_row = d_M[i]`` of ``d_M = [[0.0] * len(r) for r in M]``); the rest of the loop may
change only other fresh flat shadows, calls nothing that is not pure, and never jumps.
"""

from __future__ import annotations

from collections import Counter

from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, Break, Continue, Do, ForS, IfS, Raise, Ret, WhileS, every_statement
from ..ir.nodes import free_names, shell
from ..analysis.defuse import binds
from ..analysis.liveness import pure


def slice_copies(body: tuple, zeros: set, rows: set) -> tuple:
    """``body`` with each element-by-element copy into a fresh shadow done as one slice copy.

    ``zeros``: the names only ever assigned a new flat list of zeros; ``rows``: those only ever
    assigned new rows of zeros (each row a new list)."""
    aliases = _row_aliases(body, rows)
    reads = Counter()
    for s in every_statement(body):
        reads.update(free_names([s if not isinstance(s, (ForS, IfS, WhileS)) else shell(s)]))
    return _block(body, zeros, rows | aliases, aliases, reads)


def _row_aliases(body, rows) -> set:
    """The names only ever assigned a row of one of ``rows`` (``d_row = d_M[i]``)."""
    assigned: dict = {}
    for s in every_statement(body):
        row = isinstance(s, Assign) and isinstance(s.value, E.Subscript) and isinstance(s.value.value, E.Name)
        for t in binds(s):  # (a name unpacked from a tuple, or changed by +=, is not a row)
            assigned[t] = assigned.get(t, True) and row and t in s.targets and s.value.value.id in rows
    return {name for name, ok in assigned.items() if ok}


def _block(stmts, zeros, family, aliases, reads) -> tuple:
    out: list = []
    for s in stmts:
        if isinstance(s, ForS):
            s = ForS(s.target, s.iterable, _block(s.body, zeros, family, aliases, reads), s.line, s.parallel)
            out.extend(_split(s, zeros, family, aliases, reads))
        elif isinstance(s, IfS):
            body, orelse = (_block(b, zeros, family, aliases, reads) for b in (s.body, s.orelse))
            out.append(IfS(s.test, body, orelse, s.line))
        elif isinstance(s, WhileS):
            header, body = (_block(b, zeros, family, aliases, reads) for b in (s.header, s.body))
            out.append(WhileS(header, s.test, body, s.line))
        else:
            out.append(s)
    return tuple(out)


def _split(loop: ForS, zeros, family, aliases, reads) -> list:
    """``loop`` as the slice copies taken out of it followed by what is left of it."""
    bounds = _indices(loop.iterable)
    if bounds is None or any(isinstance(s, (Break, Continue, Ret, Raise, WhileS)) for s in every_statement(loop.body)):
        return [loop]
    start, stop = bounds
    i = E.Name(loop.target)
    taken = {}  # id of a statement taken out -> the (shadow, source) it copies, or None for its temporary
    temporaries = {
        s.targets[0]: s
        for s in loop.body
        if isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str) and _read_at(s.value, i)
    }
    for s in loop.body:
        if not (isinstance(s, Assign) and len(s.targets) == 1 and _read_at(s.targets[0], i)):
            continue
        shadow, value = s.targets[0].value.id, s.value
        if shadow not in zeros and shadow not in aliases:
            continue
        temporary = temporaries.get(value.id) if isinstance(value, E.Name) and reads[value.id] == 1 else None
        source = temporary.value if temporary is not None else value
        if not _read_at(source, i) or source.value.id in (shadow, loop.target):
            continue
        rest = [x for x in loop.body if x is not s and x is not temporary]
        if _independent(rest, shadow, source.value.id, loop.target, zeros, family if shadow in aliases else {shadow}):
            taken[id(s)] = (shadow, source.value.id)
            if temporary is not None:
                taken[id(temporary)] = None
    if not taken:
        return [loop]
    copies = [pair for pair in taken.values() if pair is not None]
    last = E.BinOp("-", stop, E.Num(1))
    checks = [
        Do(E.Subscript(E.Name(n), last), loop.line) for n in dict.fromkeys(n for pair in copies for n in pair[::-1])
    ]
    part = E.Slice(start if start != E.Num(0) else None, stop)
    slices = [Assign((E.Subscript(E.Name(d), part),), _whole_or_part(src, part), loop.line) for d, src in copies]
    left = tuple(s for s in loop.body if id(s) not in taken)
    if not left and reads[loop.target] > _reads(loop.body, loop.target):
        return [loop]  # the value the loop leaves in its target is read afterwards
    out: list = [IfS(E.Compare(">", stop, start), tuple(checks + slices), (), loop.line)]
    return out + [ForS(loop.target, loop.iterable, left, loop.line, loop.parallel)] if left else out


def _reads(stmts, name) -> int:
    """How many of the statements (inner ones each on its own) read ``name``."""
    own = (s if not isinstance(s, (ForS, IfS, WhileS)) else shell(s) for s in every_statement(stmts))
    return sum(name in free_names([s]) for s in own)


def _whole_or_part(src: str, part: E.Slice):
    """``src[:n]``, or ``src`` itself where that is all of it (a list assigned to a slice is read in
    place, a slice of it would be a second copy: twice the memory for a moment)."""
    if part.lower is not None:
        return E.Subscript(E.Name(src), part)
    whole = E.Compare("==", E.Call("len", (E.Name(src),)), part.upper)
    return E.IfExp(whole, E.Name(src), E.Subscript(E.Name(src), part))


def _indices(iterable):
    """``(start, stop)`` of ``range(stop)``, ``range(start, stop)`` or ``reversed`` of one, with a
    literal start >= 0 and a stop that is a name, a literal or ``len(name)``; else None."""
    if isinstance(iterable, E.Call) and iterable.func == "reversed" and len(iterable.args) == 1:
        iterable = iterable.args[0]
    if not (isinstance(iterable, E.Call) and iterable.func == "range" and not iterable.keywords):
        return None
    args = iterable.args
    start, stop = (E.Num(0), args[0]) if len(args) == 1 else args if len(args) == 2 else (None, None)
    if not (isinstance(start, E.Num) and type(start.value) is int and start.value >= 0):
        return None
    simple = isinstance(stop, (E.Name, E.Num)) or (
        isinstance(stop, E.Call) and stop.func == "len" and all(isinstance(a, E.Name) for a in stop.args)
    )
    return (start, stop) if simple else None


def _read_at(e, i: E.Name) -> bool:
    """Whether ``e`` is ``name[i]``."""
    return isinstance(e, E.Subscript) and isinstance(e.value, E.Name) and e.index == i


def _independent(rest, shadow, source, target, zeros, family) -> bool:
    """Whether the statements ``rest`` of the loop leave the copy's order free: none mentions the
    shadow (or another name of its rows), none changes the source or the loop's target, each writes
    only names or other fresh flat shadows, and each calls only pure functions."""
    for s in every_statement(rest):
        own = shell(s) if isinstance(s, (ForS, IfS)) else s
        if any(n in family for n in free_names([own])):
            return False
        if isinstance(s, Assign):
            for t in s.targets:
                if isinstance(t, str) and t in (source, target) or t == E.Name(source):
                    return False
                if isinstance(t, E.Subscript) and not (
                    isinstance(t.value, E.Name) and t.value.id in zeros and t.value.id != source
                ):
                    return False
                if not isinstance(t, (str, E.Subscript)):
                    return False
            if not pure(s.value):
                return False
        elif isinstance(s, AugAssign):
            t = s.target
            if (
                t in (source, target)
                or isinstance(t, E.Subscript)
                and not (isinstance(t.value, E.Name) and t.value.id in zeros and t.value.id != source)
            ):
                return False
            if not pure(s.value):
                return False
        elif isinstance(s, ForS):
            if s.target in (source, target) or not pure(s.iterable):
                return False
        elif isinstance(s, IfS):
            if not pure(s.test):
                return False
        else:
            return False
    return True
