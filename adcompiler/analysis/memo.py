"""The memo tables of the build running in this thread.

Passes that rewrite generated code to a fixpoint (tidying, folding) ask the same facts of the same
immutable statements and expressions many times: the names each reads and writes, the liveness of a
block, whether an expression changes anything.  They remember them here, keyed by the object's
identity with the object kept beside the fact (an identity reused after the object is freed never
matches), for the length of one tidying: ``forget`` drops them at its end.

The tables belong to the thread that builds (``threading.local``): two threads building at once
never read each other's half-made entries, nor the state of each other's tidying, so these passes
need no process-wide lock.
"""

from __future__ import annotations

import threading

FACTS = ("reads", "writes", "pure", "head", "effect", "jumps")  # kinds of facts about one statement


class Memo(threading.local):
    """One set of tables per thread, made on the thread's first use."""

    def __init__(self):
        self.facts: dict = {kind: {} for kind in FACTS}  # kind -> id of statement or expression -> (it, fact)
        self.live: dict = {}  # (ids of statements, live sets) -> (statements, their liveness)
        self.loop_bodies: dict = {}  # id(loop) -> (loop, the statements its head's liveness runs over)
        self.candidates: dict = {}  # tidy: id of a statement -> (it, whether it is a removable assignment)
        self.depths: dict = {}  # inline: id of an expression -> (it, how deep it nests)
        self.tidying: dict = {"in_place": None, "body": (), "made": frozenset()}  # tidy: the function being tidied

    def forget(self) -> None:
        """Drop the facts about statements and blocks: they are gone once a tidying ends."""
        self.live.clear()
        for table in self.facts.values():
            table.clear()
        self.loop_bodies.clear()


MEMO = Memo()


def memoised(kind: str, x, compute):
    """``compute(x)``, once per object and build: statements and expressions are immutable."""
    table = MEMO.facts[kind]
    hit = table.get(id(x))
    if hit is not None and hit[0] is x:
        return hit[1]
    value = compute(x)
    table[id(x)] = (x, value)
    return value
