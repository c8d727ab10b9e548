"""NumPy functions applied to list parameters (``--mode lists``).

NumPy reads a list as the array it makes of it: ``np.square(xs)``, ``np.dot(xs, ys)``,
``np.maximum(xs, 0.5)`` of lists of floats are arrays, and a list's cotangent is still a list.  The NumPy
generator gives NumPy functions arrays; issue 32 found 53 of 180 cases of NumPy functions on list
parameters crashing in generated code.  ListNpGen writes programs whose list parameters (and sometimes an
array, a float) go straight into NumPy functions of a table (elementwise, with constants, of two lists,
reductions, products), the results combined, squashed with ``np.tanh`` before further use, read by index
too (``xs[0]``), and returned as a number, an array or a tuple.  ``ListNpGen(rng, config).program()``
gives a Spec, checked as any other program (``check``).
"""

from __future__ import annotations

import random

from .config import DEFAULT, Config, Spec
from .scalar_expr import draw_const, lit

# NumPy calls of one 1-D operand (``{a}``): a list parameter, or a 1-D array the program made
UNARY = [
    "np.square({a})",
    "np.sin({a})",
    "np.cos({a})",
    "np.exp({a})",
    "np.tanh({a})",
    "np.abs({a})",
    "np.sqrt(np.square({a}) + 1.0)",
    "np.log(np.square({a}) + 1.0)",
    "np.power({a}, 2)",
    "np.power({a}, 3)",
    "np.maximum({a}, {c})",
    "np.minimum({a}, {c})",
    "np.clip({a}, {c}, {d})",
    "np.multiply({a}, {c})",
    "np.cumsum({a})",
    "np.where(np.asarray({a}) > {c}, {a}, {d})",
    "np.asarray({a}) * {c}",
]
BINARY = [  # of two 1-D operands of one length
    "np.multiply({a}, {b})",
    "np.add({a}, {b})",
    "np.maximum({a}, {b})",
    "np.minimum({a}, {b})",
    "np.subtract({a}, {b})",
    "np.where(np.asarray({a}) > {c}, {a}, {b})",
]
REDUCE = [  # a number
    "np.sum({a})",
    "np.mean({a})",
    "np.prod({a})",
    "np.max({a})",
    "np.min({a})",
    "np.linalg.norm({a})",
    "np.dot({a}, {b})",
    "np.inner({a}, {b})",
    "np.sum(np.outer({a}, {b}))",
]


class ListNpGen:
    """Random programs passing list parameters to NumPy functions."""

    def __init__(self, rng: random.Random, config: Config = DEFAULT):
        self.rng, self.config = rng, config

    def program(self, entry: str = "f") -> Spec:
        rng = self.rng
        n = rng.randint(2, 4)
        params = [("list", "xs", n)]
        if rng.random() < 0.6:
            params.append(("list", "ys", n))
        if rng.random() < 0.3:
            params.append(("array", "a", (n,)))
        if rng.random() < 0.4:
            params.append(("float", "y"))
        vectors = [p[1] for p in params if p[0] in ("list", "array")]
        lists, given = [p[1] for p in params if p[0] == "list"], len(vectors)
        body, numbers = [], []
        for k in range(rng.randint(1, max(1, min(4, self.config.max_stmts // 2)))):
            name = f"t{k}"
            if rng.random() < 0.35:
                body.append(f"    {name} = {self._call(REDUCE, vectors, lists)}")
                numbers.append(name)
            else:
                body.append(f"    {name} = {self._call(rng.choice([UNARY, UNARY, BINARY]), vectors, lists)}")
                vectors.append(f"np.tanh({name})")  # (squashed: what reads it stays bounded)
        scale = f"{lit(draw_const(rng, -0.8, 0.8))} * {rng.choice(lists)}[{rng.randrange(n)}]"
        total = " + ".join([f"np.sum({v})" for v in vectors[given:]] + numbers + [scale])
        if any(p[0] == "float" for p in params):
            total += " * y"
        array_out = [v for v in vectors[given:]]
        outputs = 1
        if array_out and rng.random() < 0.3:
            ret = f"{array_out[-1]} * ({scale})"  # an array of the lists' length
        elif rng.random() < 0.25:
            ret, outputs = f"{total}, {self._call(REDUCE, vectors, lists)}", 2
        else:
            ret = total
        lines = ["import numpy as np", "", "", f"def {entry}({', '.join(p[1] for p in params)}):"] + body
        return Spec("\n".join(lines + [f"    return {ret}", ""]), entry, params, outputs)

    def _call(self, table: list, vectors: list, lists: list) -> str:
        """A call from ``table``, its first operand a list parameter more often than not."""
        rng = self.rng
        a = rng.choice(lists) if rng.random() < 0.7 else rng.choice(vectors)
        lo, hi = sorted((draw_const(rng, -1.0, 1.0), draw_const(rng, -1.0, 1.0)))
        return rng.choice(table).format(a=a, b=rng.choice(vectors), c=lit(lo), d=lit(hi + 0.01))
