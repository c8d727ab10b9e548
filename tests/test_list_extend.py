"""``xs += [a, b]`` (a list display, a comprehension, ``list(...)``) extends the list itself, as Python's ``+=``
of a list does: another name of it sees the items, and so does the caller of a function handed it.  It made
a new list: value and derivative wrong with no error.  ``xs *= n`` of a list and ``a += [...]`` of an array
are refused at the line.  Oracles: the primal's own value, central differences, forward against reverse."""

import pytest

import adcompiler
from shared import written
import list_extend_funcs as F
from adcompiler.errors import UnsupportedSyntaxError


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f", [F.through_another_name, F.of_a_row, F.in_a_loop], ids=lambda f: f.__name__)
def test_the_list_extended_is_the_one_read(f):
    x = 0.7
    value, grad = adcompiler.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-14)
    assert grad == pytest.approx(_central(f, x), rel=1e-7)
    assert adcompiler.jvp(f, (x,), (1.0,)) == pytest.approx((f(x), grad), rel=1e-12)


def test_a_comprehension_and_a_copy_extend_it_too():
    x, ws = 0.7, [0.5, -1.5]
    value, grad = adcompiler.value_and_grad(F.by_a_comprehension_and_a_copy)(x, ws)
    assert value == pytest.approx(F.by_a_comprehension_and_a_copy(x, ws), rel=1e-14)
    assert grad == pytest.approx(_central(lambda t: F.by_a_comprehension_and_a_copy(t, ws), x), rel=1e-7)


def test_the_callers_list_grows_as_in_python():
    a, y = [0.5, 1.5], 0.7
    grads = adcompiler.grad(F.of_an_argument, argnums=(0, 1))(a, y)
    assert a == [0.5, 1.5, pytest.approx(y * y)]  # (as F.of_an_argument(a, y) leaves it)
    assert grads[1] == pytest.approx(sum([0.5, 1.5]) + 3 * y * y, rel=1e-12)


@pytest.mark.parametrize(
    "f, arg, said",
    [(F.of_an_array, None, "a += [...] of an array"), (F.repeated, 0.7, "xs *= n of a list")],
    ids=["array", "repeated"],
)
def test_what_is_refused_at_its_line(f, arg, said):
    import numpy as np

    x = np.array([0.5, 0.25]) if arg is None else arg
    with pytest.raises(UnsupportedSyntaxError) as told:
        adcompiler.grad(f)(x)
    assert "list_extend_funcs.py:" in str(told.value) and said in str(told.value)


def test_a_tuple_in_arithmetic_is_told_at_its_statement(tmp_path):
    """``t += (b,)`` of a tuple: refused at its own line and column (it was told at the ``def`` line)."""
    namespace = written(
        tmp_path, "tuples", "def f(a, b):\n    t = (a,)\n    u = t\n    t += (b,)\n    return len(u) * a + t[-1] * b\n"
    )
    with pytest.raises(UnsupportedSyntaxError) as told:
        adcompiler.grad(namespace["f"])(0.5, 0.7)
    assert "tuples.py:4:5: arithmetic on a tuple" in str(told.value)
