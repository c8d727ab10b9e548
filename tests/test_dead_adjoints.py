"""Adjoints nothing reads are not in the generated code (optimize/tidy.py): the adjoint of a parameter not
differentiated, rebound in a loop (GradBench lstm's ``x`` of ``predict``), was written as
``d_x_2 = unbroadcast(t1 * d_x_1, x_2)`` and kept, since a runtime helper's call was not known to change
nothing; under Numba it made an array a call.  The gradients agree with central differences under both
backends."""

import ast

import numpy as np
import pytest

import adcompiler
from oracle import central_grad
from shared import BACKENDS


def scaled(w, x):
    x = x * w[0]
    for k in range(2):
        x = np.tanh(x) * w[1]
    return np.sum(x)


def outer(w, xs):
    total = 0.0
    for k in range(len(xs)):
        total = total + scaled(w, xs[k])
    return total


RNG = np.random.default_rng(3)
ARGS = (RNG.normal(size=(2, 3)), RNG.normal(size=(4, 3)))


def unread(source: str) -> list:
    """The names each function of ``source`` assigns and never reads."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, ast.FunctionDef):
            names = [n for n in ast.walk(function) if isinstance(n, ast.Name)]
            loaded = {n.id for n in names if isinstance(n.ctx, ast.Load)}
            found += [f"{function.name}: {n.id}" for n in names if isinstance(n.ctx, ast.Store) and n.id not in loaded]
    return found


def test_no_adjoint_is_left_unread():
    d = adcompiler.differentiate(outer, wrt="w")
    d.grad(*ARGS)
    assert [n for n in unread(str(d.source("reverse"))) if ": d_" in n] == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_against_differences(backend):
    if backend == "numba":
        pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")
    got = adcompiler.differentiate(outer, wrt="w", backend=backend).grad(*ARGS)
    want = central_grad(outer, ARGS, 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
