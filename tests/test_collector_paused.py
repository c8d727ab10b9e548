"""The cyclic garbage collector paused while the reverse code of a recursive function runs (issue 35:
GradBench det, whose gradient keeps a residual tuple per call alive until its adjoint sweep ends; the
collections found nothing to free and took half its time at ell = 8), and enabled again after, also
when the code raises."""

import gc
import sys
from pathlib import Path

import numpy as np
import pytest

import adcompiler

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "gradbench"))
from evals import det as D  # noqa: E402


def power(x, n):
    assert n >= 0, "a negative power"
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def _collections_during(call) -> int:
    counted = []

    def note(phase, info):
        if phase == "start":
            counted.append(info["generation"])

    gc.callbacks.append(note)
    try:
        call()
    finally:
        gc.callbacks.remove(note)
    return len(counted)


def test_no_collection_runs_inside_a_recursive_gradient_and_the_collector_is_on_after():
    A = np.random.default_rng(1).normal(size=(7, 7))
    d = adcompiler.differentiate(D.det)
    g = d.grad(A)
    d.grad(A)  # (the fast entry, made by the first call)
    assert gc.isenabled()
    assert _collections_during(lambda: d.grad(A)) == 0
    assert gc.isenabled()
    np.testing.assert_allclose(g, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-9)
    _, (ct,) = d.vjp((A,), 2.0)
    np.testing.assert_allclose(ct, 2.0 * g, rtol=1e-12)
    assert _collections_during(lambda: d.vjp((A,), 2.0)) == 0 and gc.isenabled()


def test_the_collector_is_on_again_after_the_code_raises():
    d = adcompiler.differentiate(power, wrt="x")
    assert d.grad(1.5, 3) == pytest.approx(3 * 1.5**2)
    d.grad(1.5, 3)
    for _ in range(2):
        with pytest.raises(AssertionError, match="a negative power"):
            d.grad(1.5, -1)
        assert gc.isenabled()


def test_a_paused_collector_stays_paused():
    d = adcompiler.differentiate(power, wrt="x")
    d.grad(2.0, 4)
    d.grad(2.0, 4)
    gc.disable()
    try:
        assert d.grad(2.0, 4) == pytest.approx(32.0)
        assert not gc.isenabled()
    finally:
        gc.enable()
