"""Differential fuzzing of adcompiler: random programs in the supported subset.

    python -m adcompiler.fuzz --programs 500 --seed 1 [--out DIR] [--points 3]

A seeded generator (``random.Random``, deterministic per seed) writes random
functions as Python source: float (and sometimes list-of-float and int)
parameters, straight-line arithmetic, math functions on safe domains,
branches, ``for``/``while`` loops with ``break``/``continue``/early
``return``, lists, helper functions, tuple outputs.  Each program is written
to a temporary ``.py`` file and imported (adcompiler reads source with
``inspect``), differentiated, and checked at a few random points:

* forward mode (``jvp`` along random directions) against central finite
  differences, reverse mode (``vjp`` with random cotangents) against the same
  finite differences, and ``<u, J v> == <J^T u, v>`` between the two;
* the value returned by ``jvp``/``vjp``/``value_and_grad`` equals the primal;
  ``grad`` equals ``vjp(1.0)``;
* the printed stages ``anf`` and ``dup`` run and return the primal value, and
  the ``forward``/``reverse`` sources compile.

A point is *skipped* (not a mismatch) when finite differences at step h and
h/10 disagree: the point is within a step of a kink or a branch switch.

Outcomes are counted: programs, points checked, points skipped, mismatches,
refusals (``UnsupportedSyntaxError``: the generator only writes the supported
subset, so a refusal is a bug) and crashes (any other exception raised by
adcompiler or by generated code when the primal runs fine).  Every mismatch,
refusal and crash is written, with its point, to a file in ``--out``.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib.util
import itertools
import math
import os
import random
import sys
import tempfile
import time
import traceback

# ===================================================================== generator

NMAX = 4  # int parameters take values 0..NMAX
PARAM_BOUND = 1.5  # float parameters and list elements are drawn from [-1.5, 1.5]
HELPER_BOUND = 3.0  # helper arguments are squashed into [-3, 3]
SQUASH_AT = 6.0  # expressions larger than this get squashed
LOOP_CAP = 4.0  # outer variables assigned in a loop stay within max(bound, LOOP_CAP)


@dataclasses.dataclass
class ListInfo:
    minlen: int
    bound: float


@dataclasses.dataclass
class Idx:
    hi: int  # every value is in [0, hi)
    tied: str | None  # the loop is over range(len(tied))


class Env:
    """What the generator knows at a program point: names in scope and bounds."""

    def __init__(self):
        self.floats: dict[str, float] = {}  # name -> |value| bound
        self.readonly: set[str] = set()  # loop variables: never reassigned
        self.ints: dict[str, int] = {}  # int name -> max value
        self.idx: dict[str, Idx] = {}  # loop indices
        self.lists: dict[str, ListInfo] = {}
        self.caps: dict[str, float] = {}  # floats assigned inside the current loop stay below
        self.in_loop = False
        self.loop_depth = 0
        self.appending: set[str] = set()  # lists not to read by index (being grown)

    def copy(self) -> "Env":
        e = Env.__new__(Env)
        e.floats = dict(self.floats)
        e.readonly = set(self.readonly)
        e.ints = dict(self.ints)
        e.idx = dict(self.idx)
        e.lists = dict(self.lists)  # ListInfo shared: aliases and bound updates
        e.caps = dict(self.caps)
        e.in_loop = self.in_loop
        e.loop_depth = self.loop_depth
        e.appending = set(self.appending)
        return e


@dataclasses.dataclass(frozen=True)
class Config:
    """Sizes and feature probabilities of generated programs."""

    max_stmts: int = 12  # statements (counting nested ones) in the entry function
    max_helpers: int = 3
    helper_stmts: int = 6
    p_list_param: float = 0.35
    p_int_param: float = 0.3
    p_tuple_out: float = 0.25


DEFAULT = Config()
SMALL = Config(max_stmts=6, max_helpers=1, helper_stmts=4)  # the CI configuration


@dataclasses.dataclass
class Helper:
    name: str
    nfloat: int  # float parameters (the last may have a default)
    has_default: bool
    list_param: bool  # a list parameter after the floats
    outputs: int  # 1, or 2 for a tuple (called only via unpacking)
    bound: float  # bound of each output
    recursive: bool = False


@dataclasses.dataclass
class Spec:
    """A generated program: its source, entry name and parameter layout."""

    source: str
    entry: str
    params: list  # ("float", name) | ("list", name, length) | ("int", name)
    outputs: int  # 1: a float; >1: a tuple


def _c(rng, lo=-1.0, hi=1.0):
    v = round(rng.uniform(lo, hi), 2)
    return v if v != 0.0 else 0.5


def _lit(v) -> str:
    s = repr(float(v))
    return f"({s})" if s.startswith("-") else s


class Gen:
    def __init__(self, rng: random.Random, config: Config = DEFAULT):
        self.rng = rng
        self.config = config
        self.counter = itertools.count()
        self.lines: list[str] = []
        self.indent = 1
        self.helpers: list[Helper] = []
        self.outputs = 1
        self.out_bound = 0.0

    # ---------------------------------------------------------------- names, lines

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # ---------------------------------------------------------------- expressions

    def squash(self, src: str, b: float, cap: float = SQUASH_AT) -> tuple[str, float]:
        """An expression with the sign behaviour of src and bound <= cap."""
        if b <= cap:
            return src, b
        r = self.rng.random()
        if r < 0.4:
            return f"math.tanh({src})", 1.0
        if r < 0.6:
            return f"math.sin({src})", 1.0
        if r < 0.75:
            return f"math.atan({src})", 1.6
        if r < 0.9 and b < 10 * cap:
            f = cap / b
            k = 0.5 if f >= 0.5 else 0.1 if f >= 0.1 else 0.01
            if b * k <= cap:
                return f"{k} * ({src})", b * k
        if len(src) > 40:  # never duplicate long expressions: sizes would grow exponentially
            return f"math.tanh({src})", 1.0
        return f"({src}) / (1.0 + abs({src}))", 1.0

    def fit(self, src: str, b: float, cap: float) -> tuple[str, float]:
        """Make the bound at most cap (for loop-carried and helper arguments)."""
        if b <= cap:
            return src, b
        if self.chance(0.5):
            return f"{_lit(cap)} * math.tanh({src})", cap
        s, sb = self.squash(src, b, cap)
        if sb <= cap:
            return s, sb
        return f"{_lit(cap)} * math.tanh({src})", cap

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
        return _lit(_c(rng, -2.0, 2.0)), 2.0

    def readable_lists(self, env: Env) -> list[str]:
        return sorted(n for n in env.lists if n not in env.appending)

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
        lists = self.readable_lists(env)
        self.rng.shuffle(lists)
        for lst in lists:
            ix = self.index_for(env, lst)
            if ix is not None:
                return f"{lst}[{ix}]", env.lists[lst].bound
            if env.lists[lst].minlen >= 0 and self.chance(0.5):
                return f"sum({lst})", env.lists[lst].bound * (NMAX + 2) if env.lists[lst].minlen < 8 else 50.0
        return _lit(_c(self.rng)), 1.0

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
            return f"{a} {op} {_lit(_c(rng, -0.8, 0.8))}"

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
            lo = _c(rng, -1.0, 0.0)
            return f"{_lit(lo)} < {a} < {_lit(round(lo + 0.8, 2))}"
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
            lst = self.rng.choice(lists)
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

    # ---------------------------------------------------------------- statements

    def assign_float(self, env: Env, name: str, src: str, b: float) -> None:
        if name in env.caps:
            src, b = self.fit(src, b, env.caps[name])
        self.emit(f"{name} = {src}")
        env.floats[name] = b

    def writable(self, env: Env) -> list[str]:
        return sorted(n for n in env.floats if n not in env.readonly)

    def stmt(self, env: Env, depth: int, budget: list) -> None:
        """One statement (maybe compound) at the current indentation."""
        rng = self.rng
        budget[0] -= 1
        r = rng.random()
        compound_ok = depth < 3 and budget[0] > 0
        if r < 0.22 or not env.floats:
            name = self.fresh("t")
            src, b = self.expr(env, rng.randint(1, 3))
            self.emit(f"{name} = {src}")
            env.floats[name] = b
            return
        if r < 0.32 and self.writable(env):
            name = rng.choice(self.writable(env))
            src, b = self.expr(env, rng.randint(1, 3))
            self.assign_float(env, name, src, b)
            return
        if r < 0.42 and self.writable(env):
            self.aug(env)
            return
        if r < 0.52 and compound_ok:
            self.if_stmt(env, depth, budget)
            return
        if r < 0.64 and compound_ok:
            self.for_stmt(env, depth, budget)
            return
        if r < 0.69 and compound_ok:
            self.while_stmt(env, depth, budget)
            return
        if r < 0.79:
            self.list_stmt(env, depth, budget)
            return
        if r < 0.85 and env.in_loop:
            self.jump(env)
            return
        if r < 0.88 and self.outputs_known:
            self.emit(f"if {self.cond(env)}:")
            self.indent += 1
            self.ret(env)
            self.indent -= 1
            return
        if r < 0.93 and any(h.outputs == 2 for h in self.helpers):
            h = rng.choice([h for h in self.helpers if h.outputs == 2])
            args = self.helper_args(env, h)
            if args is not None:
                a, b = self.fresh("t"), self.fresh("t")
                if not env.in_loop and self.writable(env) and self.chance(0.3):
                    a = rng.choice(self.writable(env))
                self.emit(f"{a}, {b} = {h.name}({args})")
                if a in env.caps:  # keep the loop cap: squash after the call
                    self.emit(f"{a} = {_lit(env.caps[a])} * math.tanh({a})")
                    env.floats[a] = env.caps[a]
                else:
                    env.floats[a] = h.bound
                env.floats[b] = h.bound
                return
        if r < 0.96 and len(self.writable(env)) >= 2 and not env.in_loop:
            a, b = rng.sample(self.writable(env), 2)
            self.emit(f"{a}, {b} = {b}, {a}")
            env.floats[a], env.floats[b] = env.floats[b], env.floats[a]
            return
        name = self.fresh("t")
        src, b = self.expr(env, 2)
        self.emit(f"{name} = {src}")
        env.floats[name] = b

    def aug(self, env: Env) -> None:
        rng = self.rng
        name = rng.choice(self.writable(env))
        src, b = self.expr(env, rng.randint(1, 2))
        vb = env.floats[name]
        op = rng.choice(["+=", "-=", "*=", "/=", "**=", "+="])
        if op in ("+=", "-="):
            self.emit(f"{name} {op} {src}")
            nb = vb + b
        elif op == "*=":
            s2, _ = self.fit(src, b, 1.0)
            self.emit(f"{name} *= 0.5 + 0.4 * {s2}" if self.chance(0.7) else f"{name} *= {src}")
            nb = vb * 0.9 if "0.4 *" in self.lines[-1] else vb * b
        elif op == "/=":
            self.emit(f"{name} /= 1.5 + math.cos({src})")
            nb = vb * 2.0
        else:
            if vb > 3.0:
                self.emit(f"{name} = math.tanh({name})")
                vb = 1.0
            self.emit(f"{name} **= 2")
            nb = vb * vb
        env.floats[name] = nb
        if name in env.caps and nb > env.caps[name]:
            self.assign_float(env, name, *self.fit(name, nb, env.caps[name]))
        elif nb > 50:
            self.assign_float(env, name, *self.squash(name, nb))

    def block(self, env: Env, depth: int, budget: list, n: int | None = None) -> None:
        self.indent += 1
        n = n if n is not None else self.rng.randint(1, 3)
        start = len(self.lines)
        for _ in range(n):
            self.stmt(env, depth, budget)
        if len(self.lines) == start:
            self.emit("pass")
        self.indent -= 1

    def merge(self, env: Env, branches: list[Env], exhaustive: bool) -> None:
        """After a branch: variables in scope before keep the largest bound."""
        for name in list(env.floats):
            bs = [br.floats.get(name, env.floats[name]) for br in branches]
            if not exhaustive:
                bs.append(env.floats[name])
            env.floats[name] = max(bs)

    def if_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        branches = []
        self.emit(f"if {self.cond(env)}:")
        e = env.copy()
        self.block(e, depth + 1, budget)
        branches.append(e)
        for _ in range(rng.choice([0, 0, 1, 2])):
            self.emit(f"elif {self.cond(env)}:")
            e = env.copy()
            self.block(e, depth + 1, budget)
            branches.append(e)
        exhaustive = self.chance(0.6)
        if exhaustive:
            self.emit("else:")
            e = env.copy()
            self.block(e, depth + 1, budget)
            branches.append(e)
        self.merge(env, branches, exhaustive)

    def loop_env(self, env: Env) -> Env:
        e = env.copy()
        e.in_loop = True
        e.loop_depth += 1
        for name, b in env.floats.items():
            if name not in e.readonly:
                cap = e.caps.get(name, max(b, LOOP_CAP))
                e.caps[name] = cap
                e.floats[name] = cap
        for name in e.ints:
            e.ints[name] = 20
        return e

    def after_loop(self, env: Env, body: Env) -> None:
        for name in env.floats:
            env.floats[name] = max(env.floats[name], body.floats.get(name, 0.0))
        for name in env.ints:
            env.ints[name] = max(env.ints[name], body.ints.get(name, 0))

    def make_counter(self, env: Env) -> str | None:
        if self.chance(0.4):
            k = self.fresh("k")
            self.emit(f"{k} = 0")
            env.ints[k] = 0
            return k
        return None

    def for_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        k = self.make_counter(env)
        body = self.loop_env(env)
        i = self.fresh("i")
        r = rng.random()
        int_params = [n for n in env.ints if n.startswith("n")]
        lists = self.readable_lists(env)
        if r < 0.35:
            K = rng.randint(1, 4)
            self.emit(f"for {i} in range({K}):")
            body.idx[i] = Idx(K, None)
        elif r < 0.5 and int_params:
            n = rng.choice(int_params)
            if self.chance(0.5):
                self.emit(f"for {i} in range({n}):")
                body.idx[i] = Idx(NMAX, None)
            else:
                self.emit(f"for {i} in range(1, {n} + 1):")
                body.idx[i] = Idx(NMAX + 1, None)
        elif r < 0.7 and lists:
            lst = rng.choice(lists)
            self.emit(f"for {i} in range(len({lst})):")
            body.idx[i] = Idx(10**6, lst)
        elif r < 0.8 and lists:
            lst = rng.choice(lists)
            v = self.fresh("v")
            form = rng.choice(["plain", "enum", "rev"])
            if form == "enum":
                self.emit(f"for {i}, {v} in enumerate({lst}):")
                body.idx[i] = Idx(10**6, lst)
            elif form == "rev":
                self.emit(f"for {v} in reversed({lst}):")
            else:
                self.emit(f"for {v} in {lst}:")
            body.floats[v] = env.lists[lst].bound
            body.readonly.add(v)
        elif r < 0.85 and len(lists) >= 2:
            a, b = rng.sample(lists, 2)
            v, w = self.fresh("v"), self.fresh("v")
            self.emit(f"for {v}, {w} in zip({a}, {b}):")
            body.floats[v] = env.lists[a].bound
            body.floats[w] = env.lists[b].bound
            body.readonly |= {v, w}
        else:
            K = rng.randint(2, 5)
            self.emit(f"for {i} in range({K}, 0, -1):" if self.chance(0.5) else f"for {i} in range(0, {K}, 2):")
            body.idx[i] = Idx(K + 1, None)
        self.indent += 1
        if k:
            self.emit(f"{k} += 1")
        self.indent -= 1
        self.block(body, depth + 1, budget, rng.randint(1, 4))
        self.after_loop(env, body)
        if k:
            env.ints[k] = 20

    def while_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        j = self.fresh("j")
        K = rng.randint(1, 5)
        self.emit(f"{j} = 0")
        body = self.loop_env(env)
        body.ints[j] = K
        if self.chance(0.5):
            self.emit(f"while {j} < {K} and ({self.cond(body)}):")
        else:
            self.emit(f"while {j} < {K}:")
        self.indent += 1
        self.emit(f"{j} += 1")
        self.indent -= 1
        self.block(body, depth + 1, budget, rng.randint(1, 3))
        self.after_loop(env, body)
        env.ints[j] = K

    def jump(self, env: Env) -> None:
        self.emit(f"if {self.cond(env)}:")
        self.indent += 1
        if self.chance(0.3) and self.writable(env):
            self.aug(env)
        self.emit(self.rng.choice(["break", "continue"]))
        self.indent -= 1

    def list_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        r = rng.random()
        writable_lists = [n for n in env.lists if not n.startswith("xs") and n not in env.appending]
        if r < 0.35 or not env.lists:
            self.build_list(env, depth, budget)
        elif r < 0.6 and writable_lists:
            lst = rng.choice(writable_lists)
            ix = self.index_for(env, lst)
            if ix is None:
                return self.build_list(env, depth, budget)
            src, b = self.expr(env, 2)
            info = env.lists[lst]
            op = rng.choice(["=", "=", "+=", "*="])
            if op == "*=":
                src, b = self.fit(src, b, 1.0)
                self.emit(f"{lst}[{ix}] *= {src}")
            else:
                cap = max(info.bound, LOOP_CAP) if env.in_loop else max(info.bound, b)
                if op == "+=":
                    src, b = self.fit(src, b, 1.0)
                    nb = info.bound + b
                    self.emit(f"{lst}[{ix}] += {src}")
                    if env.in_loop or nb > 50:
                        self.emit(f"{lst}[{ix}] = {_lit(cap)} * math.tanh({lst}[{ix}])")
                        nb = cap
                    info.bound = max(info.bound, nb)
                else:
                    src, b = self.fit(src, b, cap)
                    self.emit(f"{lst}[{ix}] = {src}")
                    info.bound = max(info.bound, b)
        elif r < 0.7 and env.lists and not env.in_loop:
            lst = rng.choice(sorted(env.lists))
            alias = self.fresh("zs")
            self.emit(f"{alias} = {lst}" if self.chance(0.5) else f"{alias} = list({lst})")
            if self.lines[-1].endswith(f"= {lst}"):
                if lst.startswith("xs"):
                    return  # an alias of a parameter: never written
                env.lists[alias] = env.lists[lst]
            else:
                env.lists[alias] = dataclasses.replace(env.lists[lst])
        else:
            name = self.fresh("t")
            lists = [n for n in self.readable_lists(env) if env.lists[n].minlen >= 1]
            if not lists:
                return self.build_list(env, depth, budget)
            lst = rng.choice(lists)
            fn = rng.choice(["sum", "max", "min"])
            b = env.lists[lst].bound * (12 if fn == "sum" else 1)
            self.emit(f"{name} = {fn}({lst})")
            env.floats[name] = b
            if b > SQUASH_AT:
                self.assign_float(env, name, *self.squash(name, b))

    def build_list(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        ys = self.fresh("ys")
        r = rng.random()
        lists = self.readable_lists(env)
        int_params = [n for n in env.ints if n.startswith("n")]
        if r < 0.25:
            K = rng.randint(1, 4)
            if int_params and self.chance(0.3):
                n = rng.choice(int_params)
                self.emit(f"{ys} = []")
                self.emit(f"for {(i := self.fresh('i'))} in range({n} + 1):")
                K = 1
                hi = NMAX + 1
            else:
                self.emit(f"{ys} = []")
                i = self.fresh("i")
                self.emit(f"for {i} in range({K}):")
                hi = K
            e = env.copy()
            e.in_loop = True
            e.idx[i] = Idx(hi, None)
            self.indent += 1
            src, b = self.expr(e, 2)
            self.emit(f"{ys}.append({src})")
            self.indent -= 1
            env.lists[ys] = ListInfo(K, b)
        elif r < 0.45 and lists:
            lst = rng.choice(lists)
            v = self.fresh("v")
            e = env.copy()
            e.floats[v] = env.lists[lst].bound
            e.readonly.add(v)
            src, b = self.expr(e, 2)
            if self.chance(0.25):
                self.emit(f"{ys} = [{src} for {v} in {lst} if {v} > {_lit(_c(rng, -0.5, 0.5))}]")
                env.lists[ys] = ListInfo(0, b)
            else:
                self.emit(f"{ys} = [{src} for {v} in {lst}]")
                env.lists[ys] = ListInfo(env.lists[lst].minlen, b)
        elif r < 0.6:
            K = rng.randint(1, 4)
            i = self.fresh("i")
            e = env.copy()
            e.idx[i] = Idx(K, None)
            src, b = self.expr(e, 2)
            self.emit(f"{ys} = [{src} for {i} in range({K})]")
            env.lists[ys] = ListInfo(K, b)
        elif r < 0.75:
            K = rng.randint(1, 3)
            parts = [self.expr(env, 2) for _ in range(K)]
            self.emit(f"{ys} = [{', '.join(p for p, _ in parts)}]")
            env.lists[ys] = ListInfo(K, max(b for _, b in parts))
        elif r < 0.85:
            K = rng.randint(1, 4)
            self.emit(f"{ys} = [0.0] * {K}")
            env.lists[ys] = ListInfo(K, 0.0)
            i = self.fresh("i")
            self.emit(f"for {i} in range(len({ys})):")
            e = self.loop_env(env)
            e.idx[i] = Idx(K, ys)
            self.indent += 1
            src, b = self.expr(e, 2)
            src, b = self.fit(src, b, LOOP_CAP)
            self.emit(f"{ys}[{i}] = {src}")
            self.indent -= 1
            env.lists[ys].bound = b
        elif lists:
            lst = rng.choice(lists)
            self.emit(f"{ys} = list({lst})")
            env.lists[ys] = dataclasses.replace(env.lists[lst])
        else:
            K = rng.randint(1, 3)
            src, b = self.expr(env, 1)
            self.emit(f"{ys} = [{src}] * {K}")
            env.lists[ys] = ListInfo(K, b)

    def live_mix(self, env: Env, src: str, b: float) -> tuple[str, float]:
        """src plus small multiples of a few variables, so that more of the body is live."""
        names = sorted(n for n in env.floats)
        if not names or self.chance(0.25):
            return src, b
        picked = self.rng.sample(names, min(len(names), self.rng.randint(1, 3)))
        terms = []
        for n in picked:
            t, tb = self.fit(n, env.floats[n], 3.0)
            terms.append((f"{_lit(_c(self.rng, -0.7, 0.7))} * {t}", 0.7 * tb))
        return " + ".join([src] + [t for t, _ in terms]), b + sum(tb for _, tb in terms)

    def ret_value(self, env: Env) -> tuple[str, float]:
        parts = [self.live_mix(env, *self.expr(env, self.rng.randint(1, 3))) for _ in range(self.outputs)]
        src = ", ".join(p for p, _ in parts)
        return (src if self.outputs == 1 else f"({src})" if self.chance(0.5) else src), max(b for _, b in parts)

    def ret(self, env: Env) -> None:
        src, b = self.ret_value(env)
        self.emit(f"return {src}")
        self.out_bound = max(self.out_bound, b)

    # ---------------------------------------------------------------- functions

    outputs_known = True

    def function(self, name: str, env: Env, nstmts: int, outputs: int) -> float:
        """Emit a body into self.lines; returns the bound of its outputs."""
        self.outputs = outputs
        self.out_bound = 0.0
        self.indent = 1
        budget = [nstmts]
        while budget[0] > 0:
            self.stmt(env, 0, budget)
        self.ret(env)
        return self.out_bound

    def helper(self, idx: int) -> list[str]:
        rng = self.rng
        name = f"h{idx}"
        if self.chance(0.12):
            # a recursive helper, with an int depth parameter
            lines = [
                f"def {name}(a, m):",
                "    if m <= 0:",
                f"        return math.tanh(a) + {_lit(_c(rng))}",
                f"    return {name}({_lit(round(rng.uniform(0.3, 0.9), 2))} * math.sin(a) + {_lit(_c(rng, -0.5, 0.5))} * a, m - 1)",
            ]
            self.helpers.append(Helper(name, 1, False, False, 1, 2.0, recursive=True))
            return lines
        nfloat = rng.randint(1, 2)
        has_default = self.chance(0.3)
        list_param = self.chance(0.25)
        outputs = 2 if self.chance(0.25) else 1
        params = ["a", "b"][:nfloat]
        env = Env()
        for p in params:
            env.floats[p] = HELPER_BOUND
        if has_default:
            params[-1] = "c"
            env.floats.pop("b" if nfloat == 2 else "a")
            env.floats["c"] = HELPER_BOUND
        sig = list(params)
        if has_default:
            sig[-1] = f"c={_lit(_c(rng))}"
        if list_param:
            env.lists["ws"] = ListInfo(1, HELPER_BOUND)
            sig.insert(len(sig) - 1 if has_default else len(sig), "ws")
        saved, self.lines = self.lines, []
        bound = self.function(name, env, rng.randint(2, max(2, self.config.helper_stmts)), outputs)
        body, self.lines = self.lines, saved
        self.helpers.append(Helper(name, nfloat, has_default, list_param, outputs, bound))
        return [f"def {name}({', '.join(sig)}):"] + body

    def program(self, entry: str = "f") -> Spec:
        rng = self.rng
        out = ["import math", "", ""]
        cfg = self.config
        for h in range(min(cfg.max_helpers, rng.choice([0, 0, 1, 1, 2, 3]))):
            out += self.helper(h) + ["", ""]
        nfloat = rng.randint(1, 3)
        params = [("float", n) for n in ["x", "y", "z"][:nfloat]]
        if self.chance(cfg.p_list_param):
            params.append(("list", "xs", rng.randint(2, 5)))
        if self.chance(cfg.p_int_param):
            params.append(("int", "n"))
        env = Env()
        for p in params:
            if p[0] == "float":
                env.floats[p[1]] = PARAM_BOUND
            elif p[0] == "list":
                env.lists[p[1]] = ListInfo(p[2], PARAM_BOUND)
            else:
                env.ints[p[1]] = NMAX
        outputs = rng.randint(2, 3) if self.chance(cfg.p_tuple_out) else 1
        self.lines = []
        self.function(entry, env, rng.randint(3, max(3, cfg.max_stmts)), outputs)
        out += [f"def {entry}({', '.join(p[1] for p in params)}):"] + self.lines + [""]
        return Spec("\n".join(out), entry, params, outputs)


def generate(rng: random.Random, config: Config = DEFAULT) -> Spec:
    return Gen(rng, config).program()


# ===================================================================== checking

RTOL = 1e-5
ATOL = 1e-6
KINK_RTOL = 1e-5
DUALITY_RTOL = 1e-9


@dataclasses.dataclass
class Summary:
    programs: int = 0
    points_checked: int = 0
    points_skipped: int = 0  # near a kink or a branch switch
    points_invalid: int = 0  # the primal itself raised or overflowed there
    mismatches: int = 0
    refusals: int = 0
    crashes: int = 0
    seconds: float = 0.0
    reports: list = dataclasses.field(default_factory=list)  # paths of written failures
    failures: list = dataclasses.field(default_factory=list)  # (kind, message, source, point)

    def __str__(self) -> str:
        return (
            f"programs {self.programs}, points checked {self.points_checked}, "
            f"skipped (kink/branch) {self.points_skipped}, invalid {self.points_invalid}, "
            f"mismatches {self.mismatches}, refusals {self.refusals}, crashes {self.crashes} "
            f"({self.seconds:.1f} s)"
        )


class Failure(Exception):
    def __init__(self, kind: str, message: str, point=None):
        super().__init__(message)
        self.kind = kind  # "mismatch" | "refusal" | "crash"
        self.message = message
        self.point = point

    def __reduce__(self):
        return (Failure, (self.kind, self.message, self.point))


_module_counter = itertools.count()


def load_module(source: str, directory: str, stem: str = "fuzzprog"):
    """Write source to a .py file in directory and import it under a unique name."""
    name = f"_adc_fuzz_{stem}_{os.getpid()}_{next(_module_counter)}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def flat_out(out) -> list:
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res += flat_out(o)
        return res
    return [float(out)]


def _close(a, b, scale, rtol, atol) -> bool:
    if math.isnan(a) or math.isnan(b):
        return False
    return abs(a - b) <= atol + rtol * max(abs(b), scale)


class Layout:
    """Maps between a program's arguments and the flat vector of wrt inputs."""

    def __init__(self, params):
        self.params = params
        self.wrt = tuple(p[1] for p in params if p[0] != "int")

    def draw(self, rng: random.Random) -> list:
        args = []
        for p in self.params:
            if p[0] == "float":
                args.append(round(rng.uniform(-PARAM_BOUND, PARAM_BOUND), 6))
            elif p[0] == "list":
                args.append([round(rng.uniform(-PARAM_BOUND, PARAM_BOUND), 6) for _ in range(p[2])])
            else:
                args.append(rng.randint(0, NMAX))
        return args

    def flat(self, args) -> list:
        res = []
        for p, a in zip(self.params, args):
            if p[0] == "float":
                res.append(a)
            elif p[0] == "list":
                res += a
        return res

    def unflat(self, args, vec) -> list:
        """args with the wrt inputs replaced by vec."""
        out, k = [], 0
        for p, a in zip(self.params, args):
            if p[0] == "float":
                out.append(vec[k])
                k += 1
            elif p[0] == "list":
                out.append(list(vec[k : k + p[2]]))
                k += p[2]
            else:
                out.append(a)
        return out

    def tangents(self, vec) -> tuple:
        """vec as one tangent per wrt parameter."""
        res, k = [], 0
        for p in self.params:
            if p[0] == "float":
                res.append(vec[k])
                k += 1
            elif p[0] == "list":
                res.append(list(vec[k : k + p[2]]))
                k += p[2]
        return tuple(res)


def _copy_args(args):
    return [list(a) if isinstance(a, list) else a for a in args]


def primal(fn, args):
    return fn(*_copy_args(args))


def fd_dir(fn, layout: Layout, args, v, h) -> list:
    x0 = layout.flat(args)
    xp = [a + h * b for a, b in zip(x0, v)]
    xm = [a - h * b for a, b in zip(x0, v)]
    fp = flat_out(primal(fn, layout.unflat(args, xp)))
    fm = flat_out(primal(fn, layout.unflat(args, xm)))
    return [(a - b) / (2 * h) for a, b in zip(fp, fm)]


def stage_value(df, mod, stage: str, args):
    src = df.source(stage)
    ns = dict(mod.__dict__)
    exec(compile(src, f"<fuzz {stage}>", "exec"), ns)
    return ns[df.__name__](*_copy_args(args))


def check_point(df, fn, mod, layout: Layout, args, rng: random.Random, outputs: int, stages: bool) -> str:
    """'ok' | 'skipped' | 'invalid'; raises Failure on a mismatch or crash."""
    try:
        value = primal(fn, args)
        fvalue = flat_out(value)
        if not all(math.isfinite(v) and abs(v) < 1e8 for v in fvalue):
            return "invalid"
    except (ArithmeticError, ValueError, IndexError, RecursionError):
        return "invalid"
    m = len(fvalue)
    x0 = layout.flat(args)
    nin = len(x0)
    hbase = 6e-6 * max(1.0, max(abs(a) for a in x0))
    dirs = [[rng.uniform(-1, 1) for _ in range(nin)] for _ in range(2)]
    cots = [[rng.uniform(-1, 1) for _ in range(m)] for _ in range(2)]
    fds = []
    try:
        for v in dirs:
            f1 = fd_dir(fn, layout, args, v, hbase)
            f2 = fd_dir(fn, layout, args, v, hbase / 10)
            scale = max(1.0, max(abs(x) for x in fvalue))
            for a, b in zip(f1, f2):
                if not _close(a, b, 0.0, KINK_RTOL, 1e-5 * scale):
                    return "skipped"
            fds.append(f1)
    except (ArithmeticError, ValueError, IndexError, RecursionError):
        return "skipped"

    def fail(kind, msg):
        raise Failure(kind, msg, _copy_args(args))

    def run(what, thunk):
        try:
            return thunk()
        except Failure:
            raise
        except Exception as exc:  # noqa: BLE001 - anything from generated code is a bug
            fail("crash", f"{what} raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}")

    def same_value(what, got):
        g = flat_out(got)
        if len(g) != m or isinstance(got, tuple) != isinstance(value, tuple):
            fail("mismatch", f"{what}: value {got!r} has not the structure of the primal {value!r}")
        if not all(_close(a, b, 0.0, 1e-12, 1e-300) or a == b for a, b in zip(g, fvalue)):
            fail("mismatch", f"{what}: value {got!r} != primal {value!r}")

    def tol(a, b):
        return _close(a, b, 0.0, RTOL, ATOL * max(1.0, max(abs(x) for x in fvalue)))

    jvps = []
    for v, fd in zip(dirs, fds):
        val, tan = run("jvp", lambda: df.jvp(tuple(_copy_args(args)), layout.tangents(v)))
        same_value(f"jvp(v={v})", val)
        tan = flat_out(tan)
        if len(tan) != m:
            fail("mismatch", f"jvp(v={v}): tangent {tan!r} has {len(tan)} entries, output has {m}")
        for j in range(m):
            if not tol(tan[j], fd[j]):
                fail("mismatch", f"jvp(v={v}) output {j}: got {tan[j]!r}, finite differences {fd[j]!r}")
        jvps.append(tan)
    vjps = []
    for u in cots:
        ct = tuple(u) if outputs > 1 else u[0]
        val, cts = run("vjp", lambda: df.vjp(tuple(_copy_args(args)), ct))
        same_value(f"vjp(u={u})", val)
        g = flat_out(list(cts))
        if len(g) != nin:
            fail("mismatch", f"vjp(u={u}): cotangents {cts!r} do not match the {nin} inputs")
        vjps.append(g)
        for v, fd in zip(dirs, fds):
            lhs = sum(a * b for a, b in zip(g, v))
            rhs = sum(a * b for a, b in zip(u, fd))
            if not tol(lhs, rhs):
                fail("mismatch", f"vjp(u={u}): <J^T u, v> = {lhs!r} but finite differences <u, J v> = {rhs!r} (v={v})")
    for v, jv in zip(dirs, jvps):
        for u, jtu in zip(cots, vjps):
            lhs = sum(a * b for a, b in zip(u, jv))
            rhs = sum(a * b for a, b in zip(jtu, v))
            scale = sum(abs(a * b) for a, b in zip(u, jv)) + sum(abs(a * b) for a, b in zip(jtu, v))
            if not _close(lhs, rhs, scale, DUALITY_RTOL, 1e-12):
                fail("mismatch", f"<u, J v> = {lhs!r} but <J^T u, v> = {rhs!r} (u={u}, v={v})")
    if outputs == 1:
        _, ref = run("vjp(1.0)", lambda: df.vjp(tuple(_copy_args(args)), 1.0))
        got = run("grad", lambda: df.grad(*_copy_args(args)))
        if len(layout.wrt) == 1:
            got = (got,)
        if not all(_close(a, b, 0.0, 1e-12, 1e-300) for a, b in zip(flat_out(list(got)), flat_out(list(ref)))):
            fail("mismatch", f"grad = {got!r} but vjp(1.0) gives {ref!r}")
        val, _ = run("value_and_grad", lambda: df.value_and_grad(*_copy_args(args)))
        same_value("value_and_grad", val)
    if stages:
        for stage in ("anf", "dup"):
            got = run(f"source({stage!r}) run", lambda: stage_value(df, mod, stage, args))
            same_value(f"source({stage!r})", got)
    return "ok"


def check_program(spec: Spec, directory: str, seed: int, points: int = 3, stages: bool = True) -> dict:
    """Check one program; returns counts. Raises Failure on a bug."""
    import adcompiler
    from adcompiler.errors import UnsupportedSyntaxError

    counts = {"checked": 0, "skipped": 0, "invalid": 0}
    mod = load_module(spec.source, directory)
    fn = getattr(mod, spec.entry)
    layout = Layout(spec.params)
    rng = random.Random(seed)
    try:
        df = adcompiler.differentiate(fn, wrt=layout.wrt)
        if stages:
            for stage in ("forward", "reverse"):
                compile(df.source(stage), f"<fuzz {stage}>", "exec")
    except UnsupportedSyntaxError as exc:
        raise Failure("refusal", f"{type(exc).__name__}: {exc}", layout.draw(random.Random(seed))) from None
    except Exception as exc:  # noqa: BLE001
        msg = f"building raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        raise Failure("crash", msg, layout.draw(random.Random(seed))) from None
    tried = 0
    while counts["checked"] < points and tried < 4 * points:
        tried += 1
        args = layout.draw(rng)
        try:
            res = check_point(df, fn, mod, layout, args, rng, spec.outputs, stages=stages and counts["checked"] == 0)
        except Failure:
            raise
        except UnsupportedSyntaxError as exc:
            raise Failure("refusal", f"{type(exc).__name__}: {exc}", args) from None
        counts[res if res != "ok" else "checked"] += 1
    return counts


def program_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def report(out_dir: str, tag: str, failure: Failure, spec: Spec) -> str:
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{failure.kind}_{tag}.py")
    with open(path, "w") as fh:
        meta = {"params": spec.params, "outputs": spec.outputs, "point": failure.point}
        fh.write(f"# fuzz: {meta!r}\n")
        for line in failure.message.splitlines()[:40]:
            fh.write(f"# {line}\n")
        fh.write(spec.source)
    return path


# ===================================================================== one program, one point


def check_source(source: str, params, outputs: int, point, seed: int = 0, directory: str | None = None, stages=True):
    """Check `source`'s function f at one point: 'ok' | 'skipped' | 'invalid', or a Failure.

    Used by the minimiser and by the regression tests. Exceptions of the
    primal itself (e.g. a name the minimiser deleted) propagate.
    """
    import adcompiler
    from adcompiler.errors import UnsupportedSyntaxError

    own = directory is None
    directory = directory or tempfile.mkdtemp(prefix="adc_fuzz_one_")
    try:
        mod = load_module(source, directory, "one")
        fn = mod.f
        layout = Layout(params)
        try:
            df = adcompiler.differentiate(fn, wrt=layout.wrt)
            if stages:
                for stage in ("forward", "reverse"):
                    compile(df.source(stage), f"<fuzz {stage}>", "exec")
        except UnsupportedSyntaxError as exc:
            return Failure("refusal", f"{type(exc).__name__}: {exc}", point)
        except Exception as exc:  # noqa: BLE001
            return Failure("crash", f"building raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}", point)
        try:
            return check_point(df, fn, mod, layout, _copy_args(point), random.Random(seed), outputs, stages)
        except Failure as f:
            return f
        except UnsupportedSyntaxError as exc:
            return Failure("refusal", f"{type(exc).__name__}: {exc}", point)
    finally:
        if own:
            import shutil

            shutil.rmtree(directory, ignore_errors=True)


def _signature(f: Failure) -> tuple:
    """What must stay the same while minimising: the kind, and for crashes the exception."""
    if f.kind == "crash":
        first = f.message.splitlines()[0]
        return ("crash", first.split(":")[0])  # e.g. "vjp raised NameError"
    return (f.kind,)


def _stmt_lists(tree):
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            seq = getattr(node, field, None)
            if isinstance(seq, list) and seq and isinstance(seq[0], ast.stmt):
                yield node, field, seq


def _edits(tree) -> list:
    """Candidate simplifications as (description, function mutating a fresh copy)."""
    edits = []
    # statements: delete, or replace a compound statement by its body
    for li, (node, field, seq) in enumerate(_stmt_lists(tree)):
        for si, st in enumerate(seq):
            if isinstance(node, ast.Module) and isinstance(st, ast.FunctionDef) and st.name == "f":
                continue
            if isinstance(node, ast.Module) and isinstance(st, (ast.Import, ast.ImportFrom)):
                continue
            edits.append(("delete", li, si))
            if isinstance(st, (ast.If, ast.For, ast.While)):
                edits.append(("inline", li, si))
                if isinstance(st, ast.If) and st.orelse:
                    edits.append(("inline-else", li, si))
                    edits.append(("drop-else", li, si))
    # expressions: replace by a child, or by a constant
    for ei, node in enumerate(n for n in ast.walk(tree) if isinstance(n, ast.expr)):
        if isinstance(node, (ast.BinOp, ast.Call, ast.IfExp, ast.UnaryOp, ast.BoolOp, ast.Compare)):
            edits.append(("const", ei, None))
            for ci, _ in enumerate(_expr_children(node)):
                edits.append(("child", ei, ci))
        elif isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (0.5, 1.0):
            edits.append(("const", ei, None))
    return edits


def _expr_children(node) -> list:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return []
    if isinstance(node, ast.Call):
        return [a for a in node.args if not isinstance(a, ast.Starred)]
    return []


def _apply(source: str, edit) -> str | None:
    tree = ast.parse(source)
    kind, a, b = edit
    if kind in ("delete", "inline", "inline-else", "drop-else"):
        node, field, seq = list(_stmt_lists(tree))[a]
        st = seq[b]
        if kind == "delete":
            new = []
        elif kind == "inline":
            new = st.body
        elif kind == "inline-else":
            new = st.orelse
        else:
            st.orelse = []
            new = [st]
        seq[b : b + 1] = new
        if not seq:
            seq.append(ast.Pass())
    else:
        # the expression index counts nodes in ast.walk order; map it to the node
        nodes = [n for n in ast.walk(tree) if isinstance(n, ast.expr)]
        target = nodes[a]

        def make(node):
            if kind == "const":
                if isinstance(node, ast.Compare):
                    return ast.Constant(True)
                return ast.Constant(0.5)
            return _expr_children(node)[b]

        class R(ast.NodeTransformer):
            def visit(self, node):
                if node is target:
                    return make(node)
                return super().visit(node)

        tree = R().visit(tree)
    ast.fix_missing_locations(tree)
    try:
        return (
            "import math\n\n\n"
            + "\n\n\n".join(ast.unparse(n) for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom)))
            + "\n"
        )
    except Exception:  # noqa: BLE001
        return None


def minimise(source: str, params, outputs: int, point, seed: int = 0, budget_s: float = 300.0, verbose=False):
    """Greedily simplify a failing program while it fails the same way; returns (source, Failure)."""
    directory = tempfile.mkdtemp(prefix="adc_fuzz_min_")
    first = check_source(source, params, outputs, point, seed, directory)
    if not isinstance(first, Failure):
        raise ValueError(f"the program does not fail at {point!r}: {first}")
    sig = _signature(first)
    best, best_f = source, first
    t0 = time.time()
    i, progress = 0, False
    while time.time() - t0 < budget_s:
        edits = _edits(ast.parse(best))
        if i >= len(edits):
            if not progress:
                break
            i, progress = 0, False
            continue
        cand = _apply(best, edits[i])
        if cand is None or len(cand) >= len(best):
            i += 1
            continue
        try:
            res = check_source(cand, params, outputs, point, seed, directory)
        except Exception:  # noqa: BLE001 - the primal broke: not this bug
            res = None
        if isinstance(res, Failure) and _signature(res) == sig:
            if verbose:
                print(f"  {edits[i][0]}: {len(best)} -> {len(cand)} chars", flush=True)
            best, best_f, progress = cand, res, True
        else:
            i += 1
    best, params, point, best_f = _drop_unused_params(best, params, outputs, point, seed, directory, sig, best_f)
    return best, params, point, best_f


def _drop_unused_params(source, params, outputs, point, seed, directory, sig, failure):
    """Remove parameters of f that its body never reads (and their entries in the point)."""
    for k in reversed(range(len(params))):
        tree = ast.parse(source)
        f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
        name = params[k][1]
        used = any(isinstance(n, ast.Name) and n.id == name for st in f.body for n in ast.walk(st))
        if used or len(params) == 1 or all(p[0] == "int" for i, p in enumerate(params) if i != k):
            continue
        f.args.args = [a for a in f.args.args if a.arg != name]
        cand = ast.unparse(tree) + "\n"
        p2, pt2 = params[:k] + params[k + 1 :], point[:k] + point[k + 1 :]
        try:
            res = check_source(cand, p2, outputs, pt2, seed, directory)
        except Exception:  # noqa: BLE001
            continue
        if isinstance(res, Failure) and _signature(res) == sig:
            source, params, point, failure = cand, p2, pt2, res
    return source, params, point, failure


_KIND_FIELD = {"mismatch": "mismatches", "refusal": "refusals", "crash": "crashes"}


def _one(job):
    """Check program `index` of `seed`: (index, spec, counts or Failure)."""
    seed, index, points, stage_every, tmp, config = job
    ps = program_seed(seed, index)
    spec = generate(random.Random(ps), config)
    try:
        stages = stage_every > 0 and index % stage_every == 0
        return index, spec, check_program(spec, tmp, ps, points, stages)
    except Failure as f:
        return index, spec, f


def read_report(path: str):
    """(source, params, outputs, point) of a file written by report() or a regression file."""
    text = open(path).read()
    meta = None
    for line in text.splitlines():
        if line.startswith("# fuzz: "):
            meta = ast.literal_eval(line[len("# fuzz: ") :])
            break
    if meta is None:
        raise ValueError(f"{path}: no '# fuzz: {{...}}' line")
    params = [tuple(p) for p in meta["params"]]
    return text, params, meta["outputs"], meta["point"]


def run(
    programs: int,
    seed: int,
    out_dir: str | None = None,
    points: int = 3,
    verbose: bool = False,
    jobs: int = 1,
    stage_every: int = 1,
    start: int = 0,
    config: Config = DEFAULT,
) -> Summary:
    """Generate and check programs start..start+programs-1 of `seed`.

    stage_every: check the printed stages on every n-th program (0: never).
    """
    s = Summary()
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="adc_fuzz_") as tmp:
        work = [(seed, k, points, stage_every, tmp, config) for k in range(start, start + programs)]
        if jobs > 1:
            import multiprocessing

            pool = multiprocessing.get_context("fork").Pool(jobs)
            results = pool.imap_unordered(_one, work, chunksize=1)
        else:
            pool = None
            results = map(_one, work)
        try:
            for k, spec, res in results:
                s.programs += 1
                if isinstance(res, Failure):
                    field = _KIND_FIELD[res.kind]
                    setattr(s, field, getattr(s, field) + 1)
                    s.failures.append((res.kind, res.message, spec, res.point))
                    where = f"seed {seed}, program {k}"
                    if out_dir is not None:
                        where = report(out_dir, f"seed{seed}_prog{k}", res, spec)
                        s.reports.append(where)
                    if verbose:
                        print(f"{res.kind}: {where}: {res.message.splitlines()[0]}", flush=True)
                    continue
                s.points_checked += res["checked"]
                s.points_skipped += res["skipped"]
                s.points_invalid += res["invalid"]
                if verbose and s.programs % 100 == 0:
                    s.seconds = time.time() - t0
                    print(f"  ... {s}", flush=True)
        finally:
            if pool is not None:
                pool.close()
                pool.join()
    s.seconds = time.time() - t0
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m adcompiler.fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--out", default=None, help="directory for failing programs (default: a new temp dir)")
    ap.add_argument("--small", action="store_true", help="smaller programs (the CI configuration)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--start", type=int, default=0, help="index of the first program")
    ap.add_argument("--stage-every", type=int, default=1, help="check printed stages on every n-th program (0: never)")
    ap.add_argument("--show", type=int, default=None, help="print program N of the seed and exit")
    ap.add_argument("--minimise", metavar="REPORT", default=None, help="minimise a failing program written by --out")
    a = ap.parse_args(argv)
    if a.minimise:
        src, params, outputs, point = read_report(a.minimise)
        small, params, point, f = minimise(src, params, outputs, point, verbose=True)
        print(f"# {f.kind}: {f.message.splitlines()[0]}")
        print(f"# fuzz: {{'params': {params!r}, 'outputs': {outputs}, 'point': {point!r}}}")
        print(small)
        return 0
    if a.show is not None:
        print(generate(random.Random(program_seed(a.seed, a.show)), SMALL if a.small else DEFAULT).source)
        return 0
    out = a.out or tempfile.mkdtemp(prefix="adc_fuzz_out_")
    s = run(
        a.programs,
        a.seed,
        out,
        a.points,
        verbose=True,
        jobs=a.jobs,
        stage_every=a.stage_every,
        start=a.start,
        config=SMALL if a.small else DEFAULT,
    )
    print(s)
    if s.reports:
        print(f"failing programs written to {out}")
    return 1 if (s.mismatches or s.crashes or s.refusals) else 0


if __name__ == "__main__":
    sys.exit(main())
