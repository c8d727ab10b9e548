#!/usr/bin/env python3
"""Transformation time grows linearly with the length of the function transformed.

Generates straight-line functions of 75, 150, 300 and 600 lines (scalar
arithmetic, math calls, reuse of earlier variables) and functions with loops
and branches of 75 to 300 lines, and times the transformation of each: a fresh
``adcompiler.differentiate(f)`` and its first ``grad`` call (reverse mode), and
a fresh one and its first ``jvp`` call (forward mode), each minus the time of a
second call (running the generated code).  Times are the CPU time of this
process (``--wall`` for wall time), best of ``--repeats``.

    python benchmarks/bench_transform.py                       # the table
    python benchmarks/bench_transform.py --check               # exit 1 if a time grows faster than ~linearly
    python benchmarks/bench_transform.py --reference ../shared/peers   # also the Table 1 programs there

``--check`` compares the time per line of the longest function of each kind
with that of the shortest: more than ``--factor`` (3) times is a failure.  Wall
time on a shared machine varies by tens of percent, so the factor is loose; the
deterministic check of scaling is tests/test_transform_scaling.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import tempfile
import time

STRAIGHT = (75, 150, 300, 600)
LOOPS = (75, 150, 300)
PARAMS = ("x", "y", "z")
CLOCK = time.process_time  # CPU time of this process: other jobs on a shared machine count less than in wall time
UNARY = ("math.sin({})", "math.cos({})", "math.tanh({})", "math.exp(-{} * {})", "1.0 / (1.0 + {} * {})")


def _term(rng: random.Random, names: list) -> str:
    """An expression of two or three earlier variables, bounded so that long chains stay finite."""
    a, b, c = (rng.choice(names[-12:] if rng.random() < 0.7 else names) for _ in range(3))
    kind = rng.randrange(6)
    if kind == 0:
        return f"{a} * {b} + {c}"
    if kind == 1:
        return f"{a} - 0.5 * {b}"
    if kind == 2:
        return f"{a} * {rng.choice(UNARY).format(b, b)}"
    if kind == 3:
        return f"{rng.choice(UNARY).format(a, a)} + {b} / (1.0 + {c} ** 2)"
    if kind == 4:
        return f"0.25 * ({a} + {b}) * {c}"
    return f"math.sqrt(1.0 + {a} * {a}) - {b}"


def straight_source(n: int, seed: int = 0) -> str:
    """A function of ``n`` lines: ``n - 2`` assignments reading earlier variables (new variables, and a
    few reassigned again and again, as running values are: ``s = s + ...``, ``a += ...``), then a return."""
    rng = random.Random(seed)
    names, lines = list(PARAMS), [f"def straight_{n}(x, y, z):", "    s = 0.0"]
    for i in range(n - 3):
        kind = rng.randrange(8)
        if kind == 0:
            lines.append(f"    s = s + {_term(rng, names)}")
        elif kind == 1:
            lines.append(f"    {rng.choice(PARAMS)} += 0.1 * math.sin({rng.choice(names)})")
        elif kind == 2:
            v = rng.choice(names[3:] or ["x"])
            lines.append(f"    {v} = math.tanh({_term(rng, names)})")
        else:
            lines.append(f"    v{i} = {_term(rng, names)}")
            names.append(f"v{i}")
    lines.append(f"    return s + {' + '.join(names[-3:])}")
    return "\n".join(lines) + "\n"


def loops_source(n: int, seed: int = 0) -> str:
    """A function of about ``n`` lines: for loops over ``range(k)`` with branches and straight-line stretches."""
    rng = random.Random(seed)
    names, lines = list(PARAMS), [f"def loops_{n}(x, y, z, k):", "    s = 0.0"]
    i = 0
    while len(lines) < n - 1:
        v = f"v{i}"
        i += 1
        shape = rng.randrange(3)
        if shape == 0:  # a loop with a branch inside
            lines += [
                f"    {v} = {names[-1]}",
                "    for j in range(k):",
                f"        {v} = 0.5 * {v} + 0.1 * {_term(rng, names)}",
                f"        if {v} > 0.0:",
                f"            s = s + {v} * {rng.choice(names)}",
                "        else:",
                f"            s = s - math.sin({v})",
            ]
        elif shape == 1:  # a branch at the top level
            lines += [
                f"    if {rng.choice(names)} > {rng.choice(names)}:",
                f"        {v} = {_term(rng, names)}",
                "    else:",
                f"        {v} = {_term(rng, names)} * 0.5",
            ]
        else:
            lines += [f"    {v} = math.tanh({_term(rng, names)})"]
        names.append(v)
    lines.append(f"    return s + {names[-1]}")
    return "\n".join(lines) + "\n"


def load(source: str, name: str, folder: str):
    """The function ``name`` of a module written to ``folder`` (adcompiler reads a function's source file)."""
    path = os.path.join(folder, f"{name}.py")
    with open(path, "w") as f:
        f.write("import math\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def transform_time(fn, args, mode: str) -> float:
    """Seconds for a fresh ``differentiate(fn)`` and its first call in ``mode`` (``grad``, or ``jvp`` with
    tangents of ones), minus a second call's."""
    import adcompiler

    out = fn(*args)

    def call(d):
        if mode == "grad":  # reverse mode: a vjp with a cotangent of ones for a list output (rotate's)
            return d.grad(*args) if isinstance(out, float) else d.vjp(args, ones(out))
        return d.jvp(args, tuple(ones(a) for a in args if not isinstance(a, int)))

    t0 = CLOCK()
    d = adcompiler.differentiate(fn)
    call(d)
    t1 = CLOCK()
    call(d)
    t2 = CLOCK()
    return max(0.0, (t1 - t0) - (t2 - t1))


def ones(x):
    """A tangent of ones shaped like ``x`` (integer arguments are not differentiated, so have none)."""
    if isinstance(x, (list, tuple)):
        return type(x)(ones(e) for e in x)
    return 1.0


def best_of(fn, args, mode: str, repeats: int) -> float:
    return min(transform_time(fn, args, mode) for _ in range(repeats))


def reference_cases(folder: str) -> list:
    """(name, function, arguments) of each Table 1 program of the reference harness's programs.py."""
    sys.path.insert(0, os.path.abspath(folder))
    import programs  # the reference's, not benchmarks/programs.py: this folder is first on the path

    cases = []
    for b in programs.BENCHMARKS:
        size = b["sizes"][0]
        args = b["inputs"](size)
        cases.append((b["name"], b["py"], args))
    sys.path.pop(0)
    return cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a time per line grows more than --factor")
    ap.add_argument("--factor", type=float, default=3.0, help="allowed growth of the time per line (default 3)")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many transformations (default 3)")
    ap.add_argument("--reference", metavar="DIR", help="also the Table 1 programs of DIR/programs.py")
    ap.add_argument("--wall", action="store_true", help="wall time instead of this process's CPU time")
    ap.add_argument("--quick", action="store_true", help="only the straight-line functions of 75 and 300 lines")
    ns = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.perf_counter if ns.wall else time.process_time

    rows, failures = [], []
    with tempfile.TemporaryDirectory() as folder:
        kinds = [("straight", (75, 300) if ns.quick else STRAIGHT, straight_source, (0.3, 0.7, 1.1))]
        if not ns.quick:
            kinds.append(("loops", LOOPS, loops_source, (0.3, 0.7, 1.1, 3)))
        print(f"{'function':<16}{'lines':>6}{'grad s':>10}{'jvp s':>10}{'grad ms/line':>14}{'jvp ms/line':>13}")
        for kind, sizes, make, args in kinds:
            per_line = {}
            for n in sizes:
                fn = load(make(n), f"{kind}_{n}", folder)
                g, j = best_of(fn, args, "grad", ns.repeats), best_of(fn, args, "jvp", ns.repeats)
                per_line[n] = (g / n, j / n)
                rows.append((f"{kind}_{n}", n, g, j))
                print(f"{kind + '_' + str(n):<16}{n:>6}{g:>10.3f}{j:>10.3f}{1e3 * g / n:>14.3f}{1e3 * j / n:>13.3f}")
            small, large = per_line[min(sizes)], per_line[max(sizes)]
            for label, a, b in (("grad", small[0], large[0]), ("jvp", small[1], large[1])):
                if b > ns.factor * a:
                    failures.append(
                        f"{kind} {label}: {1e3 * b:.3f} ms/line at {max(sizes)} lines, {1e3 * a:.3f} at {min(sizes)}"
                    )
    if ns.reference:
        print(f"\n{'Table 1 program':<22}{'grad ms':>10}{'jvp ms':>10}")
        for name, fn, args in reference_cases(ns.reference):
            g = best_of(fn, args, "grad", ns.repeats)
            j = best_of(fn, args, "jvp", ns.repeats)
            print(f"{name:<22}{1e3 * g:>10.1f}{1e3 * j:>10.1f}")
    for f in failures:
        print("grows faster than linearly:", f)
    return 1 if ns.check and failures else 0


if __name__ == "__main__":
    sys.exit(main())
