"""User functions whose names collide with what generated code uses."""

import math


def clash_generated(x, tape, ct, residuals):
    d_x = x * tape
    dx = d_x + ct * residuals
    zeros_like = math.sin(dx)
    unbroadcast = zeros_like * x
    reject_ints = unbroadcast + 1.0
    return reject_ints * d_x


def clash_loop(x, n):
    tape = 0.0
    k = x
    for i in range(n):
        n_i = tape + k
        tape = n_i * 0.5 + math.cos(k)
        k = k * 1.1
    return tape + k


def clash_builtins(x, y):
    range_ = x * y
    len_ = range_ + x
    sum_ = len_ * len_
    return sum_ - y


def nan_through(x):
    return x * 2.0 + math.sin(x) + abs(x)


def pair(x, y):
    return x * y, x + y
