"""Differential fuzzing of adcompiler (adcompiler/fuzz.py).

A small, fixed-seed run of the random-program fuzzer (every derivative must
match finite differences and forward/reverse duality; nothing may crash or be
refused), and one regression test per minimised failing program in
tests/fuzz_regressions/. A regression whose bug is still in adcompiler carries
a ``# xfail: reason`` line and is a strict xfail: fixing the bug makes it pass
and the test then asks for the line to be removed.
"""

import glob
import os

import pytest

from adcompiler import fuzz

HERE = os.path.dirname(os.path.abspath(__file__))
REGRESSIONS = sorted(glob.glob(os.path.join(HERE, "fuzz_regressions", "*.py")))

CI_PROGRAMS = 40
CI_SEED = 20240601


def _format(summary):
    lines = [str(summary)]
    for kind, message, spec, point in summary.failures:
        lines += [f"--- {kind} at {point!r}: {message.splitlines()[0]}", spec.source]
    return "\n".join(lines)


def test_fuzz_ci_run():
    """A CI-sized campaign: no mismatches, no crashes, no refusals of the supported subset."""
    s = fuzz.run(CI_PROGRAMS, CI_SEED, points=2, stage_every=2, config=fuzz.SMALL)
    assert s.programs == CI_PROGRAMS
    assert s.points_checked >= CI_PROGRAMS, _format(s)  # most points are away from kinks
    assert s.mismatches == 0 and s.crashes == 0 and s.refusals == 0, _format(s)


def test_generator_is_deterministic():
    import random

    a = [fuzz.generate(random.Random(fuzz.program_seed(7, k))).source for k in range(5)]
    b = [fuzz.generate(random.Random(fuzz.program_seed(7, k))).source for k in range(5)]
    assert a == b
    for src in a:
        compile(src, "<generated>", "exec")


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


@pytest.mark.parametrize("path", list(_cases()))
def test_fuzz_regression(path, tmp_path):
    """A minimised program the fuzzer once found failing: checked with the same oracle."""
    source, params, outputs, point = fuzz.read_report(path)
    res = fuzz.check_source(source, params, outputs, point, directory=str(tmp_path))
    if isinstance(res, fuzz.Failure):
        pytest.fail(f"{res.kind}: {res.message}")
    assert res == "ok", f"the regression point {point!r} is {res}: move it away from the kink"
