"""Robustness: derivatives built from several threads at once.

Every derivative is checked against an oracle that does not use adcompiler: the single-threaded
result, itself checked against analytic derivatives.
"""

import math
import sys
import threading

import numpy as np
import pytest

import adcompiler

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
