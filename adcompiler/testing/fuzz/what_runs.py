"""Programs that ask whether what is differentiated is what a call runs: WhatGen rewrites a scalar or
NumPy program (Gen, NpGen) so that

* its helpers, and at times the entry function itself, are decorated by ``functools.wraps`` decorators
  the module defines: ones that pass the call through (one logs ``fn.__name__``), one that scales the
  result, one with a parameter of its own (the derivative must be of the wrapper, not of the source
  ``inspect`` finds behind ``__wrapped__``), ones a factory makes (``scaled(0.5)``, ``scaled(3.0)``: two
  wrappers reading different values by one name, ``k``); a helper at times by ``@adcompiler.differentiate`` (a
  user's own derivatives of it: a call of it runs the function);
* the module binds names of builtins that generated code and the runtime helpers call (``slice``,
  ``any``, ``hasattr``, ``getattr``, ``enumerate``, ...), which the program itself never reads, to
  functions that raise: a derivative reading one of them from the user's module fails;
* a list or array parameter is unpacked into names, as many as it holds (the names are then read), or
  another number of them: every call that reaches the line raises the ValueError Python raises, and so
  must every derivative (``WhatSpec.base``: the program without that line, whose output gives the
  cotangent; see ``check.same_error``);
* a helper that calls no other is moved to a module of its own, which also binds ``SCALE`` (the helper's
  results scaled by it) where the program's module binds ``SCALE`` to another number: the derivative
  must read each module's globals in its own module (the source of that module is held in the program's,
  as ``__adc_fuzz_companion__``, and written beside it by ``check.load_module``).

Drawn from a generator of its own (seeded by the program's), so the program rewritten is the one the
base generator writes for the seed.
"""

from __future__ import annotations

import ast
import dataclasses
import random

from .config import Config, Spec
from .numpy_program import NpGen
from .scalar_program import Gen

DECORATORS = """
def passed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        logging.debug("calling %s", fn.__name__)
        return fn(*args, **kwargs)

    return wrapper


def halved(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 0.5 * fn(*args, **kwargs)

    return wrapper


def scaled(k):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return k * fn(*args, **kwargs)

        return wrapper

    return decorator


def shifted(fn):
    @functools.wraps(fn)
    def wrapper(a, *rest, **kwargs):
        return fn(a, *rest, **kwargs) + 0.25 * a

    return wrapper
"""
# Builtins generated code or the runtime helpers call (front.names.GENERATED_BUILTINS has them all)
SHADOWED = (
    "slice any all hasattr getattr enumerate isinstance len range reversed type zip map set sorted tuple list "
    "float int bool str sum min max abs dict round".split()
)


@dataclasses.dataclass
class WhatSpec(Spec):
    """A program with a line that may raise: ``base`` is the program without it (None: no such line)."""

    base: str | None = None


class WhatGen:
    """A scalar or NumPy program (by ``config.p_array_stmt``'s sibling: mode "what" draws either),
    rewritten as the module docstring says."""

    def __init__(self, rng: random.Random, config: Config):
        self.base_rng, self.config = rng, config
        self.rng = random.Random(repr(rng.getstate()[1][:8]))  # (the base generator's draws left as they are)

    def program(self, entry: str = "f") -> Spec:
        numpy = self.rng.random() < 0.5
        spec = (NpGen if numpy else Gen)(self.base_rng, self.config).program(entry)
        tree = ast.parse(spec.source)
        defs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
        self.decorate(defs, entry, numpy)
        self.shadow(tree)
        mover = random.Random(repr(self.base_rng.getstate()[1][:8]) + "move")  # (the other rewrites' draws kept)
        if mover.random() < 0.6:
            self.move(tree, defs, entry, mover)
        base = self.unpack(tree, defs[entry], spec.params) if self.rng.random() < 0.6 else None
        return WhatSpec(ast.unparse(tree) + "\n", entry, spec.params, spec.outputs, base)

    def decorate(self, defs: dict, entry: str, numpy: bool) -> None:
        """Decorators on some helpers, and at times on the entry: halved and scaled where the output is one value,
        shifted (which adds its first argument) on a scalar program's helpers of one number."""
        for name, fdef in defs.items():
            if self.rng.random() < (0.3 if name == entry else 0.6):
                returns = [r for r in ast.walk(fdef) if isinstance(r, ast.Return)]
                one = not any(isinstance(r.value, ast.Tuple) for r in returns)
                number = one and not numpy and name != entry and fdef.args.args[0].arg == "a"
                helper = name != entry  # (differentiate of a Differentiable is refused: the entry is the user's)
                choices = (
                    ["passed", "logged"]
                    + ["halved", "scaled(0.5)", "scaled(3.0)"] * one
                    + ["shifted"] * number
                    + ["adcompiler.differentiate"] * helper
                )
                fdef.decorator_list.append(ast.parse(self.rng.choice(choices), mode="eval").body)

    def unpack(self, tree: ast.Module, fdef: ast.FunctionDef, params: list) -> str | None:
        """``piece0, piece1, ... = p`` for a list or array parameter ``p``: of its length (the names then read in
        the output), or, half the time, of another (returned: the program without the line)."""
        seqs = [p for p in params if p[0] == "list" or p[0] == "array" and p[1] != "v"]  # (v: read once rebound)
        if not seqs:
            return None
        p = self.rng.choice(seqs)
        n = p[2] if p[0] == "list" else p[2][0]
        wrong = self.rng.random() < 0.5
        count = (n + self.rng.choice([-1, 1]) if n > 2 else 3) if wrong else n
        names = [f"piece{k}" for k in range(count)]
        line = ast.parse(f"{', '.join(names)}, = {p[1]}").body[0]
        if not wrong:
            fdef.body.insert(0, line)
            term = f"0.1 * {names[0]} * {names[-1]}"
            if p[0] == "array" and len(p[2]) == 2:  # rows of a matrix: numbers of them
                term = f"0.1 * {self._np(tree)}.sum({names[0]} * {names[-1]})"
            for r in (r for r in ast.walk(fdef) if isinstance(r, ast.Return)):
                first = r.value.elts[0] if isinstance(r.value, ast.Tuple) else r.value
                added = ast.BinOp(first, ast.Add(), ast.parse(term, mode="eval").body)
                if isinstance(r.value, ast.Tuple):
                    r.value.elts[0] = added
                else:
                    r.value = added
            return None
        before = ast.unparse(tree) + "\n"
        at = self.rng.randint(0, max(0, len(fdef.body) - 1))  # before the last statement (a return)
        fdef.body.insert(at, line)
        return before

    def _np(self, tree: ast.Module) -> str:
        for s in tree.body:
            if isinstance(s, ast.Import) and s.names[0].name == "numpy":
                return s.names[0].asname or "numpy"
        return "numpy"

    def move(self, tree: ast.Module, defs: dict, entry: str, rng: random.Random) -> None:
        """One helper that calls none of the program's functions moved to a module of its own, without
        its decorator (the program module's), as the module docstring says."""
        movable = [
            name
            for name, fdef in defs.items()
            if name != entry
            and not any(isinstance(n, ast.Name) and n.id in defs and n.id != name for n in ast.walk(fdef))
        ]
        if not movable:
            return
        name = rng.choice(movable)
        fdef = defs.pop(name)
        tree.body.remove(fdef)
        fdef.decorator_list = []
        for r in (r for r in ast.walk(fdef) if isinstance(r, ast.Return) and r.value is not None):
            if isinstance(r.value, ast.Tuple):
                r.value.elts[0] = ast.BinOp(r.value.elts[0], ast.Mult(), ast.Name("SCALE", ast.Load()))
            else:
                r.value = ast.BinOp(r.value, ast.Mult(), ast.Name("SCALE", ast.Load()))
        imports = [s for s in tree.body if isinstance(s, ast.Import)]  # (math, numpy: not the decorators')
        scale = rng.choice([0.5, 1.25, 2.0])
        companion = ast.Module(imports + ast.parse(f"SCALE = {scale}").body + [fdef], [])
        here = ast.parse(
            f"__adc_fuzz_companion__ = {ast.unparse(companion) + chr(10)!r}\n"
            f"from __companion__ import {name}\nSCALE = {scale * 31.0}\n"
        ).body
        tree.body[len(imports) : len(imports)] = here

    def shadow(self, tree: ast.Module) -> None:
        """The decorators' module, and one to three builtins' names bound to functions that raise."""
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        free = [n for n in SHADOWED if n not in used]
        names = self.rng.sample(free, min(len(free), self.rng.randint(1, 3)))
        hostile = "".join(
            f"\n\ndef {n}(*args, **kwargs):\n    raise AssertionError('the module binds {n}: not the builtin')\n"
            for n in names
        )
        added = ast.parse("import functools\nimport logging\nimport adcompiler\n" + DECORATORS + hostile).body
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        tree.body[len(imports) : len(imports)] = added


__all__ = ["DECORATORS", "SHADOWED", "WhatGen", "WhatSpec"]
