"""Programs for tests/test_rebound_params.py: functions that assign a parameter in a loop or a
branch (or use it as a loop variable), where the value it ends with differs in shape, length or
type from the argument."""

import math

import numpy as np


def loop_rebind(x, w):
    for i in range(3):
        x = x * w
    return np.sum(x)


def helper_rebind(x, w):
    for i in range(2):
        x = x * w + 1.0
    return x


def calls_helper(x, w):
    y = helper_rebind(x, w)
    return np.sum(y * y)


def while_rebind(x, w):
    k = 0
    while k < 2:
        x = np.sin(x) * w
        k = k + 1
    return np.sum(x)


def branch_rebind(x, w, c):
    if c > 0.0:
        x = x * w
    return np.sum(x)


def list_rebind(xs, a):
    for i in range(2):
        xs = xs + [a * xs[0]]
    s = 0.0
    for v in xs:
        s = s + v * v
    return s


def float_rebind(x, y):
    for i in range(3):
        x = x * y
    return x


def list_jac(xs, a):
    for i in range(2):
        xs = xs + [a * xs[0]]
    return (xs[0] * a, xs[-1])


def loop_variable_param(x, xs):
    s = 0.0
    for x in xs:
        s = s + x * x
    return s + x


def scalar_rebind_twice(x, y):
    k = 0
    while k < 3:
        x = x * y + math.sin(x)
        k = k + 1
    if x > 0.0:
        x = x * x
    return x + y
