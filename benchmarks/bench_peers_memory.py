#!/usr/bin/env python3
"""Peak memory of adcompiler's reverse mode on the reference harness's Table-1 programs, against the
reference's hand-written gradients.

    python benchmarks/bench_peers_memory.py                        # reference in ../shared/peers
    python benchmarks/bench_peers_memory.py --reference DIR        # or elsewhere

For every program of the reference's ``programs.py`` (``BENCHMARKS``), at each of its sizes, in both
its plain-Python ("py") and NumPy ("np") variants, one call of

* adcompiler: ``adcompiler.differentiate(fn).grad(*args)``, or for the vector-output
  rotate_vec_by_quat ``adcompiler.jacobian(fn, mode="reverse")(*args)``;
* the reference's hand-written gradient (``handgrad.HAND``),

each after a warm-up call (adcompiler generates its code there, so code generation is in no
measurement), is measured with tracemalloc: the peak of traced bytes during the call, started after
``gc.collect()`` (``bench_memory.traced_peak``).  The warm-up call's gradient is first compared with the
hand-written one (``np.allclose``, rtol 1e-7; for ``neural``, whose gradient is ~0, also the weighted
``neural_check`` program): one that disagrees is WRONG and not measured.

The issue's target is adcompiler's peak at most 2x the hand-written one on every case.  For a case
over 2x the table lists what adcompiler's reverse code tapes (its ``tape*.append(...)`` lines, the
loops around them and where the taped temporaries come from), read from ``f.source("reverse")``.
Output: the table on stdout and peers_memory.md / peers_memory.json in ``--out`` (default
benchmarks/out, ignored by git).
"""

from __future__ import annotations

import onethread  # noqa: F401  (first: one BLAS thread, set before NumPy loads)
import options  # noqa: E402
import argparse
import datetime
import json
import os
import re
import sys
import time
from typing import Any, Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import reference  # noqa: E402
from bench_memory import agrees, fmt_bytes, traced_peak  # noqa: E402
from bench_scalar import flatten, machine_info, packages_line, run_line, short_error  # noqa: E402

TARGET = 2.0  # the bound on adcompiler's peak / the hand-written one


def cases(ref) -> list[dict]:
    """(program, size, variant, primal, arguments, hand-written gradient, check program) for every
    program, size and variant of the reference."""
    out = []
    for bench in ref.programs.BENCHMARKS:
        for size in bench["sizes"]:
            py_args = bench["inputs"](size)
            for variant in ("py", "np"):
                if bench.get(variant) is None:
                    continue
                args = py_args if variant == "py" else reference.to_arrays(py_args)
                check = bench.get(f"check_{variant}")
                out.append(
                    {
                        "program": bench["name"],
                        "size": size,
                        "variant": variant,
                        "primal": bench[variant],
                        "args": tuple(args),
                        "vector": bench["output"] == "vector",
                        "hand": ref.handgrad.HAND[(bench["name"], variant)],
                        "check": check,
                        "check_hand": ref.handgrad.HAND.get((f"{bench['name']}_check", variant)),
                    }
                )
    return out


def adc_gradient(fn: Callable, vector: bool) -> Callable:
    """A function returning adcompiler's reverse-mode gradient of ``fn`` through the public API (a
    Jacobian by one reverse pass per output for a vector output).  ``f.grad`` is looked up again each
    time, as a user's ``f.grad(*args)`` does: after the first call it is the API's fast entry, which a
    reference taken before that call would miss (and a wrapper would add its own allocations)."""
    import adcompiler

    if vector:
        jac = adcompiler.jacobian(fn, mode="reverse")
        return lambda: jac
    f = adcompiler.differentiate(fn)
    return lambda: f.grad


def wrong(adc: Callable, hand: Callable, args: tuple) -> str | None:
    """Why adcompiler's gradient (this call is its warm-up) disagrees with the hand-written one, or None."""
    got, expected = flatten(adc(*args)), flatten(hand(*args))
    if agrees(got, expected):
        return None
    if got.shape != expected.shape:
        return f"gradient of {got.size} entries, the hand-written one has {expected.size}"
    return f"gradient differs from the hand-written one (max abs difference {np.abs(got - expected).max():.3g})"


def taped(fn: Callable, args: tuple, vector: bool) -> list[str]:
    """What adcompiler's reverse code for ``fn`` tapes: each ``tape*.append(...)`` line, inside which
    loops, and the primal-sweep definitions of the temporaries it tapes."""
    import adcompiler

    f = adcompiler.differentiate(fn)
    if vector:
        f.vjp(args, [1.0] + [0.0] * (len(fn(*args)) - 1))
    else:
        f.grad(*args)
    lines = f.source("reverse").splitlines()
    found = []
    for k, line in enumerate(lines):
        m = re.match(r"(\s*)(tape\w*)\.append\((.*)\)\s*$", line)
        if not m:
            continue
        loops = _enclosing_loops(lines, k, len(m.group(1)))
        defs = _definitions(lines[:k], m.group(3))
        where = " in ".join(f"`{h}`" for h in loops) or "outside any loop"
        found.append(f"`{m.group(2)}` <- `{m.group(3)}` per iteration of {where}" + (f"; {defs}" if defs else ""))
    return found


def _enclosing_loops(lines: list[str], k: int, indent: int) -> list[str]:
    """The headers of the ``for``/``while`` loops around line ``k`` (indented ``indent``), innermost first."""
    loops = []
    for line in reversed(lines[:k]):
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if stripped and depth < indent:
            if stripped.startswith(("for ", "while ")):
                loops.append(stripped.rstrip(":"))
            indent = depth
    return loops


def _definitions(before: list[str], items: str) -> str:
    """``t7 = 1.0 / MASS``-style definitions of the numbered temporaries among the taped items."""
    defs = []
    for name in re.findall(r"\bt\d+\b", items):
        for line in reversed(before):
            m = re.match(rf"\s*{name} = (.*)$", line)
            if m:
                defs.append(f"{name} = {m.group(1)}")
                break
    return ", ".join(f"`{d}`" for d in defs)


def measure(case: dict) -> dict:
    """One row: check adcompiler against the hand-written gradient, then both peaks."""
    row: dict[str, Any] = {k: case[k] for k in ("program", "size", "variant")}
    row.update({"status": "ok", "error": None, "hand_peak": None, "adc_peak": None, "ratio": None, "taped": []})
    args, hand = case["args"], case["hand"]
    try:
        adc = adc_gradient(case["primal"], case["vector"])
        problem = wrong(adc(), hand, args)
        if problem is None and case["check"] is not None:
            problem = wrong(adc_gradient(case["check"], False)(), case["check_hand"], args)
        if problem:
            row["status"], row["error"] = "WRONG", problem
            return row
        row["hand_peak"] = traced_peak(hand, args)
        row["adc_peak"] = traced_peak(adc(), args)
        row["ratio"] = row["adc_peak"] / row["hand_peak"]
        if row["ratio"] > TARGET:
            row["taped"] = taped(case["primal"], args, case["vector"])
    except Exception as exc:  # noqa: BLE001 - reported in the row
        row["status"], row["error"] = "error", short_error(exc)
    return row


def label(row: dict) -> str:
    return row["program"] + ("" if row["size"] is None else f"[{row['size']}]")


def log_row(row: dict, log) -> None:
    """One line of progress for a measured case."""
    if row["status"] != "ok":
        log(f"  {label(row):<20} {row['variant']}  {row['status']}: {row['error']}")
        return
    log(
        f"  {label(row):<20} {row['variant']}  hand {fmt_bytes(row['hand_peak']):>10}  "
        f"adcompiler {fmt_bytes(row['adc_peak']):>10}  {row['ratio']:.2f}x"
        + ("  (over 2x)" if row["ratio"] > TARGET else "")
    )


def markdown(report: dict) -> str:
    out = [
        "# adcompiler: peak memory of reverse mode on the reference harness's programs",
        "",
        run_line(report, git=True),
        "",
        packages_line(report),
        "",
        f"Programs, inputs and hand-written gradients: the reference harness in {report['reference']}. "
        "*peak*: tracemalloc's peak of traced bytes during one call, after a warm-up call (so adcompiler's code "
        'generation is excluded); adcompiler is `differentiate(fn).grad(*args)` (rotate: `jacobian(fn, mode="reverse")`). '
        f"The target is adcompiler / hand <= {TARGET:g}x on every case. `benchmarks/bench_peers_memory.py`, "
        "see benchmarks/README.md.",
        "",
        "| program | variant | hand-written peak | adcompiler peak | adcompiler / hand | status |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for r in report["rows"]:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x" + (" **> 2x**" if r["ratio"] > TARGET else "")
        status = r["status"] if r["status"] == "ok" else f"{r['status']}: {r['error']}"
        out.append(
            f"| {label(r)} | {r['variant']} | {fmt_bytes(r['hand_peak'])} | {fmt_bytes(r['adc_peak'])} | "
            f"{ratio} | {status} |"
        )
    over = [r for r in report["rows"] if r["ratio"] and r["ratio"] > TARGET]
    if over:
        out += ["", "## What adcompiler's reverse code tapes, for the cases over 2x", ""]
        for r in over:
            items = r["taped"] or ["nothing (no `tape*.append` in the reverse code)"]
            out.append(f"* {label(r)} ({r['variant']}): " + "; ".join(items))
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_reference(ap, reference.default_dir(), "")
    options.add_out(ap)
    options.add_strict(ap)
    ns = ap.parse_args(argv)
    if not ns.reference:
        print("no reference harness (../shared/peers not found; give --reference DIR): nothing to measure")
        return 2
    try:
        ref = reference.load(ns.reference)
    except (OSError, ImportError) as exc:
        print(f"cannot load the reference harness from {ns.reference}: {short_error(exc)}")
        return 2
    started = time.perf_counter()
    report: dict[str, Any] = {
        "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ"),
        "quick": False,
        "machine": machine_info(),
        "reference": ref.folder,
        "target": TARGET,
        "rows": [],
    }
    print(f"reference harness: {ref.folder}", flush=True)
    for case in cases(ref):
        row = measure(case)
        log_row(row, lambda msg: print(msg, flush=True))
        report["rows"].append(row)
    report["wall_seconds"] = time.perf_counter() - started

    os.makedirs(ns.out, exist_ok=True)
    with open(os.path.join(ns.out, "peers_memory.json"), "w") as fh:
        json.dump(report, fh, indent=2, default=str)
    md = markdown(report)
    with open(os.path.join(ns.out, "peers_memory.md"), "w") as fh:
        fh.write(md)
    print()
    print(md)
    print(f"wrote {os.path.join(ns.out, 'peers_memory.md')}, peers_memory.json ({report['wall_seconds']:.0f} s)")
    bad = any(r["status"] != "ok" for r in report["rows"])
    return 1 if (bad and ns.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
