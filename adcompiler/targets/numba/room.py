"""A call with room on CPython's frame stack, for Numba's compiler.

Since Python 3.11 the frames of a thread live in chunks of memory (16 KiB each, ``Python/pystate.c``):
a call that does not fit in the current chunk maps a new one (``mmap``), and the return that empties it
unmaps it (``munmap``).  Numba's compiler recurses deeply and back again many thousands of times while it
types and lowers one function, so its stack keeps crossing a chunk's end: each crossing a map, an unmap
and the page faults of a fresh chunk.  Measured on 2026-11-29, compiling three derivatives (kmeans'
``nearest`` and ``along_kept``, both modes): 308,000 page faults and 1.7 s of system time; called from a
frame with room, 70,000 and 0.16 s, and the whole 13% faster.

``with_room(fn, *args)`` calls ``fn`` from a frame whose code claims an evaluation stack of a million
slots (``co_stacksize``, which CPython trusts as written): CPython puts that frame at the start of a
chunk twice as large (it doubles a chunk's size until a frame fits), and the frames of everything ``fn``
calls, Numba's recursion included, stay in the other half, about 8 MiB, never touched but page by page.
The cost is the one map and unmap of that chunk: for a call that compiles, not for a hot path.
"""

from __future__ import annotations

_ROOM = (1 << 20) + 64  # slots: a frame of just over 8 MiB, so its chunk is 16 MiB, half of it free


def with_room(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, called from a frame with about 8 MiB of CPython's frame stack free above
    it (see the module's docstring)."""
    return fn(*args, **kwargs)


with_room.__code__ = with_room.__code__.replace(co_stacksize=_ROOM)


def roomy(dispatcher) -> None:
    """The Numba ``dispatcher`` made to compile from a frame with room when a call from Python finds no
    code for its arguments' types (its ``_compile_for_args``, which Numba's dispatcher looks up on the
    object at such a call): calls that find code pay nothing."""
    compile_for_args = dispatcher._compile_for_args
    if getattr(compile_for_args, "roomy", False):
        return

    def compiled_with_room(*args, **kwargs):
        return with_room(compile_for_args, *args, **kwargs)

    compiled_with_room.roomy = True
    dispatcher._compile_for_args = compiled_with_room
