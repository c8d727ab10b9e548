"""optimize/known_arrays.py: gradients of NumPy products with an unread product replaced by a
comparison of shapes, ``distinct`` of new arrays dropped, and the outer product with an adjoint of
ones made a repeat.  Each gradient agrees with autograd's (values, dtypes, shapes), with the vjp
of a random cotangent against the jvp (the dot test), and raises the primal's own error where the
shapes do not fit."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
from tests import known_arrays_funcs as K

RNG = np.random.default_rng(7)


def _arr(shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def _autograd(fn):
    """``fn`` reading autograd's NumPy."""
    import types

    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp}, fn.__name__)


def _check(fn, args):
    """``grad`` against autograd's, each cotangent of its primal's type, shape and dtype, and the dot
    test between one jvp and one vjp."""
    d = adcompiler.differentiate(fn)
    for _ in range(2):  # the checking method, then the fast entry
        got = d.grad(*args)
    want = autograd.grad(_autograd(fn), tuple(range(len(args))))(*args)
    for g, w, a in zip(got, want, args):
        assert type(g) is type(a) and np.shape(g) == np.shape(a) and g.dtype == a.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5 if a.dtype == np.float32 else 1e-12, atol=1e-6)
    assert all(got[i] is not got[j] for i in range(len(got)) for j in range(i))
    tangents = tuple(_arr(np.shape(a)).astype(a.dtype) for a in args)
    _, jv = d.jvp(args, tangents)
    _, cts = d.vjp(args, 1.5)
    lhs = 1.5 * float(np.sum(jv))
    rhs = sum(float(np.sum(c * t)) for c, t in zip(cts, tangents))
    assert lhs == pytest.approx(rhs, rel=1e-4, abs=1e-6)
    return d


SHAPES = [((5,), (5,)), ((3, 4), (4,)), ((4,), (4, 3)), ((3, 4), (4, 2)), ((1,), (1,)), ((2, 3, 4), (4,))]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("fn", [K.unread_product, K.sum_dot, K.sum_dot_read_twice, K.scaled_sum_dot])
def test_products_of_every_ndim(fn, shapes):
    _check(fn, tuple(_arr(s) for s in shapes))


@pytest.mark.parametrize("shapes", SHAPES[:5], ids=str)
@pytest.mark.parametrize("fn", [K.unread_matmul, K.sum_matmul])
def test_matmul_of_vectors_and_matrices(fn, shapes):
    _check(fn, tuple(_arr(s) for s in shapes))


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float64), (np.float64, np.float32)])
@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((1, 1), (1,)), ((0, 4), (4,))], ids=str)
def test_adjoint_of_ones_keeps_each_dtype(dtypes, shapes):
    _check(K.sum_dot, tuple(_arr(s, t) for s, t in zip(shapes, dtypes)))


def test_the_same_array_twice_gets_two_cotangents():
    x = _arr((6,))
    d = _check(K.dot, (x, x))
    gx, gy = d.grad(x, x)
    assert gx is not gy and gx is not x and np.array_equal(gx, x) and np.array_equal(gy, x)


@pytest.mark.parametrize(
    "fn, args",
    [
        (K.dot, ((5,), (4,))),
        (K.unread_product, ((3, 4), (3,))),
        (K.unread_product, ((3, 4, 2), (4,))),
        (K.unread_matmul, ((2, 3), (2,))),
        (K.sum_dot, ((3, 4), (5,))),
        (K.sum_vec_mat, ((3,), (4, 2))),
    ],
    ids=lambda x: getattr(x, "__name__", str(x)),
)
def test_shapes_that_do_not_fit_raise_the_primals_error(fn, args):
    good = tuple(_arr(s[:-1] + (s[-1],)) for s in [(3, 4), (4,)]) if fn in (K.unread_product, K.sum_dot) else None
    d = adcompiler.differentiate(fn)
    if good is not None:
        d.grad(*good)
        d.grad(*good)  # the fast entry, specialised on these ndims
    bad = tuple(_arr(s) for s in args)
    with pytest.raises(ValueError) as primal:
        fn(*bad)
    with pytest.raises(ValueError) as derivative:
        d.grad(*bad)
    assert str(derivative.value) == str(primal.value)


def test_a_number_times_an_array_is_not_checked():
    s, v = np.array(2.0), _arr((3,))
    d = _check(K.unread_product, (s, v))
    assert "np.dot" not in d.source("grad").split("def unread_product_grad")[1]


def test_generated_code_reads_as_by_hand():
    """An unread ``np.dot`` is a comparison of lengths; ``distinct`` of copies is gone; the outer
    product with the ones of a sum is a copy of the vector."""
    d = adcompiler.differentiate(K.dot)
    d.grad(_arr((3,)), _arr((3,)))
    body = d.source("grad").split("def dot_grad")[1]
    assert "a.size != b.size" in body and "distinct(" not in body and " = np.dot(" not in body
    d = adcompiler.differentiate(K.sum_dot)
    d.grad(_arr((3, 4)), _arr((4,)))
    body = d.source("grad").split("def sum_dot_grad")[1]
    assert "np.outer" not in body and "np.broadcast_to(v, (d_t1.size, v.shape[0]))" in body
    d = adcompiler.differentiate(K.sum_dot)
    d.grad(_arr((3, 4)), _arr((4,), np.float32))  # a float32 vector: the product promotes, so it stays
    assert "np.broadcast_to" not in d.source("grad").split("def sum_dot_grad")[1]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "shapes", [((), ()), ((1,), (1,)), ((5,), (5,)), ((2, 3), (3,)), ((2, 1, 3), (2, 3, 3))], ids=str
)
def test_reductions_as_methods(shapes, dtype):
    """``np.sum(x)``, ``np.max(x)``, ``np.min(x)`` of arrays as ``x.sum()``, ``x.max()``, ``x.min()``: the
    gradient against autograd's (a tie-free max), and an empty array raising the primal's error."""
    args = tuple(_arr(s, dtype) for s in shapes)
    d = _check(K.reductions, args)
    body = d.source("grad").split("def reductions_grad")[1]
    body = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))  # (the user's lines)
    assert "x.max()" in body and "np.max(" not in body and "np.sum(" not in body
    forward = d.source("forward").split("def reductions_forward")[1]  # every kind of code, expressions too
    assert "(x * y).sum()" in forward and "t3 = x.max()" in forward
    for fn in (adcompiler.differentiate(K.reductions).grad, K.reductions):
        with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
            fn(np.zeros((0,), dtype), np.ones(1, dtype))
