"""Values across the boundary of code ``numba.njit`` compiled: Python lists in, Python lists out.

Numba's reflected lists are slow to pass and cannot nest, and its typed lists are slow to build
from Python, so a list of numbers goes in as a 1-D array and a list of equal-length lists of
numbers as a 2-D array (indexing, ``len`` and iteration read them as the lists they were); any other
list as a tuple of its converted elements when it is short (layers of a network: passing a tuple
costs nothing, building a typed list a tenth of a millisecond; Numba compiles once per length) and
as a ``numba.typed.List`` of them when longer, a tuple as a tuple of them.  What comes
back is put in the structure of the abstract value it stands for: lists where that is a list, a
tuple where a tuple, Python floats for Python numbers, NumPy scalars of their own type (float32), and
arrays of the argument's floating dtype.  A list argument the code may change gets the converted value's entries
back (``written_back``); a class whose numbers the code reads goes in as a named tuple of them
(``class_constants``).
"""

from __future__ import annotations

import numpy

from ...analysis import values as V

_NUMBERS = (float, int, bool)
SHORT = 16  # a list of arrays, tuples or ragged lists this long or shorter goes in as a tuple


def convert(value):
    """``value`` as compiled code takes it."""
    kind = type(value)
    if kind is float or kind is numpy.ndarray or kind in _NUMBERS:
        return value
    if kind is tuple:
        return tuple(map(convert, value))
    if kind is list:
        if value and all(type(e) in _NUMBERS for e in value):
            return numpy.array(value, dtype=float if any(type(e) is float for e in value) else None)
        if value and all(type(e) is list for e in value) and len({len(e) for e in value}) == 1:
            try:
                array = numpy.array(value)
            except ValueError:  # rows of equal lengths holding lists of several lengths (layers: [W, b])
                array = None
            if array is not None and array.dtype.kind in "fib" and array.ndim == 2:
                return array.astype(float) if array.dtype.kind != "f" else array
        if not value:
            raise TypeError('an empty list cannot be passed to code numba.njit compiles; backend="python" takes it')
        if len(value) <= SHORT:  # a tuple goes in at once, a typed list is built element by element
            return tuple(map(convert, value))
        from numba.typed import List

        return List(map(convert, value))
    return value


def converter(aval: V.Aval):
    """``convert`` for values of abstract value ``aval`` (the signature, which looked at every element,
    is known before the call): a list of floats or of rows of numbers straight to an array."""
    if _floats(aval):
        return _vector
    if isinstance(aval, V.Seq) and aval.kind == "list" and V.flat(aval.elem) and aval.elem.kind == "list":
        return _matrix
    return convert


def _floats(aval: V.Aval) -> bool:
    """A list of numbers, one of them a float at least (so NumPy makes an array of floats of it)."""
    return isinstance(aval, V.Seq) and aval.kind == "list" and V.flat(aval) and aval.elem == V.FLOAT


def _vector(value):
    array = numpy.array(value, dtype=float)
    return array if array.ndim == 1 and type(value) is list else convert(value)


def _matrix(value):
    try:
        array = numpy.array(value, dtype=float)
    except ValueError:  # rows of several lengths: a typed list of arrays
        return convert(value)
    return array if array.ndim == 2 and type(value) is list else convert(value)


def restore(value, aval: V.Aval):
    """The compiled code's ``value`` in the structure of abstract value ``aval``."""
    if isinstance(aval, V.Seq) and type(value) is numpy.ndarray and aval.kind == "list" and V.flat(aval):
        return value.tolist()  # a list of numbers (floats: the array is of floats)
    if type(value) is numpy.ndarray and value.ndim == 2 and isinstance(aval, V.Seq) and aval.kind == "list":
        if V.flat(aval.elem) and aval.elem.kind == "list":
            return value.tolist()  # rows of numbers (a 2-D array in compiled code)
    if isinstance(aval, V.Seq):
        items = aval.items if aval.items is not None else (aval.elem,) * len(value)
        out = [restore(v, a) for v, a in zip(value, items, strict=True)]
        return tuple(out) if aval.kind == "tuple" else out
    if isinstance(aval, V.Num):  # a NumPy scalar's own type (compiled code gives float32 back as a float)
        if type(value) is numpy.ndarray:  # a tangent carrying many directions (jacobian)
            return value
        if aval.dtype == "float":
            return float(value)
        wanted = _DTYPES.get(aval.dtype) or _DTYPES.setdefault(aval.dtype, numpy.dtype(aval.dtype))
        return wanted.type(value) if wanted.kind in "fc" else value
    if isinstance(aval, V.Arr) and type(value) is numpy.ndarray and aval.dtype is not None:
        wanted = _DTYPES.get(aval.dtype) or _DTYPES.setdefault(aval.dtype, numpy.dtype(aval.dtype))
        if value.dtype != wanted and wanted.kind in "fc":
            return value.astype(wanted)
    return value


_DTYPES: dict = {}  # dtype name -> the dtype (asking an array for its dtype's name is slow)


def written_back(given, converted) -> None:
    """The entries of ``converted`` (what compiled code took for the list ``given``, and may have changed) written
    into ``given`` and the lists it holds, each list object as it was (a row two names hold stays one)."""
    if type(given) is not list and type(given) is not tuple:
        return
    for k, (g, c) in enumerate(zip(given, converted)):
        if type(g) is list or type(g) is tuple:
            written_back(g, c)
        elif type(given) is list and not hasattr(g, "shape"):  # (an array element is the object compiled code had)
            given[k] = type(g)(c) if type(g) in (float, int, bool) else c


def user_class(value) -> bool:
    return isinstance(value, type) and value.__module__ not in ("builtins", "numpy")


def class_constants(cls):
    """A user class as compiled code reads it, ``getattr(Spring, "k")`` of ``k = 3.0`` in its body (a class
    attribute read through an object, ``self.k``): a named tuple of its numbers (and its bases'), which Numba
    types and compiles in as the module's other numbers (a class it types not at all)."""
    import collections

    names = sorted(
        k
        for k in dir(cls)
        if not k.startswith("__")
        and isinstance(getattr(cls, k), (int, float))
        and not isinstance(getattr(cls, k), bool)
    )
    return collections.namedtuple(cls.__name__, names)(*(getattr(cls, k) for k in names))
