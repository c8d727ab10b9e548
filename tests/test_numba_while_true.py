"""``while True:`` loops under ``backend="numba"``.

Numba's analysis of the bytecode of a loop with no test miscompiles some of them (numba/numba#5267): a Newton
iteration ``while True: ... if it > 50: x = xn; break; x = xn`` ran its body once under ``numba.njit`` (the
value and the derivative of the first step, silently), another never ended, a third was refused with a typing
error.  The target writes such a loop with a test of a variable (``translate._tested_loops``).  The generator
crosses where the loop leaves (a count, a tolerance, both) with what the exit assigns, each against the python
backend and central differences, in both modes.
"""

import itertools

import pytest

pytest.importorskip("numba")

import adcompiler  # noqa: E402
from shared import written  # noqa: E402

EXITS = {
    "count": "it > 12",
    "tolerance": "abs(xn - x) < 1e-13",
    "either": "abs(xn - x) < 1e-13 or it > 40",
}
ON_EXIT = {
    "assigned": "            x = xn\n            break\n",
    "scaled": "            x = xn * 1.5\n            break\n",
    "nothing": "            break\n",
}
STEPS = {
    "newton": "xn = 0.5 * (x + a / x)",  # the square root of a
    "damped": "xn = x - 0.25 * (x * x - a) / x",
}


def _program(exit_, on_exit, step) -> str:
    return (
        "def f(a):\n    x = a\n    it = 0\n    while True:\n"
        f"        {STEPS[step]}\n        it += 1\n        if {EXITS[exit_]}:\n{ON_EXIT[on_exit]}"
        "        x = xn\n    return x * x + x\n"
    )


CASES = list(itertools.product(EXITS, ON_EXIT, STEPS))


@pytest.mark.parametrize("exit_, on_exit, step", CASES, ids=lambda v: v)
def test_a_while_true_loop_under_numba_runs_as_written(tmp_path, exit_, on_exit, step):
    f = written(tmp_path, "loops", _program(exit_, on_exit, step))["f"]
    a, h = 2.7293, 1e-6
    want = (f(a + h) - f(a - h)) / (2 * h)
    numba_d, python_d = (adcompiler.differentiate(f, backend=b) for b in ("numba", "python"))
    value, tangent = numba_d.jvp((a,), (1.0,))
    assert value == pytest.approx(f(a), rel=1e-14)
    assert tangent == pytest.approx(want, rel=1e-6)
    assert numba_d.grad(a) == pytest.approx(python_d.grad(a), rel=1e-12)
    assert numba_d.grad(a) == pytest.approx(want, rel=1e-6)
