"""Programs whose adjoints read list elements again instead of taping them, hoisting the reads
that a loop's iterations share (tests/test_rereads.py).  Several read a row only on some paths:
hoisting such a read where the primal never made it would raise IndexError."""

import math

import numpy as np


def ragged_counts(rows, v, counts):
    """Row i is read only when counts[i] > 0; rows is shorter than counts."""
    s = 0.0
    for i in range(len(counts)):
        for j in range(counts[i]):
            s = s + rows[i][j] * v[j]
    return s


def guarded_rows(rows, v):
    """Row i is read only under a branch; rows is shorter than v."""
    s = 0.0
    for i in range(len(v)):
        for j in range(len(v)):
            if i < len(rows):
                s = s + rows[i][j] * v[j] * v[i]
    return s


def breaking_rows(rows, v, stop):
    """The inner loop breaks before it reads the row once j reaches stop."""
    s = 0.0
    for i in range(len(rows)):
        for j in range(len(v)):
            if j >= stop:
                break
            s = s + rows[i][j] * v[j]
    return s


def continuing_rows(rows, v, limit):
    """An iteration skips the row read when v[j] > limit."""
    s = 0.0
    for i in range(len(v)):
        for j in range(len(v)):
            if v[j] > limit:
                continue
            s = s + rows[i][j] * v[j]
    return s


def nested_three(cube, v):
    """cube[i][j][k] with reads shared across two inner loops."""
    s = 0.0
    for i in range(len(cube)):
        for j in range(len(cube[i])):
            for k in range(len(v)):
                s = s + cube[i][j][k] * v[k] * v[k]
    return s


def layered(layers, x):
    """A small tanh network on lists: w and b read from layers[l] in the inner loops."""
    h = list(x)
    for l in range(len(layers)):
        w = layers[l][0]
        b = layers[l][1]
        out = []
        for i in range(len(w)):
            s = b[i]
            for j in range(len(h)):
                s = s + w[i][j] * h[j]
            out.append(math.tanh(s))
        h = out
    total = 0.0
    for hi in h:
        total = total + hi * hi
    return total


def recurrence(x, n):
    """A list that grows while it is read: h[i] stays where it is (read again), h[i + 1] is taped."""
    h = [x, 0.5 * x]
    for i in range(n):
        h.append(math.sin(h[i]) * h[i + 1])
    return h[-1] * h[n]


def last_while_growing(x, n):
    """h[-1] moves as h grows: it must be taped, not read again."""
    h = [x]
    s = 0.0
    for i in range(n):
        v = h[-1]
        s = s + v * v
        h.append(math.cos(v) + x)
    return s


def read_then_pop(x, n):
    """Elements read in a loop, and the list popped afterwards: they are taped."""
    h = [x, 2.0 * x]
    s = 0.0
    for i in range(n):
        s = s + h[i] * h[i]
        h.append(s * 0.5)
    h.pop()
    return s + h[-1]


def read_then_store(x, n):
    """Elements read in a loop, and the list stored into afterwards: they are taped."""
    h = [x, x * x]
    s = 0.0
    for i in range(n):
        s = s + math.sin(h[i])
        h.append(s)
    h[0] = 3.0 * x
    return s * h[0]


def countdown_reads(x, n):
    """A grown list read by a loop counting down (its index is not known to be >= 0)."""
    h = [x]
    for i in range(n):
        h.append(math.sin(h[i]) + x)
    s = 0.0
    for k in range(n, -1, -1):
        s = s * 0.5 + h[k] * h[k]
    return s


def rebound_in_while(rows, x):
    """The layer's input list rebound by a while loop, read by a for loop inside it."""
    h = list(x)
    k = 0
    while k < len(rows):
        out = []
        for i in range(len(h)):
            out.append(h[i] * rows[k][i] + math.sin(h[i]))
        h = out
        k = k + 1
    return sum(h)


def swapped_lists(x, n):
    """Two growing lists that swap names every iteration; both are read in an inner loop."""
    a = [x]
    b = [2.0 * x]
    s = 0.0
    for i in range(n):
        for j in range(len(a)):
            s = s + a[j] * b[0] * 0.5
        a, b = b, a
        a.append(math.sin(s))
    return s


MASS, STIFF, STEP = 2.0, 0.5, 0.05


def springs(state, damping):
    """Module numbers and a parameter outside the loop, combined in the loop: computed again, not taped."""
    total = 0.0
    for k in range(len(state)):
        x = state[k][0]
        v = state[k][1]
        for step in range(20):
            a = (1.0 / MASS) * (-STIFF * x - damping * math.sin(v))
            x = x + STEP * v
            v = v + STEP * a * (damping * 2.0)
        total = total + x * v
    return total


def _weighted_squares(xs, w):
    s = 0.0
    for j in range(len(xs)):
        s = s + xs[j] * xs[j] * w
    return s


def writes_after_a_call(a, w):
    """The callee reads xs; its caller writes into xs after the call (needing no old value itself)."""
    xs = [a, 2.0 * a, 3.0]
    y = _weighted_squares(xs, w)
    xs[0] = 5.0
    xs[1] = w * 7.0
    return y + xs[0] * xs[1]


def pops_after_a_call(a, w):
    """... pops from it and appends to it (its length and last element change)."""
    xs = [a, 2.0 * a, 3.0]
    y = _weighted_squares(xs, w)
    t = xs.pop()
    xs.append(w)
    return y + t * xs[2]


def _layers_of(xs, w):
    h = xs
    for _ in range(2):
        z = []
        for i in range(3):
            acc = 0.0
            for j in range(len(h)):
                acc = acc + h[j] * w * (i + 1.0)
            z.append(acc)
        h = z
    s = 0.0
    for v in h:
        s = s + v * v
    return s


def changes_a_layer_input_after_the_call(a, w):
    """A callee reading a list it rebinds (a layer's input), the caller then writing into that list."""
    xs = [a, 0.5, -a]
    y = _layers_of(xs, w)
    xs[0] = 9.0
    q = xs.pop()
    xs.append(w * 3.0)
    return y + xs[0] * xs[2] + q


def only_appends_after_a_call(a, w):
    """Only appends anywhere: the callee may read its lists again, but not their lengths."""
    xs = [a, 2.0 * a]
    y = _layers_of(xs, w)
    xs.append(w)
    return y + xs[2] * y + _weighted_squares(xs, a)


def neighbours(x, w):
    """Reads at i + 1 and i - 1 of arrays nothing writes: the indices are integer arithmetic of the loop's index,
    computed again by the adjoint sweep with the entries they read (nothing of the loop taped for them)."""
    total = 0.0
    for i in range(1, len(x) - 1):
        total = total + w[i + 1] * x[i] * x[i - 1] - w[i - 1] * np.sin(x[i + 1])
    return total
