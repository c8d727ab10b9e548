"""Scalar expressions and conditions: Exprs, the expressions of a generator.

A generator is a few objects cooperating over one Draft (draft: the program being written, its random
generators and lines): Exprs (this module: float expressions, conditions, helper calls, list reads,
bounds and squashing) and, in NumPy programs, the array expressions it reads floats from (ArrayExprs,
numpy_expr, with ShapeExprs, numpy_shape); Stmts (scalar_stmt), which writes statements with the
expressions, with its parts for lists (ListStmts, scalar_lists), lists rebound (ListRebinds,
scalar_rebind), and in NumPy programs array statements (ArrayStmts, numpy_stmt) and small parameters
broadcast up (SmallRebinds, numpy_rebind); Gen (scalar_program) and NpGen (numpy_program), which put
them together and write helpers and the entry function.  Every part draws from the one random
generator of the Draft, in the order the program's text needs them, so a seed gives one program.
"""

from __future__ import annotations

import ast
import math

from .config import HELPER_BOUND, NMAX, SQUASH_AT
from .draft import Draft
from .scope import Env, Helper


def draw_const(rng, lo=-1.0, hi=1.0):
    """A random constant in [lo, hi] rounded to 2 places (0.5 where that is 0.0)."""
    v = round(rng.uniform(lo, hi), 2)
    return v if v != 0.0 else 0.5


def lit(v) -> str:
    """v as a float literal, in parentheses if negative."""
    s = repr(float(v))
    return f"({s})" if s.startswith("-") else s


def wrap(src: str) -> str:
    """src as an operand of a postfix ([...], .T, .method())."""
    node = ast.parse(src, mode="eval").body
    if isinstance(node, (ast.Name, ast.Call, ast.Subscript, ast.Attribute)):
        return src
    return f"({src})"


class Exprs:
    """Float expressions, conditions and helper calls of the program being written (``draft``), with
    their bounds; in a NumPy program ``arrays`` (ArrayExprs, made with this object) writes the array
    expressions a float may read, else it is None."""

    def __init__(self, draft: Draft, arrays=None):
        self.draft = draft
        self.rng = draft.rng
        self.arrays = arrays(self) if arrays is not None else None

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
        f = self.draft.f
        tanh = f("tanh") if arrays else "math.tanh"
        if self.draft.chance(0.5):
            return f"{lit(cap)} * {tanh}({src})", cap
        fns = (f("tanh"), f("sin"), f("arctan"), f("abs")) if arrays else None
        s, sb = self.squash(src, b, cap, fns)
        if sb <= cap:
            return s, sb
        return f"{lit(cap)} * {tanh}({src})", cap

    def leaf(self, env: Env) -> tuple[str, float]:
        """A name, a constant, a list's element or reduction, or in a NumPy program sometimes a float read
        from arrays."""
        if self.arrays is not None and env.arrays and self.draft.chance(0.4):
            src, b = self.arrays.across.array_scalar(env, 0)  # depth 0: leaves never recurse
            return self.squash(src, b)
        rng = self.rng
        opts = []
        if env.floats:
            opts += ["float"] * 6
        if env.idx or env.ints:
            opts += ["int"]
        if env.readable_lists():
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
            if hi > 4 or self.draft.chance(0.5):
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
        if depth <= 0 or self.draft.chance(0.2):
            return self.leaf(env)
        r = rng.random()
        sub = lambda: self.expr(env, depth - 1)  # noqa: E731
        if r < 0.30:
            (a, ba), (b, bb) = sub(), sub()
            op = rng.choice(["+", "-", "*", "*"])
            if op == "*":
                return f"{a} * {b}" if self.draft.chance(0.5) else f"({a}) * ({b})", ba * bb
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
            if self.draft.chance(0.2):
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
            if self.draft.chance(0.3):
                return f"math.pow({basesrc}, {b})", bound
            if self.draft.chance(0.3):
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
                if self.draft.chance(0.2):
                    return f"math.log(1.0 + ({a}) ** 2, 2.0)", 7.0
                return f"math.log(1.0 + {a} * {a})" if len(a) < 30 else f"math.log(1.0 + ({a}) ** 2)", math.log(
                    1 + ba * ba
                )
            if fn == "log1p":
                return f"math.log1p(abs({a}))", math.log1p(ba)
            if fn == "sqrt":
                return f"math.sqrt(1.0 + ({a}) ** 2)", math.sqrt(1 + ba * ba)
            return (f"abs({a})" if self.draft.chance(0.7) else f"math.fabs({a})"), ba
        if r < 0.80:
            (a, ba), (b, bb) = sub(), sub()
            if self.draft.chance(0.5):
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
        if r < 0.97 and self.draft.helpers:
            return self.helper_call_expr(env)
        if r < 1.0:
            lists = [n for n in env.readable_lists() if env.lists[n].minlen >= 1]
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
            lists = [n for n in env.readable_lists() if env.lists[n].minlen >= 1 and env.lists[n].bound <= HELPER_BOUND]
            if not lists:
                return None
            lst = self.draft.passed_list if self.draft.passed_list in lists else self.rng.choice(lists)
            self.draft.passed_list = lst  # (Stmts.call_then_write may write into it after the call)
            args.append(f"ws={lst}" if self.draft.chance(0.2) else lst)
        if h.has_default and self.draft.chance(0.6):
            a, b = self.expr(env, 1)
            a = self.fit(a, b, HELPER_BOUND)[0]
            args.append(f"c={a}" if self.draft.chance(0.5) or args and args[-1].startswith("ws=") else a)
        if h.recursive:
            args.append(str(self.rng.randint(0, 3)))
        return ", ".join(args)

    def helper_call_expr(self, env: Env) -> tuple[str, float]:
        hs = [h for h in self.draft.helpers if h.outputs == 1]
        if not hs:
            return self.leaf(env)
        h = self.rng.choice(hs)
        args = self.helper_args(env, h)
        if args is None:
            return self.leaf(env)
        return f"{h.name}({args})", h.bound

    # ---------------------------------------------------------------- lists read

    def index_for(self, env: Env, lst: str) -> str | None:
        """An index expression valid for list lst, or None."""
        info = env.lists[lst]
        rng = self.rng
        cands = []
        for i, ix in env.idx.items():
            if ix.tied == lst or ix.hi <= info.minlen:
                cands += [i, f"{i} - 1", f"-1 - {i}"]
        if info.minlen >= 1:
            cands += ["0", "-1", f"len({lst}) - 1"]
            for i in env.idx:
                cands += [f"({i} + 1) % len({lst})"]
        if info.minlen >= 2:
            cands += ["1", "-2"]
        return rng.choice(cands) if cands else None

    def list_read(self, env: Env) -> tuple[str, float]:
        lists = env.readable_lists()
        self.rng.shuffle(lists)
        for lst in lists:
            ix = self.index_for(env, lst)
            if ix is not None:
                return f"{lst}[{ix}]", env.lists[lst].bound
            if env.lists[lst].minlen >= 0 and self.draft.chance(0.5):
                return f"sum({lst})", env.lists[lst].bound * (NMAX + 2) if env.lists[lst].minlen < 8 else 50.0
        return lit(draw_const(self.rng)), 1.0

    # ---------------------------------------------------------------- outputs

    def live_mix(self, env: Env, src: str, b: float) -> tuple[str, float]:
        """src plus small multiples of a few variables (and in a NumPy program of array reductions), so
        that more of the body is live."""
        names = sorted(n for n in env.floats)
        if names and not self.draft.chance(0.25):
            picked = self.rng.sample(names, min(len(names), self.rng.randint(1, 3)))
            terms = []
            for n in picked:
                t, tb = self.fit(n, env.floats[n], 3.0)
                terms.append((f"{lit(draw_const(self.rng, -0.7, 0.7))} * {t}", 0.7 * tb))
            src, b = " + ".join([src] + [t for t, _ in terms]), b + sum(tb for _, tb in terms)
        if self.arrays is not None:
            src, b = self.arrays.across.live_mix(env, src, b)
        return src, b
