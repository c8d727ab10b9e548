"""The loops ``prange`` marks parallel: what each iteration reads, writes and adds up, checked.

``for i in prange(n)`` promises that the iterations are independent.  A derivative may run them in any
order and at once (``modes.parallel``), so the promise is checked here, on the function in dup form,
for every target (``backend="python"`` runs the loop in order, and gives the same numbers):

- a value the iterations share may be read, never assigned, but for a *reduction*: a number the loop
  adds into (``s += e`` or ``s -= e``, once an iteration, ``e`` not reading ``s``);
- an array made before the loop may be written only at the iteration's own index (``y[i] = ...``,
  ``y[i, j] = ...``, ``y[i, :] = ...``, ``y[i] += ...``), and then read in the loop only there (an
  iteration would see, or not, another one's write); no list, dict or object made before the loop
  is changed;
- no ``break``, ``continue`` or ``return`` (an iteration cannot stop the others).

A construct outside that is refused at its line with the rewrite that works.  ``ParallelLoop`` is
what the check found, which reverse mode reads: the index's names, the arrays written by row, the
arrays read only at the iteration's row, the reductions and the iteration's own names.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import at_line
from ..front.names import root
from ..ir.nodes import STORES, Break, Continue, Eq, For, If, Return, Var, While, walk
from ..lower.dup import DUP
from ..rules import CHANGES
from ..rules.helpers import SHAPE_ARGUMENT

_STORES = STORES + CHANGES


@dataclass(frozen=True)
class ParallelLoop:
    """What one parallel loop's iterations share and own (see the module docstring)."""

    index: frozenset  # the loop variable and its copies
    local: frozenset  # names each iteration defines for itself
    written: frozenset  # arrays made before the loop, written at the iteration's row
    rows: frozenset  # arrays made before the loop and read only at the iteration's row (x[i])
    row_indices: frozenset  # the tuples of indices that start with the loop variable (x[i, j])
    reductions: frozenset  # numbers the iterations add into (slots)


def check_parallel_loops(facts, program) -> None:
    """Refuse, at its line, what a ``prange`` loop of ``facts.fn`` does that its iterations could not
    do at once."""
    for s in walk(facts.fn.body):
        if isinstance(s, For) and s.parallel:
            parallel_loop(facts, s, program)


def parallel_loop(facts, loop: For, program) -> ParallelLoop:
    """The record of ``loop`` (a ``prange`` loop of ``facts.fn``), its constructs checked."""
    fn, body = facts.fn, loop.body
    source = fn.source

    def refuse(line: int, construct: str, remedy: str):
        raise at_line(source, line or loop.line, construct, remedy)

    origin: dict = {}  # a dup copy -> the name it copies (to its first name)
    local = {loop.target.name}
    for s in walk(body):
        if isinstance(s, Eq):
            for v in s.outs:
                if s.prim == DUP:
                    origin[v.name] = origin.get(s.ins[0].name, s.ins[0].name)
                elif s.prim != "write":
                    local.add(v.name)
        elif isinstance(s, For):
            local.add(s.target.name)
    for s in _jumps_out(body):
        what = type(s).__name__.lower()
        refuse(
            getattr(s, "line", 0),
            f"{what} in a prange loop",
            "let every iteration run to its end (range, for a loop that stops; a break of a loop inside it is"
            " that loop's own)",
        )
    for s in walk(fn.body):  # copies made before the loop, of names made before it
        if isinstance(s, Eq) and s.prim == DUP:
            for v in s.outs:
                origin.setdefault(v.name, origin.get(s.ins[0].name, s.ins[0].name))

    def first(name: str) -> str:
        return origin.get(name, name)

    index = frozenset(v for v in origin if first(v) == loop.target.name) | {loop.target.name}
    tuples = {s.outs[0].name: s.ins for s in walk(body) if isinstance(s, Eq) and s.prim == "tuple"}

    def own_row(a) -> bool:
        """Whether the index ``a`` starts with the loop variable: x[i], x[i, j], x[i, :]."""
        if isinstance(a, Var) and a.name in index:
            return True
        parts = tuples.get(a.name) if isinstance(a, Var) else None
        return bool(parts) and isinstance(parts[0], Var) and parts[0].name in index

    outer = lambda a: isinstance(a, Var) and first(a.name) not in local and a.name not in fn.slots  # noqa: E731
    written: dict = {}
    rows: dict = {}  # outer array -> whether every read of it is at the iteration's row
    beyond: dict = {}  # outer array -> the line of its first read elsewhere
    for s in walk(body):
        if not isinstance(s, Eq):
            continue
        if s.prim in _STORES and s.ins and outer(s.ins[0]):
            name = root(first(s.ins[0].name))
            if s.prim != "setitem" or s.ins[0].name not in facts.numeric_arrays:
                refuse(
                    s.line,
                    f"changing {name!r}, made before the prange loop, in the loop (its iterations run at once)",
                    f"make the loop's results elements of an array: {name}_rows[i] = ..., after it",
                )
            if not own_row(s.ins[1]):
                refuse(
                    s.line,
                    f"a write to {name!r} at an index other than the prange loop's own (iterations could write"
                    " the same element at once)",
                    f"write the iteration's row, {name}[{root(loop.target.name)}] = ..., or loop with range",
                )
            written.setdefault(first(s.ins[0].name), s.line)
        elif s.prim == "call" and any(outer(a) and a.name in facts.numeric_arrays | facts.containers for a in s.ins):
            if _changes_arguments(program, s.param):
                refuse(
                    s.line,
                    f"a call to {getattr(s.param, '__name__', 'a function')} that may change an argument"
                    " made before the prange loop",
                    "return the new values from the function and write them at the iteration's row",
                )
        for k, a in enumerate(s.ins):
            if SHAPE_ARGUMENT.get(s.prim) == k:  # (a helper of derivative code reading a's shape alone)
                continue
            if outer(a) and a.name in facts.numeric_arrays and not (s.prim == "setitem" and k == 0):
                at_row = s.prim == "getitem" and k == 0 and own_row(s.ins[1])
                rows[first(a.name)] = rows.get(first(a.name), True) and at_row
                if not at_row:
                    beyond.setdefault(first(a.name), s.line)
    for name in written:
        if name in beyond:
            refuse(
                beyond[name],
                f"reading {root(name)!r} beyond the iteration's own row in the prange loop that writes it (an"
                " iteration would see another's writes, or not)",
                f"read a copy made before the loop ({root(name)}_before = {root(name)}.copy()), or only"
                f" {root(name)}[{root(loop.target.name)}]",
            )
    reductions = _reductions(fn, loop, refuse)
    return ParallelLoop(
        frozenset(index),
        frozenset(local),
        frozenset(written),
        frozenset(n for n, only in rows.items() if only),
        frozenset(t for t in tuples if own_row(Var(t))),
        reductions,
    )


def _jumps_out(body):
    """The statements of a prange loop's ``body`` that leave its iteration early: a ``return`` anywhere, a
    ``break`` or ``continue`` outside the loops inside it (those end or skip an iteration of their own loop)."""
    for s in body:
        if isinstance(s, (Break, Continue, Return)):
            yield s
        elif isinstance(s, If):
            yield from _jumps_out(s.body)
            yield from _jumps_out(s.orelse)
        elif isinstance(s, (For, While)):
            yield from (r for r in walk((s,)) if isinstance(r, Return))


def _reductions(fn, loop: For, refuse) -> frozenset:
    """The slots the loop's iterations add into (``s += e``), each checked; a slot assigned in the
    loop otherwise is the iteration's own (written before it is read, and not read after the loop)."""
    events: dict = {}  # slot -> its reads and writes in the body, in order
    for s in walk(loop.body):
        if (
            isinstance(s, Eq)
            and s.prim in ("read", "write")
            and (s.ins if s.prim == "read" else s.outs)[0].name in fn.slots
        ):
            slot = (s.ins if s.prim == "read" else s.outs)[0].name
            events.setdefault(slot, []).append(s)
    after = _read_after(fn.body, loop)
    defs = {v.name: s for s in walk(loop.body) if isinstance(s, Eq) for v in s.outs}
    found = set()
    for slot, seen in events.items():
        writes = [s for s in seen if s.prim == "write"]
        if not writes:
            continue
        if seen[0].prim == "write" and slot not in after:
            continue  # the iteration's own
        wrong = _not_a_sum(loop.body, [s for s in seen if s.prim == "read"], writes, defs)
        if wrong is not None:
            name = root(slot)
            refuse(
                wrong.line,
                f"a change to {name!r} other than adding into it (the prange loop's iterations share it)",
                f"add into it ({name} += ...), or give each iteration its own element ({name}_all[i] = ...)",
            )
        found.add(slot)
    return frozenset(found)


def _not_a_sum(body, reads: list, writes: list, defs: dict):
    """The first of a slot's ``reads`` and ``writes`` in a loop's ``body`` that is not a sum into it
    (None if all are): each write must be of ``r + e``, ``e + r`` or ``r - e``, r one of the reads
    (used there only) and e none of them, and every read one of those r (``s += a`` then ``s += b``,
    in a branch or in an inner loop too)."""
    read = {r.outs[0].name: r for r in reads}
    paired = set()
    for w in writes:
        total = defs.get(w.ins[0].name) if isinstance(w.ins[0], Var) else None
        if total is None or total.prim not in ("add", "sub"):
            return w
        a, b = total.ins
        left = isinstance(a, Var) and a.name in read
        right = total.prim == "add" and isinstance(b, Var) and b.name in read
        other = b if left else a
        if left == right or isinstance(other, Var) and other.name in read:
            return w
        paired.add(a.name if left else b.name)
    return next((r for name, r in read.items() if name not in paired or _uses(body, name) != 1), None)


def _uses(body, name: str) -> int:
    return sum(1 for s in walk(body) if isinstance(s, Eq) for a in s.ins if isinstance(a, Var) and a.name == name)


def _read_after(body, loop) -> set:
    """The slots the function ``body`` may read after ``loop`` before assigning them again (the value
    the loop left): after it in its block and in the blocks around it, and anywhere in a loop around it
    (which runs it again after its own later reads)."""
    out: set = set()
    written: set = set()  # surely assigned again after the loop: what is read later is not the loop's
    origin: dict = {}  # a dup copy -> the variable it copies (the tests of two ifs on one variable)
    for s in walk(body):
        if isinstance(s, Eq) and s.prim == DUP:
            origin.update((v.name, origin.get(s.ins[0].name, s.ins[0].name)) for v in s.outs)
    for block, k, around in reversed(_path(body, loop)):
        written = _exposed(block[k + 1 :], written, out, origin=origin)
        if isinstance(around, (For, While)):  # the loop around runs this block again (its reads outside the
            # prange loop: the iterations' own reads follow their own writes, which the caller checks)
            inner = around.body if isinstance(around, For) else around.header + around.body
            own = {id(e) for e in walk([loop])}
            out |= {e.ins[0].name for e in walk(inner) if isinstance(e, Eq) and e.prim == "read" and id(e) not in own}
    return out


def _exposed(stmts, written: set, out: set, held: dict | None = None, origin: dict | None = None) -> set:
    """Add to ``out`` the slots ``stmts`` may read before assigning them (``written``: those assigned already, on
    every path); the slots assigned on every path by their end (a later loop that assigns a slot first in each
    iteration reads its own value, not the value an earlier loop left).  ``held``: a test's variable -> the slots
    assigned where it held and where it did not (a later ``if`` on the same test, as an adjoint sweep's is on
    its primal's: a variable is assigned once, so the two take the same branch; ``origin``: a dup copy -> the
    variable it copies)."""
    written, held, origin = set(written), dict(held or {}), origin or {}
    for s in stmts:
        if isinstance(s, Eq) and s.prim == "read" and s.ins[0].name not in written:
            out.add(s.ins[0].name)
        elif isinstance(s, Eq) and s.prim == "write":
            written.add(s.outs[0].name)
        elif isinstance(s, If):
            test = origin.get(s.test.name, s.test.name) if isinstance(s.test, Var) else None
            yes, no = held.get(test, (set(), set()))
            yes = _exposed(s.body, written | yes, out, held, origin)
            no = _exposed(s.orelse, written | no, out, held, origin)
            if test is not None:
                held[test] = (yes, no)
            written |= yes & no
        elif isinstance(s, For):
            _exposed(s.body, written, out, held, origin)  # (it may run no iteration)
        elif isinstance(s, While):
            written = _exposed(s.header, written, out, held, origin)  # (its header runs at least once)
            _exposed(s.body, written, out, held, origin)
    return written


def _path(block, target, around=None) -> list:
    """The blocks from ``block`` down to the statement ``target``: (block, index in it, the statement
    whose block it is), outermost first; [] if it is not there."""
    for k, s in enumerate(block):
        if s is target:
            return [(block, k, around)]
        for inner in (
            (s.body, s.orelse)
            if isinstance(s, If)
            else (s.body,) if isinstance(s, For) else (s.header, s.body) if isinstance(s, While) else ()
        ):
            found = _path(inner, target, s)
            if found:
                return [(block, k, around)] + found
    return []


def _changes_arguments(program, fn, seen=None) -> bool:
    """Whether the user function ``fn``, or one it calls, stores into a list or array (perhaps one it
    was handed)."""
    seen = set() if seen is None else seen
    if fn in seen:
        return False
    seen.add(fn)
    for eq in walk(program.anf(fn).body):
        if isinstance(eq, Eq) and (
            eq.prim in _STORES or eq.prim == "call" and _changes_arguments(program, eq.param, seen)
        ):
            return True
    return False
