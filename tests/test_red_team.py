"""Silent wrong answers a red-team session found (2026-12-02), each now right or refused at the user's line.
References: analytic derivatives; forward mode checked against reverse mode."""

import math
import re

import numpy as np
import pytest

import adcompiler
import red_team_funcs as R
from adcompiler.errors import MissingRuleError, UnsupportedSyntaxError


@pytest.mark.parametrize(
    "f, arg",
    [
        (R.column_view_scaled, np.ones((2, 2))),
        (R.split_piece_then_base_written, np.ones(4)),
        (R.diagonal_then_base_scaled, np.ones(3)),
    ],
)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_write_a_view_would_see_is_refused_at_its_line(f, arg, mode):
    d = adcompiler.differentiate(lambda a: np.sum(f(a)))
    with pytest.raises(UnsupportedSyntaxError, match=r"red_team_funcs.py:\d+:\d+: .*view"):
        d.grad(arg) if mode == "grad" else d.jvp((arg,), (arg,))


@pytest.mark.parametrize(
    "f, derivative",
    [
        (R.rows_of_a_copy_written, lambda x: 2 * x + 3.0),
        (R.rows_written_through_a_loop_over_a_copy, lambda x: 2 * x + 2.0),
    ],
)
def test_a_shallow_copy_of_a_list_of_lists_shares_its_rows(f, derivative):
    x = 1.5
    d = adcompiler.differentiate(f)
    assert d.grad(x) == pytest.approx(derivative(x), rel=1e-14)
    assert d.jvp((x,), (1.0,)) == (pytest.approx(f(x)), pytest.approx(derivative(x), rel=1e-14))


def test_np_diag_of_a_vector_is_a_new_matrix_that_a_later_change_of_the_vector_leaves_alone():
    """sum(D * outer(a, a)) = sum(a**3), plus v = 2 a broadcast over 3 entries: the gradient 9 a**2 + 2."""
    a = np.array([0.5, 1.5, -0.7])
    d = adcompiler.differentiate(lambda a: np.sum(R.diag_of_a_vector_then_vector_scaled(a)))
    np.testing.assert_allclose(d.grad(a), 9 * a**2 + 2.0, rtol=1e-14)


def test_changing_the_length_of_the_list_a_loop_goes_over_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match=r"red_team_funcs.py:\d+:13: changing the length of xs inside"):
        adcompiler.grad(R.loop_over_a_growing_list)(1.5)


def test_infinite_derivatives_at_zero_are_inf_not_zero_division():
    assert adcompiler.grad(R.cube_root)(0.0) == math.inf
    assert adcompiler.jvp(R.cube_root, (0.0,), (1.0,)) == (0.0, math.inf)
    assert adcompiler.grad(R.power, argnums=(0, 1))(0.0, 0.5) == (math.inf, 0.0)
    assert adcompiler.jvp(R.power, (0.0, 0.5), (1.0, 0.0)) == (0.0, math.inf)
    assert adcompiler.grad(R.third_power)(0.0) == math.inf
    assert adcompiler.grad(R.power, argnums=(0, 1))(0.0, 2.5) == (0.0, 0.0)  # (finite where y >= 1)
    assert adcompiler.grad(R.power, argnums=(0, 1))(2.0, 0.5) == pytest.approx(
        (0.5 / math.sqrt(2.0), math.sqrt(2.0) * math.log(2.0))
    )


def test_a_users_method_or_field_named_like_numpys_is_the_users():
    a, b = 0.5, 0.7
    value, grads = adcompiler.value_and_grad(R.own_sum_of_a_pair_built_here, argnums=(0, 1))(a, b)
    assert value == pytest.approx(a - b + 2 * a * b) and grads == pytest.approx((1 + 2 * b, -1 + 2 * a))
    assert adcompiler.jvp(R.own_sum_of_a_pair_built_here, (a, b), (1.0, 0.0))[1] == pytest.approx(1 + 2 * b)
    value, grads = adcompiler.value_and_grad(R.own_fields_named_like_numpys, argnums=(0, 1))(a, b)
    assert value == pytest.approx(2 * a + b) and grads == pytest.approx((2.0, 1.0))
    with pytest.raises(UnsupportedSyntaxError, match=r"red_team_funcs.py:\d+:\d+: the member sum of a Pair handed in"):
        adcompiler.grad(R.own_sum_of_a_pair_handed_in)(R.Pair(a, b))


@pytest.mark.parametrize(
    "f, text",
    [
        (R.length_of_an_object_with_its_own_len, "len() of a Counted, whose class defines __len__"),
        (R.least_of_objects_with_their_own_order, "min() of a Counted, whose class defines __lt__"),
    ],
)
def test_a_builtin_that_would_call_a_users_dunder_is_refused(f, text):
    with pytest.raises(UnsupportedSyntaxError, match=r"red_team_funcs.py:\d+:\d+: " + re.escape(text)):
        adcompiler.grad(f, argnums=0)(*(0.5, 0.7)[: f.__code__.co_argcount])


def test_the_least_object_by_a_field_is_pythons():
    assert adcompiler.value_and_grad(R.least_of_objects_by_a_field, argnums=(0, 1))(0.5, 0.7) == (0.7, (0.0, 1.0))


def test_the_hessian_through_writes_of_columns_and_blocks():
    """Its first derivative's code reads views of B before writes into B (it puts back what each write changed
    before it reads them again): differentiated again, that is no view seeing a later write."""
    A = np.random.default_rng(5).standard_normal((3, 3))
    g = adcompiler.grad(R.column_written_from_columns)
    h = 1e-5
    expected = np.stack(
        [(g(A + h * e.reshape(3, 3)) - g(A - h * e.reshape(3, 3))).ravel() / (2 * h) for e in np.eye(9)]
    )
    H = np.asarray(adcompiler.hessian(R.column_written_from_columns)(A)).reshape(9, 9)
    np.testing.assert_allclose(H, expected.T, atol=1e-5)


def test_a_network_the_module_holds_with_its_layers_in_a_list():
    """The module's NET whose layers are a list (self.layers): read as a record holding records, each layer read
    when the code runs (a layer added or changed builds the code again)."""
    x, h = 0.7, 1e-6
    f = R.loss_of_the_modules_network
    for change in (None, lambda: R.NET.layers.append(R.Layer(2.0, -0.5)), lambda: setattr(R.NET.layers[0], "w", 3.0)):
        if change is not None:
            change()
        expected = (f(x + h) - f(x - h)) / (2 * h)
        assert adcompiler.grad(f)(x) == pytest.approx(expected, rel=1e-7)
        assert adcompiler.jvp(f, (x,), (1.0,)) == (pytest.approx(f(x)), pytest.approx(expected, rel=1e-7))


def test_a_default_list_the_callee_changes_is_refused_and_one_it_reads_is_not():
    with pytest.raises(UnsupportedSyntaxError, match=r"red_team_funcs.py:\d+:\d+: the call appended_to_its_default"):
        adcompiler.grad(R.calls_with_the_default)(1.5)
    assert adcompiler.grad(R.calls_with_a_default_read)(1.5) == pytest.approx(2 * 0.5 * 1.5 + 2.0)


def test_an_argument_holding_one_row_twice_that_the_function_changes_is_refused_on_every_path():
    """[row, row] written through rows[0] changes rows[1]: refused on the first call of that kind and, once a fast
    entry exists for rows of their own, on a later call too (the entry tests each call's rows)."""
    d = adcompiler.differentiate(R.scales_a_row)
    for _ in range(3):  # (the fast entry made)
        assert d.grad([[1.5, 2.0], [1.0, 3.0]], 2.0) == ([[0.0, 0.0], [2.0, 0.0]], 1.0)
    row = [1.5, 2.0]
    for call in (lambda: d.grad([row, row], 2.0), lambda: d.jvp(([row, row], 2.0), ([[0.0] * 2] * 2, 1.0))):
        with pytest.raises(ValueError, match="holds one list twice"):
            call()
    assert row == [1.5, 2.0]


@pytest.mark.parametrize("point", [(1.5, 0.5), (0.2, 0.9)])
def test_a_conditional_expression_of_tuples(point):
    f, (x, y) = R.pair_chosen_by_a_condition, point
    expected = (y * math.sin(x) + x * y * math.cos(x), x * math.sin(x)) if x > y else (2 * x * y, x * x)
    assert adcompiler.grad(f, argnums=(0, 1))(x, y) == pytest.approx(expected, rel=1e-14)
    assert adcompiler.jvp(f, (x, y), (1.0, 0.0))[1] == pytest.approx(expected[0], rel=1e-14)


def test_sum_max_and_min_of_a_range_are_integers_computed_as_python_does():
    f = R.integers_of_ranges
    assert adcompiler.value_and_grad(f)(1.5, 5) == (f(1.5, 5), 4 + 2 * 6 * 1.5)
    assert adcompiler.jvp(f, (1.5, 5), (1.0, 0))[1] == 4 + 2 * 6 * 1.5


def test_a_method_of_the_modules_object_with_no_attributes_and_a_class_methods_message():
    assert adcompiler.grad(R.method_of_an_object_with_no_attributes)(1.3) == pytest.approx(6 * 1.3)
    with pytest.raises(UnsupportedSyntaxError, match=r"red_team_funcs.py:\d+:\d+: the class method .doubled\(\)"):
        adcompiler.grad(R.class_method_through_an_object)(1.3)


def test_the_standard_librarys_python_functions_are_computed_as_python_does_not_read():
    with pytest.raises(MissingRuleError, match=r"red_team_funcs.py:\d+:\d+: copy.copy, which has no derivative rule"):
        adcompiler.grad(R.shallow_copy_by_the_copy_module)(1.5)
    assert adcompiler.grad(R.mean_of_a_constant_list_by_statistics)(1.5) == pytest.approx(2.5)


def test_isinstance_of_a_value_with_a_derivative():
    assert adcompiler.grad(R.typed_by_isinstance)(1.5) == pytest.approx(3 * 1.5**2)
    np.testing.assert_allclose(adcompiler.grad(R.typed_by_isinstance)(np.array([1.0, 2.0])), [2.0, 4.0])


def test_map_and_filter_are_lists_made_by_comprehensions():
    f, x, y, h = R.mapped_and_filtered, 0.5, 0.7, 1e-6
    expected = ((f(x + h, y) - f(x - h, y)) / (2 * h), (f(x, y + h) - f(x, y - h)) / (2 * h))
    assert adcompiler.grad(f, argnums=(0, 1))(x, y) == pytest.approx(expected, rel=1e-7)
    assert adcompiler.jvp(f, (x, y), (1.0, 0.0))[1] == pytest.approx(expected[0], rel=1e-7)


def test_a_list_method_outside_the_subset_says_what_to_write():
    with pytest.raises(UnsupportedSyntaxError, match=r"the method .sort\(\) of .* xs = sorted\(xs\)"):
        adcompiler.grad(R.sorts_in_place)(0.5, 0.7)


@pytest.mark.parametrize("x, expected", [(1.5, 3.0), (2.0, 12.0), (0.5, 3.0)])
def test_the_argmax_idiom_over_a_range(x, expected):
    assert adcompiler.grad(R.argmax_and_argmin_over_a_range)(x) == pytest.approx(expected)
    assert adcompiler.jvp(R.argmax_and_argmin_over_a_range, (x,), (1.0,))[1] == pytest.approx(expected)


def test_a_dataclass_field_made_by_default_factory_list():
    assert adcompiler.grad(R.fills_a_default_factory_list, argnums=(0, 1))(0.5, 0.7) == pytest.approx((0.7, 0.5))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_an_array_of_another_module_read_as_its_attribute(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    import red_team_weights

    x, old = np.array([0.5, -1.0, 2.0]), red_team_weights.W
    d = adcompiler.differentiate(R.weighted_by_another_modules_array, backend=backend)
    np.testing.assert_allclose(d.grad(x), 2 * old * x)
    try:
        red_team_weights.W = old * 3.0  # bound anew there: the code is built again
        np.testing.assert_allclose(d.grad(x), 6 * old * x)
    finally:
        red_team_weights.W = old


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_the_hessian_through_a_prange_loop_spelt_adcompiler_prange(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    x, c = np.array([0.3, -0.5, 0.8]), 1.3
    d = adcompiler.differentiate(R.parallel_by_the_attribute_spelling, backend=backend)
    H = np.asarray(adcompiler.hessian(d, argnums=0)(x, c))
    e = np.exp(x * c)
    np.testing.assert_allclose(H, np.diag(e * c * (2 + c * x)), rtol=1e-12)


def test_the_hessian_of_xlogy():
    x = np.array([0.5, -1.2, 2.0])
    u = x**2 + 1.0
    expected = np.diag(2 * x / u + (2 * x * u - x * 2 * x * 2 * x) / u**2 + 2 * x / u)  # d2/dx2 of x log(x^2 + 1)
    np.testing.assert_allclose(adcompiler.hessian(R.sum_of_xlogy)(x), expected, rtol=1e-12)


def test_a_helper_of_another_module_follows_that_modules_globals_bound_anew():
    import red_team_weights as M

    x, old = np.array([0.5, -1.0, 2.0]), (M.S, M.W)
    d = adcompiler.differentiate(R.calls_another_modules_helper)
    try:
        for s, w in [(2.0, M.W), (7.0, M.W), (7.0, np.array([3.0, 3.0, 1.0]))]:
            M.S, M.W = s, w
            np.testing.assert_allclose(d.grad(x), 4 * s * w * x)
            assert d.jvp((x,), (np.ones(3),))[1] == pytest.approx(np.sum(4 * s * w * x))
    finally:
        M.S, M.W = old


def test_the_hessian_through_an_entry_set_in_a_copy():
    """The gradient clears the entry's adjoint in place (take_and_clear); forward over it, that adjoint's tangent
    was y's cotangent's own object, so y's curvature at that entry came out 0."""
    x, y = np.array([0.3, -0.5, 0.8]), np.array([0.2, 0.4, -0.6])
    t = np.array([2.0, x[1], x[2]])
    H = adcompiler.hessian(R.cubed_after_an_entry_of_a_copy_is_set, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(H[1][1], np.diag(6 * (y + t)), atol=1e-12)
    np.testing.assert_allclose(H[0][0], np.diag([0.0, 6 * (y + t)[1], 6 * (y + t)[2]]), atol=1e-12)
    hv = adcompiler.hvp(R.cubed_after_an_entry_of_a_copy_is_set, argnums=(0, 1))((x, y), (np.zeros(3), np.eye(3)[0]))
    np.testing.assert_allclose(hv[1], [6 * (y[0] + 2.0), 0.0, 0.0], atol=1e-12)


def test_a_helper_of_another_module_reads_that_modules_dict_not_the_callers():
    import red_team_weights as M

    x, old = np.array([0.5, -1.0, 2.0]), dict(M.D)
    d = adcompiler.differentiate(R.calls_a_helper_reading_its_own_dict)
    try:
        for s, w in [(0.5, M.D["W"]), (0.5, np.array([3.0, 1.0, 1.0])), (4.0, np.array([3.0, 1.0, 1.0]))]:
            M.D["s"], M.D["W"] = s, w
            np.testing.assert_allclose(d.grad(x), 4 * s * w * x)
            assert d.jvp((x,), (np.ones(3),))[1] == pytest.approx(np.sum(4 * s * w * x))
    finally:
        M.D.clear()
        M.D.update(old)


def test_each_cotangent_has_its_arguments_dtype_where_float32_meets_float64():
    x, w = np.array([0.1, 0.2, 0.3], dtype=np.float32), np.array([1.0, 2.0, 3.0])
    gx, gw = adcompiler.grad(R.mixed_precision_product, argnums=(0, 1))(x, w)
    assert (gx.dtype, gw.dtype) == (np.float32, np.float64)
    np.testing.assert_allclose(gw, x.astype(np.float64), rtol=1e-7)
    np.testing.assert_allclose(gx, w, rtol=1e-6)


def test_sum_of_a_generator_and_of_a_list_of_arrays_under_numba():
    pytest.importorskip("numba")
    x, w = np.array([0.5, -1.0, 2.0]), np.array([0.3, 0.2, -0.1])
    f = R.sum_of_a_generator_of_arrays_kept
    expected = adcompiler.differentiate(f).grad(x, w)
    for got, want in zip(adcompiler.differentiate(f, backend="numba").grad(x, w), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_blocks_of_a_hessian_vector_product_are_distinct_arrays():
    x, y = np.array([0.3, -0.5, 0.8]), np.array([0.2, 0.4, -0.6])
    u, v = np.array([1.0, 0.5, -0.3]), np.array([0.7, -0.2, 0.9])
    hx, hy = adcompiler.hvp(R.squared_sum_of_two, argnums=(0, 1))((x, y), (u, v))
    assert hx is not hy
    hx *= 0.0  # (an optimizer updating one in place)
    np.testing.assert_allclose(hy, 2 * (u + v))


@pytest.mark.parametrize(
    "f, args, tangent, expected",
    [
        (R.doubled_in_place, [0.3, 0.5, -1.0], [1.0, 0.0, 0.0], 2.0),  # d(4 x0 x1) = 4 x1 dx0
        (R.rows_doubled_in_place, [[0.3, 1.0], [0.5, 2.0]], [[1.0, 0.0], [0.0, 0.0]], 2.0),
    ],
)
def test_jvp_leaves_the_callers_tangent_as_given_where_the_function_changes_its_list(f, args, tangent, expected):
    """The function changes its list argument in place, and the forward code the list's tangent alike: the
    tangent the caller handed was changed (doubled), so the same direction a second time gave 4.0."""
    d = adcompiler.differentiate(f)
    given = [list(t) if type(t) is list else t for t in tangent]
    for _ in range(3):  # (the second and later calls through the entry made by the first)
        value, t = d.jvp((copy_of(args),), (tangent,))
        assert t == pytest.approx(expected, rel=1e-14)
        assert tangent == given
    assert adcompiler.jvp(f, (copy_of(args),), (tangent,))[1] == pytest.approx(expected, rel=1e-14)
    assert tangent == given


def copy_of(x):
    return [copy_of(e) for e in x] if type(x) is list else x


def test_an_attribute_the_modules_object_sets_later_shadowing_its_class_attribute_builds_again():
    """``SCALED.factor = 11.0`` after a first call: Python then reads the object's own; the derivative kept the
    class's 2.0 (grad 8.4 for 46.2, jvp's value stale too), while f and d.value gave the new value."""
    x, d = 0.7, adcompiler.differentiate(R.scaled_loss)
    assert d.grad(x) == pytest.approx(2 * 2.0 * 3.0 * x, rel=1e-14)
    R.SCALED.factor = 11.0
    try:
        assert d.grad(x) == pytest.approx(2 * 11.0 * 3.0 * x, rel=1e-14)
        assert d.jvp((x,), (1.0,)) == (pytest.approx(R.scaled_loss(x), rel=1e-14), pytest.approx(46.2, rel=1e-14))
    finally:
        del R.SCALED.factor


def test_a_method_replaced_on_its_class_after_a_first_call_builds_again():
    x, d = 0.7, adcompiler.differentiate(R.quadratic_loss)
    old = R.Quadratic.f
    assert d.jvp((x,), (1.0,)) == (pytest.approx(0.98), pytest.approx(2.8))
    R.Quadratic.f = lambda self, x: self.w * x
    try:
        assert d.jvp((x,), (1.0,)) == (pytest.approx(1.4), pytest.approx(2.0))
        assert d.grad(x) == pytest.approx(2.0)
    finally:
        R.Quadratic.f = old
    assert d.grad(x) == pytest.approx(2.8)


def test_a_list_of_layer_objects_the_module_holds():
    """``for layer in SQUASHES: x = layer(x)`` was refused ("the global 'SQUASHES' (list)") where the same list
    reached as NET.layers was not; a layer replaced, the list rebound or grown, the code is built again."""

    def central(x, h=1e-6):
        f = R.through_the_modules_layers
        return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(2)])

    x, d = np.array([0.3, -0.7]), adcompiler.differentiate(R.through_the_modules_layers)
    old = list(R.SQUASHES)
    try:
        for change in (
            lambda: R.SQUASHES.__setitem__(1, R.Squash(np.array([[0.5, 1.0], [-1.0, 0.2]]), np.zeros(2))),
            lambda: R.SQUASHES.append(R.Squash(np.eye(2), np.full(2, 0.3))),
            lambda: setattr(R, "SQUASHES", [R.Squash(-np.eye(2), np.ones(2))]),
        ):
            np.testing.assert_allclose(d.grad(x), central(x), rtol=1e-6)
            change()
        np.testing.assert_allclose(d.grad(x), central(x), rtol=1e-6)
    finally:
        R.SQUASHES = old


def test_a_class_method_called_through_its_class_and_an_object_tested_against_none_say_what_to_write():
    with pytest.raises(
        UnsupportedSyntaxError, match=r"red_team_funcs.py:\d+:\d+: the class method Act.g called through"
    ):
        adcompiler.grad(R.through_a_class_method)(0.7)
    with pytest.raises(UnsupportedSyntaxError, match=r"red_team_funcs.py:\d+:\d+: .*testing it with 'is' \(an object"):
        adcompiler.grad(R.depth_eval, argnums=1)(R.Node(2.0, R.Node(0.5)), 1.5)
