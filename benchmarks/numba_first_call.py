"""First-call time of ``backend="numba"`` derivatives in a fresh process, with an empty disk cache and
then with the cache the first process left (issue 36, item 4: the second process's first call under 1 s).

Each program runs in its own Python process (``--run NAME``), twice per cache directory: the first
process compiles and fills the cache, the second is served from it.  Reported: the first call's
seconds inside the process (from ``differentiate`` to the first derivative's return, imports
excluded), and the whole process's wall seconds.  The GradBench ports in ``benchmarks/gradbench/evals``
at the sizes of GradBench's smallest inputs, with random values.

    python benchmarks/numba_first_call.py [--programs lse,ba] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _lse(adcompiler, evals, rng):
    return lambda: adcompiler.differentiate(evals.lse.logsumexp, backend="numba").grad(rng.normal(size=2500))


def _llsq(adcompiler, evals, rng):
    d = adcompiler.differentiate(evals.llsq.llsq, wrt=("x",), backend="numba")
    return lambda: d.grad(rng.normal(size=16), 128)


def _ode(adcompiler, evals, rng):
    d = adcompiler.differentiate(evals.ode.last, wrt=("x",), backend="numba")
    return lambda: d.grad(rng.normal(size=10), 10)


def _kmeans(adcompiler, evals, rng):
    d = adcompiler.differentiate(evals.kmeans.cost, wrt=("centroids",), backend="numba")
    return lambda: d.grad(rng.normal(size=(1000, 8)), rng.normal(size=(10, 8)))


def _lstm(adcompiler, evals, rng):
    d = adcompiler.differentiate(evals.lstm.objective, wrt=("main_params", "extra_params"), backend="numba")
    layers, b, c = 2, 14, 4
    args = (rng.normal(size=(2 * layers, 4 * b)), rng.normal(size=(3, b)), rng.normal(size=(2 * layers, b)))
    return lambda: d.grad(*args, rng.normal(size=(c, b)))


def _ba(adcompiler, evals, rng):
    reproj = adcompiler.differentiate(evals.ba.reproj_err, wrt=("cam", "X", "w"), backend="numba")
    jacobian = adcompiler.jacobian(reproj)
    w_err = adcompiler.differentiate(evals.ba.w_err, backend="numba")

    def first():
        jacobian(rng.normal(size=11), rng.normal(size=3), 0.5, rng.normal(size=2))
        return w_err.grad(0.5)

    return first


def _ht(adcompiler, evals, rng):
    """The simple variant's forward Jacobian, on a random hand of GradBench's shape (22 bones, each
    bone's parent before it; 544 vertices; 100 points)."""
    d = adcompiler.differentiate(evals.ht.objective_simple, wrt=("theta",), backend="numba")
    jacobian = adcompiler.jacobian(d, mode="forward")
    bones, vertices, points = 22, 544, 100
    parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, bones)], dtype=np.int64)
    arrays = (
        parents,
        rng.normal(size=(bones, 4, 4)),
        rng.normal(size=(bones, 4, 4)),
        np.hstack((rng.normal(size=(vertices, 3)), np.ones((vertices, 1)))),
        rng.uniform(size=(vertices, bones)),
        False,
        rng.normal(size=(points, 3)),
        rng.integers(0, vertices, size=points).astype(np.int64),
    )
    return lambda: jacobian(rng.normal(size=26), *arrays)


PROGRAMS = {"lse": _lse, "llsq": _llsq, "ode": _ode, "kmeans": _kmeans, "lstm": _lstm, "ba": _ba, "ht": _ht}


def run_one(name: str) -> None:
    """In this process: the first call of ``name``'s derivative; prints a JSON line."""
    import importlib

    import adcompiler

    sys.path.insert(0, ROOT)
    evals = type("Evals", (), {m: importlib.import_module(f"benchmarks.gradbench.evals.{m}") for m in PROGRAMS})
    start = time.perf_counter()
    PROGRAMS[name](adcompiler, evals, np.random.default_rng(0))()
    print(json.dumps({"first_call": time.perf_counter() - start}))


def measure(name: str, cache: str) -> dict:
    env = dict(os.environ, ADCOMPILER_CACHE_DIR=cache, PYTHONWARNINGS="ignore")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--run", name], env=env, capture_output=True, text=True, cwd=ROOT, check=False
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "process": wall}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    args = parser.parse_args(argv)
    if args.run:
        return run_one(args.run)
    import numba

    print(f"numba {numba.__version__}, NUMBA_OPT={os.environ.get('NUMBA_OPT', '3 (default)')}, {os.cpu_count()} CPUs")
    print("| program | process 1: first call | process 1: whole | process 2: first call | process 2: whole |")
    print("|---|---:|---:|---:|---:|")
    for name in args.programs.split(","):
        with tempfile.TemporaryDirectory(prefix="adc-first-call-") as cache:
            runs = [measure(name, cache) for _ in range(2)]
        cells = []
        for r in runs:
            cells += [r["error"][:60], ""] if "error" in r else [f"{r['first_call']:.2f} s", f"{r['process']:.2f} s"]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
