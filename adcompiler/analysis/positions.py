"""One block of generated statements, indexed by the names each statement reads and writes: whether a
name is live before a position is a look-up, and stays one as rewrites replace and remove statements.

Tidying and inlining ask, for one copy or temporary at a time, whether one name is live at one place,
then rewrite a few statements.  Recomputing the liveness of the whole block after each rewrite made
them quadratic in the length of the block; here the answer comes from the next statements that mention
the name (liveness is a fact about each name apart: a statement makes a name live before it, dead
before it, or passes on what holds after it), so a rewrite only updates the index of the statements it
changes.  A removed statement stays as ``None`` until ``compact``, so positions never shift.
"""

from __future__ import annotations

from bisect import bisect_left, insort

from ..ir.nodes import Break, Continue, IfS, Ret
from .defuse import reads, writes
from .liveness import effect

JUMPS = (Break, Continue, Ret)
_BARRIERS = JUMPS + (IfS,)  # statements liveness may not pass through
COUNT: dict = {"blocks": 0, "statements": 0}  # blocks indexed, and their statements (tests check it grows linearly)


class Block:
    """The statements of one block (``after``: the names live after it; ``jump``: those live where a
    break or continue in it goes), with the positions of the statements that mention each name."""

    def __init__(self, stmts, after: set, jump: set | None):
        self.stmts = list(stmts)
        self.after, self.jump = after, jump
        self.mentions: dict = {}  # name -> positions of statements that read or write it, ascending
        self.writers: dict = {}  # name -> positions of statements that write it, ascending
        self.barriers: list = []  # positions of statements no liveness passes through (jumps, branches of jumps)
        self._indexed = False  # indexed on the first look-up: most blocks have nothing to rewrite

    def _ensure(self) -> None:
        if self._indexed:
            return
        self._indexed = True
        mentions, writers = self.mentions, self.writers
        for p, s in enumerate(self.stmts):  # (positions ascending: each list is appended to, as _add would)
            if s is not None:
                read, written = reads(s), writes(s)
                for name in read:
                    mentions.setdefault(name, []).append(p)
                for name in written:
                    if name not in read:
                        mentions.setdefault(name, []).append(p)
                    writers.setdefault(name, []).append(p)
            if isinstance(s, _BARRIERS) and effect(s, self.jump)[1] is None:
                self.barriers.append(p)
        COUNT["blocks"] += 1
        COUNT["statements"] += len(self.stmts)

    def _index(self, p: int, s, old_reads: set, old_writes: set) -> None:
        """Note position ``p`` under each name ``s`` mentions that its old statement did not."""
        new_writes = writes(s)
        for name in (reads(s) | new_writes) - (old_reads | old_writes):
            _add(self.mentions.setdefault(name, []), p)
        for name in new_writes - old_writes:
            _add(self.writers.setdefault(name, []), p)

    def where(self, *types) -> list:
        """Positions of the statements of these types (for ``next_of``; rewrites keep statements' types)."""
        return [p for p, s in enumerate(self.stmts) if isinstance(s, types)]

    def replace(self, p: int, s) -> None:
        """Position ``p`` holds ``s`` from now on (stale index entries are skipped when read)."""
        old = self.stmts[p]
        self.stmts[p] = s
        if s is not old and self._indexed:
            self._index(p, s, reads(old), writes(old))

    def remove(self, p: int) -> None:
        self.stmts[p] = None

    def compact(self) -> list:
        """The statements left, in order."""
        return [s for s in self.stmts if s is not None]

    # ---- look-ups ---------------------------------------------------------------------

    def positions(self, name: str, lo: int, hi: int, table: dict | None = None):
        """Positions in ``[lo, hi)`` whose statement mentions ``name`` (writes it: ``table=self.writers``)."""
        self._ensure()
        table = self.mentions if table is None else table
        found = table.get(name, ())
        last = None
        for k in range(bisect_left(found, lo), len(found)):
            q = found[k]
            if q >= hi:
                return
            s = self.stmts[q]
            if q != last and s is not None and name in (writes(s) if table is self.writers else _mentioned(s)):
                last = q
                yield q

    def first(self, name: str, lo: int, hi: int, table: dict | None = None):
        """The first of ``positions``, or None."""
        return next(self.positions(name, lo, hi, table), None)

    def last_write(self, name: str, before: int):
        """The last position before ``before`` whose statement writes ``name``, or None."""
        self._ensure()
        found = self.writers.get(name, ())
        for k in range(bisect_left(found, before) - 1, -1, -1):
            s = self.stmts[found[k]]
            if s is not None and name in writes(s):
                return found[k]
        return None

    def next_of(self, kinds: list, lo: int) -> int:
        """The first position from ``lo`` in ``kinds`` (from ``where``) still holding a statement, or
        ``len(self.stmts)``."""
        for k in range(bisect_left(kinds, lo), len(kinds)):
            if self.stmts[kinds[k]] is not None:
                return kinds[k]
        return len(self.stmts)

    def live(self, name: str, p: int) -> bool:
        """Whether ``name`` is live before position ``p`` (``len(self.stmts)``: after the block), as
        ``live_before`` over the statements left would say: the first statement from ``p`` on that makes
        it live or dead before it decides."""
        self._ensure()
        stop = self.next_of(self.barriers, p)
        for q in self.positions(name, p, stop):
            gen, kill = effect(self.stmts[q], self.jump)
            if name in gen or name in kill:
                return name in gen
        if stop < len(self.stmts):
            return name in effect(self.stmts[stop], self.jump)[0]
        return name in self.after


def _mentioned(s) -> set:
    return reads(s) | writes(s)


def _add(positions: list, p: int) -> None:
    if not positions or positions[-1] < p:
        positions.append(p)
    else:
        insort(positions, p)
