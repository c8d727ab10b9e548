"""Checkpointed reverse mode (adcompiler/checkpoint.py): the same gradients as plain reverse mode and
as central finite differences for every segment length, and a tape that holds O(sqrt N)."""

import copy
import functools
import math
import tracemalloc

import pytest

import adcompiler
from shared import derivative
from tests import checkpoint_funcs as C

EVERY = [1, 2, 3, 7, 64, 1000, True]


def fd(fn, args, k, h=1e-6):
    plus, minus = list(args), list(args)
    plus[k] += h
    minus[k] -= h
    return (fn(*plus) - fn(*minus)) / (2 * h)


def check_scalar_gradient(fn, args, wrt, every):
    """grad with checkpointing equals FD and plain reverse mode; vjp agrees and returns the value."""
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    plain = derivative(fn, wrt=wrt).grad(*args)  # (each built once per session: n is an argument, not the code)
    f = derivative(fn, wrt=wrt, checkpoint=every)
    got = f.grad(*args)
    got, plain = (got, plain) if isinstance(got, tuple) else ((got,), (plain,))
    for name, g, p in zip(wrt, got, plain):
        assert g == pytest.approx(fd(fn, args, names.index(name)), rel=1e-5, abs=1e-8), name
        assert g == pytest.approx(p, rel=1e-12, abs=1e-14), name
    value, cts = f.vjp(tuple(args), 1.0)
    assert value == pytest.approx(fn(*args), rel=1e-15)
    assert list(cts) == pytest.approx(list(got), rel=1e-12)


@pytest.mark.parametrize("every", EVERY)
@pytest.mark.parametrize("n", [0, 1, 5, 100])
def test_pendulum(every, n):
    check_scalar_gradient(C.pendulum, [0.3, 0.2, n], ("theta", "omega"), every)


@pytest.mark.parametrize("every", [1, 3, True])
@pytest.mark.parametrize("n", [0, 2, 9, 40])
def test_branch_in_the_loop(every, n):
    check_scalar_gradient(C.branchy, [0.4, 0.3, n], ("x", "y"), every)


@pytest.mark.parametrize("every", [2, True])
def test_helper_call_in_the_loop(every):
    check_scalar_gradient(C.uses_helper, [0.7, 30], ("x",), every)
    assert "snapshots" in adcompiler.differentiate(C.uses_helper, wrt=("x",), checkpoint=every).source("reverse")


@pytest.mark.parametrize("fn", [C.stops_early, C.appends, C.state_set_in_branch])
def test_loops_that_do_not_qualify_are_taped_as_usual(fn):
    check_scalar_gradient(fn, [0.6, 12], ("x",), True)
    assert "snapshots" not in adcompiler.differentiate(fn, wrt=("x",), checkpoint=True).source("reverse")


@pytest.mark.parametrize("every", [1, 5, True, ("revolve", 2), "revolve"])
def test_checkpointed_loop_inside_a_loop(every):
    ps, vs = [[0.5, 0.1], [1.0, -0.2], [-0.3, 0.4]], [[1.0, 1.0], [0.5, -1.0], [0.0, 0.2]]
    f = adcompiler.differentiate(C.orbits, wrt=("ps", "vs"), checkpoint=every)
    d_ps, d_vs = f.grad(copy.deepcopy(ps), copy.deepcopy(vs), 30)
    plain = adcompiler.differentiate(C.orbits, wrt=("ps", "vs")).grad(ps, vs, 30)
    for mine, theirs in zip(d_ps + d_vs, plain[0] + plain[1]):
        assert mine == pytest.approx(theirs, rel=1e-12)
    for which, grads in ((ps, d_ps), (vs, d_vs)):
        for k in range(3):
            for j in range(2):
                h = 1e-6
                which[k][j] += h
                up = C.orbits(copy.deepcopy(ps), copy.deepcopy(vs), 30)
                which[k][j] -= 2 * h
                down = C.orbits(copy.deepcopy(ps), copy.deepcopy(vs), 30)
                which[k][j] += h
                assert grads[k][j] == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-8)


def _peak_bytes(f, *args):
    f.grad(*args)  # built and loaded before measuring
    tracemalloc.start()
    f.grad(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


@functools.lru_cache(maxsize=None)
def _pendulum_peak(checkpoint):
    """The peak bytes of the pendulum's gradient over 10000 steps (measured once per test run)."""
    return _peak_bytes(
        adcompiler.differentiate(C.pendulum, wrt=("theta", "omega"), checkpoint=checkpoint), 0.3, 0.2, 10000
    )


def test_tape_holds_sqrt_n_not_n():
    """10000 steps: the plain tape holds every step; with sqrt-N segments it holds about 2 * 100."""
    plain, sqrt = _pendulum_peak(None), _pendulum_peak(True)
    assert plain > 500_000  # several values per step
    assert sqrt < plain / 10


def test_forward_mode_is_unchanged():
    f = adcompiler.differentiate(C.pendulum, wrt=("theta", "omega"), checkpoint=True)
    _, tangent = f.jvp((0.3, 0.2, 50), (1.0, 0.0))
    assert tangent == pytest.approx(fd(C.pendulum, [0.3, 0.2, 50], 0), rel=1e-5)


@pytest.mark.parametrize("bad", [0, -3, 2.5, "sqrt", False])
def test_bad_checkpoint_values_are_refused(bad):
    with pytest.raises(ValueError, match="checkpoint must be"):
        adcompiler.differentiate(C.pendulum, checkpoint=bad)


@pytest.mark.parametrize(
    "flag, marker, bad",
    [("sqrt", "snapshots", ("0",)), ("revolve:3", "most = 3", ("revolve:0", "revolve:", "revolve:x", "binomial"))],
)
def test_adc_compile_checkpoint_option(tmp_path, flag, marker, bad):
    """adc compile --checkpoint writes a module whose reverse mode checkpoints and matches FD."""
    import importlib.util
    import inspect

    from adcompiler.cli import main as cli

    src = tmp_path / "pend.py"
    src.write_text("import math\n\n\n" + inspect.getsource(C.pendulum))
    out = tmp_path / "pend_ad.py"
    assert cli.main(["compile", str(src), "--mode", "reverse", "--checkpoint", flag, "-o", str(out)]) == 0
    assert marker in out.read_text()
    spec = importlib.util.spec_from_file_location("pend_ad", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    value, (d_theta, d_omega, _) = module.pendulum_reverse(0.3, 0.2, 400)
    assert value == pytest.approx(C.pendulum(0.3, 0.2, 400))
    assert d_theta == pytest.approx(fd(C.pendulum, [0.3, 0.2, 400], 0), rel=1e-5)
    assert d_omega == pytest.approx(fd(C.pendulum, [0.3, 0.2, 400], 1), rel=1e-5)
    for value in bad:
        with pytest.raises(SystemExit):
            cli.main(["compile", str(src), "--checkpoint", value])


# ---- binomial checkpointing (checkpoint="revolve" or ("revolve", c)) ----------------------------

REVOLVE = [("revolve", 1), ("revolve", 2), ("revolve", 3), ("revolve", 5), "revolve"]


@pytest.mark.parametrize("every", REVOLVE)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 100])
def test_revolve_pendulum(every, n):
    check_scalar_gradient(C.pendulum, [0.3, 0.2, n], ("theta", "omega"), every)


@pytest.mark.parametrize("every", [("revolve", 1), ("revolve", 2), "revolve"])
@pytest.mark.parametrize("n", [0, 2, 9, 40])
def test_revolve_branch_in_the_loop(every, n):
    check_scalar_gradient(C.branchy, [0.4, 0.3, n], ("x", "y"), every)


@pytest.mark.parametrize("every", [("revolve", 2), "revolve"])
def test_revolve_helper_call_in_the_loop(every):
    check_scalar_gradient(C.uses_helper, [0.7, 30], ("x",), every)
    assert "snapshots" in adcompiler.differentiate(C.uses_helper, wrt=("x",), checkpoint=every).source("reverse")


@pytest.mark.parametrize("fn", [C.stops_early, C.appends, C.state_set_in_branch])
def test_revolve_leaves_loops_that_do_not_qualify_taped(fn):
    check_scalar_gradient(fn, [0.6, 12], ("x",), "revolve")
    assert "snapshots" not in adcompiler.differentiate(fn, wrt=("x",), checkpoint="revolve").source("reverse")


def _revolve_helper():
    """The runtime helper as generated modules define it (its source, run)."""
    from adcompiler.targets.python.runtime import HELPERS

    namespace: dict = {}
    exec(HELPERS["revolve"], namespace)
    return namespace["revolve"]


def _run_schedule(n, most):
    """Follow the helper's schedule as generated code does: (steps reversed in order, steps run again,
    the most snapshots held at once)."""
    revolve = _revolve_helper()
    snapshots, left, reversed_steps, runs, held = [0], n, [], 0, 1
    while left > 0:
        at = snapshots[-1]
        to = revolve(at, left, most - len(snapshots))
        assert at <= to < left
        runs += to - at
        if to < left - 1:
            snapshots.append(to)
            held = max(held, len(snapshots))
        else:
            reversed_steps.append(to)
            left = to
            if at == to:
                snapshots.pop()
    return reversed_steps, runs, held


def _fewest_runs(n, s, memo={}):
    """Brute force: the fewest runs of steps to reverse n steps from a held state with s snapshots in all,
    over every first snapshot position (one snapshot: each step run from the start)."""
    if n <= 1:
        return 0
    if s == 1:
        return n * (n - 1) // 2
    if (n, s) not in memo:
        memo[n, s] = min(m + _fewest_runs(n - m, s - 1) + _fewest_runs(m, s) for m in range(1, n))
    return memo[n, s]


def _griewank_runs(n, s):
    """The closed form: r n - C(s + r, r - 1), r the fewest repetitions with C(s + r, s) >= n."""
    r = 0
    while math.comb(s + r, s) < n:
        r += 1
    return r * n - (math.comb(s + r, r - 1) if r else 0)


@pytest.mark.parametrize("most", [1, 2, 3, 4, 6])
def test_revolve_schedule_is_binomially_optimal(most):
    for n in range(0, 80):
        reversed_steps, runs, held = _run_schedule(n, most)
        assert reversed_steps == list(range(n - 1, -1, -1))
        assert held <= most
        assert runs == _fewest_runs(n, most) == _griewank_runs(n, most), n


def test_revolve_schedule_long_loop():
    reversed_steps, runs, held = _run_schedule(100000, 17)
    assert reversed_steps == list(range(99999, -1, -1)) and held <= 17
    assert runs == _griewank_runs(100000, 17)  # r = 6: under 6 runs again per step


@pytest.mark.parametrize("every, most", [(("revolve", 1), 1), (("revolve", 3), 3), ("revolve", 5)])
def test_revolve_runs_the_body_as_the_schedule_says(every, most):
    """The generated code runs the loop body once in the primal sweep, as often again as the optimal
    schedule says (most = 5: the default, 20 .bit_length()), and once more taping before each adjoint."""
    f = adcompiler.differentiate(C.counted, wrt=("x",), checkpoint=every)
    assert f.grad(0.3, 20) == pytest.approx(adcompiler.differentiate(C.counted, wrt=("x",)).grad(0.3, 20), rel=1e-12)
    C.RUNS[0] = 0
    f.grad(0.3, 20)
    assert C.RUNS[0] == 20 + _fewest_runs(20, most) + 20


def test_revolve_holds_log_n_states_not_n():
    """10000 steps: the plain tape holds every step; revolve holds 14 states and one step's tape."""
    plain, sqrt, revolve = _pendulum_peak(None), _pendulum_peak(True), _pendulum_peak("revolve")
    assert plain > 500_000
    assert revolve < plain / 100 and revolve < sqrt


@pytest.mark.parametrize(
    "bad",
    [("revolve", 0), ("revolve", -2), ("revolve", 2.5), ("revolve", True), ("revolve",), "binomial", ["revolve", 3]],
)
def test_bad_revolve_values_are_refused(bad):
    with pytest.raises(ValueError, match="checkpoint must be .*revolve"):
        adcompiler.differentiate(C.pendulum, checkpoint=bad)


@pytest.mark.parametrize("checkpoint", [True, 1, 2, "revolve", ("revolve", 2)])
def test_loops_reading_lists_and_tuples_are_taped_as_any_other(checkpoint):
    """A loop whose state is a tuple, or that reads a list written after it: not checkpointed (its list's
    shadow and later changes are in no snapshot), the gradient that of plain reverse mode (0, and 39 for 12,
    before)."""
    for f, args in ((C.tuple_state, (2.0, 4)), (C.list_written_after, (2.0, 3))):
        plain = adcompiler.differentiate(f).grad(*args)
        assert adcompiler.differentiate(f, checkpoint=checkpoint).grad(*args) == pytest.approx(plain, rel=1e-14)
    assert adcompiler.differentiate(C.tuple_state).grad(2.0, 4) == pytest.approx(1.5**4, rel=1e-14)
    assert adcompiler.differentiate(C.list_written_after).grad(2.0, 3) == pytest.approx(4 * 2.0**3, rel=1e-14)
