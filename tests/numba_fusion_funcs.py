"""Programs whose joins have elementwise pieces (tests/test_numba_fusion.py): the Numba target writes each such
join as loops that store the pieces' elements into the joined array (targets/numba/joined_loops.py)."""

import numpy as np

from shape_kept_funcs import rhs, rk4_last  # noqa: F401  (GradBench ode: its right-hand side and RK4 steps)


def pieces(a, b, c):
    """Three arithmetic pieces of different lengths, numbers (int and float) among them, and a negation."""
    z = np.concatenate((a[:2] * 2.0 - b[1:3], -c, a / (1 + b * b), 0.5 * c))
    return np.sum(z * z)


def pieces_tuple_names(a, b, s):
    """A tuple of a name and arithmetic with a number variable, its vectors of one length; kept for the adjoint
    (the product with z)."""
    w = a * s
    z = np.concatenate((b, w - b * s))
    return np.sum(z * np.concatenate((a, a))) + np.sum(np.hstack([a * b, a]) ** 2)


def broadcast_piece(x, y):
    """An arithmetic piece whose vectors differ in length (one element against many, NumPy's broadcasting):
    the join as it was."""
    z = np.concatenate((x, x[:1] * y))
    return np.sum(z * z)


def written_after(a, b):
    """The joined array written in place after the join (a store and an add into a part), then read."""
    z = np.concatenate((a * b, b - a))
    z[0] = 3.0 * z[1]
    z[1:3] += a[:2]
    return np.sum(z * z) + z[-1]


def taped_and_used(a, b, n):
    """In a loop: a piece's vector is kept for the adjoint and read again after the join; the joined array
    feeds the next iteration, and a view of the old one is read after it is joined anew."""
    z = a
    total = 0.0
    for _ in range(n):
        p = z[1:] * b[:-1]
        old = z[:1]
        z = np.concatenate((old * 0.5, p + b[1:]))
        total = total + np.sum(p * z[1:]) + old[0]
    return total + np.sum(z)


def reads_its_target(y, n):
    """The joined name is read by its own pieces (a rotation), two arithmetic pieces of different lengths."""
    for _ in range(n):
        y = np.concatenate((y[1:] * 0.5, y[:1] * 2.0))
    return np.sum(y * y)


def integers_joined(x, idx):
    """A piece of integers (not a float64 vector): left as it was."""
    z = np.concatenate((x * 2.0, idx * 3))
    return np.sum(z * z)


def matrix_rows(m, v):
    """Pieces of matrices: left as they were."""
    z = np.concatenate((m * 2.0, m - v))
    return np.sum(z * z)


def divided(a, b):
    """A piece dividing by a vector's elements, and a number by them: by zero, NumPy's infinities and NaNs,
    no ZeroDivisionError."""
    z = np.concatenate((a / b, 2.0 / b - a, a))
    return np.sum(z)


def stage_kept(y, k, x, h, n):
    """An RK4 stage's argument sliced, kept (read again after the join), joined as a product, in a loop (whose
    tape keeps the argument's sum as the shape of its operands, so that the sum folds into the slice): its
    elements are computed in the join's loop and stored into it as they are read."""
    total = 0.0
    for _ in range(n):
        t = (y + h * k)[:-1]
        z = np.concatenate((x[:1], x[1:] * t))
        total = total + np.sum(z * z) + np.sum(t * t)
        k = 0.5 * z
    return total


def stage_unsliced(y, k, x, h, n):
    """The same, the argument not sliced; another piece reads the join's other vectors."""
    total = 0.0
    for _ in range(n):
        t = y - h * k
        z = np.concatenate((x, t * x, 2.0 * x))
        total = total + np.sum(z * z) + np.sum(t * y)
        k = z[: len(k)]
    return total


def random_expr(rng, names, depth, leaf):
    """Seeded elementwise arithmetic of ``names``, the number ``s`` and constants, ``depth`` deep (a leaf with
    probability ``leaf`` at each level), divisions by ``1.5 + r * r``: the random programs' expressions
    (tests/test_numba_fusion.py, tests/test_numba_element_runs.py)."""
    if depth == 0 or rng.random() < leaf:
        pick = int(rng.integers(0, len(names) + 2))
        return names[pick] if pick < len(names) else ("s" if pick == len(names) else f"{rng.integers(1, 4)}.5")
    op = rng.choice(["+", "-", "*", "/", "neg"])
    if op == "neg":
        return f"-({random_expr(rng, names, depth - 1, leaf)})"
    left, right = random_expr(rng, names, depth - 1, leaf), random_expr(rng, names, depth - 1, leaf)
    if op == "/":
        right = f"(1.5 + {right} * {right})"
    return f"({left} {op} {right})"


def accumulated_squares(x):
    """A loop-carried number added at each element: ``d_x[i] += ...`` at the loop's counter."""
    s = 0.0
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * x[i]
        s += acc
    return s


def element_quotients(x, c):
    """Elements divided by a number in a loop (by zero: NumPy's infinity)."""
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] / c
    return s
