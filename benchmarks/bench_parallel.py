"""Parallel reverse mode (issue 36): for each ``prange`` program of ``adcompiler.testing.parallel_programs``
(the paper's particles, a Gaussian mixture over points, a Monte Carlo price over paths), per thread
count (``numba.set_num_threads``): the primal's time (the user's function under
``numba.njit(parallel=True)``), the gradient's (``adcompiler.differentiate(f, wrt=WRT[name], backend="numba").vjp``, the parameters),
gradient / primal at that thread count, and each one's speedup over its own one-thread time.

    python benchmarks/bench_parallel.py [--sizes particles=2000,gmm=20000,monte_carlo=20000]
                                        [--repeats 7] [--out benchmarks/results/parallel.md]

Times are the minimum over ``--repeats`` calls after a warm-up call (whose time, Numba's compilation of
both, is the *first call* column); the machine, its load before and after, and the Numba threading
layer are written with the table.  Every gradient is checked against the python backend's first
(relative 1e-10), so a fast wrong answer cannot enter the table.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time

import numpy as np

SIZES = {"particles": 2000, "gmm": 20000, "monte_carlo": 20000}


def _best(call, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def _checked(d, python, args) -> None:
    got, want = d.vjp(args, 1.0)[1], python.vjp(args, 1.0)[1]
    pairs = list(zip(got, want)) + list(zip(d.grad(*args), python.grad(*args)))
    for g, w in pairs:
        scale = max(1.0, float(np.max(np.abs(w))))
        if not np.allclose(g, w, rtol=1e-10, atol=1e-10 * scale):
            raise SystemExit("the parallel gradient differs from the python backend's: not timed")


def run(name: str, size: int, repeats: int, threads: list) -> list:
    import numba

    import adcompiler
    from adcompiler.testing import parallel_programs as P

    f, args = P.PROGRAMS[name], P.inputs(name, size)
    primal = numba.njit(parallel=True)(f)
    d = adcompiler.differentiate(f, wrt=P.WRT[name], backend="numba")
    start = time.perf_counter()
    primal(*args)
    first_primal = time.perf_counter() - start
    start = time.perf_counter()
    d.vjp(args, 1.0)
    first_gradient = time.perf_counter() - start
    _checked(d, adcompiler.differentiate(f, wrt=P.WRT[name]), args)
    rows, base = [], None
    for n in threads:
        numba.set_num_threads(n)
        tp = _best(lambda: primal(*args), repeats)
        tg = _best(lambda: d.vjp(args, 1.0), repeats)
        only = _best(lambda: d.grad(*args), repeats)  # (no value: a primal loop nothing else reads is dropped)
        base = base or (tp, tg)
        rows.append(
            (name, size, n, tp, tg, tg / tp, only / tp, base[0] / tp, base[1] / tg, first_primal, first_gradient)
        )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(f"{k}={v}" for k, v in SIZES.items()))
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", default=None, help="write the table (Markdown) here too")
    a = parser.parse_args(argv)
    import numba

    sizes = dict((k, int(v)) for k, v in (item.split("=") for item in a.sizes.split(",")))
    most = numba.config.NUMBA_NUM_THREADS
    threads = sorted({1, 2, most} & set(range(1, most + 1)))
    load = os.getloadavg()
    rows = [row for name, size in sizes.items() for row in run(name, size, a.repeats, threads)]
    after = os.getloadavg()
    lines = [
        "# Parallel reverse mode: prange programs on the Numba target",
        "",
        f"Made by `python benchmarks/bench_parallel.py --sizes {a.sizes} --repeats {a.repeats}` on "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__} (threading layer "
        f"{numba.threading_layer()}); load average (1, 5, 15 min) before {[round(x, 1) for x in load]}, after "
        f"{[round(x, 1) for x in after]}; peak memory of the process "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB.",
        "",
        'Primal: the function under `numba.njit(parallel=True)`; gradient: `differentiate(f, wrt=..., backend="numba")'
        ".vjp` (value and gradient) with respect to the parameters (`parallel_programs.WRT`, not the data); *grad*:"
        " `.grad`, the gradient alone, over the primal's time.  Speedups are the vjp's."
        " Times: the minimum over the calls after the first; *first call*: Numba's compilation"
        " of each (one process, this machine's cache left as it was).",
        "",
        "| program | size | threads | primal | gradient | gradient / primal | grad / primal | primal speedup |"
        " gradient speedup | first call (primal, gradient) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, size, n, tp, tg, ratio, only, sp, sg, fp, fg in rows:
        lines.append(
            f"| {name} | {size} | {n} | {tp * 1e3:.2f} ms | {tg * 1e3:.2f} ms | {ratio:.1f} | {only:.1f} | {sp:.2f} |"
            f" {sg:.2f} | {fp:.1f} s, {fg:.1f} s |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
