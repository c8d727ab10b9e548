"""``def f(*xs)`` (issue 18): one derivative per positional argument, as Python passes them; a call of
such a helper inside a differentiated function.  Both modes against central differences and the
dot-product identity, the gradient against autograd, and the Hessian against autograd's."""

import numpy as np
import pytest

import adcompiler
import varargs_funcs as F
from adcompiler.testing.oracle import check_both_modes, leaves

CASES = [
    (F.sum_of_squares, (0.7, -1.3, 2.1)),
    (F.sum_of_squares, (0.7,)),
    (F.weighted, (1.5, 0.7, 1.3, 2.1)),  # positive: its derivative in power reads log(x)
    (F.weighted, (1.5,)),
    (F.first_times_last, (0.7, 1.9, -0.4)),
    (F.calls_a_variadic_helper, (0.7, 1.9)),
    (F.arrays_as_args, (np.array([0.3, -0.5]), np.array([[1.2, 0.1], [0.4, -0.9]]))),
]


def _id(case):
    return f"{case[0].__name__}-{len(case[1])}"


@pytest.mark.parametrize("f, args", CASES, ids=[_id(c) for c in CASES])
def test_both_modes_against_differences(f, args):
    d = adcompiler.differentiate(f)
    check_both_modes(d.fixed(len(args)).fn if hasattr(d, "fixed") else f, args)  # the function as called
    assert np.allclose(leaves(d.grad(*args)), leaves(d.vjp(args, 1.0)[1]), rtol=1e-12)


@pytest.mark.parametrize("f, args", CASES, ids=[_id(c) for c in CASES])
def test_against_autograd(f, args):
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    twin = type(f)(f.__code__, dict(f.__globals__, np=anp), f.__name__)
    twin.__kwdefaults__ = f.__kwdefaults__
    expected = [ag.grad(twin, k)(*args) for k in range(len(args))]
    got = adcompiler.differentiate(f).grad(*args)
    got = got if isinstance(got, tuple) else (got,)
    got = got[: len(args)]  # weighted's keyword-only power comes last
    np.testing.assert_allclose(leaves(got), leaves(expected), rtol=1e-12, atol=1e-14)
    hessian = adcompiler.hessian_matrix(f, wrt=tuple(range(len(args))))(*args)
    expected = ag.hessian(lambda *a: twin(*a))(*args) if len(args) == 1 and np.ndim(args[0]) == 0 else None
    if expected is not None:
        np.testing.assert_allclose(np.ravel(hessian), np.ravel(expected), rtol=1e-12)


def test_the_gradient_has_one_entry_per_argument_passed():
    d = adcompiler.differentiate(F.sum_of_squares)
    assert d.grad(1.0, 2.0, 3.0) == (2.0, 4.0, 6.0)
    assert d.grad(1.5) == 3.0
    assert adcompiler.differentiate(F.weighted, wrt="xs").grad(2.0, 1.0, 3.0) == (4.0, 6.0)
    np.testing.assert_allclose(adcompiler.hessian_matrix(F.sum_of_squares)(1.0, 2.0), 2 * np.eye(2))


def test_entry_points_without_a_number_of_arguments_say_what_to_use():
    with pytest.raises(TypeError, match=r"sum_of_squares takes \*xs: .*fixed\(n\)"):
        adcompiler.differentiate(F.sum_of_squares).hessian  # noqa: B018
    assert adcompiler.hvp(F.sum_of_squares, argnums=(0, 1))((1.0, 2.0), (1.0, 0.0)) == (2.0, 0.0)  # per call
    fixed = adcompiler.differentiate(F.sum_of_squares).fixed(2)
    assert fixed.params == ("xs0", "xs1") and fixed.grad(1.0, 2.0) == (2.0, 4.0)


def test_second_order_against_differences_of_the_gradient():
    args = (1.5, 0.7, 1.3)
    h = adcompiler.hessian_matrix(F.weighted, wrt=(0, 1, 2))(*args)
    cols = []
    for j in range(3):
        grads = []
        for sign in (1, -1):
            moved = list(args)
            moved[j] += sign * 1e-5
            grads.append(np.array(adcompiler.differentiate(F.weighted, wrt=(0, 1, 2)).grad(*moved)))
        cols.append((grads[0] - grads[1]) / 2e-5)
    np.testing.assert_allclose(h, np.array(cols).T, rtol=1e-6, atol=1e-8)
