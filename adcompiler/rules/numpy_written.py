"""NumPy functions written with the primitives adcompiler differentiates (issue 37): a call of
``np.corrcoef(x)`` is lowered as a call of ``corrcoef`` below, its arguments bound as NumPy binds
them, so both modes, second order and the generated code are those of any function of the user's.
Each computes what NumPy's does, in the same order where that matters, so the values are NumPy's to
rounding (``corrcoef`` clips to [-1, 1] as NumPy does; the nan-reductions give NaN for a slice of
NaNs, as NumPy does, with no warning).

The derivative of a nan-reduction is that of the reduction of the entries that are not NaN (0 at a
NaN); ``delete`` takes constant or computed indices (no derivative in them); ``meshgrid`` takes two
or three arrays; a ufunc's ``outer`` (``np.multiply.outer(a, b)``) is the ufunc of ``a`` with an axis
per axis of ``b`` added and ``b``
(written on the flattened arrays, reshaped).
"""

from __future__ import annotations

import math

import numpy as np


def corrcoef(x, y=None, rowvar=True):
    m = np.atleast_2d(x)
    if not rowvar:
        m = m.T
    if y is not None:
        other = np.atleast_2d(y)
        if not rowvar:
            other = other.T
        m = np.concatenate((m, other), axis=0)
    centred = m - np.mean(m, axis=1, keepdims=True)
    cov = (centred @ centred.T) * (1.0 / (np.shape(m)[1] - 1))
    stddev = np.sqrt(np.diag(cov))
    return np.clip(cov / stddev[:, None] / stddev[None, :], -1.0, 1.0)


def nansum(a, axis=None, keepdims=False):
    return np.sum(np.where(np.isnan(a), 0.0, a), axis=axis, keepdims=keepdims)


def _counted(a):
    """1 where ``a`` is not NaN, else 0, of a's dtype (float32's float32: a count of float64 ones made a float32
    mean float64)."""
    zeros = np.where(np.isnan(a), 0.0, a) * 0.0
    return np.where(np.isnan(a), zeros, zeros + 1.0)


def nanmean(a, axis=None, keepdims=False):
    total = np.sum(np.where(np.isnan(a), 0.0, a), axis=axis, keepdims=keepdims)
    return total / np.sum(_counted(a), axis=axis, keepdims=keepdims)


def nanmax(a, axis=None, keepdims=False):
    largest = np.max(np.where(np.isnan(a), -math.inf, a), axis=axis, keepdims=keepdims)
    kept = np.sum(_counted(a), axis=axis, keepdims=keepdims)
    return np.where(kept == 0.0, math.nan, largest)  # (NaN for a slice of NaNs)


def nanmin(a, axis=None, keepdims=False):
    smallest = np.min(np.where(np.isnan(a), math.inf, a), axis=axis, keepdims=keepdims)
    kept = np.sum(_counted(a), axis=axis, keepdims=keepdims)
    return np.where(kept == 0.0, math.nan, smallest)


def interp(x, xp, fp):
    """np.interp(x, xp, fp) of increasing xp: fp's line between the two knots around each x, fp's end values
    outside them (the derivative in x: the segment's slope inside, 0 outside; in fp and xp: the line's)."""
    last = np.shape(xp)[0] - 1
    k = np.minimum(np.maximum(np.searchsorted(xp, x, side="right") - 1, 0), last - 1)  # (Numba: of a number too)
    t = (x - xp[k]) / (xp[k + 1] - xp[k])
    inside = fp[k] + t * (fp[k + 1] - fp[k])
    return np.where(x < xp[0], fp[0], np.where(x > xp[last], fp[last], inside))


def meshgrid2(x, y, indexing="xy"):
    if indexing == "xy":
        shape = (np.size(y), np.size(x))
        return (
            np.copy(np.broadcast_to(np.reshape(x, (1, -1)), shape)),
            np.copy(np.broadcast_to(np.reshape(y, (-1, 1)), shape)),
        )
    shape = (np.size(x), np.size(y))
    return (
        np.copy(np.broadcast_to(np.reshape(x, (-1, 1)), shape)),
        np.copy(np.broadcast_to(np.reshape(y, (1, -1)), shape)),
    )


def meshgrid3(x, y, z, indexing="xy"):
    if indexing == "xy":
        shape = (np.size(y), np.size(x), np.size(z))
        return (
            np.copy(np.broadcast_to(np.reshape(x, (1, -1, 1)), shape)),
            np.copy(np.broadcast_to(np.reshape(y, (-1, 1, 1)), shape)),
            np.copy(np.broadcast_to(np.reshape(z, (1, 1, -1)), shape)),
        )
    shape = (np.size(x), np.size(y), np.size(z))
    return (
        np.copy(np.broadcast_to(np.reshape(x, (-1, 1, 1)), shape)),
        np.copy(np.broadcast_to(np.reshape(y, (1, -1, 1)), shape)),
        np.copy(np.broadcast_to(np.reshape(z, (1, 1, -1)), shape)),
    )


def delete(arr, obj, axis=None):
    if axis is None:
        flat = np.ravel(arr)
        keep = np.ones(np.size(flat)) > 0.0
        keep[obj] = False
        return flat[keep]
    keep = np.ones(np.shape(arr)[axis]) > 0.0
    keep[obj] = False
    return np.take(arr, np.arange(np.shape(arr)[axis])[keep], axis=axis)


def float64(x):
    return np.asarray(x, dtype=np.float64) + 0.0


def float32(x):
    return np.asarray(x, dtype=np.float32) * 1


def add_outer(a, b):
    return np.reshape(np.reshape(a, (-1, 1)) + np.reshape(b, (1, -1)), np.shape(a) + np.shape(b))


def subtract_outer(a, b):
    return np.reshape(np.reshape(a, (-1, 1)) - np.reshape(b, (1, -1)), np.shape(a) + np.shape(b))


def multiply_outer(a, b):
    return np.reshape(np.reshape(a, (-1, 1)) * np.reshape(b, (1, -1)), np.shape(a) + np.shape(b))


def divide_outer(a, b):
    return np.reshape(np.reshape(a, (-1, 1)) / np.reshape(b, (1, -1)), np.shape(a) + np.shape(b))


def power_outer(a, b):
    return np.reshape(np.reshape(a, (-1, 1)) ** np.reshape(b, (1, -1)), np.shape(a) + np.shape(b))


def maximum_outer(a, b):
    return np.reshape(np.maximum(np.reshape(a, (-1, 1)), np.reshape(b, (1, -1))), np.shape(a) + np.shape(b))


def minimum_outer(a, b):
    return np.reshape(np.minimum(np.reshape(a, (-1, 1)), np.reshape(b, (1, -1))), np.shape(a) + np.shape(b))


WRITTEN = {
    "corrcoef": corrcoef,
    "nansum": nansum,
    "nanmean": nanmean,
    "nanmax": nanmax,
    "nanmin": nanmin,
    "delete": delete,
    "float64": float64,
    "float32": float32,
    "interp": interp,
}
MESHGRID = {2: meshgrid2, 3: meshgrid3}
OUTER = {
    "add": add_outer,
    "subtract": subtract_outer,
    "multiply": multiply_outer,
    "divide": divide_outer,
    "true_divide": divide_outer,
    "power": power_outer,
    "maximum": maximum_outer,
    "minimum": minimum_outer,
}


def written(target, nargs: int):
    """The function of this module computing what ``target`` (a NumPy function, or a ufunc's ``outer``
    method) does when called with ``nargs`` positional arguments; None for anything else."""
    for name, fn in WRITTEN.items():
        if getattr(np, name) is target:
            return fn
    if target is np.meshgrid:
        return MESHGRID.get(nargs)
    ufunc = getattr(target, "__self__", None)
    if getattr(target, "__name__", None) == "outer" and isinstance(ufunc, np.ufunc):
        return OUTER.get(ufunc.__name__) if getattr(np, ufunc.__name__, None) is ufunc else None
    return None
