#!/usr/bin/env python3
"""Reverse mode costs a constant factor of the primal, whatever the length of
the run: a scalar loop ``s = s * x + sin(x)`` (benchmarks/programs.py,
``scalar_loop``) run N = 1e4, 1e5 and 1e6 times, differentiated with respect
to x by adcompiler.

    python benchmarks/bench_scaling.py            # 7 repeats per timing
    python benchmarks/bench_scaling.py --quick    # 3 repeats

For each N it prints (and writes to benchmarks/out/scaling.md) the time
of the primal, of the gradient (``f.grad``, reverse mode: the primal sweep
records one tape entry per iteration, the adjoint sweep replays it) and of a
jvp (forward mode), each also divided by the primal time and by N.  Linear
cost shows as a constant *grad / primal* ratio and a constant time per
iteration as N grows tenfold; a quadratic cost (the GC trap of Section 13.1
of the paper) would multiply the ratio by ten at each step.

Before timing, the gradient is checked against the closed form: with
s_0 = 0 and s_{k+1} = s_k x + sin x, s_n = sin(x) (1 - x^n) / (1 - x), so
ds_n/dx = cos(x) (1 - x^n) / (1 - x) + sin(x) (-n x^(n-1) (1 - x) + (1 - x^n)) / (1 - x)^2.
"""

from __future__ import annotations

import onethread  # noqa: F401  (first: one BLAS thread, set before NumPy loads)
import options  # noqa: E402
import argparse
import datetime
import math
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import programs  # noqa: E402
from bench_scalar import fmt_time, machine_info, time_call  # noqa: E402

SIZES = (10**4, 10**5, 10**6)
X = 0.5


def exact_grad(x: float, n: int) -> float:
    xn = x**n
    one = 1.0 - x
    return math.cos(x) * (1.0 - xn) / one + math.sin(x) * (-n * x ** (n - 1) * one + (1.0 - xn)) / (one * one)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 short repeats per timing")
    options.add_out(ap)
    ns = ap.parse_args(argv)

    import adcompiler

    f = adcompiler.differentiate(programs.scalar_loop, wrt=("x",))
    rows = []
    for n in SIZES:
        value, g = f.value_and_grad(X, n)
        exp = exact_grad(X, n)
        if value != programs.scalar_loop(X, n) or abs(g - exp) > 1e-9 * max(1.0, abs(exp)):
            print(f"N={n}: gradient {g!r} but the closed form gives {exp!r}", file=sys.stderr)
            return 2
        t_primal = time_call(programs.scalar_loop, (X, n), ns.quick)
        t_rev = time_call(f.grad, (X, n), ns.quick)
        t_fwd = time_call(lambda x, n: f.jvp((x, n), (1.0,)), (X, n), ns.quick)
        rows.append((n, t_primal, t_rev, t_fwd))
        print(
            f"N={n:>8}: primal {fmt_time(t_primal)}, grad {fmt_time(t_rev)} ({t_rev / t_primal:.2f}x), "
            f"jvp {fmt_time(t_fwd)} ({t_fwd / t_primal:.2f}x)",
            flush=True,
        )

    m = machine_info()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
    out = [
        "# adcompiler: reverse-mode cost is linear in the length of the run",
        "",
        f"{stamp} · {'quick' if ns.quick else 'full'} run · Python {m['python']} · "
        f"{m.get('cpu_model') or m['machine']} · {platform.platform()} · "
        f"adcompiler {m['packages'].get('adcompiler')} (git {m.get('git_commit')})",
        "",
        "`s = s * x + math.sin(x)` iterated N times from s = 0 (benchmarks/programs.py `scalar_loop`), "
        f"x = {X}; *grad* = `f.grad` (reverse mode, d s / d x), *jvp* = `f.jvp` (forward mode). "
        "Median per-call time; the gradient is checked against the closed form first.",
        "",
        "| N | primal | grad (reverse) | grad / primal | grad ns / iteration | jvp (forward) | jvp / primal |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, tp, tr, tf in rows:
        out.append(
            f"| {n:,} | {fmt_time(tp)} | {fmt_time(tr)} | {tr / tp:.2f}x | {tr / n * 1e9:.0f} | "
            f"{fmt_time(tf)} | {tf / tp:.2f}x |"
        )
    ratios = [tr / tp for _, tp, tr, _ in rows]
    growth = ratios[-1] / ratios[0]
    span = rows[-1][0] // rows[0][0]
    out += [
        "",
        f"grad / primal goes {' -> '.join(f'{r:.2f}' for r in ratios)} while N grows {span}-fold, "
        f"so the ratio at the largest N is {growth:.2f}x the ratio at the smallest "
        f"(a cost quadratic in N would make it ~{span}x): "
        + ("linear cost, up to timing noise." if growth < 2.0 else "reverse mode grows faster than the primal."),
    ]
    md = "\n".join(out) + "\n"
    os.makedirs(ns.out, exist_ok=True)
    path = os.path.join(ns.out, "scaling.md")
    with open(path, "w") as fh:
        fh.write(md)
    print()
    print(md)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
