"""Scalar expressions and conditions: ExprGen, the bottom layer of the program generators.

The generators are classes stacked in layers, one module each, every layer a subclass of the one
below: ExprGen (this module: names, lines, bounds and squashing, float expressions, conditions,
helper calls), ListGen (scalar_lists), StmtGen (scalar_stmt), RebindGen (scalar_rebind), Gen
(scalar_program: scalar programs), then NpExprGen (numpy_expr), NpShapeGen (numpy_shape), NpStmtGen
(numpy_stmt), NpRebindGen (numpy_rebind), NpGen (numpy_program: NumPy programs). A generator is one object: its methods call one another through self whatever
layer they are in, and the NumPy layers override scalar methods (leaf, stmt, loop_env, ...) to add
arrays.
"""

from __future__ import annotations

import itertools
import math
import random

from .config import DEFAULT, HELPER_BOUND, KNOWN_BUGS, SQUASH_AT, Config
from .scope import Env, Helper


def draw_const(rng, lo=-1.0, hi=1.0):
    """A random constant in [lo, hi] rounded to 2 places (0.5 where that is 0.0)."""
    v = round(rng.uniform(lo, hi), 2)
    return v if v != 0.0 else 0.5


def lit(v) -> str:
    """v as a float literal, in parentheses if negative."""
    s = repr(float(v))
    return f"({s})" if s.startswith("-") else s


class ExprGen:
    """The bottom layer: names, lines, bounds and squashing; float expressions, conditions, helper calls."""

    def __init__(self, rng: random.Random, config: Config = DEFAULT):
        self.rng = rng
        self.config = config
        self.counter = itertools.count()
        self.lines: list[str] = []
        self.indent = 1
        self.helpers: list[Helper] = []
        self.outputs = 1
        self.out_bound = 0.0
        self.passed_list: str | None = None  # the list the last helper call was given (or is to be given)

    # ---------------------------------------------------------------- names, lines

    def new_env(self) -> Env:
        """A fresh scope (NpGen's also tracks arrays)."""
        return Env()

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def avoiding(self, bug: str) -> bool:
        """Does the generator step around this open adcompiler bug (see KNOWN_BUGS)?"""
        return self.config.avoid_known and bug in KNOWN_BUGS

    # ---------------------------------------------------------------- expressions

    def squash(self, src: str, b: float, cap: float = SQUASH_AT, fns=None) -> tuple[str, float]:
        """An expression with the sign behaviour of src and bound <= cap (``fns``: the tanh, sin, atan
        and abs to spell, math's by default, NumPy's for arrays)."""
        tanh, sin, atan, abs_ = fns or ("math.tanh", "math.sin", "math.atan", "abs")
        if b <= cap:
            return src, b
        r = self.rng.random()
        if r < 0.4:
            return f"{tanh}({src})", 1.0
        if r < 0.6:
            return f"{sin}({src})", 1.0
        if r < 0.75:
            return f"{atan}({src})", 1.6
        if r < 0.9 and b < 10 * cap:
            f = cap / b
            k = 0.5 if f >= 0.5 else 0.1 if f >= 0.1 else 0.01
            if b * k <= cap:
                return f"{k} * ({src})", b * k
        if len(src) > 40:  # never duplicate long expressions: sizes would grow exponentially
            return f"{tanh}({src})", 1.0
        return f"({src}) / (1.0 + {abs_}({src}))", 1.0

    def fit(self, src: str, b: float, cap: float, arrays: bool = False) -> tuple[str, float]:
        """Make the bound at most cap (for loop-carried and helper arguments; elementwise for arrays)."""
        if b <= cap:
            return src, b
        tanh = self.f("tanh") if arrays else "math.tanh"
        if self.chance(0.5):
            return f"{lit(cap)} * {tanh}({src})", cap
        s, sb = self.asquash(src, b, cap) if arrays else self.squash(src, b, cap)
        if sb <= cap:
            return s, sb
        return f"{lit(cap)} * {tanh}({src})", cap

    def leaf(self, env: Env) -> tuple[str, float]:
        rng = self.rng
        opts = []
        if env.floats:
            opts += ["float"] * 6
        if env.idx or env.ints:
            opts += ["int"]
        if self.readable_lists(env):
            opts += ["list"] * 2
        opts += ["const"]
        kind = rng.choice(opts)
        if kind == "float":
            names = list(env.floats)  # in definition order: prefer recent ones
            name = names[-1 - min(int(rng.expovariate(0.5)), len(names) - 1)]
            return name, env.floats[name]
        if kind == "int":
            names = sorted(set(env.idx) | set(env.ints))
            name = rng.choice(names)
            hi = env.idx[name].hi if name in env.idx else env.ints[name]
            if hi > 4 or self.chance(0.5):
                return f"0.1 * {name}", 0.1 * max(hi, 1)
            return name, float(max(hi, 1))
        if kind == "list":
            return self.list_read(env)
        return lit(draw_const(rng, -2.0, 2.0)), 2.0

    def expr(self, env: Env, depth: int) -> tuple[str, float]:
        src, b = self._expr(env, depth)
        return self.squash(src, b)

    def _expr(self, env: Env, depth: int) -> tuple[str, float]:
        rng = self.rng
        if depth <= 0 or self.chance(0.2):
            return self.leaf(env)
        r = rng.random()
        sub = lambda: self.expr(env, depth - 1)  # noqa: E731
        if r < 0.30:
            (a, ba), (b, bb) = sub(), sub()
            op = rng.choice(["+", "-", "*", "*"])
            if op == "*":
                return f"{a} * {b}" if self.chance(0.5) else f"({a}) * ({b})", ba * bb
            return f"({a} {op} {b})", ba + bb
        if r < 0.38:
            (a, ba), (b, bb) = sub(), sub()
            den = rng.choice(
                [
                    (f"(1.0 + ({b}) ** 2)" if len(b) > 30 else f"(1.0 + {b} * {b})", 1.0),
                    (f"(2.0 + math.sin({b}))", 1.0),
                    (f"(1.5 + math.tanh({b}))", 0.5),
                    (f"(1.0 + abs({b}))", 1.0),
                ]
            )
            return f"({a}) / {den[0]}", ba / den[1]
        if r < 0.46:
            a, ba = sub()
            k = rng.choice([2, 2, 3, -1, -2])
            if k < 0:
                return f"(1.0 + ({a}) ** 2) ** {k}", 1.0
            a, ba = self.fit(a, ba, 2.0)
            if self.chance(0.2):
                return f"pow({a}, {k})", ba**k
            return f"({a}) ** {k}", ba**k
        if r < 0.50:
            (a, ba), (b, bb) = sub(), sub()
            b, bb = self.fit(b, bb, 2.0)
            base = rng.choice(["(1.2 + math.sin({}))", "(1.0 + ({}) ** 2)", "(0.5 + math.exp(math.tanh({})))"])
            a2, _ = self.fit(a, ba, 1.0)
            basesrc = base.format(a2)
            bound = {0: 2.2, 1: 2.0, 2: 3.3}[["(1.2", "(1.0", "(0.5"].index(base[:4])] ** bb
            if "1.0 + ({})" in base:
                bound = 2.0**bb  # (1 + a*a) <= 2 after fitting a to 1
            if self.chance(0.3):
                return f"math.pow({basesrc}, {b})", bound
            if self.chance(0.3):
                return f"{basesrc} ** 0.5", 2.0
            return f"{basesrc} ** ({b})", bound
        if r < 0.75:
            a, ba = sub()
            fn = rng.choice(
                ["sin", "cos", "tanh", "atan", "exp", "log", "sqrt", "abs", "expm1", "sinh", "erf", "log1p", "asinh"]
            )
            if fn in ("sin", "cos", "tanh", "erf"):
                return f"math.{fn}({a})", 1.0
            if fn in ("atan",):
                return f"math.atan({a})", 1.6
            if fn == "asinh":
                return f"math.asinh({a})", math.asinh(ba)
            if fn in ("exp", "expm1", "sinh"):
                a, ba = self.fit(a, ba, 2.0)
                return f"math.{fn}({a})", math.exp(ba)
            if fn == "log":
                a, ba = self.fit(a, ba, 10.0)
                if self.chance(0.2):
                    return f"math.log(1.0 + ({a}) ** 2, 2.0)", 7.0
                return f"math.log(1.0 + {a} * {a})" if len(a) < 30 else f"math.log(1.0 + ({a}) ** 2)", math.log(
                    1 + ba * ba
                )
            if fn == "log1p":
                return f"math.log1p(abs({a}))", math.log1p(ba)
            if fn == "sqrt":
                return f"math.sqrt(1.0 + ({a}) ** 2)", math.sqrt(1 + ba * ba)
            return (f"abs({a})" if self.chance(0.7) else f"math.fabs({a})"), ba
        if r < 0.80:
            (a, ba), (b, bb) = sub(), sub()
            if self.chance(0.5):
                return f"math.hypot({a}, {b})", ba + bb
            b2, _ = self.fit(b, bb, 1.0)
            return f"math.atan2({a}, 1.5 + {b2})", 3.2
        if r < 0.87:
            n = rng.choice([2, 2, 3])
            parts = [sub() for _ in range(n)]
            fn = rng.choice(["min", "max"])
            return f"{fn}({', '.join(p for p, _ in parts)})", max(bb for _, bb in parts)
        if r < 0.91:
            (a, ba), (b, bb) = sub(), sub()
            return f"({a} if {self.cond(env)} else {b})", max(ba, bb)
        if r < 0.94:
            a, ba = sub()
            return f"-({a})", ba
        if r < 0.97 and self.helpers:
            return self.helper_call_expr(env, depth)
        if r < 1.0:
            lists = [n for n in self.readable_lists(env) if env.lists[n].minlen >= 1]
            if lists:
                lst = rng.choice(lists)
                fn = rng.choice(["max", "min", "sum"])
                if fn == "sum":
                    return f"sum({lst})", env.lists[lst].bound * 8
                return f"{fn}({lst})", env.lists[lst].bound
        return self.leaf(env)

    def cond(self, env: Env) -> str:
        rng = self.rng
        r = rng.random()

        def cmpf():
            a, _ = self.expr(env, 1)
            op = rng.choice([">", "<", ">=", "<="])
            return f"{a} {op} {lit(draw_const(rng, -0.8, 0.8))}"

        if r < 0.55:
            return cmpf()
        if r < 0.65 and env.floats:
            a = rng.choice(sorted(env.floats))
            b = rng.choice(sorted(env.floats))
            if a != b:
                return f"{a} > {b}"
            return cmpf()
        if r < 0.72:
            a, _ = self.expr(env, 1)
            lo = draw_const(rng, -1.0, 0.0)
            return f"{lit(lo)} < {a} < {lit(round(lo + 0.8, 2))}"
        if r < 0.82:
            return f"{cmpf()} {rng.choice(['and', 'or'])} {cmpf()}"
        if r < 0.88:
            return f"not ({cmpf()})"
        ints = sorted(set(env.idx) | set(env.ints))
        if ints:
            i = rng.choice(ints)
            return rng.choice([f"{i} % 2 == 0", f"{i} > 1", f"{i} == 0", f"{i} < 2"])
        return cmpf()

    def helper_args(self, env: Env, h: Helper) -> str | None:
        """Arguments in the helper's order: floats, [ws], [c=default]."""
        args = []
        nplain = h.nfloat - (1 if h.has_default else 0)
        for _ in range(nplain):
            a, b = self.expr(env, 1)
            args.append(self.fit(a, b, HELPER_BOUND)[0])
        if h.list_param:
            lists = [
                n for n in self.readable_lists(env) if env.lists[n].minlen >= 1 and env.lists[n].bound <= HELPER_BOUND
            ]
            if not lists:
                return None
            lst = self.passed_list if self.passed_list in lists else self.rng.choice(lists)
            self.passed_list = lst  # (StmtGen.call_then_write may write into it after the call)
            args.append(f"ws={lst}" if self.chance(0.2) else lst)
        if h.has_default and self.chance(0.6):
            a, b = self.expr(env, 1)
            a = self.fit(a, b, HELPER_BOUND)[0]
            args.append(f"c={a}" if self.chance(0.5) or args and args[-1].startswith("ws=") else a)
        if h.recursive:
            args.append(str(self.rng.randint(0, 3)))
        return ", ".join(args)

    def helper_call_expr(self, env: Env, depth: int) -> tuple[str, float]:
        hs = [h for h in self.helpers if h.outputs == 1]
        if not hs:
            return self.leaf(env)
        h = self.rng.choice(hs)
        args = self.helper_args(env, h)
        if args is None:
            return self.leaf(env)
        return f"{h.name}({args})", h.bound
