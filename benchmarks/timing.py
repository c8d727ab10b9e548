"""The best time of a call, shared by the Numba benchmarks (bench_numba.py, and bench_numba_jax.py in a
JAX venv: this module imports only the standard library)."""

from __future__ import annotations

import time


def best(call, repeat=25, budget=0.25):
    """The best time of one call (seconds), over ``repeat`` rounds of enough calls to take ``budget``."""
    call()
    n, t = 1, 0.0
    while True:
        start = time.perf_counter()
        for _ in range(n):
            call()
        t = time.perf_counter() - start
        if t > budget / repeat or n > 1e6:
            break
        n *= 4
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(n):
            call()
        times.append((time.perf_counter() - start) / n)
    return min(times)
