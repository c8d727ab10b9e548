"""The GradBench evals (benchmarks/gradbench/evals) differentiated by adcompiler, against independent
oracles: analytic gradients, central differences, and forward mode against reverse mode."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import adcompiler

HARNESS = Path(__file__).resolve().parent.parent / "benchmarks" / "gradbench"
sys.path.insert(0, str(HARNESS))

from evals import det, gmm, llsq, lstm  # noqa: E402


@pytest.mark.parametrize("ell", [3, 4, 5, 6])
def test_det_by_minors_gradient_is_the_cofactor_matrix(ell):
    """d det(A) / dA = det(A) inv(A)^T; the index lists sliced, joined and passed down the recursion are
    ints (no derivative), in both modes."""
    rng = np.random.default_rng(ell)
    A = rng.normal(size=(ell, ell))
    f = adcompiler.differentiate(det.det)
    expected = np.linalg.det(A) * np.linalg.inv(A).T
    np.testing.assert_allclose(f.grad(A), expected, rtol=1e-10, atol=1e-12)
    V = rng.normal(size=(ell, ell))
    value, tangent = f.jvp((A,), (V,))
    _, (cotangent,) = f.vjp((A,), 1.0)
    np.testing.assert_allclose(value, np.linalg.det(A), rtol=1e-10)
    np.testing.assert_allclose(tangent, np.sum(cotangent * V), rtol=1e-10)
    np.testing.assert_allclose(tangent, np.sum(expected * V), rtol=1e-10)


def central(f, args, i, h=1e-6):
    """d f / d args[i] by central differences."""
    g = np.zeros_like(args[i])
    for j in np.ndindex(g.shape):
        e = np.zeros_like(g)
        e[j] = h
        hi, lo = list(args), list(args)
        hi[i], lo[i] = args[i] + e, args[i] - e
        g[j] = (f(*hi) - f(*lo)) / (2 * h)
    return g


def test_gmm_log_posterior_gradient():
    """np.triu_indices(d, 1) and multigammaln(0.5 * n, d) of integers: computed as the primal does."""
    rng = np.random.default_rng(11)
    k, d, n = 3, 4, 6
    args = (
        rng.normal(size=k),
        rng.normal(size=(k, d)),
        0.3 * rng.normal(size=(k, d)),
        rng.normal(size=(k, d * (d - 1) // 2)),
        rng.normal(size=(n, d)),
        1.0,
        0,
    )
    f = adcompiler.differentiate(gmm.log_posterior, wrt=("alpha", "mu", "q", "l"))
    grads = f.grad(*args)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, central(gmm.log_posterior, args, i), rtol=1e-6, atol=1e-6)
    tangents = tuple(rng.normal(size=g.shape) for g in grads)
    _, tangent = f.jvp(args, tangents)
    assert tangent == pytest.approx(sum(np.sum(g * t) for g, t in zip(grads, tangents)), rel=1e-10)


def test_llsq_gradient_is_the_normal_equations_residual():
    """np.vander(t, m) of sample points, not differentiated: grad = P^T (P x - s)."""
    x = np.random.default_rng(5).normal(size=5)
    t = -1.0 + np.arange(9) * 2.0 / 8
    P = np.vander(t, 5, increasing=True)
    f = adcompiler.differentiate(llsq.llsq, wrt=("x",))
    np.testing.assert_allclose(f.grad(x, 9), P.T @ (P @ x - np.sign(t)), rtol=1e-12, atol=1e-12)
    v = np.ones(5)
    assert f.jvp((x, 9), (v,))[1] == pytest.approx(np.sum(f.grad(x, 9) * v), rel=1e-12)


def test_lstm_on_numba_makes_fewer_arrays_and_the_same_gradient(monkeypatch, tmp_path):
    """lstm's gradient under Numba against the python target (1e-12) and central differences, and the code
    that makes fewer arrays a step of a cell: the new cell state one line (its products kept on the tape as
    the shapes of their factors, a sigmoid's dtype that of arithmetic with a Python float, modes.shape_kept),
    each ``1.0 + exp(-x)`` computed again inside the line that reads it (modes.recomputed), the stacked
    state's cotangent added into by rows (targets.numba.by_element's ``line_in``), an accumulator's first
    addition of a new array that array itself, not ``0.0 +`` a copy of it, and a cotangent folded into its
    one reader past the pieces ``unjoin`` cuts (optimize.inline)."""
    pytest.importorskip("numba")
    monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(35)
    main, extra = rng.uniform(-1, 1, (4, 12)), rng.uniform(-1, 1, (3, 3))
    state, sequence = rng.uniform(-1, 1, (4, 3)), rng.uniform(0, 1, (5, 3))
    args = (main, extra, state, sequence)
    d = adcompiler.differentiate(lstm.objective, wrt=("main_params", "extra_params"), backend="numba")
    got = d.grad(*args)
    want = adcompiler.differentiate(lstm.objective, wrt=("main_params", "extra_params")).grad(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[1], central(lstm.objective, args, 1), rtol=1e-6, atol=1e-8)
    u = (rng.normal(size=main.shape), rng.normal(size=extra.shape))  # forward against reverse
    _, tangent = d.jvp(args, u)
    assert tangent == pytest.approx(sum(np.sum(g * v) for g, v in zip(got, u)), rel=1e-12)
    (text,) = [t for t in map(Path.read_text, (tmp_path / "numba").glob("adc_*.py")) if "def objective_grad" in t]
    forward, _, reverse = text.partition("range(t2 - 1, -1, -1)")
    assert re.search(r"cell = t8__1 \* forget \+ ingate \* change\n", forward), forward
    assert not re.search(r"\w+ = 1\.0 \+ \w+\n", reverse) and "(1.0 + element(t2" in reverse, reverse
    assert "line_in(" in reverse, reverse
    assert "= 0.0 + unbroadcast(" not in reverse, reverse  # (the input's cotangent: a new array, not copied again)
    assert "d_t8__1 =" not in reverse, reverse  # (the state row's cotangent folded past the pieces of the join's)
