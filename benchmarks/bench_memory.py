#!/usr/bin/env python3
"""Peak memory and time of reverse mode on long loops: adcompiler's gradient
against a hand-written adjoint and the primal, with and without checkpointing.

    python benchmarks/bench_memory.py            # full run: about 11 minutes, mostly tracemalloc (see 2. below)
    python benchmarks/bench_memory.py --quick    # about 20 s: smaller sizes, fewer repeats

Two programs, 4 particles each, differentiated with respect to (ps, vs):

* ``particles`` (samples/paper_programs.py, the paper's Table-1 program), 1000
  and 100000 explicit-Euler steps.  Its step is linear, so its adjoint needs
  nothing from the primal run: a good reverse mode tapes O(1) per particle,
  whatever the number of steps.  Compared with ``handwritten.particles_vjp``
  (the issue's target: adcompiler's peak at most 2x the hand-written one).
  ``--quick`` runs 1000 and 10000 steps.
* ``orbits`` (benchmarks/programs.py), the same kind of simulation in a
  nonlinear field, so every step's adjoint needs that step's position and
  plain reverse mode tapes O(steps).  10000 and 100000 steps, with ``checkpoint=None``, ``True`` (segments of isqrt(N)
  steps), fixed segment lengths and binomial checkpointing (``"revolve"``: at
  most N.bit_length() states held, and ``("revolve", 10)``), against a hand-written adjoint that keeps
  the trajectory (``orbits_vjp``, O(N)) and a hand-written checkpointed one
  (``orbits_checkpointed_vjp``, O(sqrt N)).  ``--quick`` runs 1000 and 3000
  steps: the traced calls of the checkpointed variants are the slow part.

For every method and size:

1. correctness first: the hand-written adjoints are checked against central
   finite differences of the primal (along three random directions) at that
   size; if one disagrees the script stops (exit 2).  Every adcompiler
   gradient is then compared with the hand-written one (``np.allclose``,
   rtol 1e-7); one that disagrees is reported as WRONG and not measured.
   This checking call is also the warm-up: code generation happens there,
   not in the measured calls.
2. peak memory: ``tracemalloc``'s peak of traced bytes during one call,
   started after a ``gc.collect()``: the memory the call allocates beyond
   what already existed (tape, snapshots, temporaries, its result).
   tracemalloc slows Python down, and much more for adcompiler's long
   generated functions (it looks up the line number of every allocation,
   which costs time proportional to the function's length), so this traced
   call is kept apart from the timing and is what makes the full run slow.
3. time: the median per-call time of untraced calls, as in bench_scalar.py
   (``time_call``: ~0.2 s per repeat and 7 repeats, or ~20 ms and 3 with
   ``--quick``).

Results go to benchmarks/out/memory.md and memory.json (with machine and
version information; ``--out benchmarks/results`` for a run to commit), and
the table is printed.  See benchmarks/README.md.
"""

from __future__ import annotations

import onethread  # noqa: F401  (first: one BLAS thread, set before NumPy loads)
import options  # noqa: E402
import argparse
import dataclasses
import datetime
import gc
import json
import math
import os
import sys
import time
import tracemalloc
from typing import Any, Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import handwritten  # noqa: E402
import programs  # noqa: E402
from bench_scalar import (  # noqa: E402
    flatten,
    fmt_ratio,
    fmt_time,
    machine_info,
    packages_line,
    run_line,
    short_error,
    time_call,
    unflatten,
)

N_PARTICLES = 4
WRT = ("ps", "vs")


@dataclasses.dataclass
class Program:
    """One program to differentiate, and what to compare adcompiler with.

    primal:      ``primal(ps, vs, n_steps) -> float``, in a real file (adcompiler reads its source)
    hands:       label -> hand-written ``vjp((ps, vs, n_steps), ct) -> (value, (d_ps, d_vs))``; the
                 first is the reference: every gradient is checked against it and the *vs hand*
                 ratios divide by it
    checkpoints: the ``checkpoint=`` values adcompiler is run with
    steps:       the numbers of steps (full run), and those of a ``--quick`` run
    """

    name: str
    description: str
    primal: Callable
    hands: dict
    checkpoints: tuple
    steps: tuple
    quick_steps: tuple


def make_programs() -> list[Program]:
    """The linear particle program of the paper and the nonlinear ``orbits``."""
    return [
        Program(
            name="particles",
            description="paper's particles (linear step: the adjoint needs nothing from the primal run)",
            primal=programs.particles,
            hands={"hand-written": handwritten.particles_vjp},
            checkpoints=(None, True),
            steps=(1000, 100000),
            quick_steps=(1000, 10000),
        ),
        Program(
            name="orbits",
            description="particles in the nonlinear field -p/sqrt(|p|^2+1) with drag "
            "(every step's adjoint needs that step's position)",
            primal=programs.orbits,
            hands={
                "hand-written": handwritten.orbits_vjp,
                "hand-written checkpointed": handwritten.orbits_checkpointed_vjp,
            },
            checkpoints=(None, True, 100, 1000, "revolve", ("revolve", 10)),
            steps=(10000, 100000),
            quick_steps=(1000, 3000),
        ),
    ]


# ----------------------------------------------------------------------------
# correctness


class HandWrittenWrong(Exception):
    """A hand-written adjoint disagrees with finite differences: nothing can be checked against it."""


def fd_problem(primal: Callable, vjp: Callable, args: tuple) -> str | None:
    """Check a hand-written vjp against central finite differences of the primal:
    its value against the primal's, and <gradient, d> against (f(x + h d) - f(x - h d)) / 2h
    along three random directions d in the space of (ps, vs).  None if it agrees."""
    ps, vs, n = args
    value, grads = vjp(args, 1.0)
    if not math.isclose(value, primal(*args), rel_tol=1e-12, abs_tol=1e-12):
        return f"value {value!r} but the primal gives {primal(*args)!r}"
    template = (ps, vs)
    x0 = flatten(template)
    g = flatten(grads)

    def f(vec):
        p, v = unflatten(template, vec)
        return primal(p, v, n)

    rng = np.random.default_rng(1)
    for k in range(3):
        d = rng.standard_normal(len(x0))
        h = 1e-6
        fd = (f(x0 + h * d) - f(x0 - h * d)) / (2 * h)
        via_vjp = float(g @ d)
        if not math.isclose(via_vjp, fd, rel_tol=1e-5, abs_tol=1e-6 * max(1.0, float(np.abs(g).sum()))):
            return f"<gradient, d{k}> = {via_vjp!r} but finite differences give {fd!r}"
    return None


def agrees(got: np.ndarray, expected: np.ndarray) -> bool:
    """Same shape and np.allclose with rtol 1e-7 (atol scaled by the largest entry)."""
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    return got.shape == expected.shape and bool(np.allclose(got, expected, rtol=1e-7, atol=1e-9 * scale))


# ----------------------------------------------------------------------------
# measuring


def traced_peak(fn: Callable, args: tuple) -> int:
    """Peak bytes traced by tracemalloc during one call of ``fn(*args)``: what the call
    allocates on top of what already exists (its result included, which is small here)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    return peak


def checkpointed_in_source(f) -> bool | None:
    """Whether adcompiler's reverse code (for the last call) runs a loop in checkpointed
    segments: it then keeps a list of snapshots, named after them.  None if unknown."""
    try:
        return "snapshots" in f.source("reverse")
    except Exception:  # noqa: BLE001
        return None


def measure(
    label: str, fn: Callable, args: tuple, expected: np.ndarray | None, quick: bool, log, extra: dict | None = None
) -> dict:
    """One row: check ``fn``'s gradient against ``expected`` (this first call is also the
    warm-up), then its traced peak and its median time.  A wrong gradient is not measured."""
    row: dict[str, Any] = {
        "method": label,
        "status": "ok",
        "peak_bytes": None,
        "seconds": None,
        "traced_call_seconds": None,
        "error": None,
    }
    row.update(extra or {})
    try:
        out = fn(*args)
        if expected is not None:
            got = flatten(out)
            if not agrees(got, expected):
                err = np.abs(got - expected).max() if got.shape == expected.shape else "shape"
                row["status"] = "WRONG"
                row["error"] = f"gradient differs from the hand-written one (max abs difference {err})"
                log(f"    {label:<34} WRONG: {row['error']}")
                return row
        t0 = time.perf_counter()
        row["peak_bytes"] = traced_peak(fn, args)
        row["traced_call_seconds"] = time.perf_counter() - t0
        row["seconds"] = time_call(fn, args, quick)
    except Exception as exc:  # noqa: BLE001 - reported, not fatal
        row["status"] = "error"
        row["error"] = short_error(exc)
        log(f"    {label:<34} error: {row['error']}")
        return row
    log(
        f"    {label:<34} peak {fmt_bytes(row['peak_bytes']):>10}   time {fmt_time(row['seconds']):>10}"
        f"   (traced call {row['traced_call_seconds']:.1f} s)"
    )
    return row


def checkpoint_label(cp) -> str:
    return "adcompiler" if cp is None else f"adcompiler checkpoint={cp}"


def run_program(prog: Program, n: int, quick: bool, log) -> dict:
    """Every method of ``prog`` at ``n`` steps: the primal, the hand-written adjoints, adcompiler."""
    ps, vs = programs.particles_input(N_PARTICLES)
    args = (ps, vs, n)
    res: dict[str, Any] = {"program": prog.name, "steps": n, "particles": N_PARTICLES, "rows": []}
    log(f"{prog.name}, {N_PARTICLES} particles x {n} steps: {prog.description}")
    for label, vjp in prog.hands.items():
        problem = fd_problem(prog.primal, vjp, args)
        if problem:
            raise HandWrittenWrong(
                f"{label} adjoint of {prog.name} at {n} steps disagrees with finite differences: {problem}"
            )
    log(f"    hand-written adjoints agree with central finite differences ({len(prog.hands)})")
    hands = list(prog.hands.items())
    expected = flatten(hands[0][1](args, 1.0)[1])
    rows = res["rows"]
    rows.append(measure("primal", prog.primal, args, None, quick, log))
    for label, vjp in hands:
        rows.append(measure(label, lambda p, v, k, vjp=vjp: vjp((p, v, k), 1.0)[1], args, expected, quick, log))
    try:
        import adcompiler
    except Exception as exc:  # noqa: BLE001
        adcompiler = None
        missing = short_error(exc)
    for cp in prog.checkpoints:
        label = checkpoint_label(cp)
        if adcompiler is None:
            rows.append({"method": label, "status": "unavailable", "error": missing, "checkpoint": cp})
            continue
        try:
            f = adcompiler.differentiate(prog.primal, wrt=WRT, checkpoint=cp)
        except Exception as exc:  # noqa: BLE001
            rows.append({"method": label, "status": "error", "error": short_error(exc), "checkpoint": cp})
            continue
        row = measure(label, f.grad, args, expected, quick, log, {"checkpoint": cp})
        row["checkpointed_loop"] = checkpointed_in_source(f)
        rows.append(row)
    by = {r["method"]: r for r in rows}
    hand, primal = by[hands[0][0]], by["primal"]
    for r in rows:
        r.setdefault("peak_bytes", None)
        r.setdefault("seconds", None)
        r["bytes_per_step"] = r["peak_bytes"] / (N_PARTICLES * n) if r["peak_bytes"] is not None else None
        r["peak_vs_hand"] = _ratio(r["peak_bytes"], hand.get("peak_bytes"))
        r["time_vs_hand"] = _ratio(r["seconds"], hand.get("seconds"))
        r["time_vs_primal"] = _ratio(r["seconds"], primal.get("seconds"))
    return res


def _ratio(a, b):
    return a / b if a is not None and b else None


# ----------------------------------------------------------------------------
# reporting


def fmt_bytes(b) -> str:
    if b is None:
        return "-"
    if b < 1024:
        return f"{b} B"
    if b < 1024**2:
        return f"{b / 1024:.1f} KiB"
    return f"{b / 1024**2:.2f} MiB"


def summary(report: dict) -> list[str]:
    """The headline ratios, as sentences."""
    out = []
    for res in report["results"]:
        by = {r["method"]: r for r in res["rows"]}
        tag = f"{res['program']} x {res['steps']}"
        adc, hand = by.get("adcompiler", {}), by.get("hand-written", {})
        if adc.get("peak_vs_hand") is not None:
            target = " (target <= 2x)" if res["program"] == "particles" else ""
            out.append(
                f"{tag}: adcompiler peak / hand-written peak = {adc['peak_vs_hand']:.2f}x{target}; "
                f"time {fmt_ratio(adc['time_vs_hand'])} the hand-written one"
            )
        hand_cp, adc_cp = by.get("hand-written checkpointed", {}), by.get("adcompiler checkpoint=True", {})
        if adc_cp.get("peak_bytes") and hand_cp.get("peak_bytes"):
            out.append(
                f"{tag}: adcompiler checkpoint=True peak / hand-written checkpointed peak = "
                f"{adc_cp['peak_bytes'] / hand_cp['peak_bytes']:.2f}x; time "
                f"{fmt_ratio(_ratio(adc_cp['seconds'], hand_cp.get('seconds')))}"
            )
        if adc_cp.get("peak_bytes") and adc.get("peak_bytes"):
            out.append(
                f"{tag}: checkpoint=True / no checkpointing: peak {adc_cp['peak_bytes'] / adc['peak_bytes']:.3f}x, "
                f"time {fmt_ratio(_ratio(adc_cp['seconds'], adc.get('seconds')))}"
                + ("" if adc_cp.get("checkpointed_loop") else " (no loop was checkpointed)")
            )
    return out


def markdown(report: dict) -> str:
    out = [
        "# adcompiler benchmark: peak memory of reverse mode on long loops",
        "",
        run_line(report, git=True),
        "",
        "Load average (1, 5, 15 min) at start {} and end {}: other processes share the CPUs, so times are "
        "rough; peak memory does not depend on load.".format(
            *("/".join(f"{x:.1f}" for x in report[k]) for k in ("load_average_start", "load_average_end"))
        ),
        "",
        packages_line(report),
        "",
        "Gradient with respect to (ps, vs), 4 particles. *peak*: tracemalloc's peak of traced bytes during one "
        "call (after a warm-up call, so code generation is excluded); *per step*: peak / (particles x steps); "
        "*time*: median per-call time of untraced calls; *vs hand*: divided by the plain hand-written adjoint; "
        "*ckpt loop*: whether adcompiler's reverse code runs a loop in checkpointed segments. "
        "`benchmarks/bench_memory.py`, see benchmarks/README.md.",
        "",
        "| program | steps | method | peak | per step | peak vs hand | time | vs primal | vs hand | ckpt loop "
        "| status |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    notes = []
    for res in report["results"]:
        for r in res["rows"]:
            status = r["status"]
            if r.get("error") and status != "ok":
                if r["error"] not in notes:
                    notes.append(r["error"])
                status += f" [{notes.index(r['error']) + 1}]"
            per = r.get("bytes_per_step")
            ck = r.get("checkpointed_loop")
            out.append(
                f"| {res['program']} | {res['steps']} | {r['method']} | {fmt_bytes(r.get('peak_bytes'))} | "
                f"{'-' if per is None else f'{per:.1f} B'} | {fmt_ratio(r.get('peak_vs_hand'))} | "
                f"{fmt_time(r.get('seconds'))} | {fmt_ratio(r.get('time_vs_primal'))} | "
                f"{fmt_ratio(r.get('time_vs_hand'))} | {'-' if ck is None else 'yes' if ck else 'no'} | {status} |"
            )
    out += ["", "## Summary", ""] + [f"* {s}" for s in summary(report)]
    if notes:
        out += ["", "Notes:", ""] + [f"{i + 1}. `{n}`" for i, n in enumerate(notes)]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes (particles 1000 and 10000 steps, orbits 1000 and 3000) and 3 short timing repeats",
    )
    options.add_out(ap)
    options.add_strict(ap)
    ns = ap.parse_args(argv)

    def log(msg):
        print(msg, flush=True)

    started = time.perf_counter()
    report: dict[str, Any] = {
        "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ"),
        "quick": ns.quick,
        "machine": machine_info(),
        "load_average_start": os.getloadavg(),
        "results": [],
    }
    try:
        for prog in make_programs():
            for n in prog.quick_steps if ns.quick else prog.steps:
                report["results"].append(run_program(prog, n, ns.quick, log))
    except HandWrittenWrong as exc:
        log(str(exc))
        return 2
    report["wall_seconds"] = time.perf_counter() - started
    report["load_average_end"] = os.getloadavg()

    os.makedirs(ns.out, exist_ok=True)
    with open(os.path.join(ns.out, "memory.json"), "w") as fh:
        json.dump(report, fh, indent=2, default=str)
    md = markdown(report)
    with open(os.path.join(ns.out, "memory.md"), "w") as fh:
        fh.write(md)
    log("")
    log(md)
    log(f"wrote {os.path.join(ns.out, 'memory.md')}, memory.json ({report['wall_seconds']:.0f} s)")
    bad = any(r["status"] in ("WRONG", "error") for res in report["results"] for r in res["rows"])
    return 1 if (bad and ns.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
