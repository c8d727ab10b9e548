"""A function of the module passed to another as an argument (an integrator's right-hand side)."""

import math


def decay(t, y):
    return -0.5 * y + math.sin(t)


def growth(t, y):
    return 0.3 * y * y


def rk4(f, y, h, n):
    t = 0.0
    for _ in range(n):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t + h
    return y


def solve(y0):
    return rk4(decay, y0, 0.1, 10) + rk4(growth, y0, 0.05, 4)


class Kernel:
    def __init__(self, scale):
        self.scale = scale

    def k(self, a, b):
        return self.scale * math.exp(-((a - b) ** 2))


K = Kernel(2.0)


def energy(xs):
    return sum(K.k(a, b) for a in xs for b in xs)
