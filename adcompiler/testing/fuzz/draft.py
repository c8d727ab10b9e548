"""The program being written, shared by the parts of a generator: the seed's random generators, the lines
so far, and what the program has made (helpers, shapes, the current function's outputs).

A generator is a few cooperating objects over one Draft (see scalar_expr): Exprs writes expressions,
Stmts statements, Gen and NpGen whole programs; each reads and writes the Draft, and none sets another's
attributes.
"""

from __future__ import annotations

import itertools
import random

from .config import DEFAULT, KNOWN_BUGS, Config
from .scope import ArrayHelper, Env, Helper


class Draft:
    """The program being written: random generators, lines, names, helpers and shapes made so far."""

    def __init__(self, rng: random.Random, config: Config = DEFAULT, env: type[Env] = Env):
        self.rng = rng
        self.config = config
        self.env = env  # the scope a function starts with: Env, or NpEnv in NumPy programs
        self.counter = itertools.count()
        self.lines: list[str] = []
        self.indent = 1
        self.helpers: list[Helper] = []
        self.ahelpers: list[ArrayHelper] = []  # NumPy programs: helpers taking arrays
        self.out_kinds: list = [None]  # the current function's outputs: None a float, a shape an array
        self.out_bound = 0.0
        self.passed_list: str | None = None  # the list the last helper call was given (or is to be given)
        self.np = "np"  # NumPy's import alias
        self.dims: list[int] = []  # NumPy programs: the dimensions of their shapes,
        self.shapes: list[tuple] = []  # and the shapes of their variables
        self.fresh_returns = False  # helpers return fresh arrays, so a call never aliases its arguments
        self.vector_params: set = set()  # the current function's (n,) parameters, which may be made (m, n)
        self._idioms: random.Random | None = None
        self._rebinds: random.Random | None = None

    def new_env(self) -> Env:
        """A fresh scope (a NumPy program's also tracks arrays)."""
        return self.env()

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def avoiding(self, bug: str) -> bool:
        """Does the generator step around this open adcompiler bug (see KNOWN_BUGS)?"""
        return self.config.avoid_known and bug in KNOWN_BUGS

    def f(self, name: str) -> str:
        """A NumPy function under the program's import alias."""
        return f"{self.np}.{name}"

    def idioms(self) -> random.Random:
        """The draws of idioms (other spellings of reductions, ...): a generator of their own, made on first
        use, so a seed's other choices stay as they were."""
        if self._idioms is None:
            self._idioms = random.Random(repr(self.rng.getstate()[1][:4]))
        return self._idioms

    def rebinds(self) -> random.Random:
        """Whether (and what) to rebind, drawn from a generator of their own, made on first use: a seed's
        programs without rebinds stay what they were."""
        if self._rebinds is None:
            self._rebinds = random.Random("rebind" + repr(self.rng.getstate()[1][:8]))
        return self._rebinds
