"""The cyclic garbage collector paused while a transformation runs (see ``no_cycle_collection``)."""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def no_cycle_collection():
    """The cyclic garbage collector paused while a transformation runs: it allocates many small
    objects that stay alive until it ends, so collections find nothing to free (they cost a tenth
    of the transformation time of the paper's network); collected afterwards as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
