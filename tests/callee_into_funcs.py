"""Helpers with array parameters called from loops, branches and themselves, for tests/test_callee_into.py
(issue 35: a callee's reverse sweep adds into its caller's adjoint array)."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "gradbench"))
from evals.det import det, det_of_minor  # noqa: E402, F401 (GradBench det's recursion, the eval itself)


def cell(W, b, h):
    """An LSTM-like step: W read row by row in a loop, b once."""
    s = 0.0 * h
    for i in range(W.shape[0]):
        s = s + W[i] * h[i]
    return np.tanh(s + b)


def run_cells(W, b, h):
    """The cell called once a step with the same weights."""
    total = 0.0
    for t in range(4):
        h = cell(W, b, h)
        total = total + np.sum(h * h)
    return total


def pair(A, B):
    s = 0.0
    for i in range(A.shape[0]):
        s = s + np.sum(A[i] * np.sin(B[i]))
    return s


def same_twice(A):
    """pair(A, A): one array handed as both arguments, in a loop and outside it."""
    total = pair(A, A)
    for k in range(3):
        total = total + pair(A, A * 0.5) * k
    return total


def rowwise(A, c):
    """``c`` of shape (1, n) (or a number) broadcast against A's rows: its adjoint summed back."""
    s = 0.0
    for i in range(A.shape[0]):
        s = s + np.sum(np.sin(A[i] * c))
    return s


def calls_rowwise(A, c):
    total = 0.0
    for k in range(3):
        total = total + rowwise(A, c) * (k + 1.0)
    return total


def calls_rowwise_scalar(A, x):
    total = 0.0
    for k in range(2):
        total = total + rowwise(A, x * (k + 1.0))
    return total


def climb(A, k):
    """A recursion that reads ``A`` again, in a loop, after its call of itself."""
    if k == 0:
        out = np.sum(A[0] * A[0])
    else:
        inner = climb(A, k - 1)
        out = inner * np.sum(np.sin(A[k]))
        for j in range(k):
            out = out + np.sum(A[j] * A[k])
    return out


def calls_climb(A):
    return climb(A, A.shape[0] - 1)


def even(A, k):
    """Mutual recursion: even and odd each read A in a loop and call the other."""
    if k == 0:
        out = np.sum(A[0] * A[0])
    else:
        out = np.sum(np.cos(A[k])) * odd(A, k - 1)
        for j in range(k):
            out = out + np.sum(A[j]) * 0.1
    return out


def odd(A, k):
    out = np.sum(np.sin(A[0]))
    for j in range(k):
        out = out + np.sum(A[j + 1] * A[j + 1]) * 0.5
    if k > 0:
        out = out + even(A, k - 1)
    return out


def calls_even(A):
    return even(A, A.shape[0] - 1)


def loop_with_helper(W, x):
    """A helper of arrays called in a long loop (for checkpoint=2), the weights handed each step."""
    h = x
    total = 0.0
    for t in range(6):
        h = cell(W, x, h)
        total = total + np.sum(h)
    return total


def branch_helper(W, b, flag):
    """A helper called in a branch only, the weights read in the caller outside it too."""
    total = np.sum(W * W)
    if flag > 0:
        total = total + np.sum(cell(W, b, b))
    return total


def read_rows(A, B):
    s = 0.0
    for i in range(A.shape[0]):
        s = s + np.sum(np.sin(A[i]) * B[i])
    return s


def sum_after_call(A, B):
    """In a branch, the call then a sum whose adjoint (one array for both operands) reaches A's accumulator
    before the call's does: the accumulator handed must not be that shared array."""
    total = 0.0
    D = B * 3.0
    if np.sum(B) > -100.0:
        total = total + read_rows(A, B)
        y = A + D
        total = total + np.sum(y * y)
    return total


def weighted(W, x):
    """W added into as a whole at each iteration (its adjoint a sum, not a scatter)."""
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sum(np.sin(W * x[i]))
    return s


def calls_weighted(W, x):
    total = 0.0
    for t in range(3):
        total = total + weighted(W, x * (t + 1.0)) + np.sum(W * W) * t
    return total


def step_reverse_sweep(a, b, c):
    """A user's helper named as the generated reverse sweeps are (``modes.handed`` knows them by name)."""
    return a * b + np.sin(c)


def calls_named_like_a_sweep(x, w):
    s = 0.0 * w
    for i in range(3):
        s = step_reverse_sweep(s, w, x * i)
    t = step_reverse_sweep(s, s, w)
    return np.sum(t * x)


def tree_sum(xs, lo, hi):
    """A recursion halving a range, its leaves' squares joined through sin: each level's branch, its
    split point (a number with no derivative) and its halves' values (with one) kept for its adjoint."""
    if hi - lo == 1:
        return xs[lo] * xs[lo]
    mid = (lo + hi) // 2
    left = tree_sum(xs, lo, mid)
    right = tree_sum(xs, mid, hi)
    return left * 0.5 + right * np.sin(left)


def tree(xs):
    return tree_sum(xs, 0, xs.shape[0])
