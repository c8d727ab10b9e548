"""In-place array programs that adcompiler must accept and get right (tests/test_inplace.py): the
in-place rules of adcompiler/inplace.py must not refuse them."""

import math

import numpy as np


def accumulate_in_loop(x, a):
    """acc += ... in a loop: nothing else refers to acc."""
    acc = np.zeros(3)
    for k in range(3):
        acc += a * x + k
    return np.sum(acc * acc)


def prefix_sums_read_before_write(x, a):
    """A view y[:i] used before the write y[i] = ...: it never sees the write."""
    y = a * x
    for i in range(1, 3):
        y[i] = np.sum(y[:i]) * 0.5 + y[i]
    return np.sum(y * y)


def chosen_array_then_written(x, a, c):
    """A conditional expression holding a parameter or a local; the local is written before."""
    u = np.ones(3)
    for i in range(3):
        u[i] = x * (i + 1)
    t = a if c > 0.0 else u
    return np.sum(t * u)


def slice_copy_written(x, a):
    """A copied slice may be written freely."""
    v = a[1:].copy()
    v[0] = x * x
    return np.sum(v) + np.sum(a)


def rebound_after_view(x, a):
    """c = c + x makes a new array, so the earlier view keeps its values, as in NumPy."""
    c = a * 1.0
    v = c[:2]
    c = c + x
    return np.sum(v * c[:2])


def integer_array_pick_written(x, a):
    """a[[0, 2]] and a[np.array([0, 2])] copy what they pick (advanced indexing), so writes into them are free."""
    u = a[np.array([0, 2])]
    u[1] = x * a[1]
    u += a[1:]
    w = a[[1, 1]]
    w[0] = x
    return np.sum(u * u) + np.sum(w * a[:2])


def mask_pick_written(x, a):
    """a[mask] is a copy too; the write into it leaves a alone."""
    u = a[a > 0.0]
    u[0] = 2.0 * x * u[0]
    return np.sum(u**2) + np.sum(a)


def mixed_pick_of_rows_written(x, a):
    """B[[0, 2], :] mixes a list index with a slice: still advanced indexing, still a copy."""
    B = np.outer(a, a) * x
    rows = B[[0, 2], :]
    rows[0, 1] = x * 3.0
    return np.sum(rows * B[1:, :]) + np.sum(B)


def augassign_in_loop_then_rebound(x, a):
    """p += a runs on a fresh array; p = a comes only after the loop, so it never reaches the +=."""
    p = a * x
    for _ in range(2):
        p += a
    total = np.sum(p * p)
    p = a
    return total + np.sum(p)


def augassign_on_float_alias_in_branch(x, a, c):
    """q = p aliases a float; the only array p ever holds is what p *= makes."""
    p = x
    q = p
    if c > 0.0:
        p *= np.min(a)
    return p + q


def conditional_expression_does_not_alias_the_other_arm(x, a):
    """u may be t or a, but a is never t: t *= changes nothing a refers to."""
    t = a * x
    u = t if x > 0.0 else a
    t *= 2.0
    return np.sum(t + a)


def augassign_on_a_float_slot_next_to_arrays(x, a):
    """p holds math.asinh(...) where p += runs, a float: nothing is changed in place, t keeps its value."""
    u = a * x
    p = x
    for i in range(3):
        u[i] = a[i] * p
        p = p
    p = math.asinh(np.sum(u))
    t = p
    p += math.cos(t) * u[-1]
    return t + p


def jacobi_steps(x, a):
    """A fresh array every iteration, filled by an inner loop, then bound to the name the next iteration
    reads (a Jacobi or explicit stencil step): refused before as "writing into an array that another name (u)
    still refers to", though u holds the previous iteration's array."""
    u = np.zeros(3)
    for it in range(3):
        un = np.zeros(3)
        for i in range(3):
            left = u[i - 1] if i > 0 else 0.0
            un[i] = 0.5 * left * x + a[i]
        u = un
    return np.sum(u * u)


def empty_like_filled(x, a):
    """np.empty_like, then filled (it raised AttributeError inside adcompiler: it had no record)."""
    out = np.empty_like(a)
    out[0] = a[0] * x
    for i in range(1, 3):
        out[i] = out[i - 1] * a[i]
    return np.sum(out)
