"""scatter_add and scatter_into under backend="numba" (targets/numba/scatters.py): g added into the part of
the adjoint an index of integers and slices names, in a loop nest over the part, with no array made
(``out[index] += g`` stored the part back through a copy of it: an array a call, 19 a character of
GradBench lstm; ``numpy.add(part, g, part)`` cost 46 ns a row of two against 3); a g whose memory overlaps
the part is read whole before the part is written, as NumPy's ``+=`` reads it; random indexes of
integers, slices and None, with g broadcast, add as NumPy adds.  Skipped without Numba."""

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

from numba.core.runtime import _nrt_python as nrt  # noqa: E402

from adcompiler.targets.numba.live import scatter_add, scatter_into  # noqa: E402


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


@numba.njit
def _scattered(d, x, index, g):
    return scatter_add(d, x, index, g)


@numba.njit
def _scattered_into(d, x, index, g):
    return scatter_into(d, x, index, g)


def _basic_index(rng, shape) -> tuple:
    """A random index of integers (negative ones too), slices (steps of either sign) and None for ``shape``,
    shorter than its ndim at times (the axes left taken whole)."""
    out, axis = [], 0
    while axis < len(shape) and (axis == 0 or rng.random() < 0.8):
        if rng.random() < 0.15:
            out.append(None)
            continue
        n = shape[axis]
        if rng.random() < 0.4:
            out.append(int(rng.integers(-n, n)))
        else:
            start, stop = sorted(int(v) for v in rng.integers(-n - 1, n + 2, 2))
            step = int(rng.choice([1, 1, 2, -1, -2]))
            out.append(slice(start, stop, step) if step > 0 else slice(stop, start, step))
        axis += 1
    return tuple(out)


@pytest.mark.parametrize(
    "seed, draws", [(36, 16), pytest.param(37, 80, marks=pytest.mark.slow)]
)  # (each kind of index a signature to compile: about a third of a second)
def test_random_parts_add_as_numpy_adds(seed, draws):
    """The generator of indexes that would have caught a loop nest read at the wrong axis of a broadcast g:
    for random shapes, indexes and g (a number, or an array of the part's trailing axes, some of length 1),
    scatter_add into a number (fresh zeros), into an array of x's shape (itself) and into a stand-in of
    length-1 axes, and scatter_into, give NumPy's ``part += g``."""
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(draws):
        shape = tuple(int(n) for n in rng.integers(1, 5, int(rng.integers(1, 4))))
        index = _basic_index(rng, shape)
        part = np.zeros(shape)[index].shape
        if not part:
            continue
        kept = int(rng.integers(0, len(part) + 1))
        g = (
            float(rng.normal())
            if kept == 0
            else rng.normal(size=tuple(n if rng.random() < 0.7 else 1 for n in part[len(part) - kept :]))
        )
        x = np.zeros(shape)
        base = rng.normal(size=shape)
        for d in (0.0, base.copy(), base[(slice(0, 1),) * len(shape)].copy()):
            want = np.zeros(shape) + d
            want[index] += g
            got = _scattered(d if isinstance(d, float) else d.copy(), x, index, g)
            np.testing.assert_array_equal(got, want, err_msg=str((shape, index, np.shape(g))))
        into = base.copy()
        want = base.copy()
        want[index] += g
        assert np.shares_memory(_scattered_into(into, x, index, g), into)
        np.testing.assert_array_equal(into, want, err_msg=str((shape, index, np.shape(g))))
        checked += 1
    assert checked >= draws // 2


def test_scatter_into_adds_into_the_adjoint_itself_and_refuses_another_shape():
    d, x = np.zeros((3, 2)), np.ones((3, 2))
    got = _scattered_into(d, x, 1, np.array([2.0, 3.0]))
    assert np.array_equal(d, [[0, 0], [2, 3], [0, 0]]) and np.shares_memory(got, d)
    _scattered_into(d, x, (2, 0), 1.5)
    assert np.array_equal(d, [[0, 0], [2, 3], [1.5, 0]])
    v = np.zeros(3)
    _scattered_into(v, np.ones(3), np.array([0, 0, 2]), np.array([1.0, 1.0, 4.0]))  # (repeats accumulate)
    assert np.array_equal(v, [2, 0, 4])
    with pytest.raises(ValueError, match="not of its array's shape"):
        _scattered_into(np.zeros((1, 2)), x, 0, 1.0)


@pytest.mark.parametrize("seed, draws", [(38, 12), pytest.param(39, 60, marks=pytest.mark.slow)])
def test_random_masks_and_rows_add_as_numpy_adds(seed, draws):
    """The generator for the adjoints of reads at a boolean mask of x's shape (any ndim; x and the mask C-ordered
    or transposed views) and at an array of row indices with repeats: scatter_add into a number, into an array
    of x's shape and into a stand-in of length-1 axes gives NumPy's ``out[mask] += g`` and ``numpy.add.at(out,
    rows, g)`` (a repeated row accumulates); g a number or one value per entry read."""
    rng = np.random.default_rng(seed)
    for _ in range(draws):
        shape = tuple(int(n) for n in rng.integers(1, 5, int(rng.integers(1, 4))))
        turned = len(shape) > 1 and rng.random() < 0.4  # (x read through a transposed view)
        x = np.zeros(shape[::-1]).T if turned else np.zeros(shape)
        base = rng.normal(size=shape)
        stand_in = base[(slice(0, 1),) * len(shape)].copy()
        if rng.random() < 0.5:
            index = rng.random(shape) < 0.5
            index = np.ascontiguousarray(index.T).T if turned else index
            count = int(index.sum())
            g = float(rng.normal()) if rng.random() < 0.3 else rng.normal(size=count)

            def want_of(d, index=index, g=g):
                out = np.zeros(shape) + d
                out[index] += g
                return out

        else:
            if len(shape) < 2:
                continue
            index = rng.integers(-shape[0], shape[0], int(rng.integers(1, 6)))
            g = float(rng.normal()) if rng.random() < 0.3 else rng.normal(size=(len(index),) + shape[1:])

            def want_of(d, index=index, g=g):
                out = np.zeros(shape) + d
                np.add.at(out, index, g)
                return out

        for d in (0.0, base.copy(), stand_in):
            got = _scattered(d if isinstance(d, float) else d.copy(), x, index, g)
            np.testing.assert_allclose(got, want_of(d), rtol=1e-15, atol=0, err_msg=str((shape, index, np.shape(g))))
