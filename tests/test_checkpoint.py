"""Checkpointed reverse mode (adcompiler/checkpoint.py): the same gradients as plain reverse mode and
as central finite differences for every segment length, and a tape that holds O(sqrt N)."""

import copy
import tracemalloc

import pytest

import adcompiler
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
    plain = adcompiler.differentiate(fn, wrt=wrt).grad(*args)
    f = adcompiler.differentiate(fn, wrt=wrt, checkpoint=every)
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


@pytest.mark.parametrize("every", [1, 5, True])
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


def test_tape_holds_sqrt_n_not_n():
    """10000 steps: the plain tape holds every step; with sqrt-N segments it holds about 2 * 100."""
    plain = _peak_bytes(adcompiler.differentiate(C.pendulum, wrt=("theta", "omega")), 0.3, 0.2, 10000)
    sqrt = _peak_bytes(adcompiler.differentiate(C.pendulum, wrt=("theta", "omega"), checkpoint=True), 0.3, 0.2, 10000)
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


def test_adc_compile_checkpoint_option(tmp_path):
    """adc compile --checkpoint writes a module whose reverse mode checkpoints and matches FD."""
    import importlib.util
    import inspect

    from adcompiler import cli

    src = tmp_path / "pend.py"
    src.write_text("import math\n\n\n" + inspect.getsource(C.pendulum))
    out = tmp_path / "pend_ad.py"
    assert cli.main(["compile", str(src), "--mode", "reverse", "--checkpoint", "sqrt", "-o", str(out)]) == 0
    assert "snapshots" in out.read_text()
    spec = importlib.util.spec_from_file_location("pend_ad", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    value, (d_theta, d_omega, _) = module.pendulum_reverse(0.3, 0.2, 400)
    assert value == pytest.approx(C.pendulum(0.3, 0.2, 400))
    assert d_theta == pytest.approx(fd(C.pendulum, [0.3, 0.2, 400], 0), rel=1e-5)
    assert d_omega == pytest.approx(fd(C.pendulum, [0.3, 0.2, 400], 1), rel=1e-5)
    with pytest.raises(SystemExit):
        cli.main(["compile", str(src), "--checkpoint", "0"])
