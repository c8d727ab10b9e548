"""Programs written the way users write them (logistic regression, an RNN over a list of arrays, a
simulation whose state is a tuple of arrays, polynomial fitting, Gram-Schmidt on lists, attention,
batched einsum, branches in loops, an optimisation loop), for test_realistic.py."""

import math
import numpy as np


def logistic_loss(w, b, X, y):
    z = X @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    eps = 1e-9
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + 0.01 * np.sum(w * w)


def _cell(params, h, x):
    Wh, Wx, b = params
    return np.tanh(Wh @ h + Wx @ x + b)


def rnn(params, xs, h0):
    h = h0
    outs = []
    for x in xs:
        h = _cell(params, h, x)
        outs.append(np.sum(h))
    return sum(outs) / len(outs)


def _step(state, dt):
    pos, vel = state
    acc = -pos * np.sum(pos * pos)
    return (pos + dt * vel, vel + dt * acc)


def simulate(pos, vel, n):
    state = (pos, vel)
    for i in range(n):
        state = _step(state, 0.01)
    return np.sum(state[0] ** 2) + np.sum(state[1])


def poly_fit(coeffs, xs, ys):
    err = 0.0
    for x, y in zip(xs, ys):
        pred = 0.0
        for k, c in enumerate(coeffs):
            pred = pred + c * x**k
        err = err + (pred - y) ** 2
    return err / len(xs)


def _norm(v):
    return math.sqrt(sum([t * t for t in v]))


def gram_schmidt_len(vs):
    basis = []
    for v in vs:
        w = list(v)
        for b in basis:
            d = sum([wi * bi for wi, bi in zip(w, b)])
            w = [wi - d * bi for wi, bi in zip(w, b)]
        n = _norm(w)
        basis.append([wi / n for wi in w])
    return sum([sum(b) for b in basis])


def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    s = s - np.max(s, axis=-1, keepdims=True)
    a = np.exp(s)
    a = a / np.sum(a, axis=-1, keepdims=True)
    return np.sum((a @ V) ** 2)


def batched(W, X):
    return np.sum(np.tanh(np.einsum("ij,bj->bi", W, X)))


def piecewise(xs):
    total = 0.0
    for x in xs:
        if x > 0.5:
            total += x * x
        elif x > -0.5:
            total += math.sin(x)
        else:
            total -= x
    return total


def gd_inner(x, steps):
    y = x
    for _ in range(steps):
        y = y - 0.1 * (2.0 * y - x)
    return y * y
