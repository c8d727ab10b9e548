"""checkpoint= and where the loop is (tests/test_checkpoint_reach.py)."""

import math


def iterate(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) + 0.5 * x
    return s


def calls_the_loop(x, n):
    return iterate(x, n) * 2.0


def calls_a_caller(x, n):
    return calls_the_loop(x, n) + x


def has_its_own_loop(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) + 0.5 * x
    return s * 2.0
