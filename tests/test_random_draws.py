"""``np.random`` draws inside a differentiated function: made by the primal line once per call, with no
derivative, the same draw in forward and reverse mode and the primal's own (same seed, same values).
Checked against autograd (which runs the same draws) and central differences, each evaluation
seeded alike; second order against autograd's Hessian."""

import types

import numpy as np
import pytest

import adcompiler
import random_funcs as F
from adcompiler.testing.oracle import leaves

SEED = 7
CASES = [
    (F.noisy_features, (np.array([0.3, -0.7, 1.1]),), ("x",)),
    (F.scalar_draws, (0.6,), ("x",)),
    (F.draws_in_a_loop, (0.6, 4), ("x",)),
    (F.reparametrised, (np.array([0.2, -0.1, 0.4, 1.0]), 0.3), ("mu", "log_sigma")),
]


def seeded(call):
    np.random.seed(SEED)
    return call()


def twin(f):
    anp = pytest.importorskip("autograd.numpy")
    return types.FunctionType(f.__code__, dict(f.__globals__, np=anp), f.__name__)


def _flat(a):
    return np.array(leaves(a), dtype=float)


def _with(args, k, flat):
    a = args[k]
    value = flat.reshape(np.shape(a)) if isinstance(a, np.ndarray) else float(flat[0])
    return args[:k] + (value,) + args[k + 1 :]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_both_modes_against_seeded_differences(f, args, wrt):
    d = adcompiler.differentiate(f, wrt=wrt)
    positions = [d.params.index(w) for w in wrt]
    columns = []
    for k in positions:
        flat = _flat(args[k])
        for j in range(flat.size):
            moved = [flat.copy(), flat.copy()]
            moved[0][j] += 1e-6
            moved[1][j] -= 1e-6
            hi, lo = (seeded(lambda m=m: f(*_with(args, k, m))) for m in moved)
            columns.append((hi - lo) / 2e-6)
    J = np.array(columns)
    rng = np.random.default_rng(0)
    v = [rng.uniform(-1, 1, np.shape(args[k])) for k in positions]
    tangents = tuple(t if np.ndim(args[k]) else float(t) for t, k in zip(v, positions))
    value, tangent = seeded(lambda: d.jvp(args, tangents))
    assert value == seeded(lambda: f(*args))
    np.testing.assert_allclose(tangent, J @ np.concatenate([np.ravel(t) for t in v]), rtol=1e-6, atol=1e-8)
    value, cts = seeded(lambda: d.vjp(args, 1.0))
    assert value == seeded(lambda: f(*args))
    for c, k in zip(cts, positions):
        assert np.shape(c) == np.shape(args[k]) and type(c) is type(args[k]) or np.ndim(args[k]) == 0
    np.testing.assert_allclose(np.concatenate([np.ravel(c) for c in cts]), J, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_against_autograd_with_the_same_draws(f, args, wrt):
    ag = pytest.importorskip("autograd")
    d = adcompiler.differentiate(f, wrt=wrt)
    for w in wrt:
        k = d.params.index(w)
        expected = seeded(lambda: ag.grad(twin(f), k)(*args))
        got = seeded(lambda: adcompiler.differentiate(f, wrt=w).grad(*args))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
        h = seeded(lambda: adcompiler.hessian_matrix(f, wrt=w)(*args))
        expected = seeded(lambda: ag.hessian(twin(f), k)(*args))
        np.testing.assert_allclose(np.reshape(h, np.shape(expected)), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("checkpoint", [2, True, "revolve"])
@pytest.mark.parametrize("f", [F.draws_in_a_loop, F.loop_calls_a_drawing_helper])
def test_a_loop_that_draws_is_taped_not_run_again_when_checkpointing(f, checkpoint):
    """Checkpointing runs loop segments again: a loop that draws (itself or in a helper) is taped instead."""
    expected = seeded(lambda: adcompiler.differentiate(f, wrt="x").jvp((0.6, 6), (1.0,)))
    got = seeded(lambda: adcompiler.differentiate(f, wrt="x", checkpoint=checkpoint).value_and_grad(0.6, 6))
    assert got[0] == expected[0]
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-13)  # forward against reverse: rounding apart


def test_the_draw_is_made_once_per_call_and_never_dropped():
    """An unused draw still advances the generator, so later draws are the primal's."""
    text = str(adcompiler.differentiate(F.scalar_draws).source("reverse"))
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    assert code.count("unused = npr.standard_normal(size=2)") == 1 and code.count("a = npr.randn()") == 1, text
    after = seeded(lambda: (adcompiler.differentiate(F.scalar_draws).grad(0.6), np.random.random())[1])
    assert after == seeded(lambda: (F.scalar_draws(0.6), np.random.random())[1])


def test_a_draw_of_computed_parameters_is_refused_with_its_location():
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="np.random.normal of computed numbers"):
        adcompiler.differentiate(F.draw_of_computed_parameters).grad(np.zeros(3))
