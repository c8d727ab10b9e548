"""Deep programs (``--mode deep``): long elif chains, chains of conditional expressions and of ``and``
tests, and loop nests up to Python's limit of twenty blocks, alone or inside one another.

The other generators write a few statements nested a few levels; issue 32 found what only depth shows:
an elif chain of about 95 branches (or a 100-way conditional expression) whose generated code Python
refused (each link one level deeper), and building time that doubled with each level of a loop nest.
DeepGen writes such code with random bodies: every branch and loop level updates the values with
smooth, bounded arithmetic of the float parameters (``math.sin``, ``math.tanh``, products with
constants below 1), branch tests on the parameters at thresholds spread over their range (so every
branch is reached, and points near a threshold are skipped as kinks), loops of one or two iterations
(the nest runs a few dozen times at most).  ``DeepGen(rng, config).program()`` gives a Spec, checked
as any other program (``check``).
"""

from __future__ import annotations

import random

from .config import DEFAULT, PARAM_BOUND, Config, Spec
from .scalar_expr import draw_const, lit

MAX_BRANCHES = 150  # elif chains and conditional expressions: up to this many (past the 95 Python nested)
MAX_LOOPS = 20  # Python refuses more nested blocks ("too many statically nested blocks")


class DeepGen:
    """Random deep programs of float parameters x, y (and sometimes z)."""

    def __init__(self, rng: random.Random, config: Config = DEFAULT):
        self.rng, self.config = rng, config
        self.branches = MAX_BRANCHES if config.max_stmts > 8 else 40  # (the CI configuration: smaller)

    def program(self, entry: str = "f") -> Spec:
        rng = self.rng
        params = ["x", "y", "z"][: rng.randint(2, 3)]
        kind = rng.choice(["elif", "ifexp", "ifexp_body", "and", "loops", "loops_elif"])
        lines = ["import math", "", "", f"def {entry}({', '.join(params)}):", "    s = 0.25 * y", "    t = 0.5"]
        lines += getattr(self, "_" + kind)(params, "    ")
        outputs = 2 if rng.random() < 0.25 else 1
        ret = f"s + {lit(draw_const(rng, -0.5, 0.5))} * t * x" if outputs == 1 else f"s * x, t + {self._term(params)}"
        lines += [f"    return {ret}", ""]
        return Spec("\n".join(lines), entry, [("float", p) for p in params], outputs)

    # ---------------------------------------------------------------- pieces

    def _term(self, params) -> str:
        """A smooth, bounded term of the parameters (|value| <= 1.5 or so)."""
        rng = self.rng
        p, q = rng.choice(params), rng.choice(params)
        c = lit(draw_const(rng, -0.9, 0.9))
        return rng.choice(
            [
                f"{c} * {p}",
                f"math.sin({c} * {p} + {q})",
                f"math.tanh({p} * {q})",
                f"{c} * {p} * {q}",
                f"math.cos({p}) * {c}",
            ]
        )

    def _update(self, params, indent: str) -> list:
        """One or two lines updating s (and t), contractive: s stays bounded however often they run."""
        rng = self.rng
        c = lit(round(rng.uniform(0.3, 0.9), 2))
        lines = [f"{indent}s = {c} * s + {self._term(params)}"]
        if rng.random() < 0.4:
            lines.append(f"{indent}t = 0.5 * t + 0.25 * math.tanh(s)")
        return lines

    def _thresholds(self, n: int) -> list:
        """n increasing thresholds spread over the parameters' range (every branch reachable)."""
        lo, hi = -PARAM_BOUND, PARAM_BOUND
        return [round(lo + (hi - lo) * (k + 1) / (n + 1), 4) for k in range(n)]

    def _chain_length(self) -> int:
        rng = self.rng
        return rng.randint(18, self.branches) if rng.random() < 0.6 else rng.randint(2, 30)

    # ---------------------------------------------------------------- kinds

    def _elif(self, params, indent: str) -> list:
        """``if p < t1: ... elif p < t2: ... else: ...``, sometimes with more than one line per branch."""
        rng = self.rng
        p = rng.choice(params)
        lines = []
        for k, t in enumerate(self._thresholds(self._chain_length())):
            lines.append(f"{indent}{'if' if k == 0 else 'elif'} {p} < {t}:")
            lines += self._update(params, indent + "    ")
        lines.append(f"{indent}else:")
        lines += self._update(params, indent + "    ")
        return lines

    def _ifexp(self, params, indent: str) -> list:
        """``s = a if p < t1 else b if p < t2 else ...``: a chain through the else position."""
        p = self.rng.choice(params)
        expr = self._term(params)
        for t in reversed(self._thresholds(self._chain_length())):
            expr = f"{self._term(params)} if {p} < {t} else {expr}"
        return [f"{indent}s = s + ({expr})"]

    def _ifexp_body(self, params, indent: str) -> list:
        """``((a if p > t1 else b) if p > t2 else c) ...``: a chain through the body position."""
        p = self.rng.choice(params)
        expr = self._term(params)
        for t in self._thresholds(min(self._chain_length(), 150))[::-1]:  # (Python: 200 nested parentheses)
            expr = f"({expr} if {p} < {t} else {self._term(params)})"
        return [f"{indent}s = s + {expr}"]

    def _and(self, params, indent: str) -> list:
        """``if p > t1 and q < t2 and ...:`` and its else (short-circuit tests: nested ifs)."""
        rng = self.rng
        n = min(self._chain_length(), 120)
        tests = [
            f"{rng.choice(params)} {rng.choice(['<', '>'])} {lit(round(rng.uniform(-1.6, 1.6), 3))}" for _ in range(n)
        ]
        joiner = " and " if rng.random() < 0.6 else " or "
        lines = [f"{indent}if {joiner.join(tests)}:"] + self._update(params, indent + "    ")
        return lines + [f"{indent}else:"] + self._update(params, indent + "    ")

    def _loops(self, params, indent: str, inner=None) -> list:
        """A nest of for and while loops, each level updating s before going in; at most six levels run
        twice (the nest runs at most 64 times)."""
        rng = self.rng
        depth = rng.randint(2, MAX_LOOPS - (1 if inner else 0))
        twice = set(rng.sample(range(depth), min(depth, rng.randint(0, 6))))
        lines = []
        for k in range(depth):
            lines += self._update(params, indent) if rng.random() < 0.7 else []
            trips = 2 if k in twice else 1
            if rng.random() < 0.6:
                lines.append(f"{indent}for i{k} in range({trips}):")
            else:
                lines += [f"{indent}j{k} = 0", f"{indent}while j{k} < {trips}:", f"{indent}    j{k} += 1"]
            indent += "    "
        lines += inner(params, indent) if inner else self._update(params, indent)
        return lines

    def _loops_elif(self, params, indent: str) -> list:
        """A loop nest whose innermost body is an elif chain (or a chain of conditional expressions)."""
        return self._loops(params, indent, inner=self.rng.choice([self._elif, self._ifexp]))
