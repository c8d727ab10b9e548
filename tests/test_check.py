"""check_grad: no false alarms where the complex step does not apply (abs, max, branches), array and nested
arguments checked entry by entry, errors reported per output in the function's own units, and wrong
rules still caught.  References: analytic derivatives."""

import numpy as np
import pytest

import adcompiler
import check_funcs as C


def _table(f, *args, **kw):
    with pytest.raises(AssertionError) as info:
        adcompiler.check_grad(f, *args, tol=-1.0, **kw)
    lines = str(info.value).splitlines()
    return [line.split() for line in lines[2:]]


@pytest.mark.parametrize("x", [-0.7, 0.7, 2.5])
def test_no_false_alarm_through_abs(x):
    assert adcompiler.check_grad(C.x_abs_x, x) < 1e-8
    (row,) = _table(C.x_abs_x, x)
    assert float(row[1]) == pytest.approx(2 * abs(x), rel=1e-6)  # reverse: d/dx x|x| = 2|x|
    assert float(row[3]) == pytest.approx(2 * abs(x), rel=1e-6)  # central


def test_no_false_alarm_through_max_and_branches():
    assert adcompiler.check_grad(C.hinge, 0.7, 1.3) < 1e-8
    assert adcompiler.check_grad(C.hinge, 0.7, -1.3) < 1e-8
    assert adcompiler.check_grad(C.branch_on_sign, -0.4) < 1e-8
    assert adcompiler.check_grad(C.branch_on_sign, 0.4) < 1e-8


def test_array_arguments_use_the_complex_step():
    W = np.array([[0.3, -1.2], [2.0, 0.5], [0.1, 0.7]])
    assert adcompiler.check_grad(C.sum_of_squares, W) < 1e-12
    rows = _table(C.sum_of_squares, W)
    assert [r[0] for r in rows] == [f"W[{j}]" for j in range(6)]
    for r, w in zip(rows, W.ravel()):
        assert float(r[1]) == pytest.approx(2 * w, rel=1e-6)
        assert float(r[4]) == pytest.approx(2 * w, rel=1e-6)  # the complex step column is filled in
    b = np.array([0.2, -0.4])
    assert adcompiler.check_grad(C.weighted, W, b) < 1e-10


def test_array_through_abs_falls_back_to_central_differences():
    W = np.array([0.3, -1.2, 2.0])
    assert adcompiler.check_grad(C.abs_array, W) < 1e-8
    assert [r[4] for r in _table(C.abs_array, W)] == ["-", "-", "-"]


def test_nested_tuple_argument():
    params = (np.array([[0.3, -1.2], [2.0, 0.5]]), 0.7)
    assert adcompiler.check_grad(C.nested, params) < 1e-12


def test_errors_are_per_output_in_the_function_units():
    rows = _table(C.vector_out, 0.7, 1.3)
    assert [r[0] for r in rows] == ["x,out[0]", "y,out[0]", "x,out[1]", "y,out[1]"]
    expected = [1.3, 0.7, np.cos(0.7), 1.0]  # the Jacobian's entries, not mixed by a random cotangent
    for r, e in zip(rows, expected):
        assert float(r[1]) == pytest.approx(e, rel=1e-6)
        assert float(r[2]) == pytest.approx(e, rel=1e-6)


def test_a_wrong_rule_is_still_caught():
    adcompiler.defrule(C.cube, jvp=C.wrong_jvp, vjp=C.cube_vjp)
    try:
        with pytest.raises(AssertionError, match="uses_cube"):
            adcompiler.check_grad(C.uses_cube, 0.5)
    finally:
        from adcompiler.rules import CUSTOM

        CUSTOM.pop(C.cube, None)


def test_steep_function_is_no_false_alarm():
    # math.tanh rejects complex numbers: the central difference is the reference, at a step that settles
    assert adcompiler.check_grad(C.steep, 0.31) < 1e-8


def test_check_grad_of_a_keyword_only_parameter():
    """``def f(x, *, scale=2.0)``: the primal and its differences called with scale by keyword (a TypeError
    before: every argument by position)."""
    assert adcompiler.check_grad(C.scaled_keyword, 1.5) < 1e-8


def test_check_grad_through_a_numba_function_with_a_comparison():
    """A @numba.njit helper comparing its argument: the complex step cannot pass it a complex number (Numba's
    typing error escaped as a traceback); it is left out there, the central difference the reference."""
    pytest.importorskip("numba")
    assert adcompiler.check_grad(C.through_njit_kernel, 0.4) < 1e-6
