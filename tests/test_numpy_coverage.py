"""The NumPy added for autograd's test functions, end to end: what each returns is the kind of value
NumPy returns (a Python float, a NumPy scalar, a 0-d or n-d array) in both modes, what stays refused
says where and why, and sequences built at run time are joined right in both modes and at second order
(against autograd and central differences)."""

import numpy as np
import pytest

import adcompiler
import coverage_funcs as F
from adcompiler.testing.oracle import check_both_modes

KINDS = [0.7, np.float64(0.7), np.array(0.7), np.array([0.7, -1.2])]


@pytest.mark.parametrize("x", KINDS, ids=["float", "float64", "0-d", "1-d"])
@pytest.mark.parametrize("fn", [F.real_parts, F.imag_part, F.conj_part], ids=lambda f: f.__name__)
def test_complex_parts_keep_the_kind_of_value(fn, x):
    d = adcompiler.differentiate(fn)
    value, tangent = d.jvp((x,), (np.ones_like(x) if isinstance(x, np.ndarray) else 1.0,))
    assert np.shape(value) == np.shape(fn(x)) and np.shape(tangent) == np.shape(value)
    value, (cotangent,) = d.vjp((x,), np.ones_like(fn(x)) if isinstance(fn(x), np.ndarray) else 1.0)
    assert np.shape(cotangent) == np.shape(x)
    assert isinstance(cotangent, np.ndarray) == isinstance(x, np.ndarray)
    slope = {"real_parts": 1.0, "imag_part": 0.0, "conj_part": 2.0}[fn.__name__]
    np.testing.assert_allclose(cotangent, slope * np.ones_like(x))


@pytest.mark.parametrize(
    "fn, args, words",
    [
        (F.flip_then_write, (np.arange(1.0, 4.0),), ["view", "line"]),
        (F.real_of_complex, (np.ones(2),), ["np.real of a complex value"]),
        (F.eig_values, (np.eye(2),), ["np.linalg.eig", "complex", "eigh"]),
        (F.r_directive, (np.ones(2),), ["np.r_ with the directive"]),
        (F.einsum_computed, (np.ones(2), "i->"), ["computed subscripts"]),
    ],
    ids=["flip-view", "complex", "eig", "r_-directive", "einsum-computed"],
)
def test_refused_with_a_location(fn, args, words):
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        adcompiler.differentiate(fn, wrt=(0,)).vjp(args, 1.0)
    message = str(info.value)
    assert "coverage_funcs.py" in message
    for word in words:
        assert word in message


def test_a_list_built_in_a_loop_then_stacked():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    xs, w = [np.array([0.3, -0.5]), np.array([1.1, 0.2])], 0.8
    check_both_modes(F.stack_in_loop, (xs, w))

    def twin(w):
        return anp.sum(anp.vstack([anp.tanh(w * x) for x in xs]) ** 2)

    np.testing.assert_allclose(adcompiler.differentiate(F.stack_in_loop, wrt=("w",)).grad(xs, w), ag.grad(twin)(w))
    np.testing.assert_allclose(adcompiler.hessian_matrix(F.stack_in_loop, wrt="w")(xs, w), ag.hessian(twin)(w))


@pytest.mark.parametrize("container", [list, tuple])
def test_a_sequence_parameter_gets_a_sequence_cotangent(container):
    xs = container([np.array([[0.3, -0.5]]), np.array([[1.1, 0.2]], dtype=np.float32)])
    d = adcompiler.differentiate(F.stack_parameter)
    value, (cts,) = d.vjp((xs,), np.ones((1, 2, 2)))
    assert type(cts) is container and len(cts) == 2
    assert [c.shape for c in cts] == [(1, 2), (1, 2)] and cts[1].dtype == np.float32
    np.testing.assert_allclose(cts[0], 3.0 * np.ones((1, 2)))
    check_both_modes(F.stack_parameter, (xs,))


def test_partition_follows_the_entries_it_moves():
    x = np.array([0.5, -1.0, 2.0, 0.1, -0.3])
    (ct,) = adcompiler.differentiate(F.partition_weighted).vjp((x,), np.ones(5))[1]
    z = np.partition(x, 2)
    expected = np.zeros(5)
    for k, v in enumerate(z):  # the entry of x at each place of the result gets that place's weight
        expected[np.flatnonzero(x == v)[0]] = k + 1.0
    np.testing.assert_allclose(ct, expected)


def test_a_list_changed_after_its_join():
    a, b = np.array([0.3, 0.4]), np.array([1.0, -2.0])
    check_both_modes(F.stack_then_grow, (a, b))
    da, db = adcompiler.differentiate(F.stack_then_grow).vjp((a, b), 1.0)[1]
    np.testing.assert_allclose(da, 2 * a)
    np.testing.assert_allclose(db, 10 * b)  # sum((2 b)^2) + sum(b^2)


def test_a_list_of_lists_of_numbers_joined():
    check_both_modes(F.vstack_nested, ([[0.5, 1.5], [2.0, 3.0]],))
    cts = adcompiler.differentiate(F.vstack_nested).vjp(([[0.5, 1.5], [2.0, 3.0]],), np.ones((2, 2)))[1][0]
    assert cts == [[1.0, 3.0], [4.0, 6.0]]


def test_add_at_into_a_parameter_is_refused_with_its_location():
    """np.add.at writes in place: into an array parameter it is refused like any write (copy it first)."""
    import adcompiler
    from adcompiler.errors import UnsupportedSyntaxError

    with pytest.raises(UnsupportedSyntaxError, match="coverage_funcs.py"):
        adcompiler.differentiate(F.add_at_parameter).grad(np.ones(3), 0.5)


def test_cotangent_of_a_float_through_numpy_is_a_number():
    """np.array(x) of a float x: the output is a 0-d array, the cotangent of x a number (not a 0-d array)."""
    import adcompiler

    _, (ct,) = adcompiler.differentiate(F.array_of_float).vjp((0.7,), np.array(2.0))
    assert np.ndim(ct) == 0 and not isinstance(ct, np.ndarray) and ct == 2.0
