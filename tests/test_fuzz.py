"""Differential fuzzing of adcompiler (the package adcompiler/testing/fuzz/).

Small, fixed-seed runs of the random-program fuzzer, of scalar programs and of
NumPy programs (every derivative must match finite differences and
forward/reverse duality; nothing may crash or be refused), and one regression
test per minimised failing program in tests/fuzz_regressions/. A regression
whose bug is still in adcompiler carries a ``# xfail: reason`` line and is a
strict xfail: fixing the bug makes it pass and the test then asks for the line
to be removed. The NumPy run steps around the open bugs of fuzz.KNOWN_BUGS
(their regressions are xfails here), so it fails only on something new.
"""

import dataclasses
import glob
import importlib.util
import os
import random
import re

import pytest

from adcompiler.testing import fuzz

needs_numpy = pytest.mark.skipif(importlib.util.find_spec("numpy") is None, reason="NumPy is not installed")

HERE = os.path.dirname(os.path.abspath(__file__))
REGRESSIONS = sorted(glob.glob(os.path.join(HERE, "fuzz_regressions", "*.py")))

# The CI campaigns: each seed's first programs run by default (a few seconds each, enough to catch a
# regression of what they exercise); --runslow runs the rest of each campaign (the programs after those).
CAMPAIGNS = {  # name -> (seed, programs by default, programs in all, config)
    "scalar": (20240601, 12, 40, fuzz.SMALL),
    "numpy": (20240602, 8, 20, fuzz.NUMPY_SMALL),
    "numba": (20240605, 2, 10, dataclasses.replace(fuzz.SMALL, mode="mixed", backend="numba")),
}
NEEDS = {"scalar": None, "numpy": "numpy", "numba": "numba"}


def _format(summary):
    lines = [str(summary)]
    for kind, message, spec, point in summary.failures:
        lines += [f"--- {kind} at {point!r}: {message.splitlines()[0]}", spec.source]
    return "\n".join(lines)


def _campaign(name, part):
    """The CI campaign ``name``: its first programs ("first") or the others ("rest", marked slow)."""
    marks = [pytest.mark.slow] if part == "rest" else []
    return pytest.param(name, part, marks=marks, id=f"{name}-{part}")


@pytest.mark.parametrize("name, part", [_campaign(n, p) for n in CAMPAIGNS for p in ("first", "rest")])
def test_fuzz_ci_campaign(name, part):
    """A CI-sized campaign: no mismatches, no crashes, no refusals of the supported subset (under
    backend="numba", a program outside the target's subset must be refused naming backend="python": counted
    apart, never a crash).  Most points are away from kinks: at least one checked per program."""
    if NEEDS[name]:
        pytest.importorskip(NEEDS[name])
    seed, first, total, config = CAMPAIGNS[name]
    start, programs = (0, first) if part == "first" else (first, total - first)
    stage_every = 0 if config.backend == "numba" else 2
    s = fuzz.run(programs, seed, points=2, stage_every=stage_every, start=start, config=config)
    assert s.programs == programs
    assert s.points_checked >= (programs if config.backend == "python" else max(1, programs * 2 // 5)), _format(s)
    assert s.mismatches == 0 and s.crashes == 0 and s.refusals == 0, _format(s)


WHAT_CI_PROGRAMS = 8
WHAT_CI_SEED = 20260624


@needs_numpy
def test_fuzz_what_runs_ci_run():
    """A few programs rewritten to ask what runs (what_runs): decorated helpers and entries, module names
    that shadow builtins, unpacking of the right and of the wrong length (whose ValueError every entry
    point must raise, with the primal's message)."""
    s = fuzz.run(WHAT_CI_PROGRAMS, WHAT_CI_SEED, points=2, stage_every=4, config=fuzz.WHAT_SMALL)
    assert s.programs == WHAT_CI_PROGRAMS and s.points_checked >= WHAT_CI_PROGRAMS, _format(s)
    assert s.points_raised >= 2, _format(s)  # the seed's programs unpack with the wrong length, too
    assert s.mismatches == 0 and s.crashes == 0 and s.refusals == 0, _format(s)


@pytest.mark.parametrize("k", range(12))
def test_what_runs_programs_ask_what_runs(k):
    """Each program of the what_runs generator binds builtins' names and defines the decorators; the seed's
    first programs decorate helpers, unpack with the right length and with the wrong one (then its base,
    the program without that line, is kept)."""
    spec = fuzz.generate(random.Random(fuzz.program_seed(WHAT_CI_SEED, k)), fuzz.WHAT_SMALL)
    compile(spec.source, "<what>", "exec")
    assert "AssertionError('the module binds" in spec.source and "@functools.wraps(fn)" in spec.source
    if spec.base is not None:
        compile(spec.base, "<base>", "exec")
        assert len(spec.source.splitlines()) == len(spec.base.splitlines()) + 1


def test_what_runs_seed_covers_each_rewrite():
    specs = [fuzz.generate(random.Random(fuzz.program_seed(WHAT_CI_SEED, k)), fuzz.WHAT_SMALL) for k in range(40)]
    assert any(s.base is not None for s in specs)  # a wrong-length unpacking
    assert any(s.base is None and re.search(r"^    piece0, .*= ", s.source, re.M) for s in specs)  # a right one
    for decorator in ("passed", "logged", "halved", "shifted", "adcompiler.differentiate"):
        assert any(f"@{decorator}\n" in s.source for s in specs), decorator
    assert any("__adc_fuzz_companion__" in s.source for s in specs)  # a helper in a module of its own


REBIND_SEED = 20240603
_REBOUND = re.compile(r"^ {8,}(v|xs) = ", re.M)  # v (a small array) or xs assigned in a loop or a branch


@needs_numpy
@pytest.mark.parametrize(
    "config",
    [fuzz.NUMPY_SMALL, fuzz.SMALL, dataclasses.replace(fuzz.NUMPY_SMALL, backend="numba")],
    ids=["numpy", "scalar", "numba"],
)
def test_fuzz_rebound_params(config, tmp_path):
    """The first programs of a seed that rebind a parameter in a loop or a branch to a value of another shape
    or length (an array of shape (), (1,), (k, 1) or (1, k) broadcast up; a list made longer or another
    list): they are made, and each cotangent still looks like its argument (it took the last value's once);
    on the Numba target too (whose adjoint of a variable bound again started from zeros of its last value's
    shape: a ValueError of Numba's broadcasting, fuzz seed 371 program 11)."""
    if config.backend == "numba":
        pytest.importorskip("numba")
    specs = (fuzz.generate(random.Random(fuzz.program_seed(REBIND_SEED, k)), config) for k in range(80))
    rebound = [spec for spec in specs if _REBOUND.search(spec.source)][:4]
    assert len(rebound) == 4
    for k, spec in enumerate(rebound):
        try:
            counts = fuzz.check_program(spec, str(tmp_path), k, points=1, stages=False, backend=config.backend)
        except fuzz.Failure as failure:
            pytest.fail(f"{failure.kind}: {failure.message}\n{spec.source}")
        assert counts["checked"] + counts["skipped"] + counts["invalid"] + counts.get("outside", 0) >= 1


def test_generator_is_deterministic():
    a = [fuzz.generate(random.Random(fuzz.program_seed(7, k))).source for k in range(5)]
    b = [fuzz.generate(random.Random(fuzz.program_seed(7, k))).source for k in range(5)]
    assert a == b
    for src in a:
        compile(src, "<generated>", "exec")


@pytest.mark.parametrize("config", [fuzz.NUMPY, fuzz.MIXED], ids=["numpy", "mixed"])
def test_numpy_generator_is_deterministic(config):
    """Same seed, same program (NumPy and mixed modes); the programs compile (generating needs no NumPy)."""
    a = [fuzz.generate(random.Random(fuzz.program_seed(7, k)), config).source for k in range(8)]
    b = [fuzz.generate(random.Random(fuzz.program_seed(7, k)), config).source for k in range(8)]
    assert a == b
    for src in a:
        compile(src, "<generated>", "exec")
    if config is fuzz.NUMPY:
        assert all("import numpy" in src for src in a)


def test_numpy_generator_draws_joins_of_elementwise_pieces():
    """The numpy fuzzer writes joins of vectors whose pieces are slices and elementwise arithmetic of them
    (GradBench ode's right-hand side), which the Numba target writes as loops (targets/numba/joined_loops):
    a seed's campaign checks that rewrite against the python target (it drew none before)."""
    joins = re.compile(r"^ *v\d+ = np\.(concatenate|hstack)\(")
    small = fuzz.config_for("numpy", small=True)
    drawn = [fuzz.generate(random.Random(fuzz.program_seed(1400, k)), small).source for k in range(150)]
    assert sum(any(joins.match(line) for line in src.splitlines()) for src in drawn) >= 5


@needs_numpy
def test_numpy_programs_run():
    """Generated NumPy programs run as plain Python at random points: a generator bug (a wrong shape, an
    index out of range, math.tanh of an array) would raise TypeError or a broadcasting ValueError here."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for k in range(30):
            spec = fuzz.generate(random.Random(fuzz.program_seed(11, k)), fuzz.NUMPY)
            ns = {}
            exec(compile(spec.source, f"<program {k}>", "exec"), ns)
            layout = fuzz.Layout(spec.params)
            value = ns["f"](*layout.draw(random.Random(k)))
            assert len(fuzz.flat_out(value)) >= 1


def _xfail_reason(path):
    with open(path) as fh:
        for line in fh:
            if line.startswith("# xfail: "):
                return line[len("# xfail: ") :].strip()
    return None


def _cases():
    for path in REGRESSIONS:
        reason = _xfail_reason(path)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(path, marks=marks, id=os.path.basename(path)[:-3])


@pytest.mark.parametrize("bug", sorted(fuzz.KNOWN_BUGS))
def test_known_bugs_are_open(bug):
    """Every bug the fuzzer steps around (fuzz.KNOWN_BUGS) still has a regression here that is an xfail.

    When a fix removes the xfail line, this asks for the KNOWN_BUGS entry to go too: a stale entry would
    keep the generator away from constructs that work (or the checker lenient) for no reason.
    """
    files = [os.path.join(HERE, "fuzz_regressions", name) for name in fuzz.KNOWN_BUGS[bug]]
    assert all(os.path.exists(f) for f in files), f"{bug}: regression files missing: {fuzz.KNOWN_BUGS[bug]}"
    open_ = [f for f in files if _xfail_reason(f)]
    assert open_, f"{bug} is fixed (its regressions pass): remove it from fuzz.KNOWN_BUGS"


@pytest.mark.parametrize("path", list(_cases()))
def test_fuzz_regression(path, tmp_path):
    """A minimised program the fuzzer once found failing: checked with the same oracle."""
    source, params, outputs, point = fuzz.read_report(path)
    res = fuzz.check_source(source, params, outputs, point, directory=str(tmp_path))
    if isinstance(res, fuzz.Failure):
        pytest.fail(f"{res.kind}: {res.message}")
    assert res == "ok", f"the regression point {point!r} is {res}: move it away from the kink"


_WRONG_RULE = """
import numpy as np
import adcompiler


def g(x):
    return np.sin(x)


adcompiler.defrule(g, jvp=lambda x, dx: {jvp}, vjp=lambda x, ct: ({vjp},))


def f(x):
    return {ret}
"""
_RIGHT_JVP, _RIGHT_VJP = "np.cos(x) * dx", "np.cos(x) * ct"


@needs_numpy
@pytest.mark.parametrize(
    "jvp, vjp, ret, expect",
    [
        (_RIGHT_JVP, _RIGHT_VJP, "np.sum(g(x) * x)", "ok"),
        ("2.0 * np.cos(x) * dx", _RIGHT_VJP, "np.sum(g(x) * x)", "jvp(v="),
        (_RIGHT_JVP, "2.0 * np.cos(x) * ct", "np.sum(g(x) * x)", "vjp(u="),
        ("np.sum(np.cos(x) * dx)", _RIGHT_VJP, "g(x)", "has not the structure"),  # a float tangent of an array
        (_RIGHT_JVP, "np.sum(np.cos(x) * ct)", "np.sum(g(x))", "vjp(u="),  # a float cotangent, spread: wrong values
        (_RIGHT_JVP, "(np.cos(x) * ct).astype(np.float32)", "np.sum(g(x))", "dtype float32"),
    ],
    ids=["right", "jvp", "vjp", "tangent-shape", "cotangent-shape", "cotangent-dtype"],
)
def test_array_checker_catches_wrong_rules(jvp, vjp, ret, expect, tmp_path):
    """The array checks are not vacuous: a helper with a wrong defrule is reported, whichever mode it breaks."""
    source = _WRONG_RULE.format(jvp=jvp, vjp=vjp, ret=ret)
    res = fuzz.check_source(source, [("array", "x", (3,))], 1, [[0.1, -0.7, 1.2]], directory=str(tmp_path))
    if expect == "ok":
        assert res == "ok"
    else:
        assert isinstance(res, fuzz.Failure) and res.kind == "mismatch", res
        assert expect in res.message.splitlines()[0], res.message
