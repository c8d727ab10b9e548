"""What a call of a ``backend="numba"`` derivative costs from Python beside its ``@numba.njit`` primal
(issue 36, item 4): microseconds a call, the best of five loops of 20000 calls, after the first calls.

    python benchmarks/numba_entry_cost.py
"""

from __future__ import annotations

import time

import numba
import numpy as np

import adcompiler


def scalar(x, y):
    return x * y + np.sin(x)


def dot(w, x):
    return np.sum(w * x)


def per_call(call, n=20000, rounds=5) -> float:
    call()
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n):
            call()
        best = min(best, (time.perf_counter() - start) / n)
    return best * 1e6


def main() -> None:
    w, x = np.linspace(0.1, 1.0, 10), np.linspace(1.0, 2.0, 10)
    d_scalar = adcompiler.differentiate(scalar, backend="numba")
    d_dot = adcompiler.differentiate(dot, backend="numba")
    reverse = d_dot.compiled("reverse", w, x)
    lists = adcompiler.differentiate(dot, backend="numba")  # (first called with a list: its fast entry's)
    rows = [
        ("scalar(0.3, 0.5): @njit primal", numba.njit(scalar), (0.3, 0.5)),
        ("scalar: d.grad", d_scalar.grad, (0.3, 0.5)),
        ("dot(w, x), 10 floats each: @njit primal", numba.njit(dot), (w, x)),
        ("dot: d.grad", d_dot.grad, (w, x)),
        ("dot: the compiled reverse code called alone", reverse, (w, x)),
        ("dot: d.grad, w a list of floats (w.tolist()), its own d", lists.grad, (w.tolist(), x)),
        ("dot: the same d.grad, w a list of NumPy scalars (list(w))", lists.grad, (list(w), x)),
        ("dot: the first d.grad, w a list (another signature than its first)", d_dot.grad, (w.tolist(), x)),
    ]
    print("| call | µs a call |\n|---|---:|")
    for label, fn, args in rows:
        print(f"| {label} | {per_call(lambda: fn(*args)):.2f} |")


if __name__ == "__main__":
    main()
