"""The Numba target's boundary (``targets/numba/values``): any nested list or tuple of numbers and arrays a
user passes goes into compiled code without an error of NumPy's, and what comes back is restored to its
structure.  A generator of the structures users pass: ragged rows, layers ``[[W, b], ...]`` (a list of two
lists of different depths: ``numpy.array`` of such a list raised its ValueError from the conversion), rows of
arrays, tuples of lists."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from adcompiler.analysis import values as V  # noqa: E402
from adcompiler.targets.numba.values import convert, converter, restore  # noqa: E402

numbers = st.floats(-10, 10, allow_nan=False)
vectors = st.lists(numbers, min_size=1, max_size=4)
leaf = st.one_of(numbers, vectors, st.builds(np.array, vectors))
structures = st.recursive(
    leaf,
    lambda inner: st.one_of(st.lists(inner, min_size=1, max_size=4), st.tuples(inner, inner)),
    max_leaves=12,
)


def _same(a, b) -> bool:
    """Whether ``b`` is ``a`` again: the same structure (list, tuple), arrays of the same entries, the same numbers
    of the same types."""
    if isinstance(a, (list, tuple)):
        return type(b) is type(a) and len(b) == len(a) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    return b == a and type(b) is type(a)


@settings(max_examples=150, deadline=None)
@given(structures)
def test_every_nested_structure_goes_in_and_comes_back_as_it_was(value):
    aval = V.describe(value)
    assert _same(value, restore(convert(value), aval))
    assert _same(value, restore(converter(aval)(value), aval))


def test_layers_of_a_matrix_and_a_vector():
    layers = [[[[0.1, 0.2, 0.3], [0.3, -0.2, 0.1]], [0.1, 0.2]], [[[0.5, 0.4], [0.2, 0.1]], [0.0, 0.1]]]
    converted = convert(layers)
    assert type(converted) is tuple and type(converted[0]) is tuple
    assert converted[0][0].shape == (2, 3) and converted[0][1].shape == (2,)
    assert _same(layers, restore(converted, V.describe(layers)))
