"""The lock every transformation holds (``BUILDING``), which gives it room for deep recursion meanwhile.

The passes walk nested statements and expressions recursively, a few Python frames for each level of
nesting: an ``elif`` chain of two hundred branches (two hundred ``if``s, each in the ``else`` of the
one before) or two hundred nested conditional expressions go deeper than Python's default limit of
1000 frames, though Python runs them.  So while a transformation runs, the limit is at least
``ROOM`` (restored when the outermost one ends); code nested deeper still is refused at the
function, with the advice to split it (``pipeline``).  Python's own calls do not grow the C stack
(3.11), so the room costs nothing until it is used.
"""

from __future__ import annotations

import sys
import threading

ROOM = 10_000  # frames: an elif chain of well over a thousand branches


class Building:
    """A reentrant lock (``with BUILDING:``) that raises the recursion limit to ``ROOM`` while held."""

    def __init__(self):
        self._lock = threading.RLock()
        self._held = 0  # how many times the holder entered (reentrant: a derivative of derivative code)
        self._limit = None  # the limit before the outermost entry

    def __enter__(self):
        self._lock.acquire()
        self._held += 1
        if self._held == 1:
            self._limit = sys.getrecursionlimit()
            if self._limit < ROOM:
                sys.setrecursionlimit(ROOM)
        return self

    def __exit__(self, *exc):
        self._held -= 1
        if self._held == 0 and sys.getrecursionlimit() == ROOM and self._limit < ROOM:
            sys.setrecursionlimit(self._limit)  # (unless someone else set another one meanwhile)
        self._lock.release()
        return False


# Held while anything is transformed.  The passes keep no state of their own between threads (their
# memo tables are the building thread's: analysis.memo; the tables they read are made whole once),
# but a Program fills its caches as it goes: two threads building the same program at once would
# read each other's half-made entries.  (One lock per Program would do; this one is shared by every
# program.)  Reentrant, because building a derivative of derivative code builds the inner one
# first.  Generated code runs without it.  It gives the passes room for deep recursion (above).
BUILDING = Building()
