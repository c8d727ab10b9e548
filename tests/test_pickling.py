"""Differentiable objects and their f.grad / f.jvp / f.vjp survive pickle (by reference to the user's
function: a process that unpickles them generates its own code), so process pools can use them."""

import concurrent.futures
import math
import multiprocessing
import pickle

import pytest

import adcompiler
from tests import pickle_funcs as F


def _energy_grad(x, y):
    return (2 * x * y, x * x + math.cos(y))


def test_decorated_function_and_its_methods_round_trip():
    assert pickle.loads(pickle.dumps(F.energy)) is F.energy
    for _ in range(2):  # before and after f.grad becomes a fast entry
        g = pickle.loads(pickle.dumps(F.energy.grad))
        assert g(0.3, 1.2) == pytest.approx(_energy_grad(0.3, 1.2), rel=1e-12)
        F.energy.grad(0.3, 1.2)
    for name in ("jvp", "vjp", "value_and_grad"):
        assert pickle.loads(pickle.dumps(getattr(F.energy, name))) is not None


def test_options_survive_for_a_function_differentiated_by_the_caller():
    d = adcompiler.differentiate(F.plain)
    again = pickle.loads(pickle.dumps(d))
    assert again.fn is F.plain and again.grad(0.5) == pytest.approx(math.exp(0.5) * 1.5, rel=1e-12)
    w = pickle.loads(pickle.dumps(F.weighted))
    assert w is F.weighted and w.wrt == ("xs",)


def test_a_process_pool_computes_gradients():
    inputs = [(0.1 * k, 1.0 + 0.2 * k) for k in range(6)]
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        got = list(pool.map(F.energy.grad, *zip(*inputs)))
    assert got == [pytest.approx(_energy_grad(x, y), rel=1e-12) for x, y in inputs]


def test_derivative_of_derivative_code_is_refused_clearly():
    d = adcompiler.differentiate(F.energy.grad)
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(d)
