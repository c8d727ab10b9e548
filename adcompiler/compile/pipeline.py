"""The driver: the list of passes, and the bookkeeping that ties functions together.

``Program`` lowers the entry function and every user function it calls
(parse -> anf -> dup), decides which derivative functions are needed (one per
callee and set of active arguments), names them without clashing with any
user name, and builds them (forward / reverse).  Each pass is a function of its
input; this module only composes them and remembers results.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..options import DEFAULT, Options
from ..lower import anf, dup
from ..lower.inline_calls import inline_handed, inline_small_calls
from ..lower.small_arrays import as_numbers
from . import emit
from .display import Source
from ..modes import forward, reverse
from ..analysis import values as V
from ..analysis.activity import varied
from ..errors import UnsupportedSyntaxError
from ..analysis.facts import Facts, check_constructs, mutable_arrays
from ..analysis.parallel import check_parallel_loops
from ..analysis.infer import Analyser
from ..analysis.as_arrays import lists_as_arrays
from ..analysis.specialise import specialise
from ..analysis.decided import fold_decided_tests
from ..analysis.inplace import check_in_place, entry_writes
from ..analysis.memory import returned_memory
from ..analysis.methods import method_reads
from ..ir.nodes import Const, Var, calls, flatten
from ..ir.printing import to_def
from ..front.environment import ABSENT, Closure, Read, Scope, dependencies, module_of, namespace_of
from ..front.names import GENERATED_BUILTINS, Namer, Namespace, is_builtin
from ..front.parallel import is_prange, prange
from ..front.parse import parse_function
from ..front.lambdas import def_name
from ..front.scopes import nodes
from ..optimize.tidy import tidy
from ..optimize.finish import finished
from ..rules.custom import through_rule
from ..rules.helpers import MAKES

STAGES = ("anf", "dup", "forward", "reverse", "grad")


@dataclass(frozen=True)
class TargetPasses:
    """What a target adds to the driver, at its fixed points (the python target adds nothing): the code
    generation switches it sets (``Options`` fields), and a pass at each of three places.  A target is
    a registered object (``targets.registry``) holding one of these; the driver never names a target."""

    options: Mapping = field(default_factory=dict)  # switches of code generation (adcompiler.options)
    lowered: Callable | None = None  # (function, namer) -> the ANF of a user function as the target takes it
    refuse_lowered: Callable | None = None  # (function) -> None, raising where the target refuses the ANF
    refuse_facts: Callable | None = None  # (facts) -> None, raising where it refuses what they say
    refuse_reverse: Callable | None = None  # (facts, active parameters) -> None, raising where it refuses reverse
    # mode's code of them
    generated: Callable | None = None  # (defs, program, facts) -> the generated functions of one spec, finished
    helper_sources: Callable | None = None  # (program, [(helper, its name)]) -> the runtime helpers' source


PYTHON_PASSES = TargetPasses()


class Program:
    """Everything generated for one entry function, built on demand and cached."""

    def __init__(self, globals_: Mapping, options: Options = DEFAULT, passes: TargetPasses = PYTHON_PASSES):
        self.globals = globals_  # what the entry function reads as globals: its module (a Scope for generated code)
        self.options = options.but(**passes.options)  # what the build is asked for, handed to the passes
        self.passes = passes  # the target's (TargetPasses)
        self._accepted: set = set()  # the functions whose ANF the target's refuse_lowered passed
        self.module_names: set = set()  # generated module-level names
        self.local_names: set = set()  # every local name handed out anywhere
        self.user_names: set = set(globals_)  # every name a function it lowers reads or binds: never handed out
        self.kept_names: set = set(globals_)  # those of the user's own functions: never folded away (tidy)
        self.parsed: dict = {}
        self.anf_cache: dict = {}
        self.dup_cache: dict = {}
        self._lowering: list = []
        self.namers: dict = {}
        self.module = Namer(self.user_names, also=(self.local_names,), report=self.module_names)
        self.ns = Namespace(globals_, self.module)
        self.ns.helper = self.helper
        self.specs: dict = {}  # (kind, fn, active params, signature) -> name(s)
        self.queue: list = []
        self.generated: dict = {}
        self.calls: dict = {}  # spec -> the specs its code calls
        self.primal_names: dict = {}
        self.injected: dict = {}
        self._discard = None
        self._outputs: dict = {}
        self._memory: dict = {}  # (callee, signature) -> what its outputs may share memory with (returned_memory)
        self._checked: set = set()
        self.analyser = Analyser(self.dupform)
        self.helpers: dict = {}  # runtime helper -> its name in generated modules
        self.accumulators: dict = {}  # an adjoint's accumulator (d_x = 0.0) -> its variable (the Numba target's)
        self.array_accumulators: dict = (
            {}
        )  # accumulator -> its array's ndim, 0 a number's, -1 not known, None both (typed_zeros)
        self._dependencies: tuple = (None, [])  # (what had been lowered and rendered, its dependencies)
        self.cells: dict = {}  # id of a closure's cell the code reads -> (the name the code reads it by, the cell)

    # ---- lowering -----------------------------------------------------------------

    def anf(self, fn):
        """The ANF of a user function (lowering its callees first), as the target takes it, and checked
        by the target on every request until it passes (a refused function is refused on every call)."""
        if fn not in self.anf_cache:
            self.anf_cache[fn] = self._lowered(fn)
        if self.passes.refuse_lowered is not None and fn not in self._accepted:
            self.passes.refuse_lowered(self.anf_cache[fn])
            self._accepted.add(fn)
        return self.anf_cache[fn]

    def _lowered(self, fn):
        """The ANF of ``fn``: lowered, small calls inlined, then the target's pass."""
        parsed = self.parsed.get(fn) or parse_function(through_rule(fn))  # rules, not the body
        self.parsed[fn] = parsed
        every = nodes(parsed.node)
        params = {a.arg for a in every if isinstance(a, ast.arg)}
        names = {n.id for n in every if isinstance(n, ast.Name)} | params
        namespace = namespace_of(fn)
        self.user_names |= names | set(namespace)
        if not hasattr(fn, "__adc_scope__"):  # (generated code differentiated again: its t1 is a temporary)
            self.kept_names |= names | set(namespace)
        self.ns.avoid |= {  # locals and parameters: generated code never spells a module or builtin so
            n.id for n in every if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        } | params
        self.module.taken |= self.user_names
        namer = Namer(
            names | set(namespace) | set(self.globals),
            also=(self.module_names,),
            report=self.local_names,
        )
        self.namers[fn] = namer
        self._lowering.append(fn)
        try:
            foreign = module_of(namespace) is not module_of(self.globals)
            lowered = anf.lower(parsed, namer, self._callee_shape, foreign, self.cell_name)
            self.ns.read |= {  # (an item of a list or dict a closure holds is read too: lower.names.global_record)
                r.name
                for r in parsed.reads
                if isinstance(r.name, str) and r.value is not ABSENT and not is_builtin(r.name, r.value)
            }
            looped = self.options.inline_looped_calls and self.options.checkpoint is None  # (a checkpointed loop of
            # lines alone is refused under Numba, its segments reversed: a loop calling a helper runs as it did)
            function = inline_small_calls(lowered, self.anf, namer, self._lowering, looped)
            if self.options.small_arrays and self.options.small_arrays[0] is fn:  # short rows held as numbers
                handed = lambda f, names: inline_handed(f, names, self.anf, namer, self._lowering)  # noqa: E731
                function = as_numbers(function, self.options.small_arrays[1], namer, handed)
        except RecursionError:
            raise _too_deep(fn) from None
        finally:
            self._lowering.pop()
        return function if self.passes.lowered is None else self.passes.lowered(function, namer)

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

    def facts(self, fn, sig: V.Sig) -> Facts:
        """The abstract value of every variable of ``fn`` called with arguments of signature ``sig``,
        its in-place changes of arrays checked (refused with a location where the derivative could
        miss one)."""
        facts = self.analyser.facts(fn, sig)
        key = (fn, sig)
        if key not in self._checked:
            self._checked.add(key)
            facts.origin = fn
            if fn in self.parsed:  # (the methods its calls resolve to: replaced on their class, built again)
                self.parsed[fn].reads.extend(method_reads(self.anf(fn), facts.of))
            facts.fn, anf = lists_as_arrays(facts, fold_decided_tests(self.anf(fn), sig), self.namers[fn].fresh)
            facts.fn = specialise(facts.fn, facts.of)
            facts.anf = specialise(anf, facts.of)
            try:
                check_constructs(facts)
                check_parallel_loops(facts, self)
                shares = self.call_shares(facts)
                facts.writes = check_in_place(
                    facts.fn,
                    facts.numeric_arrays,
                    facts.containers,
                    facts.array_params - facts.index_params,
                    facts.holders,
                    shares,
                    generated=hasattr(fn, "__adc_scope__"),
                    vectors=facts.vectors,
                    index_params=facts.index_params,
                    callee_writes=lambda eq: self.writes_into(eq.param, facts.call_sig(eq)),
                )
                if self.passes.refuse_facts is not None:
                    self.passes.refuse_facts(facts)
            except Exception:
                self._checked.discard(key)  # refused: so is every later request, in either mode
                raise
        return facts

    def writes_into(self, fn, sig: V.Sig) -> tuple:
        """The positions of the integer-array parameters ``fn`` writes into, itself or through its helpers
        (``inplace.check_in_place``); within a recursion, none yet (its own writes are found at its level)."""
        facts = self.facts(fn, sig)
        return tuple(k for k, p in enumerate(facts.fn.params) if p in facts.writes)

    def returned_memory(self, fn, sig: V.Sig):
        """For each output leaf of ``fn`` called with signature ``sig``, the parameters whose memory it
        may share (``inplace.returned_memory``); None while ``fn`` is still being worked out (a
        recursion: the caller then assumes every argument)."""
        key = (fn, sig)
        if key not in self._memory:
            self._memory[key] = None
            try:
                facts = self.facts(fn, sig)
                shares = self.call_shares(facts)
                found = returned_memory(
                    facts.fn, facts.numeric_arrays, facts.containers, facts.holders, shares, facts.vectors
                )
            except Exception:
                del self._memory[key]  # refused: asked again, it is refused again
                raise
            self._memory[key] = found
        return self._memory[key]

    def call_shares(self, facts: Facts):
        """``returned_memory`` for the calls of one analysed function: each call knows its callee's signature."""
        return lambda eq: self.returned_memory(eq.param, facts.call_sig(eq))

    def callee_outputs(self, fn, mask, sig: V.Sig) -> tuple:
        """Which outputs of ``fn`` vary when the arguments in ``mask`` do, then which list parameters it fills
        with varying values (all of them, within a recursion)."""
        key = (fn, mask, sig)
        facts = self.facts(fn, sig)
        f = facts.fn
        leaves = flatten(f.body[-1].value)
        lists = tuple(p in facts.containers and V.may_carry_derivative(facts.avals.get(p, V.TOP)) for p in f.params)
        if key in self._outputs:  # within a recursion: every output, every list that can hold a float
            return self._outputs[key] or (True,) * len(leaves) + lists
        self._outputs[key] = None
        written = set(mutable_arrays(f, facts.numeric_arrays))  # arrays written in place: one object, varied whole
        seen = varied(f, _params(f, mask), self.outputs_of(facts), facts.containers | written, facts.linked(f))
        outs = tuple(isinstance(a, Var) and a.name in seen for a in leaves)
        self._outputs[key] = outs + tuple(c and p in seen for p, c in zip(f.params, lists))
        return self._outputs[key]

    def outputs_of(self, facts: Facts):
        """``callee_outputs`` for the calls of one analysed function: each call knows its callee's signature."""
        return lambda eq, mask: self.callee_outputs(eq.param, mask, facts.call_sig(eq))

    def helper(self, name: str) -> str:
        """The module-level name of a runtime helper, which the module will then define."""
        if name not in self.helpers:
            self.helpers[name] = self.module.fresh(name)
        return self.helpers[name]

    def helper_sources(self, defs=None) -> list:
        """The source of the runtime helpers (those ``defs`` call, when given), under their module names."""
        called = {e.func for d in defs for e in calls(d.body)} if defs is not None else None
        wanted = [(n, alias) for n, alias in self.helpers.items() if called is None or {alias, "@" + n} & called]
        if self.passes.helper_sources is not None:  # (the target's versions of them)
            return self.passes.helper_sources(self, wanted)
        return [self.helper_source(name, alias) for name, alias in wanted]

    def helper_source(self, name: str, alias: str) -> str:
        """The python target's source of the runtime helper ``name``, under its module name ``alias``."""
        from ..targets.python.runtime import HELPERS

        text = re.sub(rf"(?<![\w.]){name}\(", f"{alias}(", HELPERS[name])  # (its own calls too: zeros_like's)
        return self.ns.builtins_spelled(text)  # (a builtin the module binds: builtins.len)

    def dependencies(self) -> list:
        """What the code built so far depends on in the user's modules (see ``front.environment``):
        every global a lowered function read, and each module or function generated code spells with
        a name of the user's module (``np``, a helper it calls)."""
        parsed = list(self.parsed.values())
        key = (len(parsed), sum(len(p.reads) for p in parsed), len(self.ns.used), len(self.primal_names))
        if self._dependencies[0] != key:  # something was lowered or rendered since: gather them again
            reads = [r for p in parsed for r in p.reads]
            reads += [Read(self.globals, n, self.globals[n]) for n in list(self.ns.used) if n in self.globals]
            reads += [Read(self.globals, n, f) for f, n in list(self.primal_names.items()) if n not in self.injected]
            self._dependencies = (key, dependencies(reads, self.options.frozen_globals))
        return self._dependencies[1]

    def cell_name(self, name: str, cell, closure) -> str:
        """The name the code reads a closure's variable ``name`` (its ``cell``, of the namespace ``closure``) by:
        its own, but where another closure's variable of that name (a decorator factory's ``k`` of two functions
        it made) or a global of the module has it already, a fresh one (``k_1``), which the closure then also
        reads it by (``Closure.aliases``): the code of one module reads each by one name."""
        if id(cell) not in self.cells:
            taken = {text for text, _ in self.cells.values()}
            text = name if name not in taken and name not in self.globals else self.module.fresh(name)
            self.cells[id(cell)] = (text, cell)  # (the cell kept: its id not reused)
        text = self.cells[id(cell)][0]
        if text != name:
            closure.aliases[text] = name
        return text

    def supplied(self, names) -> dict:
        """What generated code reading ``names`` (and not defining them) is handed (see ``back.load``):
        functions it calls by a name the module does not bind, the builtins the runtime helpers call
        (the module may bind those names to something else), and, in derivative code differentiated
        again, the names of the code it differentiates.  Every other name is the module's global."""
        scopes = [ns for ns in {id(ns): ns for ns in map(namespace_of, self.parsed)}.values() if isinstance(ns, Scope)]
        out = {text: cell for text, cell in self.cells.values() if text in names}  # a closure's: its cell
        for name in (n for n in names if n not in out):
            if name in self.injected or name in self.ns.constants:  # (an array default: ns.constant)
                out[name] = self.injected[name] if name in self.injected else self.ns.constants[name].value
            elif name in GENERATED_BUILTINS and name not in self.ns.read:  # (else the user's: see Namespace.render)
                out[name] = getattr(builtins, name)
            else:
                found = {id(ns.own[name]): ns.own[name] for ns in scopes if name in ns.own}
                helpers = {getattr(f, "__adc_primitive__", None) for f in found.values()}
                if len(found) > 1 and len(helpers) == 1 and None not in helpers:  # one runtime helper, loaded twice
                    found = dict([next(iter(found.items()))])
                if len(found) > 1:
                    raise ValueError(
                        f"the derivative code to differentiate calls two different functions named {name} "
                        "(made by two derivatives); differentiate each derivative on its own"
                    )
                out.update((name, value) for value in found.values())
        if "prange" in names and "prange" not in out and not is_prange(self.globals.get("prange")):
            out["prange"] = prange  # (the code writes a parallel loop's prange by that name, whatever the user's)
        return out

    def primal_name(self, fn) -> str:
        """How generated code calls the original user function ``fn``."""
        if fn not in self.primal_names:
            bound = [k for k, v in self.globals.items() if v is fn and k not in GENERATED_BUILTINS]
            if fn.__name__ in bound or bound:
                name = fn.__name__ if fn.__name__ in bound else sorted(bound)[0]
                if isinstance(self.globals, Closure) and name in self.globals.cells:  # a wrapper's fn: its cell,
                    name = self.cell_name(name, self.globals.cells[name], self.globals)  # handed to the code
                self.primal_names[fn] = name
            else:
                base = def_name(fn) if hasattr(fn, "__code__") else "rule"  # a lambda's name is <lambda>
                name = self.module.fresh(base)
                self.injected[name] = fn
                self.primal_names[fn] = name
        return self.primal_names[fn]

    def _spec(self, kind: str, fn, mask, suffixes, sig: V.Sig):
        """Name (and schedule) a derivative of ``fn`` for one signature; ``mask`` says which parameters are active."""
        key = (kind, fn, _params(self.anf(fn), mask), sig)
        if key not in self.specs:
            base = def_name(fn) if all(mask) else def_name(fn) + "_" + ("_".join(key[2]) or "primal")
            self.specs[key] = tuple(self.module.fresh(f"{base}_{s}") for s in suffixes)
        self.queue.append(key)  # every request, so each caller learns what it calls
        return self.specs[key]

    def forward_callee(self, fn, mask, sig: V.Sig):
        (name,) = self._spec("forward", fn, mask, ("forward",), sig)
        return name, self.callee_outputs(fn, mask, sig)[: len(flatten(self.anf(fn).body[-1].value))]

    def forward_sweep(self, fn, mask, sig: V.Sig) -> str:
        return self._spec("split", fn, mask, ("forward_sweep", "reverse_sweep"), sig)[0]

    def reverse_sweep(self, fn, mask, sig: V.Sig) -> str:
        return self._spec("split", fn, mask, ("forward_sweep", "reverse_sweep"), sig)[1]

    # ---- building ---------------------------------------------------------------------

    def build(self, entry, mode: str, wrt, sig: V.Sig) -> list:
        """The generated functions for ``mode`` ("forward" or "reverse"), entry point first, for
        arguments of signature ``sig``."""
        ret = self.anf(entry).body[-1]
        if ret.value == Const(None):  # a procedure: helpers may be, what is differentiated may not
            node = self.parsed[entry].node
            raise self.parsed[entry].error(
                node,
                f"the function {node.name} may end without returning a value",
                "end every path with return <value>",
            )
        wrt = tuple(wrt)
        if mode not in ("forward", "reverse", "grad", "value_and_grad", "jacobian"):
            raise ValueError(f"no generated code for mode {mode!r}")
        facts = self.facts(entry, sig)
        entry_writes(facts.fn, facts.writes)
        kind = "fused" if mode == "reverse" else mode
        key = (kind, entry, wrt, sig)
        if key not in self.specs:
            self.specs[key] = (self.module.fresh(f"{def_name(entry)}_{mode}"),)
        return self.drain([key])

    def drain(self, wanted) -> list:
        """Build ``wanted`` and every function they call, each once: the generated functions, each name
        once (two specs may generate one function: the first's is kept)."""
        built, order = {}, list(wanted)
        while order:
            key = order.pop(0)
            if key in built:
                continue
            before = len(self.queue)
            try:
                built[key] = self._generate(key)
            except RecursionError:
                raise _too_deep(key[1]) from None
            order.extend(k for k in self.queue[before:] if k not in built)
            order.extend(k for k in self.calls.get(key, ()) if k not in built)
        unique: dict = {}
        for d in (d for key in built for d in built[key]):
            unique.setdefault(d.name, d)
        return list(unique.values())

    def _generate(self, key) -> list:
        if key in self.generated:
            return self.generated[key]
        kind, fn, params, sig = key
        names = self.specs[key]
        facts = self.facts(fn, sig)  # (first: it may name variables, which the namer below then avoids)
        namer = self.namers[fn].child(also=(self.module_names,), report=self.local_names)
        before = len(self.queue)
        if kind != "forward" and self.passes.refuse_reverse is not None:
            self.passes.refuse_reverse(facts, params)
        if kind == "forward":
            defs = [forward.forward(facts.anf, facts, names[0], params, self, namer)]
        elif kind == "fused":
            defs = [reverse.fused(facts, names[0], params, self, namer)]
        elif kind == "jacobian":
            defs = [reverse.jacobian(facts, names[0], params, self, namer)]
        elif kind in ("grad", "value_and_grad"):
            defs = [reverse.gradient(facts, names[0], params, self, namer, kind == "value_and_grad")]
        else:
            defs = reverse.split(facts, names, params, self, namer)
        made = frozenset(self.helpers[n] for n in MAKES if n in self.helpers)  # (the shadows' zeros_like)
        defs = finished([tidy(d, self.kept_names, made) for d in defs], kind, facts.avals, self.options.releases)
        if self.passes.generated is not None:
            defs = self.passes.generated(defs, self, facts)  # (facts: the abstract values of the names it rewrites)
        self.generated[key] = defs
        self.calls[key] = self.queue[before:]
        return defs

    # ---- printing ---------------------------------------------------------------------

    def stage(self, entry, stage: str, wrt, sig: V.Sig | None = None, origins: list | None = None) -> Source:
        """One stage as Python source that runs (ANF and dup return the primal's value; Jupyter highlights it);
        ``origins``, when given, gets the ``back.origins.Origin`` of each of its lines (for ``back.page``)."""
        if stage not in STAGES:
            raise ValueError(f"stage must be one of {', '.join(STAGES)}, not {stage!r}")
        if stage in ("forward", "reverse", "grad"):
            key = ("stage", entry, stage, tuple(wrt), sig)
            if key not in self.generated or origins is not None:  # (rendered again for its origins)
                defs = self.build(entry, stage, wrt, sig)
                text = Source(emit.render_module(defs, self.ns, lambda: self.helper_sources(defs), origins=origins))
                return self.generated.setdefault(key, text) if origins is None else text
            return self.generated[key]
        self.anf(entry)
        order = [entry] + [f for f in self.anf_cache if f is not entry]
        names = [def_name(entry)] + [self.primal_name(f) for f in order[1:]]  # each as its callers call it
        if stage == "anf":  # (a wrapper and the function it wraps, both named f: f and f_1)
            defs = [to_def(self.anf(f), name, self.primal_name, shape_of=self.shape) for f, name in zip(order, names)]
            return Source(emit.render_module(defs, self.ns, lambda: self.helper_sources(defs), origins=origins))
        helper = self.module.fresh("dup") if not hasattr(self, "_dup_helper") else self._dup_helper
        self._dup_helper = helper
        defs = [
            to_def(self.dupform(f), name, self.primal_name, {"dup": helper}, self.shape)
            for f, name in zip(order, names)
        ]
        header = [f"def {helper}(x):\n    return x, x\n\n"]
        return Source(emit.render_module(defs, self.ns, lambda: header + self.helper_sources(defs), origins=origins))


def _syntactic_shape(fdef: ast.FunctionDef):
    """The output shape of a function still being lowered (a recursive call): from its return statements."""

    def shape(node):
        return tuple(shape(e) for e in node.elts) if isinstance(node, ast.Tuple) else None

    for node in ast.walk(fdef):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            return shape(node.value)
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


def _too_deep(fn) -> UnsupportedSyntaxError:
    """The error for a function whose expressions nest deeper than the passes can walk (Python's own
    compiler stops not far beyond): located at the function, with the remedy."""
    code = getattr(fn, "__code__", None)
    return UnsupportedSyntaxError(
        f"an expression of {getattr(fn, '__name__', fn)} nested too deeply to differentiate",
        "split it into several statements (t1 = ...; t2 = t1 + ...)",
        code.co_filename if code else "<unknown>",
        code.co_firstlineno if code else 0,
        0,
    )
