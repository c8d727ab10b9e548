"""np.pad, casts to float dtypes and np.select beyond their systematic cases: the float32 cast's tangent
and cotangent dtypes (central differences cannot see through a cast to single precision), each
refusal with its location, and Hessians of functions mixing them against differences of the gradient."""

import numpy as np
import pytest

import adcompiler
import pad_select_funcs as F
from adcompiler.errors import UnsupportedSyntaxError
from adcompiler.testing.oracle import check_both_modes

X = np.random.default_rng(11).uniform(-1, 1, (3, 4))


@pytest.mark.parametrize("f, factor", [(F.to_single, 2.0 + 0 * X), (F.to_single_asarray, 2 * X)])
def test_a_cast_to_float32_casts_the_tangent_and_the_cotangent_back(f, factor):
    d, v = adcompiler.differentiate(f), np.random.default_rng(12).uniform(-1, 1, X.shape)
    value, tangent = d.jvp((X,), (v,))
    assert value.dtype == tangent.dtype == np.float32
    np.testing.assert_allclose(tangent, factor * v, rtol=1e-6)
    value, (cotangent,) = d.vjp((X,), v.astype(np.float32))
    assert cotangent.dtype == np.float64
    np.testing.assert_allclose(cotangent, factor * v.astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize(
    "f, message",
    [
        (F.to_int, "a cast to int64"),
        (F.to_int_asarray, "a cast to int64"),
        (F.to_complex, "a cast to complex128"),
        (F.computed_dtype, "a cast to the dtype of another value, here int64"),
        (F.edge_with_values, "mode 'edge' and constant_values"),
        (F.pad_computed_width, "pad_width not one of the constants"),
        (F.pad_wrap, "mode not one of the constants"),
        (F.select_computed, "np.select of computed lists"),
        (F.select_uneven, "np.select of computed lists, or lists of different lengths"),
    ],
)
def test_refused_with_their_location(f, message):
    args = (X, np.arange(3)) if f is F.computed_dtype else (X,)  # (of a float array's dtype: tests/test_dtype_reads.py)
    for mode in ("grad", "jvp"):
        with pytest.raises(UnsupportedSyntaxError, match=message) as info:
            d = adcompiler.differentiate(f)
            d.grad(*args) if mode == "grad" else d.jvp(args, args[:1] + (None,) * (len(args) - 1))
        assert "pad_select_funcs.py" in str(info.value)


@pytest.mark.parametrize("f, args", [(F.pad_loss, (X, 0.4)), (F.select_loss, (X,))])
def test_both_modes_and_second_order(f, args):
    check_both_modes(f, args)
    grad = adcompiler.differentiate(f, wrt=(0,)).grad
    h, cols = 1e-5, []
    for k in range(X.size):
        e = np.zeros(X.size)
        e[k] = h
        plus, minus = (grad(X + s * e.reshape(X.shape), *args[1:]) for s in (1, -1))
        cols.append(((plus - minus) / (2 * h)).ravel())
    np.testing.assert_allclose(adcompiler.hessian_matrix(f, wrt="x")(*args), np.array(cols).T, rtol=1e-5, atol=1e-6)
