"""A split sweep's branch outside every loop (issue 35): it runs at most once a call, so what it keeps for
the adjoint, and which way it went, are variables (``kept = (...)``, ``taken = True``) returned with the
residuals, not lists appended and popped (three lists a call of GradBench ba's rodrigues).  Each function
against central differences, on both targets; the generated code read for its lists."""

import re

import numpy as np
import pytest

import adcompiler
from oracle import central_grad
import slot_funcs as S
from shared import BACKENDS

RNG = np.random.default_rng(35)
CASES = [
    (S.rotated, (RNG.normal(size=3), RNG.normal(size=3))),
    (S.rotated, (np.zeros(3), RNG.normal(size=3))),  # the other branch
    (S.calls_nested, (0.7, 0.4)),
    (S.calls_nested, (0.7, -0.4)),
    (S.calls_nested, (-0.7, 0.4)),
    (S.calls_counted, (0.6, 4)),
    (S.calls_counted, (0.6, 1)),  # counted(x * 0.5, -1): the loop's branch not taken
    (S.looped, (0.3, 4)),
    (S.calls_power, (0.8,)),
    (S.calls_listed, (RNG.normal(size=2), RNG.normal(size=2), True)),
    (S.calls_listed, (RNG.normal(size=2), RNG.normal(size=2), False)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", CASES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_gradient(fn, args, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    wrt = tuple(k for k, a in enumerate(args) if not isinstance(a, int))
    d = adcompiler.differentiate(fn, wrt=wrt, backend=backend)
    value, cts = d.vjp(args, 1.0)
    assert value == pytest.approx(fn(*args), rel=1e-12)
    for k, c in zip(wrt, cts):
        np.testing.assert_allclose(c, central_grad(fn, args, k), rtol=1e-6, atol=1e-7)


def _sweeps(fn, args, callee):
    """The forward and reverse sweeps of ``callee`` in the reverse code of ``fn``."""
    d = adcompiler.differentiate(fn)
    d.vjp(args, 1.0)
    source = d.source("reverse")
    start = re.search(rf"def {callee}\w*_forward_sweep", source).start()
    end = source.find("\ndef ", re.search(rf"def {callee}\w*_reverse_sweep", source).start())
    return source[start : end if end > 0 else None]


@pytest.mark.parametrize(
    "fn, args, callee",
    [
        (S.rotated, CASES[0][1], "rotate"),
        (S.calls_nested, CASES[2][1], "nested"),
    ],
)
def test_a_branch_outside_loops_keeps_no_list(fn, args, callee):
    code = _sweeps(fn, args, callee)
    assert "= []" not in code and ".append(" not in code and ".pop()" not in code, code
    assert "taken" in code and "kept" in code, code


def test_a_loop_in_such_a_branch_keeps_its_count_in_a_slot():
    """The loop's body pushes onto a list (it runs many times), its trip count after it a slot."""
    code = _sweeps(S.calls_counted, CASES[5][1], "counted")
    assert code.count("= []") == 1 and "kept = (n_iter,)" in code and "(n_iter,) = kept" in code, code


def test_rodrigues_slots():
    """Its branch taken is a flag set by the branch, what each branch keeps a tuple (of one name, too)."""
    code = _sweeps(S.rotated, CASES[0][1], "rotate")
    assert code.count(" = None\n") == 2 and code.count("taken = False\n") == 1, code
    assert code.count("taken = True\n") == 1 and "(t" in code and ",) = kept" in code, code


def test_a_branch_in_a_loop_still_pops():
    code = _sweeps(S.looped, CASES[7][1], "branch_in_loop")
    assert ".append(True)" in code and ".pop()" in code, code


def test_numba_levels_sharing_tapes_keep_lists():
    """Under Numba a function that calls itself pushes onto one set of tapes for every level (lists) what
    has a derivative (power's halves); which way its branches went, a number with none, each level keeps
    in its frame, pushed at its end and popped first by its reverse sweep (a tape handed down fewer)."""
    pytest.importorskip("numba")
    d = adcompiler.differentiate(S.calls_power, backend="numba")
    d.vjp((0.8,), 1.0)
    code = d.source("reverse")
    onto = code[code.index("def power_x_forward_sweep_onto") :]
    back = onto[onto.index("def power_x_reverse_sweep_onto") :]
    assert re.search(r"\n    frames\.append\(\(taken\w*, taken\w*\)\)\n    return", onto), onto
    assert re.search(r"\n    taken\w*, taken\w* = frames\.pop\(\)\n", back), back
    assert "t5 = tape.pop()" in back and "h = tape_1.pop()" in back, back  # (values with derivatives: tapes)


def _branch_program(rng) -> str:
    """A helper whose branch outside every loop keeps what the saddle bug needed (a list of numbers made
    an array, a call's residuals, a tuple), drawn at random, and a caller reducing it to a number."""
    keeps = {
        "listed": "np.array([part(x, y) * x[0], part(y, x) * y[1]])",
        "called": "part(x, y) * y",
        "tupled": "np.array(list((x[0] * y[1], part(x, x))))",
        "plain": "x * y + np.sin(x)",
    }
    taken, other = rng.choice(sorted(keeps), 2, replace=False)
    test = rng.choice(["flag", "x[0] > 0.0", "np.sum(y) < 0.5"])
    return f"""import numpy as np


def part(x, y):
    return x[0] * x[0] - y[0] * y[1]


def helper(x, y, flag):
    if {test}:
        return {keeps[taken]}
    return {keeps[other]}


def f(x, y, flag):
    return np.sum(helper(x, y, flag) * x) + np.sum(y * y)
"""


@pytest.mark.parametrize(  # seed 1 by default (a list made an array, what saddle's bug needed), the rest with --runslow
    "seed", [1, *(pytest.param(s, marks=pytest.mark.slow) for s in (0, *range(2, 10)))]
)
def test_generated_branches_outside_loops_against_differences(seed, tmp_path):
    """A generator of the programs the saddle bug lived in (a slot holding a list): each against central
    differences."""
    for module, args, source in _branch_programs(seed, tmp_path):
        python = adcompiler.differentiate(module.f, wrt=("x", "y")).grad(*args)
        for k in (0, 1):
            np.testing.assert_allclose(python[k], central_grad(module.f, args, k), rtol=1e-6, atol=1e-7, err_msg=source)


@pytest.mark.slow  # (a long compile each seed; by default test_numba_levels_sharing_tapes_keep_lists holds Numba to list slots)
@pytest.mark.parametrize("seed", range(10))
def test_generated_branches_outside_loops_on_numba_as_on_python(seed, tmp_path):
    """The same programs under Numba (where the saddle bug failed, in its lowering) against the python backend."""
    pytest.importorskip("numba")
    for module, args, source in _branch_programs(seed, tmp_path):
        python = adcompiler.differentiate(module.f, wrt=("x", "y")).grad(*args)
        numba_ = adcompiler.differentiate(module.f, wrt=("x", "y"), backend="numba").grad(*args)
        for k in (0, 1):
            np.testing.assert_allclose(numba_[k], python[k], rtol=1e-12, atol=1e-14, err_msg=source)


def _branch_programs(seed, tmp_path):
    """The program of ``seed``, loaded, with the arguments of each way its flag goes, and its source."""
    from adcompiler.testing.fuzz.check import load_module

    rng = np.random.default_rng(seed)
    source = _branch_program(rng)
    module = load_module(source, str(tmp_path), f"branches{seed}")
    return [(module, (rng.normal(size=2), rng.normal(size=2), flag), source) for flag in (True, False)]
