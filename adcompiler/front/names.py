"""Deterministic, collision-free names derived from the user's.

A ``Namer`` hands out names that no user identifier and no earlier generated
name uses: ``x`` stays ``x``; a second ``x`` becomes ``x_1``; a temporary is
``t1``.  A ``Namespace`` says how generated code refers to the modules and
functions the user's globals hold (``math.cos`` may be spelt ``m.cos``).
"""

from __future__ import annotations

import builtins
import io
import keyword
import re
import tokenize
import types

# Every builtin generated code or a runtime helper names (tests/test_builtins_shadowed.py checks this
# against the helpers' text and the code generated for its test programs): never handed out as a
# variable name, handed to the code from ``builtins`` (``Program.supplied``), spelt ``builtins.x``
# where the user's code binds the name to something else (``Namespace.render``).
GENERATED_BUILTINS = frozenset(
    """AssertionError Ellipsis IndexError KeyError TypeError ValueError abs all any bool complex dict dir enumerate
    exec float getattr hasattr id int isinstance len list map max min print range reversed round set setattr slice
    sorted str sum tuple type zip""".split()
)


class Namer:
    """Hands out fresh names; the same requests in the same order give the same names."""

    def __init__(self, taken=(), also=(), report=None):
        self.taken = set(taken) | GENERATED_BUILTINS | set(keyword.kwlist)
        self.also = tuple(also)  # further sets of names in use elsewhere (module level)
        self.report = report  # a set that learns every name handed out here
        self._temps = 0
        self._suffix: dict = {}  # base -> the suffix fresh last gave it (names are only ever taken: none below is free)

    def child(self, also=(), report=None) -> "Namer":
        """A namer for a new scope that avoids everything this one has handed out."""
        other = Namer(self.taken, also or self.also, report if report is not None else self.report)
        other._temps = self._temps
        return other

    def take_all(self, other: "Namer") -> None:
        """Take every name ``other`` (a child) handed out: scopes that may reuse each other's names
        (one per row of a Jacobian, say), all of them kept from what this namer hands out next."""
        self.taken |= other.taken

    def _free(self, name: str) -> bool:
        return name not in self.taken and not any(name in s for s in self.also)

    def _take(self, name: str) -> str:
        self.taken.add(name)
        if self.report is not None:
            self.report.add(name)
        return name

    def fresh(self, base: str) -> str:
        """``base`` itself if free, else ``base_1``, ``base_2``, ..."""
        base = base or "t"
        if self._free(base):
            return self._take(base)
        k = self._suffix.get(base, 0) + 1  # the first suffix that can still be free: linear, not quadratic, in uses
        while not self._free(f"{base}_{k}"):
            k += 1
        self._suffix[base] = k
        return self._take(f"{base}_{k}")

    def temp(self) -> str:
        """A numbered temporary for a sub-expression the user did not name."""
        while True:
            self._temps += 1
            name = f"t{self._temps}"
            if self._free(name):
                return self._take(name)


def root(name: str) -> str:
    """The user-level name a derived name grew from: ``x_2`` -> ``x``."""
    head, sep, tail = name.rpartition("_")
    return head if sep and tail.isdigit() and head else name


class Namespace:
    """How generated code spells canonical globals such as ``math.cos``.

    Uses the user's own binding when there is one (``import math as m`` gives
    ``m.cos``; ``from math import cos`` gives ``cos``); otherwise it asks for an
    ``import math`` under a name nothing else uses.
    """

    def __init__(self, globals_: dict, namer: Namer):
        self.globals = globals_
        self.namer = namer
        self.imports: dict[str, str] = {}  # module name -> alias that must be imported
        self.used: dict[str, str] = {}  # user global name -> the import line that binds it
        self.helper = lambda name: name  # how runtime helpers are named (the program sets this)
        self.avoid: set = set()  # local and parameter names of the user's functions: never a global spelling
        self.read: set = set()  # the globals the user's functions read (not builtins): generated code's by those names
        self.constants: dict = {}  # name -> an ir.nodes.Supplied: a constant generated code is handed (``constant``)
        self._constant_names: dict = {}  # id of an ir.nodes.Supplied -> its name

    def constant(self, supplied) -> str:
        """The name generated code reads ``supplied.value`` by (an array default), made on first use;
        the code is handed the value under it (``pipeline.Program.supplied``, a written module's line)."""
        name = self._constant_names.get(id(supplied))
        if name is None:
            name = self._constant_names[id(supplied)] = self.namer.fresh(supplied.hint)
            self.constants[name] = supplied  # (kept: its id stays its own)
        return name

    def module_alias(self, module: str) -> str:
        candidates = [
            n
            for n, v in self.globals.items()
            if isinstance(v, types.ModuleType) and v.__name__ == module and n not in self.avoid and n.isidentifier()
        ]  # (not pytest's "@py_builtins")
        if candidates:
            name = module if module in candidates else sorted(candidates)[0]
            self.used[name] = f"import {module}" if name == module else f"import {module} as {name}"
            return name
        if module not in self.imports:
            self.imports[module] = self.namer.fresh(module.split(".")[-1])
        return self.imports[module]

    def render(self, canonical: str) -> str:
        """The spelling of a canonical dotted name in generated code."""
        if canonical.startswith("@"):  # a runtime helper the generated module defines
            return self.helper(canonical[1:])
        if canonical.startswith("numpy.linalg."):
            return f"{self.module_alias('numpy')}.linalg.{canonical.rpartition('.')[2]}"
        if canonical.startswith("numpy.random."):  # import numpy.random as npr: npr.randn, else np.random.randn
            attr = canonical.rpartition(".")[2]
            if any(isinstance(v, types.ModuleType) and v.__name__ == "numpy.random" for v in self.globals.values()):
                return f"{self.module_alias('numpy.random')}.{attr}"
            return f"{self.module_alias('numpy')}.random.{attr}"
        module, dot, attr = canonical.rpartition(".")
        if not dot:
            if canonical in GENERATED_BUILTINS and (
                canonical in self.avoid
                or canonical in self.read
                or not is_builtin(canonical, self.globals.get(canonical, getattr(builtins, canonical)))
            ):  # the user's code binds this name (the text then runs in its module as it is loaded)
                return f"{self.module_alias('builtins')}.{canonical}"
            return canonical
        target = _lookup(canonical)
        for name, value in sorted(self.globals.items()):
            if target is not None and value is target and name == attr and name not in self.avoid | GENERATED_BUILTINS:
                self.used[name] = f"from {module} import {attr}"
                return name
        return f"{self.module_alias(module)}.{attr}"

    def builtins_spelled(self, text: str) -> str:
        """A runtime helper's ``text`` with each builtin the user's module binds to something else spelt
        ``builtins.x``, as the generated code spells it: the text then runs in the module as it reads
        (loaded, a helper sees only the builtins anyway: ``back.load``)."""
        bound = {n for n in GENERATED_BUILTINS if not is_builtin(n, self.globals.get(n, getattr(builtins, n)))}
        if not bound or not re.search(rf"\b({'|'.join(sorted(bound))})\b", text):
            return text
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        spelled = f"{self.module_alias('builtins')}."
        lines = text.splitlines(True)
        for k in reversed(range(len(tokens))):
            tok = tokens[k]
            after_dot = k > 0 and tokens[k - 1].string == "."
            if tok.type == tokenize.NAME and tok.string in bound and not after_dot:
                row, col = tok.start
                lines[row - 1] = lines[row - 1][:col] + spelled + lines[row - 1][col:]
        return "".join(lines)

    def import_lines(self) -> list:
        """Import statements for everything rendered so far (for a standalone module)."""
        lines = sorted(set(self.used.values()))
        lines += [f"import {m}" if alias == m else f"import {m} as {alias}" for m, alias in self.imports.items()]
        return lines


def _lookup(canonical: str):
    module, _, attr = canonical.rpartition(".")
    try:
        mod = __import__(module, fromlist=[attr])
        return getattr(mod, attr, None)
    except (ImportError, ValueError):  # (ValueError: no module named, a record's field ".w")
        return None


def is_builtin(name: str, value) -> bool:
    return getattr(builtins, name, object()) is value
