"""Programs over lists and tuples of NumPy arrays for test_array_lists.py (a network's layers)."""

import numpy as np


def forward(layers, x):
    h = x
    for l in range(len(layers)):
        W = layers[l][0]
        b = layers[l][1]
        h = np.maximum(np.dot(W, h) + b, 0.0)
    m = np.maximum(np.max(h), 0.0)
    e = np.exp(h - m)
    return e / np.sum(e)


def network(layers, x):
    out = forward(layers, x)
    return np.sum(np.arange(1.0, out.shape[0] + 1.0) * out)


def summed(pair, x):
    """The same adjoint reaches two elements (t = a + b): each its own array."""
    a = pair[0]
    b = pair[1]
    t = a + b
    return np.sum(t * x)


def read_often(pair, x):
    """One element read in every iteration: its adjoint added up, the first one stored."""
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.outer(pair[0], x) * (i + 1.0))
    return s


def scaled(a, x):
    """A number times an array, summed: a's cotangent a sum over x's shape."""
    return np.sum(a * x)


def product_pair(W, v):
    return np.dot(W, v), np.sum(v)


def first_of_pair(W, v):
    """The product's cotangent an array: W's the outer product g[:, None] * v."""
    p, s = product_pair(W, v)
    return np.sum(p * p) + s


def second_of_pair(W, v):
    """The product unused: its cotangent in the callee the number 0.0 (np.outer keeps it right)."""
    p, s = product_pair(W, v)
    return s * 2.0


def matmul_network(W, v):
    return np.sum(np.tanh(W @ v))
