"""Robustness: globals changed and helpers redefined after the first call, and derivatives
built from several threads at once.

Every derivative is checked against an oracle that does not use adcompiler: analytic derivatives
(or the single-threaded result, itself checked against them), and every value against the plain
function.
"""

import math
import sys
import threading

import numpy as np
import pytest

import adcompiler

# ---- globals and helpers read when the derivative runs ---------------------------------------------

SCALE = 2.0
WEIGHTS = np.array([1.0, -2.0, 0.5])
INDEX = 1


def r_helper(v):
    return v * v


SQUARE = r_helper  # the first definition, kept


def r_helper_cubic(v):  # what a notebook cell redefining r_helper binds to the name
    return v * v * v


def r_scaled(x):
    return SCALE * r_helper(x) + math.sin(x)


def r_weighted(a):
    return np.sum(WEIGHTS * np.sin(a)) + a[INDEX] * a[INDEX]


def r_absolute(x):
    return abs(x) * x


def r_soft(v):  # what the module may later bind to the name abs
    return math.sqrt(v * v + 1.0)


def _scalar_oracle(x):
    """r_scaled's value and derivative by hand, for the module as it is now."""
    h = THIS.r_helper
    if h is SQUARE:
        return THIS.SCALE * x * x + math.sin(x), 2 * THIS.SCALE * x + math.cos(x)
    assert h is r_helper_cubic
    return THIS.SCALE * x**3 + math.sin(x), 3 * THIS.SCALE * x * x + math.cos(x)


def _check_scalar(d, x=0.7):
    value, slope = _scalar_oracle(x)
    for _ in range(2):  # the first call builds (and makes the fast entries), the second runs them
        assert r_scaled(x) == pytest.approx(value, rel=1e-14)
        assert d(x) == pytest.approx(value, rel=1e-14)
        assert d.grad(x) == pytest.approx(slope, rel=1e-13)
        assert d.value_and_grad(x) == pytest.approx((value, slope), rel=1e-13)
        got_value, got_tangent = d.jvp((x,), (1.0,))
        assert (got_value, got_tangent) == pytest.approx((value, slope), rel=1e-13)
        got_value, (got_ct,) = d.vjp((x,), 2.0)
        assert (got_value, got_ct) == pytest.approx((value, 2 * slope), rel=1e-13)


THIS = sys.modules[__name__]


def test_a_global_number_and_a_helper_are_read_when_the_derivative_runs(monkeypatch):
    d = adcompiler.differentiate(r_scaled)
    _check_scalar(d)
    monkeypatch.setattr(THIS, "SCALE", 5.0)  # a float changed
    _check_scalar(d)
    monkeypatch.setattr(THIS, "r_helper", r_helper_cubic)  # the helper redefined
    _check_scalar(d)
    monkeypatch.setattr(THIS, "SCALE", 3)  # an int now: another kind of number
    _check_scalar(d)
    monkeypatch.setattr(THIS, "SCALE", np.float64(-1.5))  # a NumPy number
    _check_scalar(d)
    monkeypatch.setattr(THIS, "r_helper", SQUARE)  # and back
    _check_scalar(d)


def test_a_redefined_helper_is_seen_by_derivatives_of_derivatives(monkeypatch):
    d = adcompiler.differentiate(r_scaled)
    second = adcompiler.differentiate(d.grad)
    hessian = adcompiler.hessian(d)
    x = 0.7
    assert second.grad(x) == pytest.approx(2 * SCALE - math.sin(x), rel=1e-13)
    assert hessian(x)[0, 0] == pytest.approx(2 * SCALE - math.sin(x), rel=1e-13)
    monkeypatch.setattr(THIS, "r_helper", r_helper_cubic)
    monkeypatch.setattr(THIS, "SCALE", 4.0)
    for _ in range(2):
        assert second.grad(x) == pytest.approx(6 * 4.0 * x - math.sin(x), rel=1e-13)
        assert second.jvp((x,), (1.0,))[1] == pytest.approx(6 * 4.0 * x - math.sin(x), rel=1e-13)
        assert hessian(x)[0, 0] == pytest.approx(6 * 4.0 * x - math.sin(x), rel=1e-13)


def _array_oracle(a):
    w, k = THIS.WEIGHTS, THIS.INDEX
    value = np.sum(w * np.sin(a)) + a[k] * a[k]
    grad = np.sum(w * np.cos(a), axis=tuple(range(np.ndim(w) - 1))) if np.ndim(w) > 1 else w * np.cos(a)
    grad = np.array(grad, dtype=float)
    grad[k] += 2 * a[k]
    return value, grad


def _check_array(d, a):
    value, grad = _array_oracle(a)
    for _ in range(2):
        assert r_weighted(a) == pytest.approx(value, rel=1e-14)
        np.testing.assert_allclose(d.grad(a), grad, rtol=1e-13)
        v, g = d.value_and_grad(a)
        assert v == pytest.approx(value, rel=1e-14)
        np.testing.assert_allclose(g, grad, rtol=1e-13)
        direction = np.array([0.3, -1.0, 2.0])
        v, t = d.jvp((a,), (direction,))
        assert v == pytest.approx(value, rel=1e-14)
        assert t == pytest.approx(grad @ direction, rel=1e-13)
        v, (ct,) = d.vjp((a,), 1.5)
        np.testing.assert_allclose(ct, 1.5 * grad, rtol=1e-13)


def test_a_global_array_and_a_global_index_are_read_when_the_derivative_runs(monkeypatch):
    d = adcompiler.differentiate(r_weighted)
    a = np.array([0.2, -0.4, 1.1])
    _check_array(d, a)
    monkeypatch.setattr(THIS, "WEIGHTS", np.array([3.0, 0.25, -1.0]))  # new values, same kind
    _check_array(d, a)
    monkeypatch.setattr(THIS, "INDEX", 2)  # an integer index
    _check_array(d, a)
    monkeypatch.setattr(THIS, "WEIGHTS", np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -4.0]]))  # now 2-D
    _check_array(d, a)
    monkeypatch.setattr(THIS, "WEIGHTS", 2.5)  # now a number
    _check_array(d, a)


def test_a_builtin_the_module_binds_later_is_the_one_differentiated(monkeypatch):
    d = adcompiler.differentiate(r_absolute)
    x = -0.6
    assert d.grad(x) == pytest.approx(-2 * x, rel=1e-14)  # |x| x = -x^2 for x < 0
    assert d.grad(x) == pytest.approx(-2 * x, rel=1e-14)
    monkeypatch.setattr(THIS, "abs", r_soft, raising=False)  # the module now has its own abs
    soft = math.sqrt(x * x + 1.0)
    for _ in range(2):
        assert d(x) == pytest.approx(soft * x, rel=1e-14)
        assert d.grad(x) == pytest.approx(soft + x * x / soft, rel=1e-13)
        assert d.jvp((x,), (1.0,))[1] == pytest.approx(soft + x * x / soft, rel=1e-13)


def test_generated_names_stay_out_of_the_users_module():
    before = dict(vars(THIS))
    for fn, args in ((r_scaled, (0.3,)), (r_weighted, (np.array([0.1, 0.2, 0.3]),))):
        d = adcompiler.differentiate(fn)
        for _ in range(2):
            d.grad(*args)
            d.jvp(args, tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in args))
            d.vjp(args, 1.0)
    assert vars(THIS).keys() == before.keys()
    assert all(vars(THIS)[k] is v for k, v in before.items())


# ---- threads ---------------------------------------------------------------------------------------


def t_scalar(x, y):
    return x * math.sin(y) + x * x


def t_other(x, y):
    return math.exp(x) * y - y * y


def t_list(xs):
    s = 0.0
    for v in xs:
        s = s + v * v * v
    return s


def t_helper(a):
    return np.sin(a) * a


def t_array(a, w):
    return np.sum(t_helper(a) * w)


THREAD_CASES = [  # (function, how to call its derivative, the analytic answer)
    (t_scalar, lambda d: d.grad(1.3, 0.4), (math.sin(0.4) + 2 * 1.3, 1.3 * math.cos(0.4))),
    (t_other, lambda d: d.grad(1.3, 0.4), (math.exp(1.3) * 0.4, math.exp(1.3) - 0.8)),
    (t_scalar, lambda d: d.jvp((1.3, 0.4), (1.0, 0.0))[1], math.sin(0.4) + 2 * 1.3),
    (t_other, lambda d: d.vjp((1.3, 0.4), 1.0)[1], (math.exp(1.3) * 0.4, math.exp(1.3) - 0.8)),
    (t_list, lambda d: d.grad([0.5, -1.0, 2.0]), [0.75, 3.0, 12.0]),
    (t_list, lambda d: d.jvp(([0.5, -1.0, 2.0],), ([1.0, 1.0, 1.0],))[1], 15.75),
    (
        t_array,
        lambda d: d.grad(np.array([0.3, -0.7]), np.array([2.0, 0.5]))[0],
        (np.cos([0.3, -0.7]) * [0.3, -0.7] + np.sin([0.3, -0.7])) * [2.0, 0.5],
    ),
    (
        t_array,
        lambda d: d.jvp((np.array([0.3, -0.7]), np.array([2.0, 0.5])), (np.ones(2), np.zeros(2)))[1],
        np.sum((np.cos([0.3, -0.7]) * [0.3, -0.7] + np.sin([0.3, -0.7])) * [2.0, 0.5]),
    ),
]


def _close(a, b) -> bool:
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=1e-12)


def test_single_threaded_results_are_the_analytic_ones():
    for fn, call, expected in THREAD_CASES:
        assert _close(call(adcompiler.differentiate(fn)), expected), fn.__name__


def test_building_from_eight_threads_at_once():
    """Fresh Differentiables each round, their first calls made by eight threads released together
    (two functions of this module built at once, and each function by two threads), with the
    interpreter switching threads as often as it can: every result is the single-threaded one."""
    expected = [call(adcompiler.differentiate(fn)) for fn, call, _ in THREAD_CASES]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    failures = []
    try:
        for round_ in range(25):
            shared = {}  # one Differentiable per function this round, shared by the threads calling it
            for fn, _, _ in THREAD_CASES:
                shared.setdefault(fn, adcompiler.differentiate(fn))
            start = threading.Barrier(len(THREAD_CASES))

            def run(k):
                fn, call, _ = THREAD_CASES[k]
                start.wait()
                try:
                    got = call(shared[fn])
                except Exception as exc:  # noqa: BLE001  (reported with the round below)
                    failures.append((round_, fn.__name__, repr(exc)))
                    return
                if not _close(got, expected[k]):
                    failures.append((round_, fn.__name__, got, expected[k]))

            threads = [threading.Thread(target=run, args=(k,)) for k in range(len(THREAD_CASES))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures[:5]


def test_one_function_called_with_two_kinds_of_arguments_from_four_threads():
    """A list and a tuple of floats are two signatures (the cotangent of a tuple is a tuple): each
    thread gets the code for its own, never the code another thread's call chose."""

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    failures = []
    try:
        for _ in range(40):
            d = adcompiler.differentiate(t_list)
            start = threading.Barrier(4)

            def run(xs):
                start.wait()
                for _ in range(5):
                    try:
                        got = d.grad(xs)
                    except Exception as exc:  # noqa: BLE001  (reported below)
                        failures.append((xs, repr(exc)))
                        return
                    want = [3 * v * v for v in xs]
                    if type(got) is not type(xs) or not _close(list(got), want):
                        failures.append((xs, got))

            args = [[0.5, 1.0], (0.5, 1.0, 2.0), [2.0, 3.0, 4.0, 5.0], (1.0,)]
            threads = [threading.Thread(target=run, args=(a,)) for a in args]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures[:5]


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
