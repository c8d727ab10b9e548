"""Random ``prange`` loops: what their iterations may do (read shared values, write their own rows, add
into totals, run inner loops, among them loops of numbers whose adjoint needs nothing from inside them,
and branches) and what they may not (write an element two iterations may
both write, assign a shared name, multiply into a total, read another iteration's row of an array the
loop writes, stop the loop), for ``tests/test_prange.py``.

``program(rng)`` gives a module's source defining ``f(W, X, b, c)`` (returning a function of
what the loop leaves, or a part of it; the loop in a time step's loop a third of the time, the array it
reads made anew each step) and, for a loop it must refuse, the
line of the statement that breaks the rule (``None`` for a loop that must work).
"""

from __future__ import annotations

import random

_HEAD = """import math

import numpy as np

from adcompiler import prange


def f(W, X, b, c):
    n = X.shape[0]
    y = np.zeros((n, 3))
    z = np.ones(n)
    s = 0.0
    for i in prange(n):
        h = np.tanh(W @ X[i] + b)
        a = np.sum(h * h) * c
"""

_GOOD = (  # statements of an iteration (h: a vector of 3, a: a number, both the iteration's own)
    "y[i] = h * a",
    "y[i, 0] = a + X[i, 1]",
    "y[i, :] = h - b",
    "z[i] = a * X[i, 0]",
    "z[i] += a * a",
    "s += a * c",
    "s -= np.sum(h) * 0.5",
    "a = a + X[(i + 1) % n, 0] * c",
    "h = h * np.exp(-a)",
    "for j in range(3):\n            s += h[j] * X[i, j % X.shape[1]]",
    "for j in range(2):\n            h = np.sin(h) + a * 0.1",
    "if a > 0.5:\n            s += a\n        else:\n            z[i] = math.cos(a)",
    "if h[0] > 0.3:\n            a = a * 2.0",
    "q = np.zeros(3)\n        for j in range(3):\n            q[j] = h[j] * a\n        s += np.sum(np.sin(q))",
    "q = np.ones(2)\n        q[1] = a * X[i, 0]\n        a = a + np.prod(q)",
    "for j in range(4):\n            a = a * 0.9 + X[i, j % X.shape[1]] * c",
    "t = 0.0\n        for j in range(3):\n            t += math.sin(a + j * c)\n        a = a + t",
)

_BAD = (  # one that breaks the rules
    "y[(i + 1) % n] = h",
    "z[0] += a",
    "s = a",
    "s *= 1.1",
    "z[i] = z[(i + 1) % n] + a",
    "if a > 2.0:\n            break",
)

_TAILS = (  # what the function returns: the adjoint reads what the loop leaves, or only some of it, or none
    "    return np.sum(y * y) + np.sum(z) * c + s\n",
    "    return np.sum(y) + s * 2.0\n",
    "    return s\n",
)


_SPELLINGS = (  # how the module names prange (one import line each): its name, an alias, the package's attribute
    ("from adcompiler import prange", "prange("),
    ("from adcompiler import prange as pr", "pr("),
    ("import adcompiler", "adcompiler.prange("),
    ("import adcompiler as adc", "adc.prange("),
)


def program(rng: random.Random, bad: bool = False) -> tuple:
    """(source, line): a module defining ``f`` with one ``prange`` loop of random statements, ``prange``
    spelt one of the ways users import it; ``line`` the statement's that must be refused (``bad``), else None."""
    source, line = _program(rng, bad)
    imported, called = rng.choice(_SPELLINGS)
    source = source.replace("from adcompiler import prange", imported).replace("in prange(", "in " + called)
    return source, line


def _program(rng: random.Random, bad: bool) -> tuple:
    stmts = [rng.choice(_GOOD) for _ in range(rng.randint(2, 5))]
    line = None
    if bad:
        k = rng.randint(0, len(stmts))
        stmts.insert(k, rng.choice(_BAD))
        line = _HEAD.count("\n") + 1 + sum(s.count("\n") + 1 for s in stmts[:k])
        if stmts[k].startswith("if "):
            line += 1  # (break: its own line)
    if not bad and rng.random() < 0.35:  # the loop in a time step's loop, reading an array each step makes anew
        head = _HEAD.replace(
            "    for i in prange(n):\n",
            "    for step in range(2):\n        u = np.zeros(n)\n        for i in prange(n):\n",
        )
        head = head.replace("        h = np.tanh", "            h = np.tanh").replace(
            "        a = np.sum", "            a = np.sum"
        )
        body = "".join("            " + s.replace("\n        ", "\n            ") + "\n" for s in stmts)
        body += "            u[i] = a * X[i, 0]\n"  # (a fresh array each step, written by rows, read after)
        return head + body + "        X = np.sin(X) + 0.5 * X + u[:, None] * 0.1\n" + rng.choice(_TAILS), None
    body = "".join(f"        {s}\n" for s in stmts)
    return _HEAD + body + rng.choice(_TAILS), line


def inputs(rng: random.Random, n: int = 7) -> tuple:
    """Arguments of a generated ``f``: W (3 x 2), X (n x 2), b (3,), c."""
    import numpy as np

    g = np.random.default_rng(rng.randrange(2**32))
    return g.standard_normal((3, 2)) * 0.5, g.standard_normal((n, 2)), g.standard_normal(3) * 0.5, 0.7
