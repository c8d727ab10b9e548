"""A derivative asked for again, as code that nests derivatives asks (GradBench's particle and saddle:
``adcompiler.jvp(potential, ...)`` in every Euler step, ``differentiate(inner_max)`` made once per
solve): the call goes to the fast entry made by the first one, without binding and checking its
arguments a second time.  References: analytic derivatives and central differences."""

import numpy as np
import pytest

import adcompiler
from adcompiler.errors import UnsupportedSyntaxError
from adcompiler.api import differentiable as D
from adcompiler.api import transforms as T
from shared import BACKENDS


def bowl(x, y):
    return (x[0] * x[0] + x[1] * x[1]) - 3.0 * (y[0] * y[0] + y[1] * y[1])


def scaled(x, s=2.0):
    return s * np.sum(x * x)


def helper(x):
    return x * x


def through_helper(x):
    return np.sum(helper(x))


def cube(x):
    return x * x * x


def _counting(monkeypatch, cls, name):
    """Count the calls of ``cls.name`` (still calling it)."""
    calls = []
    original = getattr(cls, name)

    def counted(*args, **kwargs):
        calls.append(name)
        return original(*args, **kwargs)

    monkeypatch.setattr(cls, name, counted)
    return calls


def test_jvp_called_again_goes_to_its_fast_entry_unchecked(monkeypatch):
    x, y = np.array([0.3, -1.2]), np.array([0.7, 0.4])
    tx, ty = np.array([1.0, -2.0]), np.array([0.5, 3.0])
    adcompiler.jvp(bowl, (x, y), (tx, ty))  # the first call binds, checks and makes the entry
    bound = _counting(monkeypatch, D.Differentiable, "_bound")
    out, tangent = adcompiler.jvp(bowl, (x, y), (tx, ty))
    assert bound == []  # (it bound the arguments once more on every call, then checked them again in the entry)
    assert out == bowl(x, y)
    assert tangent == np.dot(2 * x, tx) - 3.0 * np.dot(2 * y, ty)


def test_jvp_of_a_function_with_a_default_leaves_the_default_as_it_is():
    x, t = np.array([0.5, -1.5, 2.0]), np.array([1.0, 0.25, -0.5])
    for _ in range(2):  # the method, then the fast entry
        out, tangent = adcompiler.jvp(scaled, (x,), (t,))
        assert out == scaled(x)
        h = 1e-6
        central = (scaled(x + h * t) - scaled(x - h * t)) / (2 * h)
        assert abs(tangent - central) < 1e-7 and abs(tangent - 4.0 * np.dot(x, t)) < 1e-12


def test_grad_called_again_takes_the_differentiable_it_made(monkeypatch):
    x, y = np.array([0.3, -1.2]), np.array([0.7, 0.4])
    adcompiler.grad(bowl, argnums=1)(x, y)
    made = _counting(monkeypatch, T, "differentiable")
    for _ in range(2):
        np.testing.assert_array_equal(adcompiler.grad(bowl, argnums=1)(x, y), -6.0 * y)
    assert made == []


def test_a_helper_redefined_is_seen_by_the_next_differentiable(monkeypatch):
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(adcompiler.differentiate(through_helper).grad(x), 2 * x, rtol=1e-15)
    monkeypatch.setitem(globals(), "helper", cube)  # as a notebook redefines a cell's function
    np.testing.assert_allclose(adcompiler.differentiate(through_helper).grad(x), 3 * x * x, rtol=1e-15)
    monkeypatch.undo()
    np.testing.assert_allclose(adcompiler.differentiate(through_helper).grad(x), 2 * x, rtol=1e-15)


class _Floats(list):
    """A list subclass, which a function reading it by position refuses (records.resolve)."""


def firsts(xs, p):
    return xs[0] * p[0] + xs[1] * xs[2] * p[1]


def test_a_refused_call_is_refused_again_the_same_way():
    """The analysis that refused the first call left its Program half done, and the second call like it
    (of the same Differentiable, or now of the next one of the same function) ran code built from it."""
    for d in [adcompiler.differentiate(firsts)] * 2 + [adcompiler.differentiate(firsts)]:
        with pytest.raises(UnsupportedSyntaxError, match="_Floats"):
            d.grad(_Floats([0.25, 3.0, -1.0]), [1.5, 0.75])
    assert adcompiler.differentiate(firsts).grad([0.25, 3.0, -1.0], [1.5, 0.75]) == (
        [1.5, 0.75 * -1.0, 0.75 * 3.0],
        [0.25, -3.0],
    )


def flagged(x, w, squared):
    if squared:
        return np.sum(x * x) * w
    return np.sum(np.sin(x)) * w


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bool_argument_takes_the_fast_entry_and_its_value_still_chooses(backend):
    """particle's and saddle's ``d.grad(w, inner_forward)``: a bool not differentiated went to the
    checking method on every call."""
    if backend == "numba":
        pytest.importorskip("numba")
    d = adcompiler.differentiate(flagged, wrt=("x", "w"), backend=backend)
    x, t = np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.5, -2.0])
    for _ in range(2):
        for flag in (True, False):
            gx, gw = d.grad(x, 1.5, flag)
            _, tangent = d.jvp((x, 1.5, flag), (t, 0.25))
            value_x, value_w = (2 * x * 1.5, np.sum(x * x)) if flag else (np.cos(x) * 1.5, np.sum(np.sin(x)))
            np.testing.assert_allclose(gx, value_x, rtol=1e-14)
            assert gw == pytest.approx(value_w, rel=1e-14)
            assert tangent == pytest.approx(np.dot(value_x, t) + value_w * 0.25, rel=1e-13)
    assert "grad" in vars(d) and "jvp" in vars(d)  # the fast entries, made by the first calls
    np.testing.assert_allclose(d.grad(x, 1.5, 2)[0], 2 * x * 1.5, rtol=1e-14)  # an int there: the method's way
