#!/usr/bin/env python3
"""The gradient of a least-squares loss on a Dask array larger than one worker's memory limit, on a
local cluster, against the same gradient on NumPy arrays at a size that fits in memory.

    python benchmarks/bench_dask.py                  # X of 6.4 GB (80M x 10 float64): minutes
    python benchmarks/bench_dask.py --rows 8000000   # X of 640 MB: about half a minute

The loss is ``np.mean((X @ w - y) ** 2)``, written with NumPy and differentiated once with
``differentiate(loss, wrt="w", arrays="any")``.  The Dask run makes X and y chunk by chunk on a
``LocalCluster`` of 2 worker processes (1 thread each, ``--limit`` of memory each: 512 MiB by
default, well below X's size), so neither the data nor its gradient's intermediates are ever whole
in one process; the gradient is a Dask array that ``client.compute`` evaluates.  The NumPy run
takes ``--numpy-rows`` rows (default 1M, 80 MB) in this process.

Reported for each: wall time of the gradient (Dask: graph built and computed, data made in the
chunks as they are needed; NumPy: the gradient call alone), and peak memory: the peak resident set
of each worker process (ru_maxrss, its baseline of about 100 MB included), and for NumPy the peak
of traced allocations (tracemalloc) during the call.
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np

from adcompiler import differentiate


def loss(w, X, y):
    r = X @ w - y
    return np.mean(r * r)


def peak_rss_mb() -> float:
    """This process's peak resident set (MB); run on each worker."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_dask(rows: int, cols: int, chunk_rows: int, limit: str) -> dict:
    import dask.array as da
    from distributed import Client, LocalCluster

    grad = differentiate(loss, wrt="w", arrays="any").grad
    w = np.linspace(-1.0, 1.0, cols)
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=limit, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            X = da.random.default_rng(0).random((rows, cols), chunks=(chunk_rows, cols))
            y = da.random.default_rng(1).random(rows, chunks=chunk_rows)
            start = time.perf_counter()
            g = client.compute(grad(w, X, y), sync=True)
            seconds = time.perf_counter() - start
            peaks = client.run(peak_rss_mb)
    return {"seconds": seconds, "peaks_mb": sorted(peaks.values()), "grad": g, "bytes": rows * cols * 8}


def run_numpy(rows: int, cols: int) -> dict:
    grad = differentiate(loss, wrt="w").grad
    rng = np.random.default_rng(0)
    X, y, w = rng.random((rows, cols)), rng.random(rows), np.linspace(-1.0, 1.0, cols)
    grad(w, X[:10], y[:10])  # generated and loaded before timing
    tracemalloc.start()
    start = time.perf_counter()
    g = grad(w, X, y)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    expected = 2.0 * X.T @ (X @ w - y) / rows  # the analytic gradient
    assert np.allclose(g, expected, rtol=1e-10), "the NumPy gradient is wrong"
    return {"seconds": seconds, "peak_mb": peak / 2**20, "bytes": X.nbytes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=80_000_000)
    parser.add_argument("--cols", type=int, default=10)
    parser.add_argument("--chunk-rows", type=int, default=250_000)
    parser.add_argument("--limit", default="512MiB", help="memory limit of each of the 2 workers")
    parser.add_argument("--numpy-rows", type=int, default=1_000_000)
    args = parser.parse_args()
    n = run_numpy(args.numpy_rows, args.cols)
    print(f"numpy  X {n['bytes'] / 1e6:8.0f} MB   {n['seconds']:7.2f} s   peak traced {n['peak_mb']:7.1f} MB")
    d = run_dask(args.rows, args.cols, args.chunk_rows, args.limit)
    peaks = ", ".join(f"{p:.0f}" for p in d["peaks_mb"])
    print(
        f"dask   X {d['bytes'] / 1e6:8.0f} MB   {d['seconds']:7.2f} s   peak RSS per worker {peaks} MB "
        f"(limit {args.limit} each)"
    )
    # uniform [0, 1) data: the gradient's entries approach their expectation, a check of the Dask result
    cols = args.cols
    w = np.linspace(-1.0, 1.0, cols)
    second = np.full((cols, cols), 0.25) + np.eye(cols) / 12.0  # E[x x^T] for x uniform on [0, 1)^cols
    expected = 2.0 * (second @ w - 0.25 * np.ones(cols))  # 2 (E[x x^T] w - E[x] E[y])
    print(f"dask gradient - its expectation: max {np.max(np.abs(d['grad'] - expected)):.2e}")


if __name__ == "__main__":
    main()
