"""Differential fuzzing of adcompiler: random programs in the supported subset.

    python -m adcompiler.testing.fuzz --programs 500 --seed 1 [--out DIR] [--points 3]
    python -m adcompiler.testing.fuzz --numpy --programs 200 --seed 1     # NumPy programs (--mode numpy)
    python -m adcompiler.testing.fuzz --mode mixed --programs 200 --seed 1  # each program scalar or NumPy
    python -m adcompiler.testing.fuzz --minimise DIR/crash_seed1_prog7.py   # shrink a reported failure

A seeded generator (``random.Random``, deterministic per seed) writes random
functions as Python source: float (and sometimes list-of-float and int)
parameters, straight-line arithmetic, math functions on safe domains,
branches, ``for``/``while`` loops with ``break``/``continue``/early
``return``, lists, helper functions, tuple outputs.  NumPy programs (NpGen)
add float64 array parameters of small fixed shapes ((n,), (m,), (m, n)),
broadcasting arithmetic with floats, rows, columns and keepdims reductions,
elementwise functions on safe domains, ``maximum``/``where``/``clip``,
reductions, ``dot``/``@``/``outer``/``inner``, shape changes, slices, integer
and boolean indexing, writes into local arrays (``y[i] = ...``,
``Y[:, j] += ...``, ``+=`` on whole arrays), loops over ``range(len(a))``,
branches on array reductions, helpers taking and returning arrays, and array
outputs.  Each program is written to a temporary ``.py`` file and imported
(adcompiler reads source with ``inspect``), differentiated, and checked at a
few random points:

* forward mode (``jvp`` along random directions) against central finite
  differences, reverse mode (``vjp`` with random cotangents) against the same
  finite differences, and ``<u, J v> == <J^T u, v>`` between the two;
* the value returned by ``jvp``/``vjp``/``value_and_grad`` equals the primal;
  ``grad`` equals ``vjp(1.0)``; tangents have the structure (and array
  shapes) of the output, cotangents the shape and dtype of their parameter;
* the printed stages ``anf`` and ``dup`` run and return the primal value, and
  the ``forward``/``reverse`` sources compile.

A point is *skipped* (not a mismatch) when finite differences at step h and
h/10 disagree: the point is within a step of a kink or a branch switch.

Outcomes are counted: programs, points checked, points skipped, mismatches,
refusals (``UnsupportedSyntaxError``: the generator only writes the supported
subset, so a refusal is a bug) and crashes (any other exception raised by
adcompiler or by generated code when the primal runs fine).  Every mismatch,
refusal and crash is written, with its point, to a file in ``--out``.

Open bugs found before are listed in KNOWN_BUGS with their regression files:
by default the generator steps around them, or the checker accepts their
symptom and counts the point as "known-bug" instead of a mismatch, so that a
frequent bug does not hide the others (``--strict`` turns this off).
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
import re
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
        e = type(self).__new__(type(self))  # NpEnv extends this copy
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
    mode: str = "scalar"  # "scalar" (Gen), "numpy" (NpGen) or "mixed" (each program picks one)
    p_array_stmt: float = 0.5  # NumPy programs: share of statements that are array statements
    avoid_known: bool = True  # step around open adcompiler bugs (KNOWN_BUGS) so they do not hide others


# Open adcompiler bugs, each with its regression files in tests/fuzz_regressions/. With Config.avoid_known
# the generator steps around the construct, or the checker accepts the symptom and counts the point as
# "known" (not a mismatch): a frequent bug would otherwise end the check of every program it is in, and
# hide whatever else is wrong there. Remove an entry when its bug is fixed (its regressions then pass).
KNOWN_BUGS = {}

DEFAULT = Config()
SMALL = Config(max_stmts=6, max_helpers=1, helper_stmts=4)  # the CI configuration
NUMPY = Config(mode="numpy", max_stmts=10, helper_stmts=5, p_list_param=0.1, p_int_param=0.2)
NUMPY_SMALL = Config(mode="numpy", max_stmts=6, max_helpers=1, helper_stmts=4, p_list_param=0.1, p_int_param=0.2)
MIXED = Config(mode="mixed")


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
            return f"{_lit(cap)} * {tanh}({src})", cap
        s, sb = self.asquash(src, b, cap) if arrays else self.squash(src, b, cap)
        if sb <= cap:
            return s, sb
        return f"{_lit(cap)} * {tanh}({src})", cap

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
        env = self.new_env()
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
        env = self.new_env()
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


# ===================================================================== NumPy programs


@dataclasses.dataclass
class ArrInfo:
    """An array variable: its shape (fixed for the variable's life), a bound on |entries|, and ownership.

    writable: the array is a fresh object this function made (a constructor, a copy, arithmetic), and no
    other name refers to it, so element writes and ``+=`` change nothing else. Parameters and views
    (slices, ``.T``, reshapes) are never writable: README supports writes into local arrays only, and
    says nothing of arrays that alias.
    """

    shape: tuple
    bound: float
    writable: bool


class NpEnv(Env):
    """Env plus the array variables in scope."""

    def __init__(self):
        super().__init__()
        self.arrays: dict[str, ArrInfo] = {}
        self.acaps: dict[str, float] = {}  # arrays assigned inside the current loop stay below

    def copy(self) -> "NpEnv":
        e = super().copy()
        e.arrays = {k: dataclasses.replace(v) for k, v in self.arrays.items()}
        e.acaps = dict(self.acaps)
        return e


@dataclasses.dataclass
class ArrayHelper:
    """A helper taking arrays: params ("array", name, shape) | ("float", name); outs: None (a float) or a shape."""

    name: str
    params: list
    default: bool  # the float parameter (always last) has a default
    outs: list
    bound: float


# NumPy calls whose result is a new array (never a view of an argument): see NpGen.is_fresh
_FRESH_CALLS = {
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "exp", "expm1", "log", "log1p",
    "log2", "log10", "sqrt", "square", "abs", "sign", "maximum", "minimum", "where", "clip", "power", "hypot",
    "logaddexp", "arctan2", "sum", "mean", "max", "min", "dot", "matmul", "outer", "inner", "cumsum", "copy",
    "array", "concatenate", "stack", "hstack", "vstack", "zeros", "ones", "zeros_like", "ones_like", "full",
    "arange", "eye", "linspace",
}  # fmt: skip


class NpGen(Gen):
    """Random NumPy programs in README's supported subset, on top of the scalar generator.

    Every array variable has one small fixed shape: a program picks dimensions n (2..4) and m (2..3) and
    uses shapes (n,), (m,) and (m, n) for its variables (any (r, c) with r, c in {n, m} inside
    expressions). Statements are the scalar generator's (floats, lists, branches, loops, helpers) mixed
    with array statements (see array_stmt); scalar expressions also read arrays (reductions, dot
    products, elements), so branch conditions and loop bounds depend on array values.
    """

    def __init__(self, rng: random.Random, config: Config = DEFAULT):
        super().__init__(rng, config)
        self.np = "np"
        self.dims: list[int] = []
        self.shapes: list[tuple] = []
        self.ahelpers: list[ArrayHelper] = []
        self.out_kinds: list = [None]
        self.fresh_returns = False  # helpers return fresh arrays, so a call never aliases its arguments

    def new_env(self) -> NpEnv:
        return NpEnv()

    # ---------------------------------------------------------------- small tools

    def f(self, name: str) -> str:
        """A NumPy function under the program's import alias."""
        return f"{self.np}.{name}"

    def arrays_of(self, env: NpEnv, shape: tuple) -> list[str]:
        return [n for n, a in getattr(env, "arrays", {}).items() if a.shape == shape]

    def is_fresh(self, src: str) -> bool:
        """Is the value of src a new array (not a view of, nor the same object as, a variable)?"""
        node = ast.parse(src, mode="eval").body
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            return True
        if isinstance(node, ast.Call):
            fn = node.func
            if isinstance(fn, ast.Name):
                return fn.id.startswith("h")  # helpers return fresh arrays (fresh_returns)
            if isinstance(fn, ast.Attribute):
                if isinstance(fn.value, ast.Name) and fn.value.id == self.np:
                    return fn.attr in _FRESH_CALLS
                return fn.attr in ("copy", "sum", "mean", "max", "min", "dot", "cumsum", "clip")
        if isinstance(node, ast.Subscript):  # advanced indexing copies
            idx = node.slice
            return isinstance(idx, (ast.Compare, ast.Call))
        return False

    def names_in(self, src: str) -> set[str]:
        return {n.id for n in ast.walk(ast.parse(src, mode="eval")) if isinstance(n, ast.Name)}

    def owned(self, env: NpEnv, src: str) -> tuple[str, bool]:
        """src made safe to bind to a name: (src, writable).

        A view of (or another name for) a writable array would see that array's later element writes
        (aliasing, which README does not claim for arrays): such a value is copied. Fresh values are
        writable; other views stay read-only (sometimes copied, to make a writable array).
        """
        if self.is_fresh(src):
            return src, True
        writable = {n for n, a in env.arrays.items() if a.writable}
        if self.names_in(src) & writable or self.chance(0.2):
            if isinstance(ast.parse(src, mode="eval").body, (ast.Name, ast.Attribute, ast.Subscript)):
                return (f"{src}.copy()" if self.chance(0.5) else f"{self.f('copy')}({src})"), True
            return f"{self.f('copy')}({src})", True
        return src, False

    def wrap(self, src: str) -> str:
        """src as an operand of a postfix ([...], .T, .method())."""
        node = ast.parse(src, mode="eval").body
        if isinstance(node, (ast.Name, ast.Call, ast.Subscript, ast.Attribute)):
            return src
        return f"({src})"

    def asquash(self, src: str, b: float, cap: float = SQUASH_AT) -> tuple[str, float]:
        """An array expression with entries of src's signs and bound <= cap (squash, elementwise)."""
        return self.squash(src, b, cap, (self.f("tanh"), self.f("sin"), self.f("arctan"), self.f("abs")))

    def afit(self, src: str, b: float, cap: float) -> tuple[str, float]:
        """Make the bound of an array expression at most cap."""
        return self.fit(src, b, cap, arrays=True)

    def index_dim(self, env: Env, dim: int) -> str:
        """An integer index valid on an axis of length dim."""
        rng = self.rng
        cands = [str(k) for k in range(dim)] + ["-1", f"-{dim}"]
        for i, ix in env.idx.items():
            if ix.hi <= dim:
                cands += [i, i, f"{i} - 1", f"-1 - {i}"]
            cands += [f"({i} + 1) % {dim}"]
        for k in env.ints:
            cands += [f"{k} % {dim}"]
        return rng.choice(cands)

    # ---------------------------------------------------------------- array expressions

    def aexpr(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An array expression of exactly this shape, and a bound on its entries."""
        src, b = self._aexpr(env, shape, depth)
        return self.asquash(src, b)

    def const_array(self, shape: tuple) -> tuple[str, float]:
        rng = self.rng
        c = _c(rng)
        if len(shape) == 1:
            (k,) = shape
            return rng.choice(
                [
                    (f"{self.f('linspace')}(-1.0, 1.0, {k})", 1.0),
                    (f"0.25 * {self.f('arange')}({k}.0)", 0.25 * k),
                    (f"{self.f('ones')}({k})", 1.0),
                    (f"{self.f('full')}({k}, {_lit(c)})", abs(c)),
                    (f"{self.f('array')}([{', '.join(_lit(_c(rng)) for _ in range(k))}])", 1.0),
                ]
            )
        r, cc = shape
        return rng.choice(
            [
                (f"{self.f('eye')}({r}, {cc})", 1.0),
                (f"{self.f('ones')}(({r}, {cc}))", 1.0),
                (f"{self.f('full')}(({r}, {cc}), {_lit(c)})", abs(c)),
                (f"0.1 * {self.f('arange')}({r * cc}.0).reshape({r}, {cc})", 0.1 * r * cc),
                (f"{self.f('linspace')}(-1.0, 1.0, {r * cc}).reshape(({r}, {cc}))", 1.0),
            ]
        )

    def aleaf(self, env: NpEnv, shape: tuple, derive: bool = True) -> tuple[str, float]:
        names = self.arrays_of(env, shape)
        if names and self.chance(0.85):
            name = names[-1 - min(int(self.rng.expovariate(0.6)), len(names) - 1)]
            return name, env.arrays[name].bound
        if derive and self.chance(0.6):
            return self.reshape_expr(env, shape, 0)
        return self.const_array(shape)

    def sub(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An operand: an expression when depth allows, else a leaf that derives nothing."""
        if depth <= 0:
            return self.aleaf(env, shape, derive=False)
        return self.aexpr(env, shape, depth)

    def scalar(self, env: NpEnv, depth: int) -> tuple[str, float]:
        return self.expr(env, max(0, depth))

    def broadcast_operand(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An operand that broadcasts to shape without having it: a float, a row, a column, keepdims."""
        rng = self.rng
        if len(shape) == 1 or self.chance(0.3):
            return self.scalar(env, depth)
        r, c = shape
        k = rng.random()
        if k < 0.35:
            return self.sub(env, (c,), depth)
        if k < 0.6:
            u, b = self.sub(env, (r,), depth)
            form = rng.choice(
                [f"{self.wrap(u)}[:, None]", f"{self.f('expand_dims')}({u}, 1)", f"{self.wrap(u)}.reshape({r}, 1)"]
            )
            return form, b
        if k < 0.75:
            w, b = self.sub(env, (c,), depth)
            return rng.choice([f"{self.wrap(w)}[None, :]", f"{self.f('expand_dims')}({w}, 0)"]), b
        X, b = self.sub(env, shape, depth)
        axis = rng.choice([0, 1, -1])
        n_red = r if axis == 0 else c
        fn = rng.choice(["sum", "mean", "max", "min"])
        if fn == "sum":
            return f"{self.f('sum')}({X}, axis={axis}, keepdims=True)", b * n_red
        if self.chance(0.3):
            return f"{self.wrap(X)}.{fn}(axis={axis}, keepdims=True)", b
        return f"{self.f(fn)}({X}, axis={axis}, keepdims=True)", b

    def _aexpr(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        rng = self.rng
        if depth <= 0 or self.chance(0.15):
            return self.aleaf(env, shape)
        sub = lambda: self.aexpr(env, shape, depth - 1)  # noqa: E731
        r = rng.random()
        if r < 0.22:  # arithmetic: array op array | float | broadcast operand
            a, ba = sub()
            k = rng.random()
            if k < 0.5:
                b, bb = sub()
            else:
                b, bb = self.broadcast_operand(env, shape, depth - 1)
            if self.chance(0.3):
                a, ba, b, bb = b, bb, a, ba
            op = rng.choice(["+", "-", "*", "*"])
            if op == "*":
                return f"({a}) * ({b})", ba * bb
            return f"({a} {op} {b})", ba + bb
        if r < 0.29:  # division by something away from zero
            a, ba = sub()
            full = self.chance(0.6)  # the denominator has the shape (else it broadcasts)
            b, _ = sub() if full else self.broadcast_operand(env, shape, depth - 1)
            den = rng.choice(
                [
                    (f"(1.0 + {self.f('square')}({b}))", 1.0),
                    (f"(1.0 + ({b}) ** 2)", 1.0),
                    (f"(2.0 + {self.f('sin')}({b}))", 1.0),
                    (f"(1.5 + {self.f('tanh')}({b}))", 0.5),
                    (f"(1.0 + {self.f('abs')}({b}))", 1.0),
                ]
            )
            if full and self.chance(0.25):  # a float over an array of the shape
                s, sb = self.scalar(env, depth - 1)
                return f"({s}) / {den[0]}", sb / den[1]
            return f"({a}) / {den[0]}", ba / den[1]
        if r < 0.36:
            return self.apower(env, shape, depth)
        if r < 0.58:
            return self.aunary(env, shape, depth)
        if r < 0.68:
            return self.abinary(env, shape, depth)
        if r < 0.84:
            return self.reshape_expr(env, shape, depth - 1)
        if r < 0.88:
            (a, ba), (b, bb) = sub(), sub()
            return f"({a} if {self.cond(env)} else {b})", max(ba, bb)
        if r < 0.91:
            a, ba = sub()
            return f"-({a})", ba
        if r < 0.97:
            hs = [h for h in self.ahelpers if h.outs == [shape]]
            if hs:
                h = rng.choice(hs)
                return f"{h.name}({self.ahelper_args(env, h)})", h.bound
        return self.aleaf(env, shape)

    def apower(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        rng = self.rng
        a, ba = self.aexpr(env, shape, depth - 1)
        k = rng.random()
        if k < 0.35:
            a, ba = self.afit(a, ba, 2.0)
            e = rng.choice([2, 2, 3])
            if self.chance(0.3):
                return f"{self.f('power')}({a}, {e})", ba**e
            return f"({a}) ** {e}", ba**e
        if k < 0.5:
            return f"(1.0 + {self.f('square')}({a})) ** -1", 1.0
        if k < 0.7:  # an active array exponent
            b, bb = self.aexpr(env, shape, depth - 1) if self.chance(0.6) else self.scalar(env, depth - 1)
            b, bb = self.afit(b, bb, 2.0)  # np.tanh squashes floats and arrays alike
            a1, _ = self.afit(a, ba, 1.0)
            if self.chance(0.3):
                return f"{self.f('power')}(1.0 + {self.f('square')}({a1}), {b})", 2.0**bb
            return f"(1.2 + {self.f('sin')}({a1})) ** ({b})", 2.2**bb
        if k < 0.85:  # a float base, an array exponent
            s, _ = self.scalar(env, depth - 1)
            a, ba = self.afit(a, ba, 2.0)
            return f"(1.2 + math.sin({s})) ** ({a})", 2.2**ba
        a, ba = self.afit(a, ba, 2.0)
        return f"2.0 ** ({a})", 2.0**ba

    def aunary(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        rng = self.rng
        a, ba = self.aexpr(env, shape, depth - 1)
        fn = rng.choice(
            ["sin", "cos", "tanh", "arctan", "exp", "expm1", "sinh", "cosh", "log", "log1p", "log2", "log10"]
            + ["sqrt", "abs", "square", "sign", "arcsin", "arccos", "tan"]
        )
        F = self.f(fn)
        if fn in ("sin", "cos", "tanh"):
            return f"{F}({a})", 1.0
        if fn == "arctan":
            return f"{F}({a})", 1.6
        if fn in ("exp", "expm1", "sinh", "cosh"):
            a, ba = self.afit(a, ba, 2.0)
            return f"{F}({a})", math.exp(ba)
        if fn in ("log", "log2", "log10"):
            a, ba = self.afit(a, ba, 10.0)
            return f"{F}(1.0 + {self.f('square')}({a}))", math.log(1 + ba * ba) * 1.5
        if fn == "log1p":
            a, ba = self.afit(a, ba, 10.0)
            return rng.choice([f"{F}({self.f('abs')}({a}))", f"{F}(({a}) ** 2)"]), math.log1p(ba * ba)
        if fn == "sqrt":
            return f"{F}(1.0 + ({a}) ** 2)", math.sqrt(1 + ba * ba)
        if fn == "abs":
            return f"{F}({a})", ba
        if fn == "square":
            a, ba = self.afit(a, ba, 2.0)
            return f"{F}({a})", ba * ba
        if fn == "sign":
            if len(a) > 30:
                return f"{self.f('abs')}({a})", ba
            return f"{F}({a}) * {self.wrap(a)}", ba
        if fn in ("arcsin", "arccos"):
            return f"{F}(0.9 * {self.f('tanh')}({a}))", 2.7
        return f"{F}(0.5 * {self.f('tanh')}({a}))", 0.6

    def acond(self, env: NpEnv, shape: tuple, depth: int) -> str:
        """An elementwise comparison, for np.where."""
        a, _ = self.aexpr(env, shape, max(0, depth - 1))
        op = self.rng.choice([">", "<", ">=", "<="])
        if self.chance(0.5):
            b, _ = self.aexpr(env, shape, 0)
            return f"{a} {op} {b}"
        return f"{a} {op} {_lit(_c(self.rng, -0.8, 0.8))}"

    def abinary(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        rng = self.rng
        a, ba = self.aexpr(env, shape, depth - 1)
        if self.chance(0.6):
            b, bb = self.aexpr(env, shape, depth - 1)
        else:
            b, bb = self.broadcast_operand(env, shape, depth - 1)
        fn = rng.choice(["maximum", "minimum", "where", "where", "clip", "hypot", "logaddexp", "arctan2"])
        F = self.f(fn)
        if fn in ("maximum", "minimum"):
            if self.chance(0.3):
                return f"{F}({a}, {_lit(_c(rng, -0.5, 0.5))})", ba
            return f"{F}({a}, {b})", max(ba, bb)
        if fn == "where":
            return f"{F}({self.acond(env, shape, depth)}, {a}, {b})", max(ba, bb)
        if fn == "clip":
            lo = _c(rng, -1.0, 0.0)
            hi = round(lo + rng.uniform(0.3, 1.5), 2)
            if self.chance(0.3):
                return f"{self.wrap(a)}.clip({_lit(lo)}, {_lit(hi)})", max(abs(lo), abs(hi))
            return f"{F}({a}, {_lit(lo)}, {_lit(hi)})", max(abs(lo), abs(hi))
        if fn == "hypot":
            return f"{F}({a}, {b})", ba + bb
        if fn == "logaddexp":
            a, ba = self.afit(a, ba, 10.0)
            return f"{F}({a}, {b})", max(ba, bb) + 0.7
        b2, _ = self.afit(b, bb, 1.0)
        return f"{F}({a}, 1.5 + {b2})", 3.2

    def reshape_expr(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An expression of this shape made from arrays of other shapes (or an array of it, re-arranged)."""
        rng = self.rng
        S = lambda sh: self.sub(env, sh, depth)  # noqa: E731
        opts = []
        dims = self.dims
        if len(shape) == 1:
            (k,) = shape

            def row(r=None):
                r = r if r is not None else rng.choice(dims)
                X, b = S((r, k))
                i = self.index_dim(env, r)
                return rng.choice([f"{self.wrap(X)}[{i}]", f"{self.wrap(X)}[{i}, :]"]), b

            def col():
                c = rng.choice(dims)
                X, b = S((k, c))
                return f"{self.wrap(X)}[:, {self.index_dim(env, c)}]", b

            def reduce_axis():
                other = rng.choice(dims)
                axis = rng.choice([0, 1, -1])
                X, b = S((other, k) if axis == 0 else (k, other))
                fn = rng.choice(["sum", "mean", "max", "min"])
                mult = other if fn == "sum" else 1
                if self.chance(0.3):
                    return f"{self.wrap(X)}.{fn}(axis={axis})", b * mult
                return f"{self.f(fn)}({X}, axis={axis})" if self.chance(0.7) else f"{self.f(fn)}({X}, {axis})", b * mult

            def matvec():
                c = rng.choice(dims)
                X, bx = S((k, c))
                w, bw = S((c,))
                form = rng.choice(
                    [f"{self.wrap(X)} @ {self.wrap(w)}", f"{self.f('dot')}({X}, {w})", f"{self.f('matmul')}({X}, {w})"]
                    + [f"{self.f('inner')}({X}, {w})", f"{self.wrap(X)}.dot({w})"]
                )
                return form, bx * bw * c

            def vecmat():
                r = rng.choice(dims)
                w, bw = S((r,))
                X, bx = S((r, k))
                return rng.choice([f"{self.wrap(w)} @ {self.wrap(X)}", f"{self.f('dot')}({w}, {X})"]), bx * bw * r

            def rearrange():
                a, b = S(shape)
                return (
                    rng.choice(
                        [
                            f"{self.wrap(a)}[::-1]",
                            f"{self.f('squeeze')}({self.wrap(a)}[None, :])",
                            f"{self.f('squeeze')}({self.f('expand_dims')}({a}, 1), axis=1)",
                            f"{self.f('ravel')}({self.wrap(a)}[:, None])",
                            f"{self.wrap(a)}.reshape(1, {k}).ravel()",
                        ]
                    ),
                    b,
                )

            def cumsum():
                a, b = S(shape)
                return (f"{self.f('cumsum')}({a})" if self.chance(0.7) else f"{self.wrap(a)}.cumsum()"), b * k

            def splice():
                a, ba = S(shape)
                b, bb = S(shape)
                j = rng.randint(1, k - 1)
                fn = rng.choice(["concatenate", "concatenate", "hstack"])
                return f"{self.f(fn)}([{self.wrap(a)}[:{j}], {self.wrap(b)}[{j}:]])", max(ba, bb)

            def slice_longer():
                L = rng.choice([d for d in dims if d > k])
                a, b = S((L,))
                forms = [f"[:{k}]", f"[{L - k}:]", f"[-{k}:]"]
                if L >= k + 1:
                    forms.append(f"[1:{k + 1}]")
                if (L + 1) // 2 == k:
                    forms.append("[::2]")
                if L // 2 == k:
                    forms.append("[1::2]")
                return f"{self.wrap(a)}{rng.choice(forms)}", b

            def take():
                L = rng.choice(dims)
                a, b = S((L,))
                idx = [rng.randint(-L, L - 1) if self.chance(0.2) else rng.randint(0, L - 1) for _ in range(k)]
                return f"{self.wrap(a)}[{self.f('array')}({idx})]", b

            def ravel():
                pairs = [(r, c) for r in dims for c in dims if r * c == k]
                X, b = S(rng.choice(pairs))
                return (
                    rng.choice(
                        [f"{self.f('ravel')}({X})", f"{self.wrap(X)}.ravel()", f"{self.f('reshape')}({X}, ({k},))"]
                    ),
                    b,
                )

            def diag():
                X, b = S((k, k))
                return f"{self.f('diag')}({X})", b

            opts = [row, row, col, reduce_axis, reduce_axis, matvec, matvec, vecmat, rearrange, cumsum]
            if k >= 2:
                opts.append(splice)
            if any(d > k for d in dims):
                opts += [slice_longer, slice_longer]
            opts.append(take)
            if any(r * c == k for r in dims for c in dims):
                opts.append(ravel)
            opts.append(diag)
            if len(self.shapes) == 1:  # a 1-D program: no matrices
                opts = [rearrange, cumsum, splice, take, rearrange] + (
                    [slice_longer] if any(d > k for d in dims) else []
                )
                if k < 2:
                    opts.remove(splice)
            return rng.choice(opts)()
        r, c = shape

        def outer():
            (u, bu), (w, bw) = S((r,)), S((c,))
            return (
                rng.choice(
                    [
                        f"{self.f('outer')}({u}, {w})",
                        f"{self.wrap(u)}[:, None] * {self.wrap(w)}[None, :]",
                        f"{self.wrap(u)}[:, None] * {self.wrap(w)}",
                        f"{self.f('expand_dims')}({u}, 1) @ {self.f('expand_dims')}({w}, 0)",
                    ]
                ),
                bu * bw,
            )

        def transpose():
            X, b = S((c, r))
            forms = [f"{self.f('transpose')}({X})", f"{self.f('swapaxes')}({X}, 0, 1)", f"{self.wrap(X)}.transpose()"]
            return rng.choice(forms + [f"{self.wrap(X)}.T"]), b

        def matmul():
            k = rng.choice(dims)
            (X, bx), (Y, by) = S((r, k)), S((k, c))
            form = rng.choice(
                [f"{self.wrap(X)} @ {self.wrap(Y)}", f"{self.f('dot')}({X}, {Y})", f"{self.f('matmul')}({X}, {Y})"]
            )
            return form, bx * by * k

        def inner():
            k = rng.choice(dims)
            (X, bx), (Y, by) = S((r, k)), S((c, k))
            return f"{self.f('inner')}({X}, {Y})", bx * by * k

        def reshape():
            X, b = S((c, r))
            return (
                rng.choice(
                    [f"{self.f('reshape')}({X}, ({r}, {c}))", f"{self.wrap(X)}.reshape({r}, {c})"]
                    + [f"{self.wrap(X)}.reshape(({r}, {c}))", f"{self.wrap(X)}.ravel().reshape({r}, {c})"]
                ),
                b,
            )

        def broadcast_to():
            if self.chance(0.5):
                w, b = S((c,))
                return f"{self.f('broadcast_to')}({w}, ({r}, {c}))", b
            u, b = S((r,))
            return f"{self.f('broadcast_to')}({self.wrap(u)}[:, None], ({r}, {c}))", b

        def stack():
            if r <= 3 and self.chance(0.5):
                rows = [S((c,)) for _ in range(r)]
                fn = rng.choice(["stack", "vstack"])
                return f"{self.f(fn)}([{', '.join(s for s, _ in rows)}])", max(b for _, b in rows)
            if c <= 3:
                cols = [S((r,)) for _ in range(c)]
                return f"{self.f('stack')}([{', '.join(s for s, _ in cols)}], axis=1)", max(b for _, b in cols)
            return outer()

        def splice():
            (X, bx), (Y, by) = S(shape), S(shape)
            if self.chance(0.5):
                j = rng.randint(1, r - 1)
                fn = rng.choice(["concatenate", "vstack"])
                return f"{self.f(fn)}([{self.wrap(X)}[:{j}], {self.wrap(Y)}[{j}:]])", max(bx, by)
            j = rng.randint(1, c - 1)
            if self.chance(0.5):
                return f"{self.f('hstack')}([{self.wrap(X)}[:, :{j}], {self.wrap(Y)}[:, {j}:]])", max(bx, by)
            return f"{self.f('concatenate')}([{self.wrap(X)}[:, :{j}], {self.wrap(Y)}[:, {j}:]], axis=1)", max(bx, by)

        def diag():
            w, b = S((r,))
            return f"{self.f('diag')}({w})", b

        def cumsum():
            X, b = S(shape)
            axis = rng.choice([0, 1])
            return f"{self.f('cumsum')}({X}, axis={axis})", b * shape[axis]

        def flip():
            X, b = S(shape)
            return f"{self.wrap(X)}{rng.choice(['[::-1]', '[:, ::-1]', '[::-1, ::-1]', '[::-1, :]'])}", b

        def take_rows():
            L = rng.choice(dims)
            X, b = S((L, c))
            idx = [rng.randint(0, L - 1) for _ in range(r)]
            return f"{self.wrap(X)}[{self.f('array')}({idx})]", b

        opts = [outer, outer, transpose, transpose, matmul, matmul, inner, reshape, broadcast_to, stack, cumsum, flip]
        opts.append(take_rows)
        if r >= 2 and c >= 2:
            opts.append(splice)
        if r == c:
            opts.append(diag)
        return rng.choice(opts)()

    # ---------------------------------------------------------------- floats from arrays

    def array_scalar(self, env: NpEnv, depth: int) -> tuple[str, float]:
        """A float read from arrays: a reduction, a dot product, an element."""
        rng = self.rng
        shapes = sorted({a.shape for a in env.arrays.values()}) or self.shapes
        shape = rng.choice(shapes)
        X, b = self.aexpr(env, shape, depth) if depth > 0 and self.chance(0.5) else self.aleaf(env, shape)
        size = math.prod(shape)
        k = rng.random()
        if k < 0.35:
            fn = rng.choice(["sum", "sum", "mean", "max", "min"])
            mult = size if fn == "sum" else 1
            if self.chance(0.3):
                return f"{self.wrap(X)}.{fn}()", b * mult
            return f"{self.f(fn)}({X})", b * mult
        if k < 0.55:  # an element
            if len(shape) == 1:
                return f"{self.wrap(X)}[{self.index_dim(env, shape[0])}]", b
            i, j = self.index_dim(env, shape[0]), self.index_dim(env, shape[1])
            return (f"{self.wrap(X)}[{i}, {j}]" if self.chance(0.7) else f"{self.wrap(X)}[{i}][{j}]"), b
        if k < 0.75:  # a dot product
            Y, by = self.aleaf(env, shape)
            if len(shape) == 1:
                form = rng.choice(
                    [f"{self.wrap(X)} @ {self.wrap(Y)}", f"{self.f('dot')}({X}, {Y})", f"{self.f('inner')}({X}, {Y})"]
                    + [f"{self.wrap(X)}.dot({Y})"]
                )
                return form, b * by * size
            return f"{self.f('sum')}(({X}) * ({Y}))", b * by * size
        if k < 0.83 and len(shape) == 1:
            return f"{self.f('linalg')}.norm({X})", b * math.sqrt(size)
        if k < 0.88 and len(shape) == 2 and shape[0] == shape[1]:
            return (f"{self.f('trace')}({X})" if self.chance(0.7) else f"{self.wrap(X)}.trace()"), b * shape[0]
        if k < 0.94 and len(X) < 30:  # a boolean mask
            return f"{self.f('sum')}({self.wrap(X)}[{self.wrap(X)} > {_lit(_c(rng, -0.5, 0.5))}])", b * size
        hs = [h for h in self.ahelpers if h.outs == [None]]
        if hs:
            h = rng.choice(hs)
            return f"{h.name}({self.ahelper_args(env, h)})", h.bound
        return f"{self.f('sum')}({X})", b * size

    def leaf(self, env: Env) -> tuple[str, float]:
        if getattr(env, "arrays", None) and self.chance(0.4):
            src, b = self.array_scalar(env, 0)  # depth 0: leaves never recurse
            return self.squash(src, b)
        return super().leaf(env)

    def live_mix(self, env: Env, src: str, b: float) -> tuple[str, float]:
        """The scalar live_mix, plus small multiples of a few array reductions (so array code is live)."""
        src, b = super().live_mix(env, src, b)
        arrays = list(getattr(env, "arrays", {}))
        if arrays and self.chance(0.7):
            for name in self.rng.sample(arrays, min(len(arrays), self.rng.randint(1, 2))):
                info = env.arrays[name]
                fn = self.rng.choice(["sum", "mean", "max"])
                t, tb = self.fit(
                    f"{self.f(fn)}({name})", info.bound * (math.prod(info.shape) if fn == "sum" else 1), 3.0
                )
                src, b = f"{src} + {_lit(_c(self.rng, -0.7, 0.7))} * {t}", b + 0.7 * tb
        return src, b

    def alive_mix(self, env: NpEnv, shape: tuple, src: str, b: float) -> tuple[str, float]:
        """An array output plus small multiples of same-shaped arrays and floats."""
        names = self.arrays_of(env, shape) + list(env.floats)
        if not names or self.chance(0.25):
            return src, b
        for n in self.rng.sample(names, min(len(names), self.rng.randint(1, 2))):
            nb = env.arrays[n].bound if n in env.arrays else env.floats[n]
            t, tb = (self.afit if n in env.arrays else self.fit)(n, nb, 3.0)
            src, b = f"{src} + {_lit(_c(self.rng, -0.7, 0.7))} * {t}", b + 0.7 * tb
        return src, b

    # ---------------------------------------------------------------- helpers with arrays

    def ahelper_args(self, env: NpEnv, h: ArrayHelper) -> str:
        args = []
        for p in h.params:
            if p[0] == "array":
                a, b = self.aexpr(env, p[2], 1)
                args.append(self.afit(a, b, HELPER_BOUND)[0])
            elif not (h.default and self.chance(0.4)):
                a, b = self.expr(env, 1)
                a = self.fit(a, b, HELPER_BOUND)[0]
                args.append(f"{p[1]}={a}" if h.default and self.chance(0.5) else a)
        return ", ".join(args)

    def array_helper(self, idx: int) -> list[str]:
        rng = self.rng
        name = f"h{idx}"
        shape = rng.choice(self.shapes)
        params = [("array", "a", shape)]
        if self.chance(0.4):
            params.append(("array", "b", rng.choice(self.shapes)))
        default = False
        if self.chance(0.5):
            params.append(("float", "s"))
            default = self.chance(0.3)
        outs = rng.choice([[None], [None], [shape], [shape], [shape, None], [None, None]])
        env = self.new_env()
        saved, self.lines, self.indent = self.lines, [], 1
        for p in params:
            if p[0] == "array" and self.avoiding("helper_array_param_list"):
                local = self.fresh("u")  # the body never reads the parameter, only this copy
                self.emit(f"{local} = {self.f('copy')}({p[1]})")
                env.arrays[local] = ArrInfo(p[2], HELPER_BOUND, True)
            elif p[0] == "array":
                env.arrays[p[1]] = ArrInfo(p[2], HELPER_BOUND, False)
            else:
                env.floats[p[1]] = HELPER_BOUND
        sig = [p[1] for p in params]
        if default:
            sig[-1] = f"s={_lit(_c(rng))}"
        self.fresh_returns = True
        bound = self.function(name, env, rng.randint(2, max(2, self.config.helper_stmts)), outs)
        self.fresh_returns = False
        body, self.lines = self.lines, saved
        self.ahelpers.append(ArrayHelper(name, params, default, outs, bound))
        return [f"def {name}({', '.join(sig)}):"] + body

    # ---------------------------------------------------------------- statements

    def stmt(self, env: Env, depth: int, budget: list) -> None:
        if getattr(env, "arrays", None) and self.chance(self.config.p_array_stmt):
            budget[0] -= 1
            self.array_stmt(env, depth, budget)
            return
        super().stmt(env, depth, budget)

    def assign_array(self, env: NpEnv, name: str, src: str, b: float, shape: tuple) -> None:
        """name = src (a new or an existing array variable), keeping loop caps and ownership."""
        info = env.arrays.get(name)
        if name in env.acaps:
            src, b = self.afit(src, b, env.acaps[name])
        src, writable = self.owned(env, src)
        if info is not None and info.writable and not writable:
            src, writable = f"{self.f('copy')}({src})", True
        self.emit(f"{name} = {src}")
        if info is not None:
            info.bound = b
        else:
            env.arrays[name] = ArrInfo(shape, b, writable)

    def pick_shape(self, env: NpEnv) -> tuple:
        have = [a.shape for a in env.arrays.values()]
        if have and self.chance(0.6):
            return self.rng.choice(have)
        return self.rng.choice(self.shapes)

    def array_stmt(self, env: NpEnv, depth: int, budget: list) -> None:
        rng = self.rng
        r = rng.random()
        compound_ok = depth < 3 and budget[0] > 0
        writable = [n for n, a in env.arrays.items() if a.writable]
        reassignable = [n for n in env.arrays if n not in env.readonly]
        if r < 0.26:
            self.new_array(env)
        elif r < 0.38 and reassignable:
            name = rng.choice(reassignable)
            shape = env.arrays[name].shape
            src, b = self.aexpr(env, shape, rng.randint(1, 3))
            if self.chance(0.3):  # an Euler-like update
                src, b = f"{name} + {_lit(_c(rng, -0.3, 0.3))} * {self.wrap(src)}", env.arrays[name].bound + 0.3 * b
            self.assign_array(env, name, src, b, shape)
        elif r < 0.50 and writable:
            self.array_aug(env, rng.choice(writable))
        elif r < 0.64 and writable:
            self.element_write(env, rng.choice(writable))
        elif r < 0.76 and compound_ok:
            self.fill_loop(env, depth, budget)
        elif r < 0.86 and compound_ok:
            self.array_for(env, depth, budget)
        elif r < 0.93:
            name = self.fresh("t")
            src, b = self.array_scalar(env, rng.randint(0, 2))
            self.emit(f"{name} = {src}")
            env.floats[name] = b
            if b > SQUASH_AT:
                self.assign_float(env, name, *self.squash(name, b))
        elif any(len(h.outs) == 2 for h in self.ahelpers):
            h = rng.choice([h for h in self.ahelpers if len(h.outs) == 2])
            names = [self.fresh("u" if o is not None else "t") for o in h.outs]
            self.emit(f"{', '.join(names)} = {h.name}({self.ahelper_args(env, h)})")
            for n, o in zip(names, h.outs):
                if o is None:
                    env.floats[n] = h.bound
                else:
                    env.arrays[n] = ArrInfo(o, h.bound, True)
        else:
            self.new_array(env)

    def new_array(self, env: NpEnv) -> None:
        rng = self.rng
        shape = self.pick_shape(env)
        name = self.fresh("u")
        same = self.arrays_of(env, shape)
        k = rng.random()
        if k < 0.12:
            dims = f"{shape[0]}" if len(shape) == 1 else f"({shape[0]}, {shape[1]})"
            c = _c(rng)
            likes = same
            src, b = rng.choice(
                [
                    (f"{self.f('zeros')}({dims})", 0.0),
                    (f"{self.f('ones')}({dims})", 1.0),
                    (f"{self.f('full')}({dims}, {_lit(c)})", abs(c)),
                ]
                + [(f"{self.f(fn)}({n})", 1.0) for n in likes for fn in ("zeros_like", "ones_like")]
            )
            self.emit(f"{name} = {src}")
            env.arrays[name] = ArrInfo(shape, b, True)
            return
        elif k < 0.22 and same:
            n = rng.choice(same)
            src = rng.choice([f"{n}.copy()", f"{self.f('copy')}({n})", f"{self.f('array')}({n})"])
            b = env.arrays[n].bound
        else:
            src, b = self.aexpr(env, shape, rng.randint(1, 3))
        self.assign_array(env, name, src, b, shape)

    def array_aug(self, env: NpEnv, name: str) -> None:
        rng = self.rng
        info = env.arrays[name]
        shape = info.shape
        op = rng.choice(["+=", "-=", "*=", "/=", "+=", "**="])
        if op in ("+=", "-="):
            if self.chance(0.6):
                src, b = self.aexpr(env, shape, rng.randint(1, 2))
            else:
                src, b = self.broadcast_operand(env, shape, 1)
            self.emit(f"{name} {op} {src}")
            nb = info.bound + b
        elif op == "*=":
            src, b = self.aexpr(env, shape, 1) if self.chance(0.6) else self.broadcast_operand(env, shape, 1)
            s2, _ = self.afit(src, b, 1.0)
            self.emit(f"{name} *= 0.5 + 0.4 * {self.wrap(s2)}")
            nb = info.bound * 0.9
        elif op == "/=":
            src, _ = self.aexpr(env, shape, 1)
            self.emit(f"{name} /= 1.5 + {self.f('cos')}({src})")
            nb = info.bound * 2.0
        else:
            if info.bound > 3.0:
                self.emit(f"{name} = {self.f('tanh')}({name})")
                info.bound = 1.0
            self.emit(f"{name} **= 2")
            nb = info.bound**2
        info.bound = nb
        if name in env.acaps and nb > env.acaps[name]:
            self.emit(f"{name} = {_lit(env.acaps[name])} * {self.f('tanh')}({name})")
            info.bound = env.acaps[name]
        elif nb > 50:
            self.emit(f"{name} = {self.f('tanh')}({name})")
            info.bound = 1.0

    def element_write(self, env: NpEnv, name: str) -> None:
        """name[i] = v, name[i] += v, name[i, j] *= v, name[:, j] = vector, name[i, :] += vector."""
        rng = self.rng
        info = env.arrays[name]
        shape = info.shape
        if len(shape) == 1:
            target = f"{name}[{self.index_dim(env, shape[0])}]"
            vshape = None
        else:
            r, c = shape
            i, j = self.index_dim(env, r), self.index_dim(env, c)
            target, vshape = rng.choice(
                [
                    (f"{name}[{i}, {j}]", None),
                    (f"{name}[{i}]", (c,)),
                    (f"{name}[{i}, :]", (c,)),
                    (f"{name}[:, {j}]", (r,)),
                ]
            )
        if vshape is None:
            src, b = self.expr(env, rng.randint(1, 2))
            fitf, tanh = self.fit, "math.tanh"
        else:
            src, b = self.aexpr(env, vshape, rng.randint(1, 2))
            fitf, tanh = self.afit, self.f("tanh")
        cap = max(info.bound, LOOP_CAP) if name in env.acaps else max(info.bound, b)
        op = rng.choice(["=", "=", "+=", "-=", "*="])
        if op == "*=":
            src, b = fitf(src, b, 1.0)
            self.emit(f"{target} *= {src}")
            return
        if op == "=":
            src, b = fitf(src, b, cap)
            self.emit(f"{target} = {src}")
            info.bound = max(info.bound, b)
            return
        src, b = fitf(src, b, 1.0)
        self.emit(f"{target} {op} {src}")
        nb = info.bound + b
        if name in env.acaps or nb > 50:
            self.emit(f"{target} = {_lit(cap)} * {tanh}({target})")
            nb = cap
        info.bound = max(info.bound, nb)

    def fill_loop(self, env: NpEnv, depth: int, budget: list) -> None:
        """A new local array filled element by element (or row by row) in a loop, maybe a recurrence."""
        rng = self.rng
        shape = self.pick_shape(env)
        name = self.fresh("u")
        dims = f"{shape[0]}" if len(shape) == 1 else f"({shape[0]}, {shape[1]})"
        same = self.arrays_of(env, shape)
        init = rng.choice(
            [f"{self.f('zeros')}({dims})"] * 3
            + [f"{self.f('ones')}({dims})"]
            + [f"{self.f('zeros_like')}({n})" for n in same]
        )
        self.emit(f"{name} = {init}")
        env.arrays[name] = ArrInfo(shape, 1.0, True)
        body = self.loop_env(env)
        i = self.fresh("i")
        axis = 0 if len(shape) == 1 or self.chance(0.6) else 1
        k = shape[axis]
        start = 1 if self.chance(0.25) else 0
        bound_src = rng.choice([str(k), f"len({name})" if axis == 0 else str(k), f"{name}.shape[{axis}]"])
        if len(shape) == 1 and self.chance(0.2):
            bound_src = f"{name}.size"
        self.emit(f"for {i} in range({start}, {bound_src}):" if start else f"for {i} in range({bound_src}):")
        body.idx[i] = Idx(k, None)
        self.indent += 1
        cap = body.acaps[name]
        if len(shape) == 1:
            src, b = self.expr(body, rng.randint(1, 3))
            if start == 1 and self.chance(0.7):
                src, b = f"{_lit(_c(rng, -0.9, 0.9))} * {name}[{i} - 1] + {src}", cap + b
            src, b = self.fit(src, b, cap)
            self.emit(f"{name}[{i}] = {src}")
        else:
            vshape = (shape[1],) if axis == 0 else (shape[0],)
            src, b = self.aexpr(body, vshape, rng.randint(1, 2))
            if start == 1 and self.chance(0.7):
                prev = f"{name}[{i} - 1]" if axis == 0 else f"{name}[:, {i} - 1]"
                src, b = f"{_lit(_c(rng, -0.9, 0.9))} * {prev} + {self.wrap(src)}", cap + b
            src, b = self.afit(src, b, cap)
            target = rng.choice([f"{name}[{i}]", f"{name}[{i}, :]"]) if axis == 0 else f"{name}[:, {i}]"
            self.emit(f"{target} = {src}")
        body.arrays[name].bound = max(body.arrays[name].bound, b)
        self.indent -= 1
        if self.chance(0.3):
            self.block(body, depth + 1, budget, rng.randint(1, 2))
        self.after_loop(env, body)

    def array_for(self, env: NpEnv, depth: int, budget: list) -> None:
        """for i in range(len(a)) / range(A.shape[1]) / range(a.size): a body of any statements."""
        rng = self.rng
        name = rng.choice(sorted(env.arrays))
        shape = env.arrays[name].shape
        axis = rng.randrange(len(shape))
        k = shape[axis]
        forms = [f"{name}.shape[{axis}]", str(k)] + ([f"len({name})"] if axis == 0 else [])
        if len(shape) == 1:
            forms.append(f"{name}.size")
        cnt = self.make_counter(env)
        body = self.loop_env(env)
        i = self.fresh("i")
        self.emit(f"for {i} in range({rng.choice(forms)}):")
        body.idx[i] = Idx(k, None)
        if cnt:
            self.indent += 1
            self.emit(f"{cnt} += 1")
            self.indent -= 1
        self.block(body, depth + 1, budget, rng.randint(1, 3))
        self.after_loop(env, body)
        if cnt:
            env.ints[cnt] = 20

    # ---------------------------------------------------------------- scopes

    def loop_env(self, env: Env) -> Env:
        e = super().loop_env(env)
        for name, info in getattr(e, "arrays", {}).items():
            cap = e.acaps.get(name, max(info.bound, LOOP_CAP))
            e.acaps[name] = cap
            info.bound = cap
        return e

    def after_loop(self, env: Env, body: Env) -> None:
        super().after_loop(env, body)
        for name, info in getattr(env, "arrays", {}).items():
            if name in body.arrays:
                info.bound = max(info.bound, body.arrays[name].bound)

    def merge(self, env: Env, branches: list[Env], exhaustive: bool) -> None:
        super().merge(env, branches, exhaustive)
        for name, info in getattr(env, "arrays", {}).items():
            bs = [br.arrays[name].bound for br in branches if name in br.arrays]
            if not exhaustive:
                bs.append(info.bound)
            info.bound = max(bs + [0.0])

    # ---------------------------------------------------------------- functions

    def ret_value(self, env: Env) -> tuple[str, float]:
        parts = []
        for kind in self.out_kinds:
            if kind is None:
                parts.append(self.live_mix(env, *self.expr(env, self.rng.randint(1, 3))))
                continue
            src, b = self.alive_mix(env, kind, *self.aexpr(env, kind, self.rng.randint(1, 3)))
            if self.fresh_returns and not self.is_fresh(src):
                src = f"{self.f('copy')}({src})"
            parts.append((src, b))
        src = ", ".join(p for p, _ in parts)
        if len(parts) > 1 and self.chance(0.5):
            src = f"({src})"
        return src, max(b for _, b in parts)

    def function(self, name: str, env: Env, nstmts: int, outputs) -> float:
        """outputs: a number of float outputs, or a list of kinds (None: a float; a shape: an array)."""
        self.out_kinds = outputs if isinstance(outputs, list) else [None] * outputs
        return super().function(name, env, nstmts, len(self.out_kinds))

    def program(self, entry: str = "f") -> Spec:
        rng = self.rng
        cfg = self.config
        alias = rng.choice(["np"] * 8 + ["numpy", "onp"])
        self.np = alias
        out = ["import math", "import numpy" if alias == "numpy" else f"import numpy as {alias}", "", ""]
        n, m = rng.randint(2, 4), rng.randint(2, 3)
        if self.chance(0.35):
            self.dims, self.shapes = [n], [(n,)]
        else:
            self.dims = sorted({n, m})
            self.shapes = list(dict.fromkeys([(n,), (m,), (m, n)]))
        for h in range(min(cfg.max_helpers, rng.choice([0, 0, 1, 1, 2, 3]))):
            out += (self.array_helper(h) if self.chance(0.7) else self.helper(h)) + ["", ""]
        params = []
        vectors = [s for s in self.shapes if len(s) == 1]
        matrices = [s for s in self.shapes if len(s) == 2]
        narr = rng.randint(1, 3)
        for k in range(narr):
            shape = rng.choice(matrices) if matrices and self.chance(0.4) else rng.choice(vectors)
            params.append(("array", ("A", "B", "C")[k] if len(shape) == 2 else ("x", "y", "w")[k], shape))
        for name in ["p", "q"][: rng.choice([0, 0, 1, 1, 2])]:
            params.append(("float", name))
        if self.chance(cfg.p_list_param):
            params.append(("list", "xs", rng.randint(2, 4)))
        if self.chance(cfg.p_int_param):
            params.append(("int", "n"))
        env = self.new_env()
        for p in params:
            if p[0] == "array":
                env.arrays[p[1]] = ArrInfo(p[2], PARAM_BOUND, False)
            elif p[0] == "float":
                env.floats[p[1]] = PARAM_BOUND
            elif p[0] == "list":
                env.lists[p[1]] = ListInfo(p[2], PARAM_BOUND)
            else:
                env.ints[p[1]] = NMAX
        k = rng.random()
        if k < 0.55:
            outs = [None]
        elif k < 0.75:
            outs = [rng.choice(self.shapes)]
        else:
            outs = [rng.choice([None, None] + self.shapes) for _ in range(rng.randint(2, 3))]
        self.lines = []
        self.function(entry, env, rng.randint(3, max(3, cfg.max_stmts)), outs)
        out += [f"def {entry}({', '.join(p[1] for p in params)}):"] + self.lines + [""]
        return Spec("\n".join(out), entry, params, len(outs))


def generate(rng: random.Random, config: Config = DEFAULT) -> Spec:
    """The program of one seed: scalar (Gen) or NumPy (NpGen) by config.mode; "mixed" draws which first."""
    mode = config.mode
    if mode == "mixed":
        mode = "numpy" if rng.random() < 0.5 else "scalar"
    return (NpGen if mode == "numpy" else Gen)(rng, config).program()


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
    points_known: int = 0  # checked, right but for the symptom of a known bug the checker tolerated
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
            f"known-bug points {self.points_known}, "
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
    """A value (float, NumPy scalar or array, nested tuples/lists of these) as a flat list of floats."""
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res += flat_out(o)
        return res
    if hasattr(out, "ndim") and out.ndim > 0:
        return [float(v) for v in out.ravel()]
    return [float(out)]


def structure(out):
    """What a value looks like, for comparing outputs: "s" (a number, NumPy scalar or 0-d array),
    ("array", shape), or a tuple ("tuple"/"list", items)."""
    if isinstance(out, (tuple, list)):
        return (type(out).__name__, tuple(structure(o) for o in out))
    if hasattr(out, "ndim") and out.ndim > 0:
        return ("array", tuple(out.shape))
    return "s"


def unflat_like(template, vec: list):
    """vec shaped like template (a float for a number, an array for an array, tuples for tuples)."""
    pos = [0]

    def go(t):
        if isinstance(t, (tuple, list)):
            return type(t)(go(o) for o in t)
        if hasattr(t, "ndim") and t.ndim > 0:
            n = t.size
            a = _numpy_module().array(vec[pos[0] : pos[0] + n], dtype=float).reshape(t.shape)
            pos[0] += n
            return a
        pos[0] += 1
        return vec[pos[0] - 1]

    return go(template)


def _close(a, b, scale, rtol, atol) -> bool:
    if math.isnan(a) or math.isnan(b):
        return False
    return abs(a - b) <= atol + rtol * max(abs(b), scale)


class Layout:
    """Maps between a program's arguments and the flat vector of wrt inputs.

    params: ("float", name) | ("list", name, length) | ("array", name, shape) | ("int", name). Array
    arguments are float64 NumPy arrays; a point as stored in a report (``plain``) has them as nested lists.
    """

    def __init__(self, params):
        self.params = [tuple(p) if p[0] != "array" else (p[0], p[1], tuple(p[2])) for p in params]
        self.wrt = tuple(p[1] for p in params if p[0] != "int")

    def draw(self, rng: random.Random) -> list:
        args = []
        for p in self.params:
            if p[0] == "float":
                args.append(round(rng.uniform(-PARAM_BOUND, PARAM_BOUND), 6))
            elif p[0] == "list":
                args.append([round(rng.uniform(-PARAM_BOUND, PARAM_BOUND), 6) for _ in range(p[2])])
            elif p[0] == "array":
                vals = [round(rng.uniform(-PARAM_BOUND, PARAM_BOUND), 6) for _ in range(math.prod(p[2]))]
                args.append(_numpy_module().array(vals, dtype=float).reshape(p[2]))
            else:
                args.append(rng.randint(0, NMAX))
        return args

    def plain(self, args) -> list:
        """args with arrays as nested lists (for reports: a repr that ast.literal_eval reads back)."""
        return [
            a.tolist() if p[0] == "array" else (list(a) if p[0] == "list" else a) for p, a in zip(self.params, args)
        ]

    def from_plain(self, point) -> list:
        """The inverse of plain: array parameters become float64 arrays of their shape."""
        out = []
        for p, a in zip(self.params, point):
            if p[0] == "array":
                out.append(_numpy_module().array(a, dtype=float).reshape(p[2]))
            else:
                out.append(list(a) if p[0] == "list" else a)
        return out

    def flat(self, args) -> list:
        res = []
        for p, a in zip(self.params, args):
            if p[0] == "float":
                res.append(a)
            elif p[0] == "list":
                res += a
            elif p[0] == "array":
                res += [float(v) for v in a.ravel()]
        return res

    def _take(self, p, vec, k):
        """The value of parameter p from vec at k, and the next k."""
        if p[0] == "float":
            return vec[k], k + 1
        if p[0] == "list":
            return list(vec[k : k + p[2]]), k + p[2]
        n = math.prod(p[2])
        return _numpy_module().array(vec[k : k + n], dtype=float).reshape(p[2]), k + n

    def unflat(self, args, vec) -> list:
        """args with the wrt inputs replaced by vec."""
        out, k = [], 0
        for p, a in zip(self.params, args):
            if p[0] == "int":
                out.append(a)
            else:
                v, k = self._take(p, vec, k)
                out.append(v)
        return out

    def tangents(self, vec) -> tuple:
        """vec as one tangent per wrt parameter."""
        res, k = [], 0
        for p in self.params:
            if p[0] != "int":
                v, k = self._take(p, vec, k)
                res.append(v)
        return tuple(res)

    def shape_errors(self, cts) -> list[str]:
        """Cotangents that do not look like their parameter (README: a gradient looks like its argument).

        Also their precision: every argument is float64 (or a Python float), so is every cotangent.
        """
        errs = []
        for p, ct in zip([p for p in self.params if p[0] != "int"], cts):
            dtype = getattr(ct, "dtype", None)
            if p[0] in ("array", "float") and dtype is not None and str(dtype) != "float64":
                errs.append(f"cotangent of {p[0]} {p[1]} has dtype {dtype}; {p[1]} is float64")
            if p[0] == "array" and getattr(ct, "shape", None) != p[2]:
                errs.append(
                    f"cotangent of {p[1]} is {type(ct).__name__} {getattr(ct, 'shape', '')}; {p[1]} has shape {p[2]}"
                )
            elif p[0] == "float" and getattr(ct, "ndim", 0) != 0:
                errs.append(f"cotangent of float {p[1]} has shape {ct.shape}")
            elif p[0] == "list" and (not isinstance(ct, (list, tuple)) or len(ct) != p[2]):
                errs.append(f"cotangent of list {p[1]} is {ct!r}, not {p[2]} numbers")
        return errs


def _numpy_module():
    """NumPy, imported only when a program has array parameters or outputs (scalar fuzzing needs none)."""
    import numpy

    return numpy


def _copy_args(args):
    return [list(a) if isinstance(a, list) else a.copy() if hasattr(a, "ndim") else a for a in args]


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


def dtypes(value) -> list[str]:
    """The dtypes of the NumPy scalars and arrays in a value (Python numbers have none)."""
    if isinstance(value, (tuple, list)):
        return [d for v in value for d in dtypes(v)]
    return [str(value.dtype)] if hasattr(value, "dtype") else []


def check_point(
    df, fn, mod, layout: Layout, args, rng: random.Random, outputs: int, stages: bool, tolerate: bool = False
) -> str:
    """'ok' | 'known' | 'skipped' | 'invalid'; raises Failure on a mismatch or crash.

    tolerate: accept the symptoms of the known bugs the checker can see past (KNOWN_BUGS) and return
    'known' for a point that is otherwise right.
    """
    from adcompiler.errors import UnsupportedSyntaxError

    known = False
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
    shape = structure(value)
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
        raise Failure(kind, msg, layout.plain(args))

    def run(what, thunk):
        try:
            return thunk()
        except (Failure, UnsupportedSyntaxError):  # a mode is built on first use: its refusal is a refusal
            raise
        except Exception as exc:  # noqa: BLE001 - anything from generated code is a bug
            fail("crash", f"{what} raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}")

    def same_value(what, got):
        g = flat_out(got)
        if len(g) != m or structure(got) != shape:
            fail("mismatch", f"{what}: value {got!r} has not the structure of the primal {value!r}")
        if not all(_close(a, b, 0.0, 1e-12, 1e-300) or a == b for a, b in zip(g, fvalue)):
            fail("mismatch", f"{what}: value {got!r} != primal {value!r}")

    def tol(a, b):
        return _close(a, b, 0.0, RTOL, ATOL * max(1.0, max(abs(x) for x in fvalue)))

    jvps = []
    for v, fd in zip(dirs, fds):
        val, tan = run("jvp", lambda: df.jvp(tuple(_copy_args(args)), layout.tangents(v)))
        same_value(f"jvp(v={v})", val)
        if structure(tan) != shape:
            fail("mismatch", f"jvp(v={v}): tangent {tan!r} has not the structure of the output {value!r}")
        lowered = [d for d in dtypes(tan) if d != "float64"]  # every output is float64 (or a Python float)
        if lowered:
            fail("mismatch", f"jvp(v={v}): tangent {tan!r} has dtype {lowered[0]}; the output is float64")
        tan = flat_out(tan)
        for j in range(m):
            if not tol(tan[j], fd[j]):
                fail("mismatch", f"jvp(v={v}) output {j}: got {tan[j]!r}, finite differences {fd[j]!r}")
        jvps.append(tan)
    vjps = []
    for u in cots:
        ct = unflat_like(value, u)
        val, cts = run("vjp", lambda: df.vjp(tuple(_copy_args(args)), ct))
        same_value(f"vjp(u={u})", val)
        errs = layout.shape_errors(cts) if isinstance(cts, tuple) and len(cts) == len(layout.wrt) else []
        g = flat_out(list(cts))
        if len(g) != nin or errs:
            fail("mismatch", f"vjp(u={u}): cotangents {cts!r} do not match the {nin} inputs {errs}")
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
    if outputs == 1 and shape == "s":
        _, ref = run("vjp(1.0)", lambda: df.vjp(tuple(_copy_args(args)), 1.0))
        got = run("grad", lambda: df.grad(*_copy_args(args)))
        if len(layout.wrt) == 1:
            got = (got,)
        if not all(
            _close(a, b, 0.0, 1e-12, 1e-300) or a == b for a, b in zip(flat_out(list(got)), flat_out(list(ref)))
        ):
            fail("mismatch", f"grad = {got!r} but vjp(1.0) gives {ref!r}")
        val, _ = run("value_and_grad", lambda: df.value_and_grad(*_copy_args(args)))
        same_value("value_and_grad", val)
    if stages:
        for stage in ("anf", "dup"):
            got = run(f"source({stage!r}) run", lambda: stage_value(df, mod, stage, args))
            same_value(f"source({stage!r})", got)
    return "known" if known else "ok"


def _quiet():
    """NumPy's overflow and invalid-value warnings off (an overflowing point is 'invalid' anyway)."""
    import contextlib
    import warnings

    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore", RuntimeWarning)
    return stack


def check_program(
    spec: Spec, directory: str, seed: int, points: int = 3, stages: bool = True, tolerate: bool = False
) -> dict:
    """Check one program; returns counts ('known': checked points that showed a tolerated known bug).

    Raises Failure on a bug.
    """
    import adcompiler
    from adcompiler.errors import UnsupportedSyntaxError

    counts = {"checked": 0, "skipped": 0, "invalid": 0, "known": 0}
    mod = load_module(spec.source, directory)
    fn = getattr(mod, spec.entry)
    layout = Layout(spec.params)
    rng = random.Random(seed)
    try:
        df = adcompiler.differentiate(fn, wrt=layout.wrt)
        if stages:  # the code for the point's own arguments (before a call it is for assumed kinds)
            df._bind(tuple(_copy_args(layout.draw(random.Random(seed)))))
            for stage in ("forward", "reverse"):
                compile(df.source(stage), f"<fuzz {stage}>", "exec")
    except UnsupportedSyntaxError as exc:
        raise Failure(
            "refusal", f"{type(exc).__name__}: {exc}", layout.plain(layout.draw(random.Random(seed)))
        ) from None
    except Exception as exc:  # noqa: BLE001
        msg = f"building raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        raise Failure("crash", msg, layout.plain(layout.draw(random.Random(seed)))) from None
    tried = 0
    with _quiet():
        while counts["checked"] < points and tried < 4 * points:
            tried += 1
            args = layout.draw(rng)
            try:
                first = stages and counts["checked"] == 0
                res = check_point(df, fn, mod, layout, args, rng, spec.outputs, first, tolerate)
            except Failure:
                raise
            except UnsupportedSyntaxError as exc:
                raise Failure("refusal", f"{type(exc).__name__}: {exc}", layout.plain(args)) from None
            if res == "known":
                counts["known"] += 1
            counts[res if res not in ("ok", "known") else "checked"] += 1
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


def check_source(
    source: str,
    params,
    outputs: int,
    point,
    seed: int = 0,
    directory: str | None = None,
    stages=True,
    tolerate: bool = False,
):
    """Check `source`'s function f at one point: 'ok' | 'known' | 'skipped' | 'invalid', or a Failure.

    Used by the minimiser and by the regression tests (which do not tolerate the symptoms of known
    bugs: a regression of a known bug must fail). Exceptions of the primal itself (e.g. a name the
    minimiser deleted) propagate.
    """
    import adcompiler
    from adcompiler.errors import UnsupportedSyntaxError

    own = directory is None
    directory = directory or tempfile.mkdtemp(prefix="adc_fuzz_one_")
    try:
        mod = load_module(source, directory, "one")
        fn = mod.f
        layout = Layout(params)
        with _quiet():
            primal(fn, layout.from_plain(point))  # a program that does not run is no reproduction (minimiser)
        try:
            df = adcompiler.differentiate(fn, wrt=layout.wrt)
            if stages:  # the code for the point's own arguments (before a call it is for assumed kinds)
                df._bind(tuple(_copy_args(layout.from_plain(point))))
                for stage in ("forward", "reverse"):
                    compile(df.source(stage), f"<fuzz {stage}>", "exec")
        except UnsupportedSyntaxError as exc:
            return Failure("refusal", f"{type(exc).__name__}: {exc}", point)
        except Exception as exc:  # noqa: BLE001
            return Failure("crash", f"building raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}", point)
        try:
            with _quiet():
                args = layout.from_plain(point)
                return check_point(df, fn, mod, layout, args, random.Random(seed), outputs, stages, tolerate)
        except Failure as f:
            return f
        except UnsupportedSyntaxError as exc:
            return Failure("refusal", f"{type(exc).__name__}: {exc}", point)
    finally:
        if own:
            import shutil

            shutil.rmtree(directory, ignore_errors=True)


def _signature(f: Failure) -> tuple:
    """What must stay the same while minimising: the kind and what exactly went wrong.

    crash: the stage and exception type, and its message without numbers (shapes shrink as the program
    does); refusal: the construct refused; mismatch: which check failed (a duality mismatch must not
    turn into, say, a tangent of the wrong shape).
    """
    first = f.message.splitlines()[0] if f.message else ""
    if f.kind == "crash":
        head, _, rest = first.partition(": ")
        return ("crash", head, re.sub(r"[-+.\d(), ]+", " ", rest).strip())  # e.g. "vjp raised NameError"
    if f.kind == "refusal":
        m = re.search(r":\d+:\d+: (.*?) is not supported", first)
        return ("refusal", m.group(1) if m else first)
    what = re.match(r"[a-z_]*(\('[a-z]+'\))?", first).group(0)
    for key in ("tangent", "has not the structure", "cotangents", "finite differences", "<u, J v>", "!= primal"):
        if key in first:
            return ("mismatch", what, key)
    return ("mismatch", what)


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
    # expressions: replace by a child, or by a constant (a comparison by True only where it is a condition:
    # a mask a[a > 0] must not become a[True])
    tests = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            tests.add(id(node.test))
        elif isinstance(node, ast.BoolOp):
            tests.update(id(v) for v in node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            tests.add(id(node.operand))
    for ei, node in enumerate(n for n in ast.walk(tree) if isinstance(n, ast.expr)):
        if isinstance(node, ast.Compare) and id(node) not in tests:
            continue
        if isinstance(node, (ast.BinOp, ast.Call, ast.IfExp, ast.UnaryOp, ast.BoolOp, ast.Compare)) or (
            isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Load) and _expr_children(node)
        ):
            edits.append(("const", ei, None))
            for ci, child in enumerate(_expr_children(node)):
                if not isinstance(child, (ast.List, ast.Tuple)):  # np.array([..]) -> [..] leaves the subset
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
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        if isinstance(node.func, ast.Attribute) and not isinstance(node.func.value, ast.Name):
            args.append(node.func.value)  # a method of a computed array: x.sum() -> x
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _RECEIVER_METHODS:
            args.append(node.func.value)
        return args
    if isinstance(node, ast.Subscript):
        return [node.value]  # A[i, :] -> A (shapes may change: the failure must stay the same)
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return [node.value]
    return []


_RECEIVER_METHODS = {"sum", "mean", "max", "min", "copy", "ravel", "reshape", "dot", "cumsum", "clip", "trace"}


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
        # the program's own imports (math, numpy under its alias) first, as generated
        imports = [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        rest = [ast.unparse(n) for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
        return "\n".join(imports or ["import math"]) + "\n\n\n" + "\n\n\n".join(rest) + "\n"
    except Exception:  # noqa: BLE001
        return None


def minimise(
    source: str,
    params,
    outputs: int,
    point,
    seed: int = 0,
    budget_s: float = 300.0,
    verbose=False,
    tolerate: bool = True,
):
    """Greedily simplify a failing program while it fails the same way; returns (source, Failure).

    tolerate: see past the symptoms of known bugs, as the campaigns do (else a program a campaign
    reported for a crash may first fail on a known bug, and shrink to that).
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # candidates like 0.5[i] compile with a warning, then fail
        return _minimise(source, params, outputs, point, seed, budget_s, verbose, tolerate)


def _minimise(source, params, outputs, point, seed, budget_s, verbose, tolerate):
    directory = tempfile.mkdtemp(prefix="adc_fuzz_min_")
    first = check_source(source, params, outputs, point, seed, directory, tolerate=tolerate)
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
            res = check_source(cand, params, outputs, point, seed, directory, tolerate=tolerate)
        except Exception:  # noqa: BLE001 - the primal broke: not this bug
            res = None
        if isinstance(res, Failure) and _signature(res) == sig:
            if verbose:
                print(f"  {edits[i][0]}: {len(best)} -> {len(cand)} chars", flush=True)
            best, best_f, progress = cand, res, True
        else:
            i += 1
    best, params, point, best_f = _drop_unused_params(
        best, params, outputs, point, seed, directory, sig, best_f, tolerate
    )
    return best, params, point, best_f


def _drop_unused_params(source, params, outputs, point, seed, directory, sig, failure, tolerate):
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
            res = check_source(cand, p2, outputs, pt2, seed, directory, tolerate=tolerate)
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
        return index, spec, check_program(spec, tmp, ps, points, stages, tolerate=config.avoid_known)
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
                s.points_known += res["known"]
                if verbose and s.programs % 100 == 0:
                    s.seconds = time.time() - t0
                    print(f"  ... {s}", flush=True)
        finally:
            if pool is not None:
                pool.close()
                pool.join()
    s.seconds = time.time() - t0
    return s


def config_for(mode: str, small: bool = False) -> Config:
    """The configuration of a --mode (and --small)."""
    if mode == "numpy":
        return NUMPY_SMALL if small else NUMPY
    if mode == "mixed":
        return dataclasses.replace(SMALL, mode="mixed") if small else MIXED
    return SMALL if small else DEFAULT


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m adcompiler.testing.fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--out", default=None, help="directory for failing programs (default: a new temp dir)")
    ap.add_argument("--small", action="store_true", help="smaller programs (the CI configuration)")
    ap.add_argument(
        "--mode",
        choices=["scalar", "numpy", "mixed"],
        default="scalar",
        help="scalar programs, NumPy programs, or each program either (drawn from its seed)",
    )
    ap.add_argument("--numpy", action="store_true", help="the same as --mode numpy")
    ap.add_argument(
        "--strict",
        action="store_true",
        help="do not step around the open bugs of KNOWN_BUGS (generator and checker)",
    )
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--start", type=int, default=0, help="index of the first program")
    ap.add_argument("--stage-every", type=int, default=1, help="check printed stages on every n-th program (0: never)")
    ap.add_argument("--show", type=int, default=None, help="print program N of the seed and exit")
    ap.add_argument("--minimise", metavar="REPORT", default=None, help="minimise a failing program written by --out")
    a = ap.parse_args(argv)
    config = config_for("numpy" if a.numpy else a.mode, a.small)
    if a.strict:
        config = dataclasses.replace(config, avoid_known=False)
    if a.minimise:
        src, params, outputs, point = read_report(a.minimise)
        small, params, point, f = minimise(src, params, outputs, point, verbose=True, tolerate=not a.strict)
        print(f"# {f.kind}: {f.message.splitlines()[0]}")
        print(f"# fuzz: {{'params': {params!r}, 'outputs': {outputs}, 'point': {point!r}}}")
        print(small)
        return 0
    if a.show is not None:
        print(generate(random.Random(program_seed(a.seed, a.show)), config).source)
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
        config=config,
    )
    print(s)
    if s.reports:
        print(f"failing programs written to {out}")
    return 1 if (s.mismatches or s.crashes or s.refusals) else 0


if __name__ == "__main__":
    sys.exit(main())
