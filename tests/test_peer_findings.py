"""Regressions found by running the test functions of autograd's and Tangent's suites through adcompiler:
a keepdims reduction's tangent shape, Hessians of NumPy calls on numbers, np.linalg.norm of a list,
and a number's cotangent through NumPy reductions.  References: analytic derivatives; forward mode
checked against reverse mode."""

import math

import numpy as np
import pytest

import adcompiler
import peer_findings_funcs as P


@pytest.mark.parametrize("f, pick", [(P.max_keepdims, np.argmax), (P.min_keepdims, np.argmin)])
@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 1, 3)])
def test_keepdims_reduction_tangent_has_the_output_shape(f, pick, shape):
    rng = np.random.default_rng(len(shape))
    x, v = rng.standard_normal(shape), rng.standard_normal(shape)
    value, tangent = adcompiler.differentiate(f).jvp((x,), (v,))
    assert np.shape(tangent) == np.shape(value) == (1,) * len(shape)
    np.testing.assert_allclose(np.ravel(tangent), [v.ravel()[pick(x)]], rtol=1e-15)
    _, (ct,) = adcompiler.differentiate(f).vjp((x,), np.ones((1,) * len(shape)))
    assert ct.shape == x.shape and float(np.sum(ct * v)) == pytest.approx(float(np.ravel(tangent)[0]), rel=1e-14)


@pytest.mark.parametrize("f", [P.dot_numbers, P.inner_numbers])
def test_hessian_of_a_numpy_product_of_numbers(f):
    np.testing.assert_array_equal(adcompiler.hessian_matrix(f)(1.5, 0.3), [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(adcompiler.jacobian(f)(1.5, 0.3), [[0.3, 1.5]])


def test_a_numbers_cotangent_through_a_reduction_is_a_number():
    for f in (P.sum_of_number, P.prod_of_number):
        g = adcompiler.differentiate(f).grad(0.7)
        assert not isinstance(g, np.ndarray) and g == 1.0
    assert adcompiler.hessian_matrix(P.prod_of_number)(0.7).tolist() == [[0.0]]


def test_norm_of_a_list_and_of_a_tuple():
    x = 0.7
    expected = (2 * x + 2) / math.hypot(x, x + 2.0)
    d = adcompiler.differentiate(P.norm_of_list)
    assert d.grad(x) == pytest.approx(expected, rel=1e-14)
    assert d.jvp((x,), (1.0,))[1] == pytest.approx(expected, rel=1e-14)
    x, y = 0.7, -1.3
    r = math.hypot(x * y, y)
    expected = (x * y * y / r, (x * y * x + y) / r)
    t = adcompiler.differentiate(P.norm_of_tuple)
    assert t.grad(x, y) == pytest.approx(expected, rel=1e-14)
    assert t.jvp((x, y), (0.5, 2.0))[1] == pytest.approx(0.5 * expected[0] + 2.0 * expected[1], rel=1e-14)


# ---- second order: what the test suites differentiate twice


def test_hessian_of_a_tuple_parameter():
    a, b, c = 0.5, 1.5, -1.0
    expected = [[0.0, 1.0, 2 * c], [1.0, 0.0, 0.0], [2 * c, 0.0, 2 * a]]
    np.testing.assert_allclose(adcompiler.hessian_matrix(P.tuple_parameter)((a, b, c)), expected, rtol=1e-14)
    _, (ct,) = adcompiler.differentiate(P.tuple_parameter).vjp(((a, b, c),), 1.0)
    assert type(ct) is tuple and ct == pytest.approx((b + c * c, a, 2 * c * a), rel=1e-14)


def test_hessian_through_writes_into_a_local_array():
    x = np.array([0.3, -1.2, 2.0, 0.7])
    n = len(x)
    expected = np.zeros((n, n))
    for i in range(n):  # f = sum_i sin(x_i x_j), j = i + 1 mod n
        j = (i + 1) % n
        u = x[i] * x[j]
        du = np.zeros(n)
        du[i], du[j] = x[j], x[i]
        expected += -np.sin(u) * np.outer(du, du)
        expected[i, j] += np.cos(u)
        expected[j, i] += np.cos(u)
    np.testing.assert_allclose(adcompiler.hessian_matrix(P.fill_in_a_loop)(x), expected, rtol=1e-12, atol=1e-14)
    v = np.array([1.0, -0.5, 0.25, 2.0])
    np.testing.assert_allclose(adcompiler.hvp(P.fill_in_a_loop)(x, v), expected @ v, rtol=1e-12, atol=1e-14)


def test_hessian_of_a_mean_of_a_tuple():
    assert adcompiler.hessian_matrix(P.mean_of_a_tuple)(0.7).tolist() == [[1.0]]  # (x^2 + x + 2) / 2


def test_newaxis_and_ellipsis_indexing_against_autograd():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def twin(x, y):
        a = x[..., 0] * y[None, :]
        return anp.sum(a * a) + anp.sum(anp.sin(x[:, None, :] * x[None])) + anp.sum(x[..., 1:][0] ** 3)

    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((3, 2)), rng.standard_normal(3)
    d = adcompiler.differentiate(P.newaxis_and_ellipsis)
    for got, want in zip(d.grad(x, y), autograd.grad(twin, (0, 1))(x, y)):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    v = (rng.standard_normal((3, 2)), rng.standard_normal(3))
    _, tangent = d.jvp((x, y), v)
    assert tangent == pytest.approx(sum(float(np.sum(g * t)) for g, t in zip(d.grad(x, y), v)), rel=1e-12)
    hessian = adcompiler.hessian_matrix(P.newaxis_and_ellipsis, wrt=("x",))(x, y)
    np.testing.assert_allclose(hessian, autograd.hessian(lambda x: twin(x, y))(x).reshape(6, 6), rtol=1e-12, atol=1e-14)


def test_std_where_every_entry_is_equal_has_derivative_zero():
    """np.std of one entry (or of equal entries) is 0 and, like the norm at the zero vector, gets
    derivative 0 in both modes, not 0 / 0 (autograd's test_std, found by running its suite)."""
    for x in (3.5, np.array([0.7]), np.array([[0.3, -1.2, 2.0]])):
        fn = P.std_of if np.ndim(x) < 2 else P.std_rows
        d = adcompiler.differentiate(fn)
        _, tangent = d.jvp((x,), (np.ones_like(x) if np.ndim(x) else 1.0,))
        _, (ct,) = d.vjp((x,), 1.0)
        assert tangent == 0.0 and np.all(np.asarray(ct) == 0.0) and np.shape(ct) == np.shape(x)
    x = np.array([0.3, -1.2, 2.0])  # away from 0 the rule is the usual one
    g = adcompiler.differentiate(P.std_of).grad(x)
    np.testing.assert_allclose(g, (x - x.mean()) / (x.size * np.std(x)), rtol=1e-12)


def test_python_sum_of_a_number_and_arrays():
    """Each element of the summed list gets the cotangent summed to its own shape (c's came back as
    an array before)."""
    A = np.arange(6.0).reshape(3, 2)
    d = adcompiler.differentiate(P.number_and_rows)
    gc, gA = d.grad(1.5, A)
    assert np.ndim(gc) == 0 and gc == pytest.approx(-1.0)
    np.testing.assert_allclose(gA, [[1.0, -2.0], [1.0, -2.0], [0.0, 0.0]])
    _, tangent = d.jvp((1.5, A), (1.0, np.zeros_like(A)))
    assert tangent == pytest.approx(-1.0)


def test_list_of_an_arrays_rows_is_refused_in_both_modes():
    A = np.arange(6.0).reshape(3, 2)
    d = adcompiler.differentiate(P.rows_as_a_list)
    for call in (lambda: d.grad(A), lambda: d.jvp((A,), (np.ones_like(A),))):
        with pytest.raises(adcompiler.UnsupportedSyntaxError, match=r"peer_findings_funcs.py:\d+:\d+: list\(A\)"):
            call()


def test_tuple_of_a_tuple_display_is_the_tuple():
    d = adcompiler.differentiate(P.tuple_of_a_tuple)
    x, y = 0.7, -1.3
    want = (y * (math.sin(x) + y) + x * y * math.cos(x), x * (math.sin(x) + y) + x * y)
    assert d.grad(x, y) == pytest.approx(want, rel=1e-12)
    assert d.jvp((x, y), (1.0, 0.0))[1] == pytest.approx(want[0], rel=1e-12)
