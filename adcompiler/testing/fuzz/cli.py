"""Differential fuzzing of adcompiler: random programs in the supported subset.

    python -m adcompiler.testing.fuzz --programs 500 --seed 1 [--out DIR] [--points 3]
    python -m adcompiler.testing.fuzz --numpy --programs 200 --seed 1     # NumPy programs (--mode numpy)
    python -m adcompiler.testing.fuzz --mode mixed --programs 200 --seed 1  # each program scalar or NumPy
    python -m adcompiler.testing.fuzz --mode what --programs 200 --seed 1   # decorators, shadowed builtins, unpacking
    python -m adcompiler.testing.fuzz --backend numba --mode mixed --programs 200 --seed 1  # compiled code
    python -m adcompiler.testing.fuzz --mode deep --programs 100 --seed 1   # long elif chains, loop nests
    python -m adcompiler.testing.fuzz --mode lists --programs 300 --seed 1  # NumPy functions of lists
    python -m adcompiler.testing.fuzz --numpy --programs 200 --seed 1 --nested-every 1  # and jvp of grad
    python -m adcompiler.testing.fuzz --minimise DIR/crash_seed1_prog7.py   # shrink a reported failure

This module is the command line (main): a campaign, one program shown (--show), or a reported
failure minimised (--minimise). What is generated and checked: see the package's docstring.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import random
import tempfile

from ...targets import registry as targets
from .campaign import read_report, report_check, run
from .config import DEFAULT, MIXED, NUMPY, NUMPY_SMALL, SMALL, WHAT, WHAT_SMALL, Config
from .minimiser import minimise
from .nested import check_nested_source
from .programs import generate, program_seed


def config_for(mode: str, small: bool = False) -> Config:
    """The configuration of a --mode (and --small)."""
    if mode == "what":
        return WHAT_SMALL if small else WHAT
    if mode == "numpy":
        return NUMPY_SMALL if small else NUMPY
    if mode == "mixed":
        return dataclasses.replace(SMALL, mode="mixed") if small else MIXED
    if mode in ("deep", "lists"):
        return dataclasses.replace(SMALL if small else DEFAULT, mode=mode)
    return SMALL if small else DEFAULT


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m adcompiler.testing.fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--out", default=None, help="directory for failing programs (default: a new temp dir)")
    ap.add_argument("--small", action="store_true", help="smaller programs (the CI configuration)")
    ap.add_argument(
        "--mode",
        choices=["scalar", "numpy", "mixed", "deep", "lists", "what"],
        default="scalar",
        help="scalar programs, NumPy programs, or each program either (drawn from its seed); deep: long elif "
        "chains and loop nests; lists: NumPy functions of list parameters; what: either rewritten to ask what "
        "runs (decorated helpers, builtins' names bound, unpacking: what_runs)",
    )
    ap.add_argument("--numpy", action="store_true", help="the same as --mode numpy")
    ap.add_argument(
        "--strict",
        action="store_true",
        help="do not step around the open bugs of KNOWN_BUGS (generator and checker)",
    )
    ap.add_argument(
        "--backend",
        choices=["python", "numba"],
        default="python",
        help="numba: check backend='numba' (programs it refuses, naming backend='python', are counted apart)",
    )
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--start", type=int, default=0, help="index of the first program")
    ap.add_argument("--stage-every", type=int, default=1, help="check printed stages on every n-th program (0: never)")
    ap.add_argument(
        "--nested-every",
        type=int,
        default=0,
        help="check differentiate(d.grad).jvp (a Hessian-vector product) on every n-th program (0: never)",
    )
    ap.add_argument("--show", type=int, default=None, help="print program N of the seed and exit")
    ap.add_argument("--minimise", metavar="REPORT", default=None, help="minimise a failing program written by --out")
    a = ap.parse_args(argv)
    config = config_for("numpy" if a.numpy else a.mode, a.small)
    if a.strict:
        config = dataclasses.replace(config, avoid_known=False)
    if targets.of(a.backend, "numpy") is not targets.PYTHON:  # (a compiled target: Numba's)
        os.environ.setdefault("NUMBA_OPT", "0")  # (read when Numba is imported) compiles twice as fast
        config = dataclasses.replace(config, backend=a.backend)
    if a.minimise:
        src, params, outputs, point = read_report(a.minimise)
        nested = report_check(a.minimise) == "nested"
        check = functools.partial(check_nested_source, backend=a.backend) if nested else None
        small, params, point, f = minimise(
            src, params, outputs, point, verbose=True, tolerate=not a.strict, check=check
        )
        print(f"# {f.kind}: {f.message.splitlines()[0]}")
        meta = {"params": params, "outputs": outputs, "point": point}
        if nested:  # (read_report and report_check read it back)
            meta["check"] = "nested"
        print(f"# fuzz: {meta!r}")
        print(small)
        return 0
    if a.show is not None:
        print(generate(random.Random(program_seed(a.seed, a.show)), config).source)
        return 0
    out = a.out or tempfile.mkdtemp(prefix="adc_fuzz_out_")
    s = run(
        a.programs,
        a.seed,
        out,
        a.points,
        verbose=True,
        jobs=a.jobs,
        stage_every=a.stage_every,
        start=a.start,
        config=config,
        nested_every=a.nested_every,
    )
    print(s)
    if s.reports:
        print(f"failing programs written to {out}")
    return 1 if (s.mismatches or s.crashes or s.refusals) else 0
