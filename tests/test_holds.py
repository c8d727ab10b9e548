"""The quick tests a fast entry writes out from an argument's abstract value (``analysis.holds``):
``written_ids`` gives the lists a value reaches as ``values.alias_pattern`` sees them, and
``written_tangent_test`` says yes only where ``entries.tangent_mismatch`` finds nothing wrong, on
random nested lists and tuples of floats, rows and arrays of several shapes, shared lists included.
Then through the entries: after a first call with separate lists, arguments sharing one, or tangents
of another structure, take the checking path and get its answer or its error."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adcompiler
from adcompiler.analysis.holds import written_ids, written_tangent_test
from adcompiler.analysis.values import alias_pattern, describe
from adcompiler.api.entries import tangent_mismatch

SHAPES = [(), (1,), (3,), (2, 3), (2, 1, 2)]


def _leaf():
    floats = st.floats(-2.0, 2.0, allow_nan=False, width=64)
    arrays = st.sampled_from(SHAPES).map(lambda s: np.full(s, 0.5))
    return floats | arrays


def _tree():
    """Nested lists and tuples of floats and arrays, rows of floats, of depth up to four."""
    rows = st.lists(st.lists(st.floats(-1.0, 1.0, width=64), min_size=1, max_size=4), min_size=1, max_size=3)
    return st.recursive(
        _leaf() | rows,
        lambda inner: st.lists(inner, min_size=1, max_size=3) | st.lists(inner, min_size=1, max_size=3).map(tuple),
        max_leaves=8,
    )


def _like(tree):
    """A tangent of ``tree``'s structure (ones), lists where it has lists and tuples where tuples."""
    if isinstance(tree, (list, tuple)):
        return type(tree)(_like(t) for t in tree)
    return np.ones_like(tree) if isinstance(tree, np.ndarray) else 1.0


def _changes(tree, path=()):
    """Tangents of another structure, each one change away, and whether both tests must see it: a list
    one shorter, an array of another shape (both must), a list where a number is (the walk does not
    look at the elements of a list of numbers: neither needs to)."""
    if isinstance(tree, (list, tuple)):
        yield path, type(tree)(_like(t) for t in tree[:-1]), True
        for k, t in enumerate(tree):
            for where, changed, seen in _changes(t, path + (k,)):
                yield where, type(tree)(changed if j == k else _like(u) for j, u in enumerate(tree)), seen
    elif isinstance(tree, np.ndarray):
        yield path, np.ones(tree.shape + (2,)), True
    else:
        yield path, [1.0], False


@settings(max_examples=150, deadline=None)
@given(_tree(), _tree(), st.booleans())
def test_written_ids_share_a_list_where_alias_pattern_says_so(a, b, share):
    """Two values share a list per their written ids exactly where ``alias_pattern`` says they do."""
    if share and isinstance(a, list):
        b = [b, a]  # b reaches a itself
    if share and isinstance(a, list) and isinstance(a[0], list):
        b = (b, a[0])  # and a's first element
    avals = (describe(a), describe(b))
    ids_a, ids_b = written_ids(avals[0]), written_ids(avals[1])
    if ids_a is None or ids_b is None:
        return
    pattern = alias_pattern((a, b), avals)
    assert (not ids_a(a).isdisjoint(ids_b(b))) == (pattern[1] == 0), (ids_a.text, ids_b.text)


@settings(max_examples=150, deadline=None)
@given(_tree())
def test_written_tangent_test_says_yes_only_where_tangent_mismatch_does(tree):
    matches = written_tangent_test(describe(tree))
    if matches is None:
        return
    assert matches(tree, _like(tree)) and not tangent_mismatch(tree, _like(tree)), matches.text
    for where, changed, seen in _changes(tree):
        assert not matches(tree, changed) or not tangent_mismatch(tree, changed), (matches.text, where)
        if seen:
            assert tangent_mismatch(tree, changed) and not matches(tree, changed), (matches.text, where)


def test_rows_and_their_tangents():
    """The tests written for a network's layers: what each reads, and the same answers as the walks."""
    layers = [([[1.0, 2.0], [3.0, 4.0]], [0.5, 0.5]), ([[1.0, 1.0]], [0.0])]
    aval = describe(layers)
    ids = written_ids(aval)
    assert "out.update(map(id," in ids.text  # rows' ids at C speed
    assert ids(layers) == {id(layers), *(id(w) for w, _ in layers), *(id(b) for _, b in layers)} | {
        id(r) for w, _ in layers for r in w
    }
    matches = written_tangent_test(aval)
    tangent = [([[0.0, 0.0], [0.0, 0.0]], [0.0, 0.0]), ([[0.0, 0.0]], [0.0])]
    assert matches(layers, tangent)
    assert matches(layers, [tuple(layer) for layer in tangent])  # lists for tuples, as the method allows
    assert not matches(layers, [([[0.0, 0.0], [0.0]], [0.0, 0.0]), ([[0.0, 0.0]], [0.0])])
    assert not matches(layers, tangent[:1])
    assert written_tangent_test(describe({"w": [1.0]})) is None  # records: the walk


def network(layers, x):
    h = list(x)
    for w, b in layers:
        out = []
        for i in range(len(w)):
            s = b[i]
            for j in range(len(h)):
                s = s + w[i][j] * h[j]
            out.append(s * s)
        h = out
    return sum(h)


def _layers():
    return [([[0.5, -1.0], [2.0, 0.25]], [0.1, 0.2]), ([[1.0, -0.5]], [0.0])]


def test_entries_take_the_checking_path_when_arguments_come_to_share_a_list():
    """After a call with separate lists, x being the first layer's bias: its cotangent is the sum of
    both uses, as the checking path gives it (and as finite differences say)."""
    d = adcompiler.differentiate(network)
    layers = _layers()
    d.grad(layers, [1.0, -1.0])  # the fast entry is made for separate lists
    shared = layers[0][1]
    g_layers, g_x = d.grad(layers, shared)
    fresh = adcompiler.differentiate(network).grad(layers, shared)
    assert g_layers == fresh[0] and g_x == fresh[1]
    eps, k = 1e-6, 1
    up, down = [list(layers[0][0]), list(shared)], [list(layers[0][0]), list(shared)]
    up[1][k] += eps
    down[1][k] -= eps

    def value(bias):
        return network([(layers[0][0], bias), layers[1]], bias)

    fd = (value(up[1]) - value(down[1])) / (2 * eps)
    assert g_layers[0][1][k] + g_x[k] == pytest.approx(fd, rel=1e-6)


def test_jvp_entry_refuses_a_tangent_of_another_structure_as_the_method_does():
    d = adcompiler.differentiate(network)
    layers, x = _layers(), [1.0, -1.0]
    zero = [([[0.0] * len(r) for r in w], [0.0] * len(b)) for w, b in layers]
    d.jvp((layers, x), (zero, [1.0, 0.0]))  # made for these structures
    short = [zero[0], ([[0.0]], [0.0])]  # the second layer's row one short
    with pytest.raises(ValueError, match=r"\[1\]\[0\]\[0\] has 2 elements but the tangent has 1"):
        d.jvp((layers, x), (short, [1.0, 0.0]))
    value, tangent = d.jvp((layers, x), (zero, [1.0, 0.0]))
    eps = 1e-6
    fd = (network(layers, [1.0 + eps, -1.0]) - network(layers, [1.0 - eps, -1.0])) / (2 * eps)
    assert value == network(layers, x) and tangent == pytest.approx(fd, rel=1e-6)
