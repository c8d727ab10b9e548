"""Lists and tuples of NumPy arrays (a network's ``[(W1, b1), (W2, b2)]``) in reverse mode: the fast
entry's written structure test (``analysis.holds``), the cotangents made arrays of their leaves' shapes
and dtypes (``modes.structures.like``), adjoints stored into the shadow's elements (``modes.owned``) and
sums to a number (``sum_all``).  Gradients against autograd and forward mode (the dot test), for lists
of other lengths, float32, 0-d and (1,) arrays, one array passed twice, and one Differentiable called
with each of these in turn."""

import types

import numpy as np
import pytest

import adcompiler
import array_list_funcs as F
from adcompiler.analysis.holds import written_test
from adcompiler.analysis.values import describe

agnp = pytest.importorskip("autograd.numpy")
autograd = pytest.importorskip("autograd")

RNG = np.random.default_rng(7)


def _layers(sizes, dtype=np.float64, kind=tuple):
    """Layers of the given sizes (in -> ... -> out): W of (out, in), b of (out,)."""
    return [
        kind((RNG.standard_normal((m, n)).astype(dtype), RNG.standard_normal(m).astype(dtype)))
        for n, m in zip(sizes, sizes[1:])
    ]


def _on_autograd(fn):
    """``fn`` with ``np`` (and ``forward``) read as autograd's."""
    space = {**F.__dict__, "np": agnp}
    space["forward"] = types.FunctionType(F.forward.__code__, space)
    return types.FunctionType(fn.__code__, space)


def _oracle(fn, *args):
    """autograd's gradient in every argument, computed in float64."""
    wide = [_as64(a) for a in args]
    return autograd.grad(_on_autograd(fn), tuple(range(len(args))))(*wide)


def _as64(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree)(_as64(t) for t in tree)
    return np.asarray(tree, dtype=np.float64)


def _leaves(tree) -> list:
    if isinstance(tree, (list, tuple)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [tree]


def _structure(tree):
    """Types, shapes and dtypes of a nested value: a cotangent has its primal's (floating dtypes)."""
    if isinstance(tree, (list, tuple)):
        return (type(tree).__name__, tuple(_structure(t) for t in tree))
    return (np.shape(tree), np.asarray(tree).dtype.name)


def _random_like(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree)(_random_like(t) for t in tree)
    return RNG.standard_normal(np.shape(tree)).astype(np.asarray(tree).dtype)


def _check(d, fn, *args, rtol=1e-10):
    """The gradient of ``fn`` at ``args`` (through ``d``, a Differentiable of it): autograd's, in its
    arguments' structure and dtypes, and forward mode's along a random direction (<grad, v>)."""
    got = d.grad(*args)
    got = got if isinstance(got, tuple) else (got,)
    assert _structure(got) == _structure(args)
    want = _oracle(fn, *args)
    for g, w in zip(_leaves(got), _leaves(want)):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
    v = tuple(_random_like(a) for a in args)
    _, tangent = d.jvp(args, v)
    dot = sum(float(np.sum(np.asarray(g, dtype=float) * t)) for g, t in zip(_leaves(got), _leaves(v)))
    assert float(tangent) == pytest.approx(dot, rel=max(rtol, 1e-9), abs=1e-9)


NETWORKS = {
    "two layers": (_layers([4, 6, 3]), RNG.standard_normal(4)),
    "one layer": (_layers([3, 2]), RNG.standard_normal(3)),
    "three layers": (_layers([3, 5, 4, 2]), RNG.standard_normal(3)),
    "lists as layers": (_layers([4, 6, 3], kind=list), RNG.standard_normal(4)),
    "(1,) arrays": (_layers([1, 1, 1]), RNG.standard_normal(1)),
}
SAME = _layers([3, 3])[0]
NETWORKS["one layer twice"] = ([SAME, SAME], RNG.standard_normal(3))
NETWORKS["0-d biases"] = (
    [(RNG.standard_normal((3, 3)), np.array(0.3)), (RNG.standard_normal((2, 3)), np.array(-0.2))],
    RNG.standard_normal(3),
)


@pytest.mark.parametrize("name", list(NETWORKS))
def test_network_gradient(name):
    layers, x = NETWORKS[name]
    _check(adcompiler.differentiate(F.network), F.network, layers, x)


def test_float32_layers_get_float32_cotangents():
    layers, x = _layers([4, 6, 3], np.float32), RNG.standard_normal(4).astype(np.float32)
    got = adcompiler.differentiate(F.network).grad(layers, x)
    assert _structure(got) == _structure((layers, x))
    for g, w in zip(_leaves(got), _leaves(_oracle(F.network, layers, x))):
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4)


def test_one_differentiable_called_with_every_kind_of_list_in_turn():
    """The fast entry made for the first call's structure hands every other one to the checking path."""
    d = adcompiler.differentiate(F.network)
    for name in [*NETWORKS, *NETWORKS]:
        layers, x = NETWORKS[name]
        _check(d, F.network, layers, x)
    assert "grad" in vars(d)  # the fast entry answered some of them


def test_an_adjoint_reaching_two_elements_gives_each_its_own_array():
    pair, x = (RNG.standard_normal(4), RNG.standard_normal(4)), RNG.standard_normal(4)
    d = adcompiler.differentiate(F.summed)
    _check(d, F.summed, pair, x)
    (da, db), _ = d.grad(pair, x)
    assert da is not db
    da += 1.0  # the cotangents are the caller's: changing one leaves the other as it was
    np.testing.assert_array_equal(db, x)


def test_an_element_read_in_every_iteration_adds_up():
    pair, x = [RNG.standard_normal(3), RNG.standard_normal(2)], RNG.standard_normal(4)
    d = adcompiler.differentiate(F.read_often)
    _check(d, F.read_often, pair, x)
    assert "add_new" in str(d.source("grad"))  # its first adjoint stored, the later ones added in place


def test_network_gradient_with_arrays_any():
    pytest.importorskip("array_api_compat", reason='arrays="any" needs the [arrays] extra')
    layers, x = NETWORKS["two layers"]
    want = adcompiler.differentiate(F.network).grad(layers, x)
    got = adcompiler.differentiate(F.network, arrays="any").grad(layers, x)
    assert _structure(got) == _structure(want)
    for g, w in zip(_leaves(got), _leaves(want)):
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_number_times_an_array_summed(dtype):
    """a's cotangent is what numpy.sum gives, as a float (a float64): a is a Python float, whatever the
    dtype of the array it multiplies (a float32 cotangent for it was issue 32's item 9)."""
    x = RNG.standard_normal(5).astype(dtype)
    ga, gx = adcompiler.differentiate(F.scaled).grad(0.5, x)
    want = np.sum(np.ones(5, dtype) * x)
    assert isinstance(ga, float) and np.asarray(ga).dtype == np.float64 and ga == float(want)
    assert gx.dtype == dtype and np.all(gx == np.float32(0.5).astype(dtype))


# ---- the written structure test ---------------------------------------------------------------------

W, B = RNG.standard_normal((3, 2)), RNG.standard_normal(3)
VALUES = [
    [(W, B)],
    [(W, B), (W, B)],
    [(W, B), (W.astype(np.float32), B)],
    [(W.astype(np.float32), B.astype(np.float32))],
    [(W, B, W)],
    [[W, B]],
    [[W, B], [W, B]],
    ((W, B),),
    [(W[0], B)],
    [(B, W)],
    [(np.float64(1.0), B)],
    [(1.0, B)],
    [(W.T, B)],
    [(W.astype(">f8"), B)],  # BYTE_SWAPPED
    [(np.array(1.0), B)],
    [(W, B[:1])],
    [W, B],
    [W, W],
    [B],
    [],
    [[]],
    [[(W, B)]],
    [(W, B), [W, B]],
    [(W, B)] * 20,
    [(W, B)] * 19 + [(B, W)],
    [(W.astype(int), B)],
    [(W, [1.0, 2.0])],
    [1.0, 2.0],
    ({"w": W},),
]

BYTE_SWAPPED = 13


@pytest.mark.parametrize("k", range(len(VALUES)))
def test_written_test_says_yes_only_where_describe_agrees(k):
    """For the abstract value of each value, its written test (where there is one) holds for that
    value and for no other value whose abstract value differs."""
    aval = describe(VALUES[k])
    holds = written_test(aval)
    if holds is None:
        return
    assert holds(VALUES[k]) or k == BYTE_SWAPPED  # (its dtype is float64, but not the one the test names)
    for other in VALUES:
        if holds(other):
            assert describe(other) == aval, (holds.text, other)


def test_written_tests_are_made_for_lists_and_tuples_of_arrays_only():
    assert written_test(describe(VALUES[0])) is not None
    assert written_test(describe(VALUES[16])) is not None  # [W, B]: a list used as a record
    for value in ([(W, 1.0)], ({"w": W},), [[]], [(W, B)] * 19 + [(B, W)]):
        assert written_test(describe(value)) is None
    rows = written_test(describe([[1.0, 2.0], [3.0]]))  # rows of floats: each row's types counted at C speed
    for value in ([[1.0, 2.0], [3.0]], [[0.5]], [[1.0], []], [[1.0, 2]], [(1.0,)], [], [[1.0], [True]], ([1.0],)):
        assert rows(value) is False or describe(value) == describe([[1.0]])
    assert rows([[0.5]]) and not rows([[1.0], []]) and not rows([[1.0, 2]]) and not rows(([1.0],))


@pytest.mark.parametrize("fn", [F.first_of_pair, F.second_of_pair, F.matmul_network])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_matrix_times_a_vector(fn, dtype):
    """W's cotangent g_i v_j: g[:, None] * v where g is surely an array, np.outer where it may be 0.0."""
    W, v = RNG.standard_normal((4, 3)).astype(dtype), RNG.standard_normal(3).astype(dtype)
    got = adcompiler.differentiate(fn).grad(W, v)
    assert _structure(got) == _structure((W, v))
    for g, w in zip(got, _oracle(fn, W, v)):
        np.testing.assert_allclose(g, w, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)
    if dtype == np.float64:
        _check(adcompiler.differentiate(fn), fn, W, v)
