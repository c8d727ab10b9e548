"""scatter_add under backend="numba" (targets/numba/runtime.py): g added into the part of the adjoint an
index of integers and slices names, as a view of it, with no array made (``out[index] += g`` stored the
part back through a copy of it: an array a call, 19 a character of GradBench lstm); a g whose memory
overlaps the part is read whole before the part is written, as NumPy's ``+=`` reads it.  Skipped without
Numba."""

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

from numba.core.runtime import _nrt_python as nrt  # noqa: E402

from adcompiler.targets.numba.live import scatter_add  # noqa: E402


@numba.njit
def _added(d, x, g, column):
    d = scatter_add(d, x, 1, g)
    d = scatter_add(d, x, (slice(0, 2), 1), g[:2])
    d = scatter_add(d, x, (2, 3), 1.5)
    return scatter_add(d, x, (slice(None), None, 0), column)


@numba.njit
def _added_times(d, x, g, column, n):
    for _ in range(n):
        d = _added(d, x, g, column)
    return d


@numba.njit
def _overlapping(d, x):
    return scatter_add(d, x, slice(1, 4), d[0:3])


def _made(*args) -> int:
    """The arrays Numba's runtime makes for each more call of ``_added`` (the calls in one compiled loop)."""
    _added_times(*args, 1)
    was = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    counts = []
    for n in (1, 3):
        before = nrt.memsys_get_stats_alloc()
        _added_times(*args, n)
        counts.append(nrt.memsys_get_stats_alloc() - before)
    if not was:
        nrt.memsys_disable_stats()
    return (counts[1] - counts[0]) // 2


def test_parts_added_in_place_without_an_array():
    x, g, column = np.ones((4, 4)), np.arange(4.0), np.arange(4.0)[::-1].reshape(4, 1)
    d = np.arange(16.0).reshape(4, 4)
    want = d.copy()
    want[1] += g
    want[:2, 1] += g[:2]
    want[2, 3] += 1.5
    want[:, None, 0] += column
    into = d.copy()
    assert np.array_equal(_added(into, x, g, column), want) and np.array_equal(into, want)  # (into d itself)
    assert _made(d.copy(), x, g, column) == 0


def test_an_overlapping_part_is_read_before_it_is_written():
    d = np.arange(16.0).reshape(4, 4)
    want = d.copy()
    want[1:4] += d[0:3]  # (NumPy buffers the overlapping operand)
    assert np.array_equal(_overlapping(d.copy(), np.ones((4, 4))), want)
