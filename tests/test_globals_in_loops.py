"""A module array read inside a loop: the reverse sweep reads it again instead of taping it every step
(it was taped, and the pop assigned the module's name inside the derivative, which then raised
UnboundLocalError at the loop's first read), in the API, with checkpointing, and in a written module.
References: central differences; forward mode against reverse mode."""

import importlib.util
import os

import numpy as np
import pytest

import adcompiler
import globals_in_loops_funcs as G
from adcompiler.cli.main import compile_file

HERE = os.path.dirname(os.path.abspath(__file__))


def _central(f, x, n, h=1e-6):
    out = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = h
        out.flat[k] = (f(x + e, n) - f(x - e, n)) / (2 * h)
    return out


@pytest.mark.parametrize("f", [G.recurrent, G.nested])
@pytest.mark.parametrize("checkpoint", [None, True])
def test_reverse_reads_module_arrays_again(f, checkpoint):
    x = np.array([0.3, -0.4])
    d = adcompiler.differentiate(f, wrt=("x",), checkpoint=checkpoint)
    g = d.grad(x, 6)
    np.testing.assert_allclose(g, _central(f, x, 6), rtol=1e-6, atol=1e-9)
    v = np.array([1.0, -2.0])
    _, tangent = d.jvp((x, 6), (v,))
    assert tangent == pytest.approx(float(g @ v), rel=1e-12)
    assert "W = " not in d.source("reverse")  # never assigned: it stays the module's


def test_written_module_reads_module_arrays_again():
    path = os.path.join(HERE, "globals_in_loops_funcs.py")
    namespace: dict = {}
    exec(compile(compile_file(path, ("recurrent",)), "written.py", "exec"), namespace)
    x = np.array([0.3, -0.4])
    _, (dx, _) = namespace["recurrent_reverse"](x, 6, 1.0)
    np.testing.assert_allclose(dx, _central(G.recurrent, x, 6), rtol=1e-6, atol=1e-9)
