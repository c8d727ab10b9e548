"""prange loops inside a time step's loop (tests/test_prange.py): what they read differs from step to step."""

import numpy as np

from adcompiler import prange


def squares_each_step(u0):
    u = u0
    for t in range(2):
        un = np.zeros(u.shape[0])
        for i in prange(u.shape[0]):
            un[i] = u[i] * u[i]
        u = un
    return np.sum(u)


def updated_in_place(x):
    y = np.zeros(x.shape[0])
    for t in range(2):
        for i in prange(x.shape[0]):
            y[i] = y[i] * x[i] + x[i]
    return np.sum(y)


def a_number_each_step(x, a):
    y = np.zeros(x.shape[0])
    tot = 0.0
    for t in range(3):
        a = a * 1.5
        for i in prange(x.shape[0]):
            y[i] = a * x[i] * x[i]
        tot += np.sum(y)
    return tot


def own_vector_each_iteration(X0):
    X = X0
    for t in range(2):
        Y = np.zeros(X.shape)
        for i in prange(X.shape[0]):
            f = np.zeros(2)  # the iteration's own, in every step
            for j in range(X.shape[0]):
                f = f + X[j] * X[i, 0]
            Y[i] = f
        X = Y
    return np.sum(X)
