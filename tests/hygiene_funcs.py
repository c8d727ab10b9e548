"""User functions whose names collide with what generated code uses."""

import math

d_x = 2.0  # module constants named like generated variables, read by uses_generated_constant_names
t1 = 0.5
tape = 3.0
ct = -1.0
dx = 0.25


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


def uses_generated_constant_names(x, y):
    s = 0.0
    for i in range(3):
        s = s + math.sin(x * d_x + i * t1) * y**tape
    return s * ct + x * dx


# Helpers named like the runtime helpers generated code defines, and like derivative functions.


def zeros_like(u):
    return u * 0.5


def add_into(u, v):
    return u + v


def reject_ints(u):
    return u * 3.0


def like(u):
    return u - 1.0


def argmax(u):
    return u * u


def unbroadcast(u):
    return u + 0.25


def helpers_named_like_runtime(x, xs):
    acc = [0.0] * len(xs)
    for i in range(len(xs)):
        acc[i] = zeros_like(xs[i] * x) + add_into(x, xs[i])
    return reject_ints(acc[0]) + like(max(acc)) + argmax(sum(acc)) + unbroadcast(x)


def g(u):
    return u * math.exp(-u)


def g_forward(u):
    return u * 2.0


def g_reverse(u):
    return u + 2.0


def g_reverse_sweep(u):
    return u * u


def g_u_forward_sweep(u):
    return u * 3.0


def helpers_named_like_derivatives(x, y):
    return g(x) * g_forward(x) * g_reverse(y) + g_reverse_sweep(x * y) + g_u_forward_sweep(y)


def g_forward_sweep(u, v):
    return u * v


def calls_g_and_its_sweep_names(x, y):
    t = x
    for i in range(2):
        t = g(t) + g_forward_sweep(t, y)
    return t


def recursive_tape(tape, n):
    if n <= 0:
        return tape
    return recursive_tape(math.sin(tape) * 1.1, n - 1)


def uses_recursive_tape(x, n):
    dup = recursive_tape(x, n)
    dup_1 = dup * x
    return dup_1 + dup


def power_default(x, n=3):
    return x**n + math.sin(x)
