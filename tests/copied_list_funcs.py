"""Copies of lists of arrays and numbers, and lists repeated, whose shadows must not share zeros:
tests/test_copied_list_shadows.py."""

import numpy as np


def copied(x):
    """An element of a copy read: its adjoint added into the copy's zero, then into the list's."""
    xs = []
    xs.append(x * 2.0)
    ys = list(xs)
    return np.sum(ys[0] * 3.0)


def copied_and_stacked(x):
    """A copy read, stacked and the list read again after it."""
    xs = []
    xs.append(x * 2.0)
    xs.append(np.sin(x))
    ys = list(xs)
    return np.sum(ys[0] * 3.0) + np.sum(np.stack(ys) ** 2) + np.sum(xs[1])


def repeated(x):
    """[r] * n: n elements, one array r; each element's adjoint its own."""
    ys = [x * 2.0] * 3
    return np.sum(ys[0] * 3.0) + np.sum(ys[2] * ys[1])


def copied_in_a_loop(x):
    """A list copied in each pass of a loop, read after the loop too (checkpointed: the copy is made
    again in the adjoint sweep, when the list's shadow already holds the read's adjoint)."""
    xs = [x * 2.0]
    s = 0.0
    for i in range(4):
        ys = list(xs)
        s = s + np.sum(ys[0] * 3.0 * x)
    return s + np.sum(xs[0] * xs[0])


def numbers_copied_in_a_loop(x):
    xs = [x * 2.0, x]
    s = 0.0
    for i in range(4):
        ys = list(xs)
        s = s + ys[0] * 3.0 * ys[1]
    return s + xs[0] * xs[0]


def rows_copied(x):
    """A copy of a list of lists shares its lists: an append to one seen through both."""
    rows = [[x * 2.0, x], [x * 3.0]]
    cp = list(rows)
    cp[0].append(x * 5.0)
    return rows[0][2] * cp[0][0] + cp[1][0] * rows[1][0]


def stacked_in_a_loop(x):
    """A list stacked after each append: each pass's copy has its own shadow, made by the join's adjoint."""
    s = 0.0
    xs = []
    for i in range(3):
        xs.append(np.sin(x) * (i + 1.0))
        s = s + np.sum(np.stack(xs) ** 2)
    return s + np.sum(xs[1] * x)


def joined_unread(x):
    """A join whose result nothing differentiable reads: no cotangent reaches the copy it joins."""
    xs = [x * 2.0, np.cos(x)]
    if np.sum(np.concatenate(xs)) > 100.0:
        return np.sum(xs[0])
    return np.sum(xs[1] * xs[0])


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _cell(weight, bias, hidden, cell, x):
    h = len(hidden)
    gates = np.concatenate((x, hidden, x, hidden)) * weight + bias
    forget = _sigmoid(gates[0:h])
    ingate = _sigmoid(gates[h : 2 * h])
    outgate = _sigmoid(gates[2 * h : 3 * h])
    change = np.tanh(gates[3 * h : 4 * h])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def _predict(main_params, extra_params, state, x):
    x = x * extra_params[0]
    new_state = []
    for i in range(0, len(state), 2):
        hidden, cell = _cell(main_params[i], main_params[i + 1], state[i], state[i + 1], x)
        new_state.append(hidden)
        new_state.append(cell)
        x = hidden
    return x * extra_params[1] + extra_params[2], np.stack(new_state)


def lstm(main_params, extra_params, state, sequence):
    """GradBench's lstm (benchmarks/gradbench/evals/lstm.py): the state a stack of a list each character."""
    total = 0.0
    count = 0
    for t in range(len(sequence) - 1):
        ypred, state = _predict(main_params, extra_params, state, sequence[t])
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)
        total = total + np.sum(sequence[t + 1] * ynorm)
        count += len(ynorm)
    return -total / count


def stacked_parameters(w, v):
    """Parameters appended and stacked: their cotangents the pieces of the stack's."""
    xs = []
    xs.append(w)
    xs.append(v * 2.0)
    xs.append(w)
    return np.stack(xs)


def stacked_after_a_read(x):
    """An element read before the stack: the list's shadow added into then (not the copy's pieces alone)."""
    xs = []
    for i in range(3):
        xs.append(np.sin(x) * (i + 1.0))
    y = xs[1] * x
    return np.sum(np.stack(xs) ** 2) + np.sum(y)


def appended_after_the_stack(x):
    """The list grows after its copy is stacked: the copy is not its last use."""
    xs = [x * 2.0]
    xs.append(np.cos(x))
    s = np.sum(np.stack(xs) ** 2)
    xs.append(x * x)
    return s + np.sum(xs[2] * xs[0])


def stacked_and_another(x):
    """Two outputs: a Jacobian's rows of the second give the stack no cotangent."""
    xs = []
    xs.append(np.sin(x))
    xs.append(x * 3.0)
    return np.stack(xs), np.sum(x * x)
