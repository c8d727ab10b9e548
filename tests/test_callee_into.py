"""A called function's reverse sweep adds into its caller's adjoint array (issue 35): the accumulator of
an array parameter read in a loop or a branch is handed in (``g_reverse_sweep(residuals, ct, d_A)``) rather
than made as zeros at every call and added by the caller (det's recursion: 326 arrays of zeros for a 5x5
matrix).  Each program against central differences on both targets, the Hessian of one against
autograd's, and the generated code read for its zeros."""

import re
import types

import numpy as np
import pytest

import adcompiler
import callee_into_funcs as F
from shared import BACKENDS
from oracle import central_grad

RNG = np.random.default_rng(35)
M = RNG.normal(size=(4, 4))
CASES = [
    (F.det, (RNG.normal(size=(4, 4)),)),
    (F.run_cells, (0.5 * RNG.normal(size=(3, 3)), RNG.normal(size=3), RNG.normal(size=3))),
    (F.same_twice, (RNG.normal(size=(3, 2)),)),
    (F.calls_rowwise, (RNG.normal(size=(3, 4)), RNG.normal(size=(1, 4)))),
    (F.calls_rowwise_scalar, (RNG.normal(size=(3, 4)), 0.7)),
    (F.calls_climb, (RNG.normal(size=(4, 3)),)),
    (F.calls_even, (RNG.normal(size=(5, 2)),)),
    (F.branch_helper, (0.5 * RNG.normal(size=(3, 3)), RNG.normal(size=3), 1)),
    (F.branch_helper, (0.5 * RNG.normal(size=(3, 3)), RNG.normal(size=3), -1)),
    (F.sum_after_call, (RNG.normal(size=(3, 2)), RNG.normal(size=(3, 2)))),
    (F.calls_weighted, (RNG.normal(size=(3, 2)), RNG.normal(size=(4, 3, 2)))),
    (F.calls_named_like_a_sweep, (RNG.normal(size=3), RNG.normal(size=3))),  # a user's g_reverse_sweep
]
IDS = [f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)]


def _wrt(args) -> tuple:
    return tuple(k for k, a in enumerate(args) if not isinstance(a, int))


@pytest.mark.parametrize("backend", BACKENDS)  # (Numba: the handed rows of tests/test_numba_agrees.py by default)
@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_gradient(fn, args, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    wrt = _wrt(args)
    d = adcompiler.differentiate(fn, wrt=wrt, backend=backend)
    grads = d.grad(*args)
    grads = grads if len(wrt) > 1 else (grads,)
    for k, g in zip(wrt, grads, strict=True):
        assert np.shape(g) == np.shape(args[k])
        np.testing.assert_allclose(g, central_grad(fn, args, k), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_checkpointed_loop(backend):
    """checkpoint=2 over a loop whose body calls a helper handed the weights' accumulator."""
    if backend == "numba":
        pytest.importorskip("numba")
    args = (0.5 * RNG.normal(size=(3, 3)), RNG.normal(size=3))
    d = adcompiler.differentiate(F.loop_with_helper, backend=backend, checkpoint=2)
    for k, g in enumerate(d.grad(*args)):
        np.testing.assert_allclose(g, central_grad(F.loop_with_helper, args, k), rtol=1e-6, atol=1e-7)


def test_reverse_code_of_a_handed_call_is_correct_twice():
    """Two calls of one derivative give one gradient: the accumulator handed is never an array kept."""
    A = RNG.normal(size=(4, 4))
    d = adcompiler.differentiate(F.det)
    first = d.grad(A).copy()
    np.testing.assert_array_equal(d.grad(A), first)
    value, (ct,) = d.vjp((A,), 2.0)
    np.testing.assert_allclose(ct, 2.0 * first)


def _on_autograd(fn, anp):
    """``fn`` and the functions of its module it calls, reading autograd's numpy."""
    space = dict(vars(F))
    space["np"] = anp
    for name, value in vars(F).items():
        if isinstance(value, types.FunctionType):
            space[name] = types.FunctionType(value.__code__, space, name)
    return space[fn.__name__]


@pytest.mark.parametrize("fn, args", [CASES[1], CASES[5]], ids=["run_cells", "calls_climb"])
def test_hessian(fn, args):
    """Forward mode over the reverse code whose calls add into the accumulators they are handed."""
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    H = adcompiler.hessian(fn)(*args)
    expected = autograd.hessian(_on_autograd(fn, anp))(*args)
    np.testing.assert_allclose(H, expected, rtol=1e-7, atol=1e-9)


def _reverse_sweep(source: str, callee: str) -> str:
    start = re.search(rf"def {callee}\w*_reverse_sweep\(", source).start()
    end = source.find("\ndef ", start)
    return source[start : end if end > 0 else None]


def test_det_makes_no_zeros_per_level():
    """det's reverse sweep takes d_A from its caller and adds into it, at every level of its recursion: the
    python target's one array of A's shape is made by the first scatter_add into the 0.0 det hands in."""
    d = adcompiler.differentiate(F.det)
    d.grad(M)
    source = d.source("reverse")
    sweep = _reverse_sweep(source, "det_of_minor")
    assert re.search(r"def det_of_minor_A_reverse_sweep\(residuals, ct, (d_A\w*)\)", sweep)
    acc = re.search(r"def det_of_minor_A_reverse_sweep\(residuals, ct, (d_A\w*)\)", sweep).group(1)
    assert f"{acc} = 0.0" not in sweep and "zeros" not in sweep
    assert re.search(rf"{acc} = det_of_minor_A_reverse_sweep\(\s*\w+, [^\n]*, {acc}\s*\)", sweep)
    assert f"{acc} + " not in sweep  # (no array of the level's added into the caller's)
    assert re.search(r"= det_of_minor_A_reverse_sweep\(\w+, ct, 0\.0\)", source)  # det hands the number 0.0


@pytest.mark.slow  # (test_numba_det_allocates_no_array_a_level compiles the same det by default)
def test_numba_det_makes_zeros_once():
    """Under Numba, det makes d_A's zeros once (a variable has one type: an array is handed), and no level
    of the recursion makes any."""
    pytest.importorskip("numba")
    d = adcompiler.differentiate(F.det, backend="numba")
    np.testing.assert_allclose(d.grad(M), central_grad(F.det, (M,), 0), rtol=1e-6, atol=1e-7)
    source = d.source("grad")
    start = source.index("def det_of_minor_A_reverse_sweep(")  # (and its levels, ..._reverse_sweep_onto)
    sweep = source[start : source.find("\ndef ", source.index("def det_of_minor_A_reverse_sweep_onto("))]
    assert not re.search(r"zeros|array_like\(0\.0", sweep)
    assert len(re.findall(r"zeros_like\(A\)|array_like\(0\.0, A\)", source)) == 1


def test_cell_in_a_loop_adds_into_the_callers_accumulator():
    """run_cells's loop hands d_W to cell's reverse sweep at each step, which adds into it; b, read once in
    cell, comes back as today (its adjoint is a new array either way); h, read in cell's loop too, is
    handed the number 0.0 (the caller's h is a variable of the loop, with no accumulator to hand)."""
    args = CASES[1][1]
    d = adcompiler.differentiate(F.run_cells)
    d.grad(*args)
    source = d.source("reverse")
    sweep = _reverse_sweep(source, "cell")
    acc = re.search(r"def cell_reverse_sweep\(residuals, ct, (d_W\w*), d_h\w*\)", sweep).group(1)
    assert f"{acc} = 0.0" not in sweep and f"{acc} + " not in sweep and f"+ {acc}" not in sweep
    assert re.search(r"(d_W\w*), d_b\w*, d_h\w* = (\(\s*)?cell_reverse_sweep\(\s*\w+, \w+, \1, 0\.0\s*\)", source)


# ---- a generator of helpers with array parameters called from loops, branches and themselves ----

_INNER = """
def inner(P, Q):
    s = 0.0
    for i in range(P.shape[0]):
        s = s + np.sum(P[i] * np.sin(Q[i]))
    return s
"""

_HELPER_PARTS = {
    "loop": "    for i in range(A.shape[0]):\n        s = s + np.sum(np.sin(A[i]) * B[i])\n",
    "loop_once": "    for i in range(2):\n        s = s + np.sum(A[i + 1] * A[i])\n",
    "branch": "    if k > 1:\n        s = s + np.sum(A * B)\n    else:\n        s = s - np.sum(A[0] * A[0])\n",
    "branch_b": "    if k % 2 == 0:\n        s = s + np.sum(np.cos(B[k % 3]) * A[1])\n",
    "call": "    s = s + inner(A, B) * 0.5\n",
    "call_same": "    s = s + inner(B, B)\n",
    "top": "    s = s + np.sum(A[0] * B[1])\n",
    "broadcast": "    s = s + np.sum(np.cos(A * B[0]))\n",
    "recursive": "    if k > 0:\n        s = s + helper(A, B, k - 1) * 0.5\n        s = s + np.sum(A[k % 3] * B[0])\n",
}

_CALL_ARGS = ["A, B", "A, A", "B, A", "A * 0.5, B", "A, B + A", "C, B"]

_CALLER_PARTS = [
    "    for t in range(3):\n        total = total + helper({args}, t)\n",
    "    if np.sum(A) > 0.0:\n        total = total + helper({args}, 2)\n    else:\n        total = total - helper({args}, 1)\n",
    "    total = total + helper({args}, 1)\n",
    "    for t in range(2):\n        if t > 0:\n            y = A + B\n            total = total + np.sum(y * y) + helper({args}, t)\n",
    "    total = total + np.sum(A * B)\n",
    "    if np.sum(B) > -9.0:\n        total = total + helper({args}, 1)\n        y = A + C\n        total = total + np.sum(y * y)\n",
    "    for t in range(2):\n        total = total + np.sum(C[t] * A[t])\n",
]


def _called_program(rng) -> str:
    """A helper of two arrays (and an int) reading them in loops, branches, a call and perhaps itself, and a
    caller calling it from loops and branches with arguments that share arrays, drawn at random."""
    parts = rng.choice(sorted(_HELPER_PARTS), size=int(rng.integers(2, 5)), replace=False)
    helper = "def helper(A, B, k):\n    s = 0.0\n" + "".join(_HELPER_PARTS[p] for p in parts) + "    return s\n"
    calls = rng.choice(len(_CALLER_PARTS), size=int(rng.integers(2, 4)), replace=False)
    body = "".join(_CALLER_PARTS[c].format(args=rng.choice(_CALL_ARGS)) for c in sorted(calls))
    caller = "def f(A, B):\n    C = B * A\n    total = 0.0\n" + body + "    return total\n"
    return "import numpy as np\n\n" + _INNER + "\n\n" + helper + "\n\n" + caller


@pytest.mark.parametrize(
    "seed, backend",
    [(s, "python") for s in range(6)]  # (under Numba with --runslow: the det tests below compile a helper's
    + [pytest.param(s, b, marks=pytest.mark.slow) for s in range(6, 24) for b in ("python", "numba")]  # sweep
    + [pytest.param(s, "numba", marks=pytest.mark.slow) for s in range(6)],  # into its caller by default)
)
def test_generated_helpers_against_central_differences(seed, backend, tmp_path):
    """Each generated program's gradient against central differences (and Numba's against the python
    backend's): what would find an accumulator handed where it is not sound."""
    if backend == "numba":
        pytest.importorskip("numba")
    from adcompiler.testing.fuzz.check import load_module

    rng = np.random.default_rng(seed)
    source = _called_program(rng)
    module = load_module(source, str(tmp_path), f"called{seed}")
    for _ in range(2):
        args = (rng.normal(size=(3, 2)), rng.normal(size=(3, 2)))
        grads = adcompiler.differentiate(module.f, backend=backend).grad(*args)
        for k in (0, 1):
            expected = central_grad(module.f, args, k)
            np.testing.assert_allclose(grads[k], expected, rtol=1e-6, atol=1e-7, err_msg=source)


def test_tidying_makes_no_handed_accumulator_an_alias():
    """``d = 0.0; d = d + e`` is ``d = e`` where no array they hold is changed in place; a reverse sweep
    handed ``d`` changes it (it adds into it), so the sum stays: ``e``, read after, keeps its values."""
    from adcompiler.ir import expr as E
    from adcompiler.ir.nodes import Assign, Def, Ret
    from adcompiler.optimize.aliases import changed_in_place
    from adcompiler.optimize.tidy import tidy

    call = E.Call("g_reverse_sweep", (E.Name("res"), E.Name("ct"), E.Name("d")))
    body = (
        Assign(("e",), E.Call("numpy.sin", (E.Name("ct"),))),
        Assign(("d",), E.Num(0.0)),
        Assign(("d",), E.BinOp("+", E.Name("d"), E.Name("e"))),
        Assign(("d",), call),
        Ret(E.Tuple((E.Name("d"), E.Name("e")))),
    )
    assert "d" in changed_in_place(list(body))
    tidied = tidy(Def("f", ("res", "ct"), (), body))
    assert Assign(("d",), E.Name("e")) not in tidied.body and not any(
        isinstance(s, Assign) and s.targets == ("d",) and s.value == E.Name("e") for s in tidied.body
    ), tidied.body


@pytest.mark.parametrize("fn, callees", [(F.calls_climb, ("climb",)), (F.calls_even, ("even", "odd"))])
def test_recursions_take_the_accumulator(fn, callees):
    """A recursion (and a mutual one) reading A in a loop: each level adds into the d_A it is handed."""
    A = RNG.normal(size=(4, 3))
    d = adcompiler.differentiate(fn)
    d.grad(A)
    source = d.source("reverse")
    for callee in callees:
        sweep = _reverse_sweep(source, callee)
        acc = re.search(rf"def {callee}_\w*reverse_sweep\(residuals, ct, (d_A\w*)\)", sweep).group(1)
        assert f"{acc} = 0.0" not in sweep, sweep


def test_a_parameter_read_in_branches_alone_is_not_handed():
    """rotate-like helpers reading X in branches only keep their sweep: tidying starts X's adjoint from the
    first array a branch adds (no zeros to save), which Numba folds into one expression."""
    import slot_funcs

    d = adcompiler.differentiate(slot_funcs.rotated)
    d.grad(RNG.normal(size=3), RNG.normal(size=3))
    assert re.search(r"def rotate\w*_reverse_sweep\(residuals, ct\)", d.source("reverse"))


def test_the_other_cotangents_of_a_handing_call_stay_aliases():
    """Only the accumulator handed is changed in place: h's cotangent from the same call is still the slot's
    adjoint as it is (``d_h_1 = d_h_2``), not a copy of it (``0.0 + d_h_2``, an array a step under Numba)."""
    args = CASES[1][1]
    d = adcompiler.differentiate(F.run_cells)
    d.grad(*args)
    source = d.source("grad")
    assert re.search(r"cell_reverse_sweep\(cell_res, \w+, d_W\w*, 0\.0\)", source), source
    assert not re.search(r"= 0\.0 \+ d_", source), source


def test_numba_det_allocates_no_array_a_level():
    """The compiled reverse of det on a 4x4 matrix runs det_of_minor's reverse sweep 41 times: 375 NRT
    allocations a gradient when each level made zeros for d_A (issue 35), 335 with the one array handed down
    (what is left: the lists of indices, the tapes' tuples)."""
    numba = pytest.importorskip("numba")
    from numba.core.runtime import _nrt_python, rtsys

    d = adcompiler.differentiate(F.det, backend="numba")
    reverse = d.compiled("reverse", M)
    # the levels hand their tapes down one by one, not as one tuple each level unpacks (a reference counted
    # for each tape at every level: det's gradient 78 -> 64 us at ell = 5)
    source = d.source("reverse")
    onto = re.search(r"def det_of_minor_A_forward_sweep_onto\(A, rows, cols, (\w+(?:, \w+)*)\)", source)
    back = re.search(r"def det_of_minor_A_reverse_sweep_onto\((\w+), ct, (d_A\w*)((?:, \w+)*)\)", source)
    assert onto and back, source
    tapes = onto.group(1).split(", ")
    assert len(tapes) > 1 and back.group(1) == tapes[0] and back.group(3).split(", ")[1:] == tapes[1:] + ["A"]
    assert len(re.findall(r"= tapes\b", source)) == 1  # (unpacked once, by the reverse sweep det calls)
    levels = source[back.start() : source.find("\ndef ", back.start())]
    assert re.search(
        rf"det_of_minor_A_reverse_sweep_onto\(\s*{tapes[0]}, [^\n]*, {', '.join(tapes[1:])}, A\s*\)", levels
    )
    np.testing.assert_allclose(d.grad(M), central_grad(F.det, (M,), 0), rtol=1e-6, atol=1e-7)

    @numba.njit
    def calls(n, a):
        for _ in range(n):
            reverse(a, 1.0)

    calls(1, M)
    _nrt_python.memsys_enable_stats()
    before = rtsys.get_allocation_stats().alloc
    calls(10, M)
    assert (rtsys.get_allocation_stats().alloc - before) / 10 <= 340


def test_a_level_keeps_its_branch_and_counts_in_one_frame():
    """Under Numba, each level of a recursion whose levels share tapes keeps what its sites outside loops
    keep once a call (its branch's direction, its loop's count, the place a leaf read) in one frame, pushed
    at its end and popped at its reverse's start: det's levels hand down two tapes, not four (a reference
    counted for each at every level: 63 -> 54 us at ell = 5).  Against det * inverse transposed, the python
    target and central differences; a recursion whose levels keep values with derivatives (tree) keeps
    those on tapes, and its gradient is right too (and its Hessian: test_numba_hessian's power)."""
    pytest.importorskip("numba")
    d = adcompiler.differentiate(F.det, backend="numba")
    g = d.grad(M)
    np.testing.assert_allclose(g, np.linalg.det(M) * np.linalg.inv(M).T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, adcompiler.differentiate(F.det).grad(M), rtol=1e-13, atol=1e-13)
    source = d.source("reverse")
    onto = re.search(r"def det_of_minor_A_forward_sweep_onto\(A, rows, cols, (\w+), (\w+)\)", source)
    assert onto, source
    frames = onto.group(2)
    back = source[source.index("def det_of_minor_A_reverse_sweep_onto") :]
    assert re.search(rf"\n    \w+, \w+, \w+ = {frames}\.pop\(\)\n", back[: back.index("\n\n")]), back
    xs = RNG.normal(size=7)
    tree = adcompiler.differentiate(F.tree, backend="numba")
    np.testing.assert_allclose(tree.grad(xs), adcompiler.differentiate(F.tree).grad(xs), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(tree.grad(xs), central_grad(F.tree, (xs,), 0), rtol=1e-6, atol=1e-8)
    _, t = tree.jvp((xs,), (xs,))
    assert t == pytest.approx(tree.grad(xs) @ xs, rel=1e-12)  # forward against reverse


_LEAVES = ("x * x", "np.sin(x)", "x * 0.5 + x * x * x", "np.exp(-x * x)")
_JOINS = ("a * b", "a + np.sin(b)", "a * 0.5 + b * b", "a * np.cos(b) - b", "(a - b) * (a + 1.5)")


def _recursion(rng) -> str:
    """A recursion over a range of an array, halving it down to leaves of one to three places, its
    leaves' values and its halves' joins drawn at random, with a branch on the range's length and a loop
    at the leaves: what a level keeps once (its branch, its loop's count, its split point) goes in its
    frame, what has a derivative (the halves' values) on tapes."""
    leaf, join, size = rng.choice(_LEAVES), rng.choice(_JOINS), int(rng.integers(1, 4))
    return f"""import numpy as np


def rec(xs, lo, hi):
    if hi - lo <= {size}:
        s = 0.0
        for i in range(lo, hi):
            x = xs[i]
            s = s + {leaf}
        return s
    mid = (lo + hi) // 2
    a = rec(xs, lo, mid)
    b = rec(xs, mid, hi)
    return {join}


def f(xs):
    return rec(xs, 0, xs.shape[0])
"""


@pytest.mark.parametrize("seed", range(12))
def test_drawn_recursions_over_arrays_on_both_targets(seed, tmp_path):
    """Recursions drawn at random (``_recursion``) under Numba against the python target, central
    differences, and forward against reverse.  (Five of the first six were refused under Numba: a leaf
    loop's tape, of fewer values once one was computed again after the pop, was typed by the priming
    lines, which still pushed it: ``reverse.sweeps`` makes both push alike.)"""
    pytest.importorskip("numba")
    import importlib.util
    import sys

    rng = np.random.default_rng(seed)
    path = tmp_path / f"drawn_recursion_{seed}.py"
    path.write_text(_recursion(rng))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    xs = 0.5 * rng.normal(size=int(rng.integers(2, 9)))
    d = adcompiler.differentiate(module.f, backend="numba")
    g = d.grad(xs)
    np.testing.assert_allclose(g, adcompiler.differentiate(module.f).grad(xs), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, central_grad(module.f, (xs,), 0), rtol=1e-6, atol=1e-7)
    v = rng.normal(size=xs.shape)
    value, t = d.jvp((xs,), (v,))
    assert value == pytest.approx(module.f(xs), rel=1e-12)
    assert t == pytest.approx(g @ v, rel=1e-10, abs=1e-12)  # forward against reverse
