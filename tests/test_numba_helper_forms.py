"""Runtime helpers of the Numba target written without the forms Numba compiles slowly (a store of an
array into a slice, ``numpy.where`` of a number: each a second or more of Numba's broadcasting machinery
a process, 2026-11-29) give what the forms they replace gave: joins of lists copy each element by
``numpy.positive`` (booleans, which it has no loop for, by a store), and the tangent of min and max picks
the tangents where x is extreme as ``numpy.where(mask, dx, 0.0)`` does, a NaN elsewhere left out; the
shape ``shape_like`` keeps of arrays broadcast together is found axis by axis, as
``numpy.broadcast_shapes`` finds it.
Skipped without Numba."""

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

from adcompiler.targets.numba.live import extreme_jvp, join_sequence, join_tangent, shape_like  # noqa: E402


@numba.njit
def _joined(a, b):
    xs = [a, b]
    return join_sequence(xs, "stack", 0), join_sequence(xs, "concatenate", 0), join_sequence(xs, "hstack", None)


@numba.njit
def _tangent_joined(da, db, a, b):
    return join_tangent([da, db], [a, b], "concatenate", 1)


@pytest.mark.parametrize("values", [[True, False, True], [1, -2, 3], [1.5, -0.0, np.nan]], ids=["bool", "int", "float"])
def test_joins_of_lists_copy_each_element_as_numpy_joins(values):
    a = np.array(values)
    b = a[::-1].copy()
    for got, want in zip(_joined(a, b), (np.stack([a, b]), np.concatenate([a, b]), np.hstack([a, b]))):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    m = np.arange(6.0).reshape(2, 3)
    got = _tangent_joined(m, -m, m, m)
    np.testing.assert_array_equal(got, np.concatenate([m, -m], axis=1))
    assert np.signbit(got[0, 3])  # -0.0 copied as it is


@numba.njit
def _extreme_tangents(dx, x, z, zs, zk):
    return extreme_jvp(dx, x, z), extreme_jvp(dx, x, zs, 1, False), extreme_jvp(dx, x, zk, 0, True)


def _picked_mean(dx, x, z, axis=None, keepdims=False):
    """The tangent as the helper computed it before: numpy.where's pick, its mean along the axis."""
    mask = x == (z if keepdims or axis is None else np.expand_dims(z, axis))
    total = np.sum(np.where(mask, dx, 0.0), axis=axis, keepdims=keepdims)
    return total / np.sum(mask, axis=axis, keepdims=keepdims)


def test_the_tangent_of_min_and_max_picks_as_numpy_where_does():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.5, 2.0]])
    dx = np.array([[np.nan, 0.25, 0.75], [np.inf, -1.0, 4.0]])  # NaN and inf only where x is not extreme
    z, zs, zk = x.max(), x.max(axis=1), x.min(axis=0, keepdims=True)
    whole, rows, kept = _extreme_tangents(dx, x, z, zs, zk)
    assert whole == _picked_mean(dx, x, z) == 0.5  # the two tangents where x is 3.0, averaged
    np.testing.assert_array_equal(rows, _picked_mean(dx, x, zs, axis=1))
    np.testing.assert_array_equal(kept, _picked_mean(dx, x, zk, axis=0, keepdims=True))
    assert not np.isnan(rows).any() and kept.shape == (1, 3)


@numba.njit
def _kept(a, b, c):
    return shape_like(a, b, c), shape_like(b, a), shape_like(a)


def test_shape_like_broadcasts_its_arrays_shapes_as_numpy_does():
    a, b, c = np.ones((3, 1), np.float32), np.ones((1, 4), np.float32), np.ones((3, 4), np.float32)
    three, two, one = _kept(a, b, c)
    assert three.shape == np.broadcast_shapes(a.shape, b.shape, c.shape) == two.shape == (3, 4)
    assert one.shape == a.shape and three.dtype == two.dtype == np.float32 and not three.any()
    with pytest.raises(ValueError, match="cannot be broadcast"):
        _kept(np.ones((3, 2)), np.ones((1, 3)), np.ones((3, 2)))
