"""``targets/numba/room.py``: the Numba target compiles from a frame with room on Python's frame stack (a
frame claiming a million slots of evaluation stack, so that Numba's recursion stays in one chunk of
Python 3.11's frame stack instead of mapping and unmapping one at each crossing of a chunk's end).
``with_room`` is an ordinary call otherwise; a dispatcher made ``roomy`` compiles through it only when a
call from Python finds no code for its types.  Skipped without Numba."""

import sys

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

import adcompiler  # noqa: E402
from adcompiler.targets.numba.room import roomy, with_room  # noqa: E402


def _depth() -> int:
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n


def test_with_room_is_a_call_with_a_large_frame():
    assert with_room.__code__.co_stacksize > 1 << 20
    assert with_room(lambda a, b=0: (a, b), 1, b=2) == (1, 2)
    assert with_room(_depth) == _depth() + 1  # (one frame more: with_room's)
    assert with_room(with_room, with_room, lambda: 7) == 7  # (rooms within rooms)
    with pytest.raises(ZeroDivisionError):
        with_room(lambda: 1 / 0)

    def deep(n):  # recursion past many 16 KiB chunks' worth of frames, and back, inside the room
        return 0 if n == 0 else 1 + deep(n - 1)

    assert with_room(deep, 600) == 600


def test_a_roomy_dispatcher_compiles_through_the_room_for_each_new_signature():
    @numba.njit
    def scaled(x, k):
        return x * k

    calls = []
    roomy(scaled)
    wrapper = scaled._compile_for_args
    roomy(scaled)  # (once: made roomy again, it keeps its one wrapper)
    assert scaled._compile_for_args is wrapper and wrapper.roomy

    def counted(*args, **kwargs):
        calls.append(args)
        return wrapper(*args, **kwargs)

    scaled._compile_for_args = counted  # (what Numba's dispatcher calls on a miss, looked up on the object)
    assert scaled(2.0, 3.0) == 6.0 and len(calls) == 1
    assert scaled(4.0, 0.5) == 2.0 and len(calls) == 1  # compiled already: no call of it
    np.testing.assert_array_equal(scaled(np.arange(3.0), 2.0), [0.0, 2.0, 4.0])
    assert len(calls) == 2 and len(scaled.signatures) == 2


def test_the_numba_target_compiles_its_entry_code_through_the_room():
    def f(x, y):
        return np.sum(np.sin(x) * y)

    d = adcompiler.differentiate(f, backend="numba")
    x, y = np.linspace(0.1, 0.9, 4), np.linspace(1.0, 2.0, 4)
    g = d.grad(x, y)
    np.testing.assert_allclose(g[0], np.cos(x) * y, rtol=1e-12)
    np.testing.assert_allclose(g[1], np.sin(x), rtol=1e-12)
    entry = d._built.function("grad")
    assert getattr(entry.compiled._compile_for_args, "roomy", False)
