"""Functions calling small helpers that lower/inline_calls.py writes in place, or must not
(tests/test_inline_calls.py)."""

import math

import numpy as np

x = 10.0


def relu(v):
    if v >= 0.0:
        return v
    return 0.0


def clipped_twice(v):
    """Assigns its parameter: a variable of its own in the caller, starting as the argument."""
    if v > 1.0:
        v = 1.0 + math.tanh(v - 1.0)
    return 2.0 * v


def layer(ws, a):
    s = 0.0
    for w in ws:
        s = s + relu(w * a) + clipped_twice(w - a)
    return s


def scaled_by_module_x(t):
    return t * x


def shadows_the_module_name(y):
    """The caller's own x is not the helper's (the module's) x: the helper stays a call."""
    x = y * y
    return scaled_by_module_x(y) + x


def reads_a_list(ws, i):
    return ws[i] * ws[i]


def keeps_list_helpers_as_calls(ws):
    return reads_a_list(ws, 0) + reads_a_list(ws, 1)


def countdown(v, n):
    if n <= 0:
        return v
    return countdown(math.sin(v), n - 1)


def calls_recursion(v):
    return countdown(v, 3) * relu(v)


def argument_twice(a):
    """The same variable for both parameters, one of which the helper assigns."""
    return _mix(a, a)


def _mix(p, q):
    if p > 0.5:
        p = p * q
    return p + q * q


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _head(x):
    return x[0:2] * 1.0


def _product(x, w):
    return np.dot(x, w)


def gates(x, w):
    """GradBench lstm's gates: a NumPy helper of elementwise functions on slices of an array, written in
    place; one that reads a slice, and one that calls np.dot, stay calls."""
    g = x * w
    h = len(x) // 2
    return np.sum(_sigmoid(g[0:h]) * np.tanh(g[h:])) + np.sum(_head(g) * _product(x, w))


def cell_step(weight, bias, hidden, cell, x):
    """A recurrent cell (lstm's, smaller): slices of one array of gates, a tuple of two arrays returned."""
    h = len(hidden)
    gates = np.concatenate((x, hidden, x)) * weight + bias
    forget = 1.0 / (1.0 + np.exp(-gates[0:h]))
    change = np.tanh(gates[h : 2 * h])
    outgate = 1.0 / (1.0 + np.exp(-gates[2 * h : 3 * h]))
    cell = cell * forget + (1.0 - forget) * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def layers(params, state, x):
    """Every layer of cells on the input: a loop of its own, a list grown and stacked, a tuple returned."""
    new_state = []
    for i in range(0, len(state), 2):
        hidden, cell = cell_step(params[i], params[i + 1], state[i], state[i + 1], x)
        new_state.append(hidden)
        new_state.append(cell)
        x = hidden
    return x * params[0, 0:3] + params[1, 3:6], np.stack(new_state)


def run_layers(params, state, sequence):
    """The objective's loop over a sequence, calling ``layers`` at each step."""
    total = 0.0
    for t in range(len(sequence) - 1):
        y, state = layers(params, state, sequence[t])
        total = total + np.sum(sequence[t + 1] * y) - np.log(np.sum(np.exp(y)))
    return total


def grows_its_argument(out, v):
    out.append(v * v)
    return v * 2.0


def early_return(v):
    for k in range(3):
        if v > 10.0:
            return v
        v = v * 1.5
    return v - 1.0


def keeps_calls_that_change_or_return_early(xs):
    """A callee that changes what it is handed, and one that returns from a loop: calls, in a loop or not."""
    out = []
    total = 0.0
    for x in xs:
        total = total + grows_its_argument(out, x) + early_return(x)
    return total + sum(out) + early_return(total)


def sums_early_returns(xs):
    total = 0.0
    for i in range(len(xs)):
        total = total + early_return(xs[i]) * xs[i]
    return total
