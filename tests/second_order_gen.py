"""Random NumPy programs of two vectors for second derivatives (test_second_order_programs.py).

Each program makes a few vectors from ``x`` and ``y`` by elementwise functions, products, sums and
reductions, sets an entry of a copy (``t[2] = ...[0]``: the gradient then clears that entry's adjoint in place)
or updates a vector in a short loop, and returns a reduction.  Written for forward over reverse, where the
tangent of an adjoint the gradient's code clears or adds into in place must be an array of its own.
"""

from __future__ import annotations

import random

UNARY = (
    "np.sin({})",
    "np.tanh({})",
    "np.exp(0.3 * {})",
    "np.log1p({} ** 2)",
    "np.sqrt({} ** 2 + 1.0)",
    "({}) ** 2",
    "np.cumsum({})",
    "np.flip({})",
)
BINARY = ("({} + {})", "({} * {})", "({} - {})", "({} / (1.5 + {} ** 2))", "np.arctan2({}, {} + 2.0)")
REDUCTIONS = ("np.sum({})", "np.mean({})", "np.prod(np.tanh({}))", "np.linalg.norm({})", "({} @ {})")


def program(rng: random.Random, name: str) -> str:
    """The source of one function ``name(x, y)`` of two vectors of 4."""
    names = ["x", "y"]

    def expr(depth: int) -> str:
        if depth == 0 or rng.random() < 0.2:
            return rng.choice(names)
        if rng.random() < 0.45:
            return rng.choice(UNARY).format(expr(depth - 1))
        return rng.choice(BINARY).format(expr(depth - 1), expr(depth - 1))

    lines = []
    for k in range(rng.randint(2, 5)):
        t, r = f"t{k}", rng.random()
        if r < 0.35:  # an entry of a copy set
            lines.append(f"    {t} = ({expr(2)}) * 1.0")
            lines.append(f"    {t}[{rng.randrange(4)}] = ({expr(2)})[{rng.randrange(4)}]")
        elif r < 0.5:  # a vector updated in a loop
            lines.append(f"    {t} = {rng.choice(names)} * 1.0")
            lines.append("    for i in range(3):")
            lines.append(f"        {t} = {t} * 0.7 + 0.1 * np.tanh({expr(1)})")
        else:
            lines.append(f"    {t} = {expr(3)}")
        names.append(t)
    last = rng.choice(REDUCTIONS).format(expr(2), rng.choice(names))
    lines.append(f"    return {last} + np.sum({names[-1]})")
    return f"def {name}(x, y):\n" + "\n".join(lines) + "\n"


def module(sources) -> str:
    return "import numpy as np\n\n\n" + "\n\n".join(sources)
