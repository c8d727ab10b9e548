"""The lock a transformation holds (``Building``), which gives it room for deep recursion meanwhile.

Each Differentiable holds one ``Building`` (shared with the derivatives made of its generated code,
``Differentiable(d.grad)``, ``hessian(d)``: one family, one lock), held while anything of it is built:
its Programs fill their caches as they go, and two threads asking for the same signature's code at
once must not build it twice into one Program.  The passes keep no state of their own between
builds (their memo tables are the building thread's: ``analysis.memo``; the tables they read are
made whole once), so two threads build two functions at once, neither waiting for the other.  A
build of a function that takes another's derivative inside (``adcompiler.grad(g)(x)`` in its body)
holds its own lock, then ``g``'s; ``g``'s build never needs the caller's.

The passes walk nested statements and expressions recursively, a few Python frames for each level of
nesting: an ``elif`` chain of two hundred branches (two hundred ``if``s, each in the ``else`` of the
one before) or two hundred nested conditional expressions go deeper than Python's default limit of
1000 frames, though Python runs them.  So while any transformation runs, the limit is at least
``ROOM`` (restored when the last one running ends); code nested deeper still is refused at the
function, with the advice to split it (``pipeline``).  Python's own calls do not grow the C stack
(3.11), so the room costs nothing until it is used.
"""

from __future__ import annotations

import sys
import threading

ROOM = 10_000  # frames: an elif chain of well over a thousand branches


class _Room:
    """The recursion limit raised to ``ROOM`` while at least one build runs, in any thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._builds = 0  # builds running now (each thread's outermost entry counted once)
        self._limit = 0  # the limit before the first of them

    def enter(self) -> None:
        with self._lock:
            self._builds += 1
            if self._builds == 1:
                self._limit = sys.getrecursionlimit()
                if self._limit < ROOM:
                    sys.setrecursionlimit(ROOM)

    def leave(self) -> None:
        with self._lock:
            self._builds -= 1
            if self._builds == 0 and sys.getrecursionlimit() == ROOM and self._limit < ROOM:
                sys.setrecursionlimit(self._limit)  # (unless someone else set another one meanwhile)


_ROOM = _Room()


class Building:
    """A reentrant lock (``with d._building:``) that gives its holder ``ROOM`` frames while held.
    Reentrant: building a derivative of derivative code builds the inner one first, in one family."""

    def __init__(self):
        self._lock = threading.RLock()
        self._held = 0  # how many times the holder entered

    def __enter__(self):
        self._lock.acquire()
        self._held += 1
        if self._held == 1:
            _ROOM.enter()
        return self

    def __exit__(self, *exc):
        self._held -= 1
        if self._held == 0:
            _ROOM.leave()
        self._lock.release()
        return False
