"""Campaigns: a seed's programs generated and checked (run), outcomes counted, failures reported.

run uses worker processes if asked; Summary counts outcomes; report writes a failure to a file and
read_report (with report_check) reads one back (the minimiser and the regression tests start from
these files).
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import os
import random
import tempfile
import time

from .check import Failure, check_program
from .config import DEFAULT, Config, Spec
from .nested import check_nested
from .programs import generate, program_seed


@dataclasses.dataclass
class Summary:
    programs: int = 0
    points_checked: int = 0
    points_skipped: int = 0  # near a kink or a branch switch
    points_invalid: int = 0  # the primal itself raised or overflowed there
    points_known: int = 0  # checked, right but for the symptom of a known bug the checker tolerated
    points_raised: int = 0  # checked where the primal raises (an unpacking's ValueError): every derivative did
    outside: int = 0  # backend="numba": programs refused as outside its subset (naming backend="python")
    mismatches: int = 0
    refusals: int = 0
    crashes: int = 0
    # the nested check's outcomes by program (check_nested's, "mismatch", "crash"; each failure is counted
    # above too)
    nested: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    seconds: float = 0.0
    reports: list = dataclasses.field(default_factory=list)  # paths of written failures
    failures: list = dataclasses.field(default_factory=list)  # (kind, message, source, point)

    def __str__(self) -> str:
        return (
            f"programs {self.programs}, points checked {self.points_checked}, "
            f"skipped (kink/branch) {self.points_skipped}, invalid {self.points_invalid}, "
            f"known-bug points {self.points_known}, "
            + (f"raising as the primal {self.points_raised}, " if self.points_raised else "")
            + (f"outside the backend's subset {self.outside}, " if self.outside else "")
            + f"mismatches {self.mismatches}, refusals {self.refusals}, crashes {self.crashes}"
            + (self._nested() if self.nested else "")
            + f" ({self.seconds:.1f} s)"
        )

    def _nested(self) -> str:
        """The nested check's counts, as __str__ shows them."""
        n = self.nested
        return (
            f"; nested (jvp of grad): checked {n['checked']}, skipped (kink/invalid) {n['skipped']}, "
            f"not a number {n['not a number']}, outside the subset {n['outside']}, "
            f"mismatches {n['mismatch']}, crashes {n['crash']}"
        )


def report(out_dir: str, tag: str, failure: Failure, spec: Spec) -> str:
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{failure.kind}_{tag}.py")
    with open(path, "w") as fh:
        meta = {"params": spec.params, "outputs": spec.outputs, "point": failure.point}
        if failure.check != "first order":
            meta["check"] = failure.check
        fh.write(f"# fuzz: {meta!r}\n")
        for line in failure.message.splitlines()[:40]:
            fh.write(f"# {line}\n")
        fh.write(spec.source)
    return path


def read_report(path: str):
    """(source, params, outputs, point) of a file written by report() or a regression file."""
    text, meta = _read(path)
    params = [tuple(p) for p in meta["params"]]
    return text, params, meta["outputs"], meta["point"]


def report_check(path: str) -> str:
    """The check whose failure a report holds: "first order" or "nested" (Failure.check)."""
    return _read(path)[1].get("check", "first order")


def _read(path: str):
    """(text, the '# fuzz: {...}' line's dict) of a report."""
    text = open(path).read()
    for line in text.splitlines():
        if line.startswith("# fuzz: "):
            return text, ast.literal_eval(line[len("# fuzz: ") :])
    raise ValueError(f"{path}: no '# fuzz: {{...}}' line")


_KIND_FIELD = {"mismatch": "mismatches", "refusal": "refusals", "crash": "crashes"}


def _one(job):
    """Check program `index` of `seed`: (index, spec, counts or Failure); counts["nested"] is the nested
    check's outcome where it ran."""
    seed, index, points, stage_every, nested_every, tmp, config = job
    ps = program_seed(seed, index)
    spec = generate(random.Random(ps), config)
    try:
        stages = stage_every > 0 and index % stage_every == 0
        counts = check_program(spec, tmp, ps, points, stages, tolerate=config.avoid_known, backend=config.backend)
        if nested_every > 0 and index % nested_every == 0:  # (refused at first order: outside, nested too)
            counts["nested"] = "outside" if counts.get("outside") else check_nested(spec, tmp, ps, config.backend)
        return index, spec, counts
    except Failure as f:
        return index, spec, f


def run(
    programs: int,
    seed: int,
    out_dir: str | None = None,
    points: int = 3,
    verbose: bool = False,
    jobs: int = 1,
    stage_every: int = 1,
    start: int = 0,
    config: Config = DEFAULT,
    nested_every: int = 0,
) -> Summary:
    """Generate and check programs start..start+programs-1 of `seed`.

    stage_every: check the printed stages on every n-th program (0: never); nested_every: make the
    nested check (nested.check_nested) on every n-th program (0: never).
    """
    s = Summary()
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="adc_fuzz_") as tmp:
        work = [(seed, k, points, stage_every, nested_every, tmp, config) for k in range(start, start + programs)]
        if jobs > 1:
            import multiprocessing

            pool = multiprocessing.get_context("fork").Pool(jobs)
            results = pool.imap_unordered(_one, work, chunksize=1)
        else:
            pool = None
            results = map(_one, work)
        try:
            for k, spec, res in results:
                s.programs += 1
                if isinstance(res, Failure):
                    field = _KIND_FIELD[res.kind]
                    setattr(s, field, getattr(s, field) + 1)
                    if res.check == "nested":
                        s.nested[res.kind] += 1
                    s.failures.append((res.kind, res.message, spec, res.point))
                    where = f"seed {seed}, program {k}"
                    if out_dir is not None:
                        where = report(out_dir, f"seed{seed}_prog{k}", res, spec)
                        s.reports.append(where)
                    if verbose:
                        print(f"{res.kind}: {where}: {res.message.splitlines()[0]}", flush=True)
                    continue
                s.points_checked += res["checked"]
                s.points_skipped += res["skipped"]
                s.points_invalid += res["invalid"]
                s.points_known += res["known"]
                s.points_raised += res["raised"]
                s.outside += res.get("outside", 0)
                if "nested" in res:
                    s.nested[res["nested"]] += 1
                if verbose and s.programs % 100 == 0:
                    s.seconds = time.time() - t0
                    print(f"  ... {s}", flush=True)
        finally:
            if pool is not None:
                pool.close()
                pool.join()
    s.seconds = time.time() - t0
    return s
