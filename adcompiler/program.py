"""The driver: the list of passes, and the bookkeeping that ties functions together.

``Program`` lowers the entry function and every user function it calls
(parse -> anf -> dup), decides which derivative functions are needed (one per
callee and set of active arguments), names them without clashing with any
user name, and builds them (forward / reverse).  Each pass is a function of its
input; this module only composes them and remembers results.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types

from . import anf, dup, emit, forward, kinds, reverse
from .activity import varied
from .errors import UnsupportedSyntaxError
from .inplace import check_in_place
from .ir import Var, calls, flatten, to_def
from .names import GENERATED_BUILTINS, Namer, Namespace
from .parse import parse_function
from .scopes import nodes
from .tidy import tidy

STAGES = ("anf", "dup", "forward", "reverse")


class Program:
    """Everything generated for one entry function, built on demand and cached."""

    def __init__(self, globals_: dict, checkpoint=None):
        self.globals = globals_  # the module the generated code runs in
        self.checkpoint = checkpoint  # None, True (segments of sqrt N), k, "revolve" or ("revolve", c): checkpoint.py
        self.module_names: set = set()  # generated module-level names
        self.local_names: set = set()  # every local name handed out anywhere
        self.user_names: set = set(globals_)
        self.parsed: dict = {}
        self.anf_cache: dict = {}
        self.dup_cache: dict = {}
        self._lowering: list = []
        self.namers: dict = {}
        self.module = Namer(self.user_names, also=(self.local_names,), report=self.module_names)
        self.ns = Namespace(globals_, self.module)
        self.ns.helper = self.helper
        self.specs: dict = {}  # (kind, fn, mask) -> name(s)
        self.queue: list = []
        self.generated: dict = {}
        self.calls: dict = {}  # spec -> the specs its code calls
        self.primal_names: dict = {}
        self.injected: dict = {}
        self._discard = None
        self._outputs: dict = {}
        self._kinds: dict = {}
        self._arrays: dict = {}
        self.array_params: dict = {}  # function -> its parameters that arrive as NumPy arrays
        self.helpers: dict = {}  # runtime helper -> its name in generated modules

    # ---- lowering -----------------------------------------------------------------

    def anf(self, fn):
        """The ANF of a user function (lowering its callees first)."""
        if fn in self.anf_cache:
            return self.anf_cache[fn]
        parsed = self.parsed.get(fn) or parse_function(fn)
        self.parsed[fn] = parsed
        every = nodes(parsed.node)
        params = {a.arg for a in every if isinstance(a, ast.arg)}
        names = {n.id for n in every if isinstance(n, ast.Name)} | params
        self.user_names |= names | set(fn.__globals__)
        self.ns.avoid |= {  # locals and parameters: generated code never spells a module or builtin so
            n.id for n in every if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        } | params
        self.module.taken |= self.user_names
        namer = Namer(
            names | set(fn.__globals__) | set(self.globals),
            also=(self.module_names,),
            report=self.local_names,
        )
        self.namers[fn] = namer
        self._lowering.append(fn)
        self.anf_cache[fn] = anf.lower(parsed, namer, self._callee_shape)
        self._lowering.pop()
        return self.anf_cache[fn]

    def _callee_shape(self, fn, node):
        if fn in self._lowering:
            return _syntactic_shape(self.parsed[fn].node)
        return anf.output_shape(self.anf(fn))

    def dupform(self, fn):
        if fn not in self.dup_cache:
            self.dup_cache[fn] = dup.insert_dups(self.anf(fn), self.namers[fn])
        return self.dup_cache[fn]

    @property
    def discard(self) -> str:
        """A module-level name for values generated code must unpack but never reads."""
        if self._discard is None:
            self._discard = self.module.fresh("_")
        return self._discard

    def shape(self, fn):
        return anf.output_shape(self.anf(fn))

    def shape_of(self, function):
        return anf.output_shape(function)

    # ---- what passes ask of the program ---------------------------------------------

    def callee_outputs(self, fn, mask) -> tuple:
        """Which outputs of ``fn`` vary when the arguments in ``mask`` do, then which list parameters it fills
        with varying values (all of them, within a recursion)."""
        f = self.dupform(fn)
        key = (fn, mask, self.array_params.get(fn, frozenset()))
        leaves = flatten(f.body[-1].value)
        lists = tuple(p in self.kinds(fn) for p in f.params)
        if key in self._outputs:
            return self._outputs[key] or (True,) * len(leaves) + lists
        self._outputs[key] = None
        from .sweep import _mutable_arrays

        written = set(_mutable_arrays(f, self.arrays(fn)))  # arrays written in place: one object, varied whole
        seen = varied(f, _params(f, mask), self.callee_outputs, self.kinds(fn) | written)
        outs = tuple(isinstance(a, Var) and a.name in seen for a in leaves)
        self._outputs[key] = outs + tuple(c and p in seen for p, c in zip(f.params, lists))
        return self._outputs[key]

    def kinds_of(self, function) -> frozenset:
        """The container variables of a lowered function (ANF or dup form)."""
        fn = next(
            f
            for f, lowered in self.anf_cache.items()
            if lowered.name == function.name and lowered.source is function.source
        )
        return self.kinds(fn)

    def helper(self, name: str) -> str:
        """The module-level name of a runtime helper, which the module will then define."""
        if name not in self.helpers:
            self.helpers[name] = self.module.fresh(name)
        return self.helpers[name]

    def helper_sources(self, defs=None) -> list:
        """The source of the runtime helpers (those ``defs`` call, when given), under their module names."""
        from .runtime import HELPERS

        called = None
        if defs is not None:
            called = {e.func for d in defs for e in calls(d.body)}
        out = []
        for name, alias in self.helpers.items():
            if called is None or alias in called or "@" + name in called:
                out.append(HELPERS[name].replace(f"def {name}(", f"def {alias}(").replace(f" {name}(", f" {alias}("))
        return out

    def kinds(self, fn) -> frozenset:
        """The list-valued variables of ``fn`` (see ``kinds``); arrays are not lists."""
        key = (fn, self.array_params.get(fn, frozenset()))  # a caller may learn later that a parameter is an array
        if key not in self._kinds:
            self._kinds[key] = frozenset()
            self._kinds[key] = kinds.containers(self.dupform(fn), self.callee_kinds) - self.arrays(fn)
        return self._kinds[key]

    def arrays(self, fn) -> frozenset:
        """The NumPy-array-valued variables of ``fn``, given which parameters arrive as arrays."""
        key = (fn, self.array_params.get(fn, frozenset()))
        if key not in self._arrays:
            self._arrays[key] = frozenset(key[1])
            found = kinds.arrays(self.dupform(fn), key[1], self.callee_arrays)
            self._arrays[key] = found
            lists = kinds.containers(self.dupform(fn), self.callee_kinds) - found  # not self.kinds: no stale cache
            try:
                check_in_place(self.dupform(fn), found, lists, key[1])
            except Exception:
                del self._arrays[key]  # refused: so is every later request, in either mode
                raise
        return self._arrays[key]

    def callee_arrays(self, fn, flags) -> tuple:
        """Which outputs of ``fn`` are arrays when the arguments flagged are (recorded for its own analysis)."""
        f = self.dupform(fn)
        self.array_params[fn] = self.array_params.get(fn, frozenset()) | {p for p, on in zip(f.params, flags) if on}
        found = self.arrays(fn)
        return tuple(isinstance(a, Var) and a.name in found for a in flatten(f.body[-1].value))

    def arrays_of(self, function) -> frozenset:
        fn = next(
            f
            for f, lowered in self.anf_cache.items()
            if lowered.name == function.name and lowered.source is function.source
        )
        return self.arrays(fn)

    def callee_kinds(self, fn) -> tuple:
        """Which parameters and which outputs of ``fn`` are containers."""
        f, found = self.dupform(fn), self.kinds(fn)
        return tuple(p in found for p in f.params), tuple(
            isinstance(a, Var) and a.name in found for a in flatten(f.body[-1].value)
        )

    def primal_name(self, fn) -> str:
        """How generated code calls the original user function ``fn``."""
        if fn not in self.primal_names:
            bound = [k for k, v in self.globals.items() if v is fn and k not in GENERATED_BUILTINS]
            if fn.__name__ in bound or bound:
                self.primal_names[fn] = fn.__name__ if fn.__name__ in bound else sorted(bound)[0]
            else:
                base = fn.__name__ if fn.__name__.isidentifier() else "rule"  # a lambda's name is <lambda>
                name = self.module.fresh(base)
                self.injected[name] = fn
                self.primal_names[fn] = name
        return self.primal_names[fn]

    def _spec(self, kind: str, fn, mask, suffixes):
        """Name (and schedule) a derivative of ``fn``; ``mask`` says which parameters are active."""
        key = (kind, fn, _params(self.anf(fn), mask))
        if key not in self.specs:
            base = fn.__name__ if all(mask) else fn.__name__ + "_" + "_".join(key[2])
            self.specs[key] = tuple(self.module.fresh(f"{base}_{s}") for s in suffixes)
        self.queue.append(key)  # every request, so each caller learns what it calls
        return self.specs[key]

    def forward_callee(self, fn, mask):
        (name,) = self._spec("forward", fn, mask, ("forward",))
        return name, self.callee_outputs(fn, mask)[: len(flatten(self.anf(fn).body[-1].value))]

    def forward_sweep(self, fn, mask) -> str:
        return self._spec("split", fn, mask, ("forward_sweep", "reverse_sweep"))[0]

    def reverse_sweep(self, fn, mask) -> str:
        return self._spec("split", fn, mask, ("forward_sweep", "reverse_sweep"))[1]

    # ---- building ---------------------------------------------------------------------

    def build(self, entry, mode: str, wrt) -> list:
        """The generated functions for ``mode`` ("forward" or "reverse"), entry point first."""
        function = self.anf(entry)
        wrt = tuple(wrt)
        kind = {
            "forward": "forward",
            "reverse": "fused",
            "grad": "grad",
            "value_and_grad": "value_and_grad",
        }[mode]
        key = (kind, entry, wrt)
        if key not in self.specs:
            self.specs[key] = (self.module.fresh(f"{entry.__name__}_{mode}"),)
        return self.drain([key])

    def drain(self, wanted) -> list:
        """Build ``wanted`` and every function they call, each once."""
        built, order = {}, list(wanted)
        while order:
            key = order.pop(0)
            if key in built:
                continue
            before = len(self.queue)
            built[key] = self._generate(key)
            order.extend(k for k in self.queue[before:] if k not in built)
            order.extend(k for k in self.calls.get(key, ()) if k not in built)
        return [d for key in built for d in built[key]]

    def _generate(self, key) -> list:
        if key in self.generated:
            return self.generated[key]
        kind, fn, params = key
        names = self.specs[key]
        namer = self.namers[fn].child(also=(self.module_names,), report=self.local_names)
        before = len(self.queue)
        if kind == "forward":
            defs = [forward.forward(self.anf(fn), names[0], params, self, namer)]
        elif kind == "fused":
            defs = [reverse.fused(self.dupform(fn), names[0], params, self, namer)]
        elif kind in ("grad", "value_and_grad"):
            defs = [
                reverse.gradient(
                    self.dupform(fn),
                    names[0],
                    params,
                    self,
                    namer,
                    kind == "value_and_grad",
                )
            ]
        else:
            defs = reverse.split(self.dupform(fn), names, params, self, namer)
        defs = [tidy(d, self.user_names) for d in defs]
        self.generated[key] = defs
        self.calls[key] = self.queue[before:]
        return defs

    # ---- printing ---------------------------------------------------------------------

    def stage(self, entry, stage: str, wrt) -> str:
        """One stage as Python source that runs (ANF and dup return the primal's value)."""
        if stage not in STAGES:
            raise ValueError(f"stage must be one of {', '.join(STAGES)}, not {stage!r}")
        if stage in ("forward", "reverse"):
            key = ("stage", entry, stage, tuple(wrt))
            if key not in self.generated:
                defs = self.build(entry, stage, wrt)
                self.generated[key] = emit.render_module(defs, self.ns, lambda: self.helper_sources(defs))
            return self.generated[key]
        self.anf(entry)
        order = [entry] + [f for f in self.anf_cache if f is not entry]
        if stage == "anf":
            defs = [to_def(self.anf(f), f.__name__, self.primal_name) for f in order]
            return emit.render_module(defs, self.ns, lambda: self.helper_sources(defs))
        helper = self.module.fresh("dup") if not hasattr(self, "_dup_helper") else self._dup_helper
        self._dup_helper = helper
        defs = [to_def(self.dupform(f), f.__name__, self.primal_name, {"dup": helper}) for f in order]
        header = [f"def {helper}(x):\n    return x, x\n\n"]
        return emit.render_module(defs, self.ns, lambda: header + self.helper_sources(defs))


def _syntactic_shape(fdef: ast.FunctionDef):
    """The output shape of a function still being lowered (a recursive call): from its return statements."""
    for node in ast.walk(fdef):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            return tuple(None for _ in node.value.elts)
    return None


def _params(function, mask) -> tuple:
    return tuple(p for p, on in zip(function.params, mask, strict=True) if on)


def primal_source(fn) -> str:
    """A user function's own source, dedented and without decorators."""
    text = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(text)
    node = tree.body[0]
    start = node.lineno if not node.decorator_list else node.decorator_list[0].lineno
    lines = text.splitlines(True)
    first_def = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    return "".join(lines[first_def:]) if start else text


__all__ = ["Program", "STAGES", "UnsupportedSyntaxError", "primal_source"]
