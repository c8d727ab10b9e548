"""Regressions of the reliability campaign (issue 22) that are not about threads, globals or the command
line: arrays raised to array powers and then written into, floats and NumPy scalars that were taken for
arrays, and a long function.  References: analytic derivatives and central differences; forward mode
is checked against reverse mode on each."""

import numpy as np
import pytest

import adcompiler
import reliability_funcs as R


def _dot(a, b) -> float:
    return float(sum(np.sum(np.asarray(x) * np.asarray(y)) for x, y in zip(a, b)))


def _check_both_modes(f, args, expected_grad):
    """grad against the analytic gradient, and jvp along each argument against it (forward == reverse)."""
    d = adcompiler.differentiate(f)
    grad = d.grad(*args)
    grad = grad if isinstance(grad, tuple) else (grad,)
    for g, e, a in zip(grad, expected_grad, args):
        np.testing.assert_allclose(g, e, rtol=1e-12)
        assert np.shape(g) == np.shape(a)
    rng = np.random.default_rng(0)
    v = tuple(rng.standard_normal(np.shape(a)) if np.ndim(a) else float(rng.standard_normal()) for a in args)
    _, tangent = d.jvp(args, v)
    assert tangent == pytest.approx(_dot(grad, v), rel=1e-12)


def test_array_power_then_written_into():
    b, w = np.array([1.5, 2.0, 0.7]), np.array([0.3, 1.2, 2.0])
    scale = np.array([0.5, 1.0, 1.0])
    _check_both_modes(R.pow_then_scale_in_place, (b, w), (scale * w * b ** (w - 1), scale * b**w * np.log(b)))


def test_float_kept_before_in_place_change():
    p, y = 0.3, 0.7
    q = p - np.tanh(p)  # the value returned is p * q with t1 = t0 = p (q < 100)
    dq = 1.0 - (1.0 - np.tanh(p) ** 2)
    _check_both_modes(R.float_kept_before_in_place_change, (p, y), (q + p * dq, 0.0))


def test_numpy_scalars_are_not_arrays():
    y = np.array([0.3, -0.7, 1.1])
    _check_both_modes(R.numpy_scalar_in_a_list, (y,), (4.0 * y + 1.0,))
    _check_both_modes(R.numpy_scalar_beside_an_alias, (y,), (6.0 * y + 1.0,))


def test_a_thousand_statement_function(tmp_path):
    lines = ["def f(x, y):", "    a = x", "    b = y"]
    coefficients = []
    for i in range(1000):
        c = 0.1 + (i % 7) * 0.01 if i % 2 == 0 else 0.2 + (i % 5) * 0.01
        coefficients.append(c)
        lines.append(f"    a = a * 0.5 + b * {c!r}" if i % 2 == 0 else f"    b = b - a * {c!r}")
    lines.append("    return a + b * b")
    path = tmp_path / "long_function.py"
    path.write_text("\n".join(lines) + "\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    f = namespace["f"]
    # the function is linear in (x, y) up to the last line: propagate the Jacobian by hand
    J = np.eye(2)
    for i, c in enumerate(coefficients):
        J = np.array([[0.5, c], [0.0, 1.0]]) @ J if i % 2 == 0 else np.array([[1.0, 0.0], [-c, 1.0]]) @ J
    x, y = 0.3, 0.7
    a, b = J @ np.array([x, y])
    expected = J[0] + 2.0 * b * J[1]
    d = adcompiler.differentiate(f)
    np.testing.assert_allclose(d.grad(x, y), expected, rtol=1e-9, atol=1e-300)
    _, tangent = d.jvp((x, y), (1.0, 0.0))
    assert tangent == pytest.approx(expected[0], rel=1e-9)


def test_integer_parameters_are_left_out_of_the_default_wrt():
    d = adcompiler.differentiate(R.pend)
    assert d.wrt == ("theta",)
    h = 1e-6
    expected = (R.pend(0.5 + h) - R.pend(0.5 - h)) / (2 * h)
    assert d.grad(0.5) == pytest.approx(expected, rel=1e-7)
    _, tangent = d.jvp((0.5,), (1.0,))
    assert tangent == pytest.approx(d.grad(0.5), rel=1e-13)
    rows = adcompiler.differentiate(R.scaled_rows)
    assert rows.wrt == ("xs",)
    assert rows.grad([0.5, -1.0, 2.0], 1, 3) == [0.0, 6.0, 0.0]


def test_an_integer_asked_for_is_refused_suggesting_wrt():
    with pytest.raises(TypeError) as info:
        adcompiler.differentiate(R.pend, wrt=("theta", "n")).grad(0.5, 200)
    message = str(info.value)
    assert "wrt=('theta',)" in message and "200.0" in message
    assert message.index("wrt=") < message.index("200.0")  # leaving it out is the first suggestion


def test_wrt_takes_positions_and_refuses_other_things():
    assert adcompiler.differentiate(R.product, wrt=0).grad(2.0, 3.0) == 3.0
    assert adcompiler.differentiate(R.product, wrt=(1,)).grad(2.0, 3.0) == 2.0
    assert adcompiler.differentiate(R.product, wrt=-1).grad(2.0, 3.0) == 2.0
    with pytest.raises(TypeError, match="a name .'x'., a position .0., or a tuple"):
        adcompiler.differentiate(R.product, wrt=1.5)
    with pytest.raises(ValueError, match="out of range"):
        adcompiler.differentiate(R.product, wrt=2)


def test_primals_and_tangents_that_are_not_tuples():
    d = adcompiler.differentiate(R.product)
    with pytest.raises(TypeError, match=r"product.jvp takes tangents as a tuple.*got 1.0"):
        d.jvp((1.0, 2.0), 1.0)
    with pytest.raises(TypeError, match=r"product.vjp takes primals as a tuple.*product.vjp\(\(x, y\), ct\)"):
        d.vjp(1.0, 1.0)
    with pytest.raises(ValueError, match="cotangent"):
        d.vjp((1.0, 2.0), (1.0, 1.0))


def test_complex_and_numpy_integer_arguments_are_named():
    with pytest.raises(TypeError, match="complex number .*not supported.*real and imaginary"):
        adcompiler.differentiate(R.product).grad(1.0 + 2.0j, 2.0)
    with pytest.raises(TypeError, match="array of complex128"):
        adcompiler.differentiate(R.rosen).grad(np.array([1.0 + 2.0j, 2.0]))
    with pytest.raises(TypeError, match="a NumPy scalar of int64"):
        adcompiler.differentiate(R.product, wrt=("x", "y")).grad(1.0, np.int64(2))
    assert adcompiler.differentiate(R.product).grad(1.0, np.int64(2)) == 2.0  # by default: a constant


def test_a_closure_variable_is_read_and_an_unset_one_named():
    assert adcompiler.differentiate(R.make_closure()).grad(1.0) == 3.0
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="'k' of an enclosing function, not yet assigned"):
        adcompiler.differentiate(R.make_unset_closure()).grad(1.0)


def test_hvp_takes_x_and_p_as_scipy_hessp_does():
    from scipy.optimize import rosen_hess_prod

    x, p = np.array([1.0, 2.0, 0.5]), np.array([1.0, -0.5, 0.2])
    np.testing.assert_allclose(adcompiler.hvp(R.rosen)(x, p), rosen_hess_prod(x, p), rtol=1e-13)
    np.testing.assert_allclose(adcompiler.hvp(R.rosen)((x,), p), rosen_hess_prod(x, p), rtol=1e-13)


def test_records_in_a_list_get_tuple_cotangents():
    # found by the structures fuzzer (seed 93, program 829; seed 7, program 92)
    p0 = [(0.25,), (-1.5,), (2.0,)]
    value, (ct,) = adcompiler.differentiate(R.records_of_one_number).vjp((p0,), 1.0)
    assert [type(c) for c in ct] == [tuple, tuple, tuple]
    assert ct == [(1.0 - 2 * 0.25,), (2 * 1.5,), (0.0,)]
    _, tangent = adcompiler.differentiate(R.records_of_one_number).jvp((p0,), ([(1.0,), (0.5,), (3.0,)],))
    assert tangent == pytest.approx(1.0 - 2 * 0.25 + 0.5 * 2 * 1.5)


@pytest.mark.parametrize(
    "call",
    [
        lambda d: d.jvp((1.0, 2.0), (1.0, 0.0)),  # two tangents for one parameter (args): still the refusal first
        lambda d: d.vjp((1.0, 2.0), 1.0),
        lambda d: d.grad(1.0, 2.0),
        lambda d: d.value_and_grad(1.0, 2.0),
    ],
)
def test_a_refused_construct_is_reported_first_whatever_the_entry_point(call):
    with pytest.raises(
        adcompiler.UnsupportedSyntaxError, match=r"reliability_funcs.py:\d+:\d+: a \*\*kwargs parameter"
    ):
        call(adcompiler.differentiate(R.star_kwargs))
    # a *args function, which is differentiated now, gives each argument passed its derivative
    assert call(adcompiler.differentiate(R.star_args)) in ((2.0, 2.0), (2.0, (2.0, 1.0)), (2.0, 1.0))


def test_an_indexed_copy_of_a_constant_written_into_has_a_tangent():
    # forward mode gave it none (numpy fuzz seed 151, program 148); reverse mode was right
    d = adcompiler.differentiate(R.indexed_copy_written)
    _, tangent = d.jvp((0.3,), (1.0,))
    np.testing.assert_allclose(tangent, [0.0, -0.6, 0.0], rtol=1e-15)
    _, (ct,) = d.vjp((0.3,), np.array([1.0, 2.0, 3.0]))
    assert ct == pytest.approx(2.0 * -0.6)
