"""adcompiler.jacobian, jacfwd and jacrev with array arguments: after the first call for arguments of
one kind (numbers, arrays of one shape and dtype), a call runs the passes it planned: the function's
own code runs no second time to count its outputs, and np.random's state is saved and restored only
for a function that may draw.  Values checked against central differences at other points."""

import sys

import numpy as np
import pytest

import adcompiler
import jacobian_plan_funcs as F
from shared import BACKENDS, derivative


def differences(f, args, k, eps=1e-6):
    """The (m, n) Jacobian of ``f`` in its ``k``-th argument, by central differences."""
    x = np.asarray(args[k], dtype=float)
    columns = []
    for j in range(x.size):
        hi, lo = x.copy().ravel(), x.copy().ravel()
        hi[j] += eps
        lo[j] -= eps
        at = [args[:k] + (v.reshape(x.shape) if x.ndim else float(v[0]),) + args[k + 1 :] for v in (hi, lo)]
        columns.append((np.hstack(f(*at[0])) - np.hstack(f(*at[1]))) / (2 * eps))
    return np.array(columns).T


def calls_of(f, run):
    """How many times ``run()`` enters the code of ``f`` itself (not its generated derivatives)."""
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is f.__code__:
            seen.append(1)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return len(seen)


def ba_args(seed):
    rng = np.random.default_rng(seed)
    cam = rng.uniform(-1, 1, 11)
    cam[5] = -5.0  # the point in front of the camera
    return cam, rng.uniform(-1, 1, 3), 0.5 + rng.uniform(), rng.uniform(-1, 1, 2)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["reverse", "forward", "auto"])
def test_second_call_runs_no_primal(backend, mode):
    if backend == "numba":
        pytest.importorskip("numba")
    d = derivative(F.project, wrt=("cam", "X", "w"), backend=backend)  # (each mode plans anew: its own jacobian)
    jac = adcompiler.jacobian(d, mode=mode)
    first = calls_of(F.project, lambda: jac(*ba_args(0)))
    args = ba_args(1)
    later = calls_of(F.project, lambda: jac(*args))
    assert first >= 1 and later == 0
    got = jac(*args)
    expected = np.hstack([differences(F.project, args, k) for k in range(3)])
    assert got.shape == (2, 15) and np.allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_jacrev_jacfwd_second_call_runs_no_primal():
    x, y = np.array([0.3, -1.2, 2.0]), 0.7
    for transform in (adcompiler.jacrev, adcompiler.jacfwd):
        jac = transform(F.pair, argnums=(0, 1))
        jac(x + 1.0, 1.5)
        assert calls_of(F.pair, lambda: jac(x, y)) == 0
        (dsin_dx, dsin_dy), (dsum_dx, dsum_dy) = jac(x, y)
        assert np.allclose(dsin_dx, np.diag(np.cos(x) * y)) and np.allclose(dsin_dy, np.sin(x))
        assert np.allclose(dsum_dx, 2 * x) and dsum_dy == 0.0 and np.shape(dsum_dy) == ()


def test_no_random_state_unless_drawing(monkeypatch):
    jac = adcompiler.jacobian(adcompiler.differentiate(F.project, wrt=("cam", "X", "w")), mode="reverse")
    saved = []
    real = np.random.get_state
    monkeypatch.setattr(np.random, "get_state", lambda *a: saved.append(1) or real(*a))
    jac(*ba_args(0))
    jac(*ba_args(1))
    assert saved == []


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_draws_are_the_calls_own(mode):
    jac = adcompiler.jacobian(F.noisy, mode=mode)
    x = np.array([0.3, -0.7, 1.1])
    jac(x)
    np.random.seed(3)
    expected = np.random.randn(3)
    after_one = np.random.randn(3)
    np.random.seed(3)
    got = jac(x + 1.0)  # the planned passes: each from the call's one state
    assert np.array_equal(got, np.diag(expected))
    assert np.array_equal(np.random.randn(3), after_one)  # the generator moved on by one draw


def test_output_shaped_by_values_is_planned_again():
    jac = adcompiler.jacobian(F.positives, mode="reverse")
    assert jac(np.array([1.0, -2.0, 3.0])).shape == (2, 3)
    x = np.array([1.0, 2.0, -3.0])
    assert np.array_equal(jac(x), [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    assert np.array_equal(jac(np.array([-1.0, -2.0, 3.0])), [[0.0, 0.0, 2.0]])


def test_helper_replaced_between_calls(monkeypatch):
    jac = adcompiler.jacobian(F.through_helper, mode="reverse")
    x = np.array([0.3, -0.4])
    assert np.allclose(jac(x), np.diag(2.0 * np.cos(x)))
    monkeypatch.setattr(F, "helper", F.other_helper)  # the plan's code was built from the old helper
    assert np.allclose(jac(x + 0.1), np.diag(-2.0 * np.sin(x + 0.1)))


def test_hessian_saves_no_random_state_unless_drawing(monkeypatch):
    hess = adcompiler.hessian_matrix(F.energy)
    x = np.array([0.3, -0.4, 0.8])
    saved = []
    real = np.random.get_state
    monkeypatch.setattr(np.random, "get_state", lambda *a: saved.append(1) or real(*a))
    H = hess(x)
    assert saved == [] and np.allclose(H, np.diag(-np.sin(x)) + 2.0)
    hess_noisy = adcompiler.hessian_matrix(F.noisy_energy)
    np.random.seed(2)
    draw = np.random.randn(3)
    np.random.seed(2)
    assert np.allclose(hess_noisy(x), np.diag(2.0 * draw)) and saved  # each pass from the call's one state
