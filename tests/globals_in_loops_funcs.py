"""Module arrays and numbers read inside loops (test_globals_in_loops.py)."""

import numpy as np

W = np.array([[0.5, -0.2], [0.1, 0.3]])
B = np.array([0.05, -0.1])
G = 9.81


def recurrent(x, n):
    for i in range(n):
        x = np.tanh(W @ x + B) * G * 0.01 + x
    return np.sum(x * x)


def nested(x, n):
    for i in range(n):
        for j in range(2):
            if x[0] > 0.0:
                x = W @ x + B
            else:
                x = W.T @ x - B
    return np.sum(np.sin(x))
