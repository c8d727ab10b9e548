"""The cyclic garbage collector paused while a transformation runs (see ``no_cycle_collection``)."""

from __future__ import annotations

import contextlib
import gc
import threading

_PAUSING = threading.Lock()
_pauses = {"running": 0, "was_enabled": False}  # transformations running now, in any thread; the state before


@contextlib.contextmanager
def no_cycle_collection():
    """The cyclic garbage collector paused while a transformation runs: it allocates many small
    objects that stay alive until it ends, so collections find nothing to free (they cost a tenth
    of the transformation time of the paper's network); collected afterwards as usual, when the
    last transformation running in any thread ends."""
    with _PAUSING:
        if _pauses["running"] == 0:
            _pauses["was_enabled"] = gc.isenabled()
        _pauses["running"] += 1
        gc.disable()
    try:
        yield
    finally:
        with _PAUSING:
            _pauses["running"] -= 1
            if _pauses["running"] == 0 and _pauses["was_enabled"]:
                gc.enable()
