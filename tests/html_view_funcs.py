"""Functions for tests/test_html_view.py: a callee in a file of its own (its derivative is a function
of its own too, since it has a loop), so that a page shows two user files."""

import math


def powers(a, b):
    total = 0.0
    for k in range(3):
        total = total + a**k * math.sin(b)
    return total
