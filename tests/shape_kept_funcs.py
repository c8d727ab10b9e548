"""Programs whose adjoints read arrays only for their shapes (tests/test_shape_kept.py)."""

import numpy as np


def rhs(x, y):
    """A chain of products: (x_0, x_1 y_0, x_2 y_1, ...)."""
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def rk4_last(x, s):
    """The last entry of y(1) for y' = rhs(x, y), y(0) = 0, by ``s`` classical Runge-Kutta steps."""
    h = 1.0 / s
    y = np.zeros(len(x))
    for _ in range(s):
        k1 = rhs(x, y)
        k2 = rhs(x, y + h / 2 * k1)
        k3 = rhs(x, y + h / 2 * k2)
        k4 = rhs(x, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[-1]


def broadcast_steps(w, b, s):
    """Rows of w times a vector made from b, summed down again by the adjoint: c is read for its shape."""
    y = np.zeros(w.shape)
    for _ in range(s):
        c = b * 0.5 + 1.0
        t = w * c
        y = np.tanh(y + t)
    return np.sum(y * y)


def sum_rows(w, b, s):
    """u = p + q of a (m, n) array and a (1, n) one, read by the adjoint for its shape: kept as the shape
    the arrays it is made of broadcast to."""
    y = np.zeros(w.shape)
    for _ in range(s):
        p = np.sin(w) * 2.0
        q = b * 0.5
        u = p + q
        y = np.tanh(y + u)
    return np.sum(y * y)


def cell(weight, bias, x):
    """Gates from x twice, halves through tanh and exp: the adjoint reads bias only for its shape (an
    unbroadcast sum), x only for its pieces' shapes (the join's cotangent cut up), gates only for the shape its
    slices' cotangents are added into."""
    gates = np.concatenate((x, x)) * weight + bias
    h = len(x)
    return np.tanh(gates[:h]) * np.exp(gates[h:])


def cells(weight, bias, x, s):
    """``s`` cells in a row (lstm's shape): each call's residuals taped by the loop."""
    for _ in range(s):
        x = cell(weight, bias, x)
    return np.sum(x * x)
