"""What the reverse sweep's tape costs under Numba: a list of tuples against rows of preallocated arrays.

    python benchmarks/numba_tape_cost.py            # 32768 entries, as lstm's gradient at l = 2, c = 8192

The Numba target keeps what the adjoints read as Python keeps it: one tuple a loop iteration appended to a
list (``tape.append((t18, outgate, ...))``), popped by the reverse sweep.  Under Numba each array in such a
tuple is a reference counted on the way in and out, and the arrays stay alive as separate allocations until
the reverse sweep frees them.  GradBench lstm's gradient (l = 2, c = 8192) keeps 24 values a layer step, 17 of
them arrays: its forward sweep takes 47 ms with the tape and 22 ms without it, of a 65 ms gradient.

This script times the same number of iterations keeping ten 7-element arrays each (lstm's residuals of one
layer step) in the ways a compiled sweep could keep them: one tuple a step in a list (today's tape), one list a
residual, and rows of one preallocated array a residual (``slots[r, i, :] = value``: what JAX's ``lax.scan``
does with the residuals of a loop), read back by entry (``slots[r, i, k]``, as a loop fused over the adjoint's
lines would) or as a view a residual (as today's adjoint lines read arrays).  It prints the time per iteration
of each.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from adcompiler.compile.memory import keep_arrays

KEPT = 10  # arrays kept an iteration


@numba.njit
def tuple_tape(n, a):
    tape = []
    for i in range(n):
        b = a + float(i)
        tape.append((b, b + 1.0, b + 2.0, b + 3.0, b + 4.0, b + 5.0, b + 6.0, b + 7.0, b + 8.0, b + 9.0, i))
    total = 0.0
    while len(tape):
        v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, _ = tape.pop()
        total += v0[0] + v1[0] + v2[0] + v3[0] + v4[0] + v5[0] + v6[0] + v7[0] + v8[0] + v9[-1]
    return total


@numba.njit
def list_per_residual(n, a):
    first, rest = [], []
    for i in range(n):
        b = a + float(i)
        first.append(b)
        for r in range(1, KEPT):
            rest.append(b + float(r))
    total = 0.0
    for i in range(n - 1, -1, -1):
        total += rest.pop()[-1]
        for r in range(KEPT - 2):
            total += rest.pop()[0]
        total += first.pop()[0]
    return total


@numba.njit
def slots(n, a, as_views=False):
    """Residuals in rows of one array a residual, read back by entry or (``as_views``) as a view a residual, as an
    adjoint line reads an array."""
    kept = np.empty((KEPT, n, a.shape[0]))
    for i in range(n):
        b = a + float(i)
        for r in range(KEPT):
            kept[r, i, :] = b + float(r)
    total = 0.0
    for i in range(n - 1, -1, -1):
        for r in range(KEPT):
            if as_views:
                row = kept[r, i]
                total += row[-1] if r == KEPT - 1 else row[0]
            else:
                total += kept[r, i, -1] if r == KEPT - 1 else kept[r, i, 0]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=32768, help="iterations (lstm l = 2, c = 8192: 32768 layer steps)")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    keep_arrays()  # glibc's thresholds as generated code sets them
    a = np.linspace(0.0, 1.0, 7)
    expected = None
    ways = {
        "tuple_tape": lambda: tuple_tape(args.n, a),
        "list_per_residual": lambda: list_per_residual(args.n, a),
        "slots": lambda: slots(args.n, a),
        "slots_read_as_views": lambda: slots(args.n, a, True),
    }
    for name, way in ways.items():
        value = way()  # (compiles)
        expected = value if expected is None else expected
        assert np.isclose(value, expected), (name, value, expected)
        best = min(_timed(way) for _ in range(args.rounds))
        print(f"{name:19} {best * 1e3:7.2f} ms  {best / args.n * 1e9:6.0f} ns an iteration")


def _timed(way) -> float:
    start = time.perf_counter()
    way()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
