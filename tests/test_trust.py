"""The trust issue's findings, each a regression test: reverse mode once returned wrong numbers,
shapes or dtypes (or raised inside generated code) on these.  Each is checked in both modes against
central finite differences, the dot-product identity and its primal's structure (adcompiler.testing.oracle),
and where it says so against autograd or a derivative worked out by hand."""

import math
import types

import numpy as np
import pytest

import adcompiler
import trust_funcs as T
from adcompiler.testing.oracle import check_both_modes, leaves

RNG = np.random.default_rng(15)


def r(*shape, dtype=float):
    return RNG.normal(size=shape).astype(dtype)


def autograd_gradient(f, args, argnum):
    """autograd's gradient of the same source with ``np`` bound to autograd.numpy."""
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    g = dict(f.__globals__, np=anp)
    twin = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__)
    return ag.grad(twin, argnum)(*args)


def assert_close(a, b, rtol=1e-9):
    np.testing.assert_allclose(leaves(a), leaves(b), rtol=rtol, atol=1e-12)


# ---- 1 and 8: lists and tuples of arrays handed to helpers ------------------------------------

LAYERS = [(r(3, 2), r(3)), (r(2, 3), r(2))]


@pytest.mark.parametrize("f", [T.net_helper, T.net_inline])
def test_layers_of_arrays_in_a_helper(f):
    d = check_both_modes(f, (LAYERS, r(2)))
    g = d.grad(LAYERS, r(2))[0]
    assert [tuple(np.shape(p) for p in layer) for layer in g] == [((3, 2), (3,)), ((2, 3), (2,))]


def test_table_1_network_with_helpers_against_autograd():
    layers = [(r(5, 4), r(5)), (r(3, 5), r(3))]
    x, w = r(4), r(3)
    got = adcompiler.differentiate(T.neural_np_helper, wrt="layers").grad(layers, x, w)
    assert_close(got, autograd_gradient(T.neural_np_helper, (layers, x, w), 0))
    check_both_modes(T.neural_np_helper, (layers, x, w))


def test_array_in_a_flat_list_broadcast_in_a_helper():
    bs, h = [np.array([0.1, 0.2])], np.arange(6.0).reshape(3, 2)
    g = adcompiler.differentiate(T.flat_list_broadcast, wrt="bs").grad(bs, h)
    assert_close(g, [2 * np.sum(h + bs[0], axis=0)])  # by hand: d/db sum((h + b)^2) = 2 sum over rows
    assert g[0].shape == (2,)
    check_both_modes(T.flat_list_broadcast, (bs, h))


@pytest.mark.parametrize(
    "f, args",
    [
        (T.tuple_of_arrays, ((r(3), 1.5, r(2, 3)), r(2, 3))),
        (T.tuple_of_arrays, ((r(1), 0.5, r(1)), r(4, 1))),
        (T.two_levels, ([(r(3, 2), (r(3),)), (r(2, 3), (r(2),))], r(2))),
        (T.mixed_list, ([r(2), r(3, 2), 1.5], r(3, 2))),
        (T.mixed_list, ([np.float64(2.0), r(), 0.5], r(2))),
    ],
)
def test_heterogeneous_structures_through_helpers(f, args):
    check_both_modes(f, args)


# ---- 2: list slices -----------------------------------------------------------------------------


def test_slice_of_a_list_literal():
    assert adcompiler.differentiate(T.slice_tail).grad(1.5) == pytest.approx(18.0)  # 6x^2 -> 12x


@pytest.mark.parametrize(
    "f, args",
    [
        (T.slice_tail, (1.5,)),
        (T.sum_of_tail, ([1.0, 2.0, 3.0],)),
        (T.reversed_slice, ([1.0, 2.0, 3.0],)),
        (T.stepped_slices, ([0.5, 1.5, -2.0, 0.25, 3.0, 1.25],)),
        (T.slice_then_write, ([0.5, 1.5, -2.0],)),
        (T.slice_to_helper, ([0.5, 1.5, -2.0, 0.75],)),
        (T.slices_of_rows, ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.5]],)),
        (T.slice_of_arrays, ([r(2), r(2), r(2)],)),
    ],
)
def test_list_slices(f, args):
    check_both_modes(f, args)


def test_sum_of_a_slice_by_hand():
    assert adcompiler.differentiate(T.sum_of_tail).grad([1.0, 2.0, 3.0]) == [0.0, 1.0, 1.0]
    assert adcompiler.differentiate(T.reversed_slice).grad([1.0, 2.0, 3.0]) == [2.0, 1.0, 2.0]  # 2 x2 + x1 x0


# ---- 3: the same list passed twice ------------------------------------------------------------


def test_same_list_written_and_read_by_a_helper():
    assert adcompiler.differentiate(T.same_list_twice).grad([1.0, 2.0], 1.5) == ([1.5, 1.5], pytest.approx(3.0))
    check_both_modes(T.same_list_twice, ([1.0, 2.0, -0.5], 1.5))
    check_both_modes(T.same_list_shifted, ([1.0, 2.0, -0.5, 0.25],))


def test_same_list_passed_twice_to_the_function():
    xs = [1.0, 2.0, 3.0]
    d = adcompiler.differentiate(T.reads_twice)
    assert d.grad(xs, xs) == ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])  # each partial, the other fixed
    check_both_modes(T.reads_twice, ([1.0, 2.0], [3.0, 4.0]))
    with pytest.raises(ValueError, match="share a list"):
        adcompiler.differentiate(T.writes_one).grad(xs, xs)


def test_same_array_passed_twice():
    a = r(3)
    gx, gy = adcompiler.differentiate(T.same_array_twice).grad(a, a)
    assert_close(gx, a + np.cos(a))
    assert_close(gy, a)


# ---- 4 and 5: products of every ndim ----------------------------------------------------------

MATMUL = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 2), (2, 3), (3, 3)]
SHAPES = {
    "a": {0: (), 1: (3,), 2: (2, 3), 3: (2, 2, 3)},
    "b_matmul": {1: (3,), 2: (3, 4), 3: (2, 3, 4)},
    "b_dot": {0: (), 1: (3,), 2: (3, 4), 3: (2, 3, 4)},
    "b_inner": {0: (), 1: (3,), 2: (4, 3), 3: (2, 4, 3)},
}


@pytest.mark.parametrize("na, nb", MATMUL)
@pytest.mark.parametrize("f", [T.matmul_op, T.matmul_fn])
def test_matmul_of_every_ndim(f, na, nb):
    a, b = r(*SHAPES["a"][na]), r(*SHAPES["b_matmul"][nb])
    check_both_modes(f, (a, b))
    assert_close(adcompiler.differentiate(f).grad(a, b), [autograd_gradient(f, (a, b), k) for k in (0, 1)])


@pytest.mark.parametrize("na, nb", [(i, j) for i in range(4) for j in range(4)])
def test_dot_of_every_ndim(na, nb):
    a, b = r(*SHAPES["a"][na]), r(*SHAPES["b_dot"][nb])
    check_both_modes(T.dot_fn, (a, b) if na or nb else (float(a), float(b)))


@pytest.mark.parametrize("na, nb", [(i, j) for i in range(4) for j in range(4)])
def test_inner_of_every_ndim(na, nb):
    a = 1.5 if na == 0 else r(*SHAPES["a"][na])
    b = r(*SHAPES["b_inner"][nb]) if nb else 0.5
    check_both_modes(T.inner_fn, (a, b))


def test_inner_of_a_number_keeps_a_number_cotangent():
    g = adcompiler.differentiate(T.inner_fn).grad(1.5, np.array([1.0, 2.0]))
    assert np.ndim(g[0]) == 0 and g[1].shape == (2,)


# ---- 6: linspace ------------------------------------------------------------------------------


def test_linspace_endpoints_by_hand():
    gx, gy = adcompiler.differentiate(T.linspace_ends).grad(1.0, 2.0)
    assert (gx, gy) == (pytest.approx(6.25), pytest.approx(8.75))  # sum 2 v_k (1 - t_k), sum 2 v_k t_k


@pytest.mark.parametrize(
    "f, args", [(T.linspace_ends, (1.0, 2.0)), (T.linspace_open, (0.5, -1.5)), (T.linspace_arrays, (r(2), r(2)))]
)
def test_linspace(f, args):
    check_both_modes(f, args)


# ---- 7: what crashed ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "f, args",
    [
        (T.mod_both, (5.3, 3.1)),
        (T.sum_of_list, (r(2),)),
        (T.concat, (2.0,)),
        (T.concat_lists, ([1.0, 2.0], [0.5, -1.5, 3.0])),
        (T.times, ([1.0, 2.0],)),
        (T.returns_argument, ([1.0, 2.0],)),
        (T.array_read_twice, (1.0,)),
        (T.einsum_ellipsis, (r(2, 2, 3), r(2, 3, 2))),
        (T.einsum_trace, (r(3, 3),)),
        (T.einsum_implicit, (r(2, 3), r(3, 4))),
        (T.row_stack, (r(2), r(2))),
    ],
)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # np.row_stack
def test_what_crashed(f, args):
    check_both_modes(f, args)


def test_power_with_exponent_zero_at_zero():
    g = adcompiler.differentiate(T.power_zero).grad(np.array([0.0, 1.0]))
    assert_close(g, [1.0, 1.0])  # d/dx (x**0 * x) = 1, with no 0 * inf
    assert adcompiler.differentiate(T.pow_zero).grad(0.0) == pytest.approx(1.0)


def test_hessian_through_recursion_with_an_int_argument():
    assert adcompiler.hessian_matrix(T.power_by_recursion, wrt="x")(1.5, 3)[0, 0] == pytest.approx(9.0)


def test_hessian_of_a_function_linear_in_a_list():
    np.testing.assert_array_equal(adcompiler.hessian_matrix(T.linear_in_list)([1.0, 2.0, 3.0]), np.zeros((3, 3)))


@pytest.mark.parametrize("n", [2, 3])
def test_hessian_of_a_recursive_determinant_against_autograd(n):
    ag, anp = pytest.importorskip("autograd"), pytest.importorskip("autograd.numpy")
    m = r(n, n)
    expected = ag.hessian(lambda a: anp.linalg.det(a))(m).reshape(n * n, n * n)
    np.testing.assert_allclose(adcompiler.hessian_matrix(T.determinant)(m.tolist()), expected, atol=1e-10)
    check_both_modes(T.determinant, (m.tolist(),))


# ---- 9: NumPy's write semantics -----------------------------------------------------------------


def test_assignment_with_repeated_indices_keeps_the_last_write():
    assert_close(adcompiler.differentiate(T.write_repeated).grad(np.array([1.0, 2.0])), [0.0, 2.0])
    check_both_modes(T.write_repeated, (np.array([1.0, 2.0]),))


def test_add_with_repeated_indices_applies_once():
    assert_close(adcompiler.differentiate(T.add_repeated).grad(np.array([1.0, 2.0])), [0.0, 4.0])
    check_both_modes(T.add_repeated, (np.array([1.0, 2.0]),))


def test_read_with_repeated_indices_accumulates():
    assert_close(adcompiler.differentiate(T.read_repeated).grad(np.array([1.0, 2.0, 3.0])), [4.0, 0.0, 6.0])


# ---- 10 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "f, args",
    [
        (T.cumsum_flat, (r(2, 3),)),
        (T.cumsum_reused, (r(2, 3),)),
        (T.full_fill, (2.0,)),
        (T.full_like_fill, (r(3), 0.5)),
        (T.builtin_sum_of_array, (r(3),)),
        (T.builtin_sum_of_rows, (r(2, 3),)),
        (T.clip_upper, (np.array([0.2, 0.9, -0.3]),)),
        (T.clip_lower, (np.array([0.2, 0.9, -0.3]),)),
    ],
)
def test_numpy_rules(f, args):
    check_both_modes(f, args)


def test_full_fill_value_by_hand():
    assert adcompiler.differentiate(T.full_fill).grad(2.0) == pytest.approx(16.0)  # 6 s + 4


@pytest.mark.parametrize("dtypes", [(np.float32, np.float64), (np.float32, np.float32), (np.float64, np.float32)])
def test_cotangents_take_their_primals_dtype(dtypes):
    a, b = r(2, 3, dtype=dtypes[0]), r(3, 4, dtype=dtypes[1])
    ga, gb = adcompiler.differentiate(T.mixed_precision).grad(a, b)
    assert (ga.dtype, gb.dtype) == dtypes
    assert_close(ga, np.ones((2, 4)) @ b.T, rtol=1e-5)


# ---- 11: second order covers first ------------------------------------------------------------


def test_rosenbrock_hessian_and_hvp_against_scipy():
    optimize = pytest.importorskip("scipy.optimize")
    x = np.array([1.3, 0.7, 0.8, 1.9, 1.2])
    np.testing.assert_allclose(adcompiler.hessian_matrix(T.rosen)(x), optimize.rosen_hess(x), rtol=1e-12)
    v = r(5)
    np.testing.assert_allclose(adcompiler.hvp(T.rosen)((x,), v), optimize.rosen_hess_prod(x, v), rtol=1e-12)
    check_both_modes(T.rosen, (x,))


# ---- 12: a derivative never succeeds where its primal fails --------------------------------------


@pytest.mark.parametrize(
    "f, args, error",
    [
        (T.unused_log, (1.0,), ValueError),
        (T.unused_sqrt, (1.0,), ValueError),
        (T.unused_division, (1.0, 2.0), ZeroDivisionError),
        (T.unused_index, ([1.0, 2.0],), IndexError),
        (T.max_of_nothing, (1.5,), ValueError),
        (T.missing_key, (1.5,), KeyError),
        (T.unbound_after_branch, (1.5,), UnboundLocalError),
        (T.unbound_after_loop, (1.5, 0), UnboundLocalError),
        (T.unbound_after_break, (1.5,), UnboundLocalError),
    ],
)
@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "jvp", "vjp"])
def test_primal_errors_are_raised_by_derivatives(f, args, error, mode):
    with pytest.raises(error):
        f(*args)
    d = adcompiler.differentiate(f)
    tangents = tuple([1.0] * len(a) if isinstance(a, list) else 1.0 for a in args if not isinstance(a, int))
    call = {
        "grad": lambda: d.grad(*args),
        "value_and_grad": lambda: d.value_and_grad(*args),
        "jvp": lambda: d.jvp(args, tangents),
        "vjp": lambda: d.vjp(args, 1.0),
    }[mode]
    with pytest.raises(error):
        call()


@pytest.mark.parametrize("warm", [False, True], ids=["first call", "fast entry"])
@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "jvp", "vjp"])
def test_a_primal_error_is_told_at_the_users_line(warm, mode):
    """A ZeroDivisionError from the derivative code carries a note naming the user's file and line (Python 3.11's
    report of an uncaught exception shows no line of generated code), through the checking call and the fast
    entry, whose short body is the derivative's own."""
    d = adcompiler.differentiate(T.divided_by_one_less)
    call = {
        "grad": lambda x: d.grad(x),
        "value_and_grad": lambda x: d.value_and_grad(x),
        "jvp": lambda x: d.jvp((x,), (1.0,)),
        "vjp": lambda x: d.vjp((x,), 1.0),
    }[mode]
    if warm:
        call(2.0)
        call(3.0)
    with pytest.raises(ZeroDivisionError) as caught:
        call(1.0)
    notes = getattr(caught.value, "__notes__", [])
    line = T.divided_by_one_less.__code__.co_firstlineno + 2
    assert len(notes) == 1 and f"{T.__file__}, line {line}: return x / y" in notes[0]


def test_too_many_indices_of_a_0d_array_raise_numpys_index_error():
    """``x[0] * x[1]`` of ``np.array(1.0)``: NumPy's IndexError, as the primal raises (a TypeError about a
    "-1-D" output before)."""
    x = np.array(1.0)
    with pytest.raises(IndexError):
        T.two_entries(x)
    with pytest.raises(IndexError):
        adcompiler.differentiate(T.two_entries).grad(x)
    with pytest.raises(IndexError):
        adcompiler.grad(T.two_entries)(x)


@pytest.mark.parametrize("f, said", [(T.truth, "a truth value"), (T.text, "a string")])
def test_grad_of_a_function_returning_no_number_is_a_type_error(f, said):
    """A gradient of 0.0 was returned for a function returning a string or a bool (``return None`` is refused at its
    line as a function that may end without a value)."""
    with pytest.raises(TypeError, match=said):
        adcompiler.grad(f)(1.5)
    with pytest.raises(TypeError, match=said):
        adcompiler.differentiate(f).value_and_grad(1.5)


def test_variables_bound_on_some_paths_where_they_are_bound():
    """The functions above where every variable is bound: the lines kept for their errors change nothing."""
    assert adcompiler.differentiate(T.unbound_after_branch).grad(12.0) == pytest.approx(2.0)
    assert adcompiler.differentiate(T.unbound_after_loop, wrt=("x",)).grad(1.5, 3) == pytest.approx(3.0)
    assert adcompiler.differentiate(T.unbound_after_break).value_and_grad(-0.5) == pytest.approx((-0.25, 0.0))


# ---- 13: loop targets -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "f, args",
    [
        (T.enumerate_zip, ([1.0, 2.0, 0.5], [3.0, -4.0, 1.5])),
        (T.zip_pairs, ([1.0, 2.0], [3.0, -4.0])),
        (T.tuple_in_branch, (1.5,)),
        (T.tuple_in_branch, (-1.5,)),
    ],
)
def test_loop_targets_and_tuples(f, args):
    check_both_modes(f, args)


def test_second_order_of_tuples_in_branches():
    assert adcompiler.hessian_matrix(T.tuple_in_branch)(1.5)[0, 0] == pytest.approx(4.0)  # 2 x^2 for x > 0
    assert adcompiler.hessian_matrix(T.tuple_in_branch)(-1.5)[0, 0] == pytest.approx(-9.0)  # x^3 for x <= 0
    assert math.isfinite(adcompiler.hessian_matrix(T.enumerate_zip)([1.0, 2.0], [3.0, 4.0])[0, 2])


# ---- found running autograd's own test functions -----------------------------------------------


def test_an_array_built_from_numbers_has_an_array_tangent():
    check_both_modes(T.array_fanout, (3.0,))  # its tangent was the list [dx, dx, dx], so a + a repeated it


def test_a_slice_of_a_record_keeps_its_items():
    check_both_modes(T.slice_of_record, ([[1.0], 2.0, 1.5],))


def test_returning_a_value_of_unknown_kind_is_refused_in_reverse_mode():
    d = adcompiler.differentiate(T.mixed_list_returned, wrt="x")
    assert d.jvp((1.5, 0), (1.0,)) == (1.5, 1.0)
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="list or a number"):
        d.vjp((1.5, 0), 1.0)


def test_a_lambda_is_differentiated_as_the_def_it_stands_for():
    d = adcompiler.differentiate(T.doubled)
    assert d.grad(1.0) == 2.0 and "def doubled_grad(x)" in d.source("grad")  # named for its variable


def test_a_numpy_float32_number_gets_a_float32_cotangent():
    g = adcompiler.differentiate(T.mixed_precision_scalar).grad(np.float32(2.0), np.ones(3, dtype=np.float32))
    assert type(g[0]) is np.float32 and g[0] == pytest.approx(7.0) and g[1].dtype == np.float32


@pytest.mark.parametrize(
    "f, arg",
    [(T.squares_summed, [1.0, 2.0]), (T.doubled, "abc"), (T.doubled, None), (T.two_entries, 1.5)],
    ids=["a list multiplied", "a string", "None", "a number indexed"],
)
def test_arguments_the_function_raises_for_raise_its_error(f, arg):
    """A list where the function multiplies numbers, a string, None, a number indexed: the function raises
    Python's TypeError, and so does its derivative (a refusal about "a list or a number read from a list holding
    both", which the user did not write, before)."""
    with pytest.raises(TypeError) as primal:
        f(arg)
    with pytest.raises(TypeError) as derivative:
        adcompiler.grad(f)(arg)
    assert str(derivative.value) == str(primal.value)
