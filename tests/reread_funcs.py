"""Programs whose adjoints read list elements again instead of taping them, hoisting the reads
that a loop's iterations share (tests/test_rereads.py).  Several read a row only on some paths:
hoisting such a read where the primal never made it would raise IndexError."""

import math


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
