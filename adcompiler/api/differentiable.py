"""The public object: a user function with derivatives, built once on first use."""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence, Union, overload

from ..compile import emit
from ..analysis import values as V
from ..analysis.assume import assumed_signature
from ..modes.checkpoint import checkpoint_problem
from .arguments import all_floats, as_sequence, checked_ct, checked_tangents, constant_integers
from .arguments import active_tangents, refuse_not_differentiable, refuse_other_arrays, refuse_partial
from .arguments import ct_shapes, refuse_shared_writes, require_scalar, tangent_like
from .entries import NO_ENTRY, ct_kind, install, record_entry, remember_records
from .iterables import refuse_other_iterables
from ..compile.load import load
from ..compile.page import page_of
from ..front.environment import namespace_of
from ..compile.collector import no_cycle_collection
from .pickling import reduce
from .methods import bind, method_of
from ..compile.pipeline import BUILDING, Program
from ..options import Options
from ..rules.custom import through_rule
from .trees import all_integral, any_records, converts, flatten, gradient_of, narrow_floats, unflatten, unflatten_each
from ..targets import registry as targets
from . import runs
from .variadic import Variadic, has_varargs

Wrt = Union[str, int, Sequence[Union[str, int]], None]  # parameters by name or position; None: all
Checkpoint = Union[int, bool, str, tuple[str, int], None]  # see differentiate


@overload
def differentiate(
    fn: Callable[..., Any], *, wrt: Wrt = None, checkpoint: Checkpoint = None, backend: str = "python", arrays="numpy"
) -> Differentiable: ...
@overload
def differentiate(
    fn: None = None, *, wrt: Wrt = None, checkpoint: Checkpoint = None, backend: str = "python", arrays="numpy"
) -> Callable[..., Differentiable]: ...
def differentiate(fn=None, *, wrt=None, checkpoint=None, backend="python", arrays="numpy"):
    """Make ``fn`` differentiable: ``f.jvp``, ``f.vjp``, ``f.grad``, ``f.value_and_grad``, ``f.source``.

    Usable as ``@differentiate``, ``@differentiate(wrt=("x",))`` or ``differentiate(g, wrt=("x",))``;
    ``wrt`` names the parameters to differentiate with respect to (by default all but those whose
    argument is an integer: a constant).  ``checkpoint`` trades time for memory in reverse mode: ``k``,
    ``True``, ``"revolve"``, ``("revolve", c)`` (``modes.checkpoint``).  ``backend="numba"``: ``numba.njit``;
    ``arrays="any"``: code calling its arguments' array namespace (Dask, CuPy; ``targets.registry``).
    """
    if checkpoint_problem(checkpoint):
        raise ValueError(checkpoint_problem(checkpoint))
    fn = targets.of(backend, arrays).unwrapped(fn)  # (a @numba.njit function's own Python function)
    options = dict(wrt=wrt, checkpoint=checkpoint, backend=backend, arrays=arrays)
    method = method_of(fn, Differentiable, lambda f: differentiate(f, **options))  # model.forward, static methods
    refuse_partial(fn)
    if fn is None or method is not None:
        return method or (lambda f: differentiate(f, **options))
    return Differentiable(fn, wrt, checkpoint, backend, arrays)


class Differentiable:
    """A function together with its forward- and reverse-mode derivative code."""

    def __new__(cls, fn, *options, **keywords):  # def f(*xs): one Differentiable per number of arguments
        return Variadic(fn, *options, **keywords, make=cls) if has_varargs(fn) else super().__new__(cls)

    def __init__(
        self, fn: Callable[..., Any], wrt: Wrt = None, checkpoint: Checkpoint = None, backend="python", arrays="numpy"
    ) -> None:
        self._origin = _origin(fn)  # (owner, mode, signature) when fn is g.grad, g.jvp, ... of a Differentiable
        if self._origin is not None:
            owner, mode, sig = self._origin
            fn = owner._function(mode, sig)  # the generated function itself
        self.checkpoint = checkpoint
        self.backend, self.arrays = backend, arrays  # as the user gave them (pickling, methods, variadic)
        self.target = targets.of(backend, arrays)  # where the code runs (adcompiler.targets.registry)
        functools.update_wrapper(self, fn)
        self._called = fn  # what a call runs (self.fn: the function differentiated, see adcompiler.api.runs)
        self.wrt_given = wrt is not None  # (a method's default leaves self out: adcompiler.api.methods)
        self._read(wrt)
        self._sig: V.Sig | None = None  # the abstract signature of the last call's arguments: what the code is for
        self._out_shape = None
        self._programs: dict = {}  # signature -> its Program
        self._sources: dict = {}  # each generated entry function: the IR it was emitted from
        self._compiled_for: dict = {}  # signature -> mode -> the loaded entry function
        self.derived: dict = {}  # derivatives of the generated code (hessian's), by mode and signature
        self._record_entries: dict = {}  # grad, value_and_grad -> [(tests, code, rebuild)] (entries)

    def _read(self, wrt: Wrt) -> None:
        """What a call runs (``runs.read``): the function differentiated, its signature, its tree (what the fence
        refuses: the first thing any call reports), the parameters to differentiate; again when they change."""
        self._wrt_asked, self._reading = wrt, runs.read(self._called, wrt)
        self.fn, self.signature, self.params = self._reading.fn, self._reading.signature, self._reading.params
        self._refusal, self._parsed = self._reading.refusal, self._reading.parsed  # (parsed: the first Program's)
        self.wrt, self._positions, self._floats = self._reading.wrt, self._reading.positions, self._reading.floats

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._called(*args, **kwargs)

    def __reduce__(self):
        """Pickled by reference (see ``adcompiler.api.pickling``)."""
        options = (self.wrt, self.checkpoint, self.backend, self.arrays)
        return reduce(self, self._called, options, self._origin is not None)

    def __get__(self, obj, objtype=None):
        return self if obj is None else bind(self, obj)  # a method of obj (adcompiler.api.methods)

    # ---- building -------------------------------------------------------------------
    #
    # Everything below that creates or fills a Program, generates code or makes an entry holds
    # pipeline.BUILDING: the passes share module-level tables, and two threads asking for the same
    # signature's code at once must not build it twice into one Program.  Each call works with the
    # signature it bound itself (``_bound``), never with another thread's: ``_sig`` only remembers
    # the last call's, for ``source()`` and ``program``.

    @property
    def program(self) -> Program:
        """The program generated for the last call's signature (one per signature, so each names its
        entry points ``f_forward``, ``f_reverse``, ...)."""
        with BUILDING:
            if self._sig is None:  # no call yet: what the code's use of each parameter says (as adc compile)
                program = self._new_program(Program)
                self._sig = assumed_signature(program, self.fn)
                self._programs.setdefault(self._sig, program)
            return self._program(self._sig)

    def _program(self, sig: V.Sig) -> Program:
        """The program for arguments of signature ``sig`` (made on first use)."""
        program = self._programs.get(sig)
        if program is None:
            kind = self.target.program
            with BUILDING:  # (another thread's, if it made one meanwhile)
                program = self._programs.get(sig) or self._programs.setdefault(sig, self._new_program(kind))
        return program

    def _new_program(self, kind) -> Program:
        """A new ``kind`` of Program for this function.  The first is handed the tree the fence read when
        the function was made differentiable, so the function is parsed once, not twice; only one Program
        may have it (lowering changes the tree)."""
        program, parsed, self._parsed = (
            kind(namespace_of(self.fn), Options(checkpoint=self.checkpoint)),
            self._parsed,
            None,
        )
        if parsed is not None and through_rule(self.fn) is self.fn:  # (a function with rules lowers a wrapper)
            program.parsed[self.fn] = parsed
        return program

    def _facts(self, sig: V.Sig):
        """What the analysis knows of the function for arguments of signature ``sig``."""
        with BUILDING, no_cycle_collection():
            try:
                return self._program(sig).facts(self.fn, sig)
            except Exception:  # refused: not a Program left half analysed, which the next call would take
                if not self._compiled_for.get(sig):
                    self._programs.pop(sig, None)
                raise

    def _specialise(self, args) -> V.Sig:
        """The abstract signature of the arguments, which chooses the generated code: every leaf of
        every list and tuple looked at, and which arguments share a list (built once per signature)."""
        sig = V.signature(args)
        if sig not in self._compiled_for:
            refuse_other_iterables(self.fn, self.params, args, sig, lambda: self._program(sig))
            refuse_shared_writes(self.fn, self.params, sig, lambda: self._facts(sig))
        self._sig = sig
        return sig

    def _function(self, mode: str, sig: V.Sig | None = None):
        """The loaded entry function for ``mode``, for arguments of signature ``sig`` (the last call's
        when None), transforming on first use only.

        Each entry point (``jvp``, ``vjp``, ``grad``, ``value_and_grad``) is generated when first
        asked for; the functions it calls are generated once per program and shared.
        """
        if sig is None:  # asked from outside (higher, a derivative of this one): the last call's code
            self._check_current()
            self.program  # noqa: B018  (makes the assumed signature when nothing was called yet)
            sig = self._sig
        compiled = self._compiled_for.get(sig)
        if compiled is None or mode not in compiled:
            with BUILDING, no_cycle_collection():
                compiled = self._compiled_for.setdefault(sig, {})
                if mode not in compiled:
                    try:
                        self._build(mode, sig, compiled)  # type: ignore[arg-type]
                    except Exception:  # refused: the next call like this one is refused the same way
                        if not compiled:  # (not a Program left half analysed, which fails otherwise)
                            self._compiled_for.pop(sig, None)
                            self._programs.pop(sig, None)
                        raise
        return compiled[mode]

    def _build(self, mode: str, sig: V.Sig, compiled: dict) -> None:
        """Generate, load and remember (in ``compiled``) the entry function for ``mode`` (see ``_function``)."""
        program = self._program(sig)
        built = program.build(self.fn, mode, self._wrt_of(sig), sig)
        if self.target.load is not None:  # compiled by numba.njit, calling its arguments' array namespace, ...
            return compiled.update({mode: self.target.load(self, program, built, mode, sig)})
        source = emit.render_module(built, program.ns, program.helper_sources, formatted=False)
        # run in the function's own module (its globals read when the code runs), nothing written into it
        label = f"{mode} of {self.fn.__qualname__}"
        namespace = load(source, self.fn.__globals__, label, program.supplied, {d.name for d in built})
        for name, alias in program.helpers.items():
            namespace[alias].__adc_primitive__ = name  # so derivative code can itself be differentiated
        function = namespace[built[0].name]
        self._sources[function] = (built[0], program.ns)
        compiled[mode] = function

    # ---- what the code was built from -----------------------------------------------
    #
    # The generated code reads the module's globals when it runs, as the primal does; what it was
    # built from (the helpers it calls and differentiates, the kinds of the globals it reads, an
    # integer that chose an index) is tested on every call, a few dictionary lookups in the fast
    # entries (see front.environment); when the module no longer holds it (a helper redefined, as
    # in a notebook), everything built is dropped and built again on this call.

    def _dependencies(self) -> tuple:
        """What everything built so far depends on, with, for a derivative of derivative code, what
        that code depends on."""
        found: dict = {}
        deps = [d for program in list(self._programs.values()) for d in program.dependencies()]
        deps += runs.own_dependency(self._reading)
        if self._origin is not None:
            deps += self._origin[0]._dependencies()
        for d in deps:
            found.setdefault((id(d.where), d.name), d)
        return tuple(found.values())

    def _stale(self) -> bool:
        """Whether the module no longer holds something the code was built from."""
        if self._origin is not None:  # the differentiated code: stale, or built again since
            owner, mode, sig = self._origin
            if owner._stale() or owner._compiled_for.get(sig, {}).get(mode) is not self._called:
                return True
        return runs.changed(self._reading) or any(
            not d.holds() for program in list(self._programs.values()) for d in program.dependencies()
        )

    def _check_current(self) -> None:
        """Drop everything built if the module no longer holds what it was built from."""
        if self._stale():
            with BUILDING:
                if self._stale():  # not already dropped (and built again) by another thread
                    self._forget()

    def _forget(self) -> None:
        """Forget every program, loaded function and fast entry (later calls build them again), and,
        for a derivative of a derivative, take the differentiated code as it is now."""
        with BUILDING:
            if self._origin is not None:
                owner, mode, sig = self._origin
                owner._check_current()
                self._called = owner._function(mode, sig)
                self._read(self._wrt_asked)
                functools.update_wrapper(self, self._called)
            if runs.changed(self._reading):
                self._read(self._wrt_asked)  # its signature, defaults and tree as they are now
            self._programs, self._sources, self._compiled_for, self.derived = {}, {}, {}, {}
            self._record_entries = {}
            self._out_shape = None
            for name in ("jvp", "vjp", "grad", "value_and_grad"):  # the fast entries of the old code
                self.__dict__.pop(name, None)

    def source(self, stage: str = "reverse", html: bool = False) -> str:
        """The Python source of one stage: "anf", "dup", "forward", "reverse" (the vjp) or "grad" (the
        gradient of a scalar output: the reverse code with the cotangent 1.0 folded in); a ``str``
        (``back.display.Source``) that Jupyter shows highlighted when Pygments is installed.  ``html=True``: a
        page of this function beside its forward, reverse and ``stage`` code, line linked to line (``back.page``)."""
        self._check_current()
        with BUILDING:
            program, sig = self.program, self._sig
            wrt = self.wrt if sig is None else self._wrt_of(sig)
            shown = []
            for each in dict.fromkeys(("forward", "reverse", stage) if html else (stage,)):
                self._function(each, sig) if each in ("forward", "reverse", "grad") else None
                origins: list | None = [] if html else None
                text: str = program.stage(self.fn, each, wrt, sig, origins)
                if self.target.shown is not None and each != "anf":
                    text = self.target.shown(text, program, self.fn, origins)
                shown.append((each, text, origins))
            return page_of(self.fn.__name__, shown, stage) if html else shown[0][1]

    # ---- derivatives ----------------------------------------------------------------

    def _wrt_of(self, sig: V.Sig) -> tuple:
        """The parameters differentiated for arguments of signature ``sig``: ``wrt`` as given, or by
        default every parameter but those whose argument is an integer (``arguments.constant_integers``)."""
        if self.wrt_given or not any(all_integral(sig.avals[i]) for i in self._positions):
            return self.wrt
        return constant_integers(self.wrt, self.params, sig)

    def _positions_of(self, sig: V.Sig) -> tuple:
        """The positions of ``_wrt_of(sig)``."""
        return tuple(self.params.index(w) for w in self._wrt_of(sig))

    def _bind(self, args, kwargs=None) -> tuple:
        """All arguments, positionally, defaults filled in (records as given); integers refused where we
        differentiate."""
        return self._bound(args, kwargs, flat=False)[0]

    def _bound(self, args, kwargs=None, flat=True) -> tuple:
        """``(arguments, their signature)``: all arguments, positionally, defaults filled in; integers
        refused where we differentiate; records (dicts, NamedTuples, dataclasses) as the tuples
        generated code takes unless ``flat`` is False."""
        if self._refusal is not None:
            raise self._refusal
        self._check_current()
        args, kwargs = runs.given(args, kwargs, self.params)
        if kwargs or len(args) != len(self.params):
            bound = self.signature.bind(*args, **(kwargs or {}))
            bound.apply_defaults()
            values = tuple(bound.arguments.values())
        else:
            values = args
            if all_floats(values):  # numbers only, the common case: nothing to refuse
                self._sig = self._floats
                return values, self._floats
        refuse_other_arrays(self.fn, self.params, values) if self.target.numpy_only else None
        sig = self._specialise(values)
        if self._origin is not None and any_records(sig.avals):  # derivative code reads records as tuples
            values = tuple(flatten(v, a) for v, a in zip(values, sig.avals))
            sig = self._specialise(values)
        elif flat and any_records(sig.avals):  # dicts, NamedTuples, dataclasses: the tuples generated code holds
            values = tuple(flatten(v, a) for v, a in zip(values, sig.avals))
        refuse_not_differentiable(self.fn, self.params, self.wrt, self._positions_of(sig), values)
        return values, sig

    def _output_shape(self):
        """The tuple structure of the output (None: one value), from the function's return statements."""
        shape = self._out_shape  # read once: another thread may forget it meanwhile
        if shape is None:
            with BUILDING, no_cycle_collection():
                shape = self._out_shape = (self.program.shape(self.fn),)
        return shape[0]

    def _require_scalar(self, what: str, sig: V.Sig) -> None:
        """Refuse ``grad`` of a function whose output is not one number (``arguments.require_scalar``)."""
        require_scalar(self.fn.__name__, what, self._output_shape(), lambda: self._facts(sig).summary.out)

    def jvp(self, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
        """Forward mode: ``(value, tangent of the output)`` along ``tangents`` (one per wrt parameter)."""
        return self.__dict__.get("jvp", self._jvp)(
            primals, tangents
        )  # (the fast entry, for a bound method taken first)

    def _jvp(self, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
        """``jvp`` itself: the arguments checked, bound and the code for their signature made (the fast
        entry installed on ``self`` for later calls like this one falls back to it)."""
        name = self.fn.__name__
        primals = as_sequence(primals, "primals", name, "jvp", self.params)
        args, sig = self._bound(primals)
        wrt, positions = self._wrt_of(sig), self._positions_of(sig)
        given = tuple(w for w in self.wrt if self.params.index(w) < len(primals))  # (defaults left out)
        tangents = active_tangents(name, as_sequence(tangents, "tangents", name, "jvp", wrt), (self.wrt, given), wrt)
        tangents = checked_tangents(name, self.params, positions, args, sig, tangents, self._origin)
        forward = self._function("forward", sig)
        out = self._facts(sig).summary.out
        records = any_records(sig.avals) or any_records(out if isinstance(out, tuple) else (out,))
        if (
            not records
            and self._fast_path("jvp", sig)
            and all(tangent_like(args[i], t, sig.avals[i]) for i, t in zip(positions, tangents))
        ):
            sequences = [("primals", len(self.params)), ("tangents", len(wrt))]
            self._numbers_first("jvp", "forward", Differentiable._jvp, sequences, sig)
        if records:  # dicts, NamedTuples, dataclasses in or out: the records again, as in every entry point
            return unflatten_each(forward(*args, *tangents), (out, out))
        return forward(*args, *tangents)

    def vjp(self, primals: Sequence[Any], ct: Any) -> tuple[Any, Any]:
        """Reverse mode: ``(value, cotangents)``, one cotangent per wrt parameter."""
        return self.__dict__.get("vjp", self._vjp)(primals, ct)  # (the fast entry, for a bound method taken first)

    def _vjp(self, primals: Sequence[Any], ct: Any) -> tuple[Any, Any]:
        """``vjp`` itself: the arguments checked, bound and the code for their signature made (the fast
        entry installed on ``self`` for later calls like this one falls back to it)."""
        primals = as_sequence(primals, "primals", self.fn.__name__, "vjp", self.params)
        args, sig = self._bound(primals)
        shape = self._output_shape()
        out = self._facts(sig).summary.out
        records = converts(sig.avals) or any_records(out if isinstance(out, tuple) else (out,))
        ct = checked_ct(self.fn.__name__, out, ct, records, self._origin)
        reverse = self._function("reverse", sig)
        if not records and self._fast_path("vjp", sig) and (shape is None or all(s is None for s in shape)):
            sequences = [("primals", len(self.params)), ("ct", None if shape is None else len(shape))]
            ct_aval = ct_kind(ct, shape)  # what later cotangents are tested against (floats: None)
            if ct_aval is not NO_ENTRY:
                self._numbers_first("vjp", "reverse", Differentiable._vjp, sequences, sig, ct_aval)
        try:
            value, cts = reverse(*args, ct)
        except (ValueError, TypeError, IndexError):  # a cotangent of the wrong shape, told as such
            ct_shapes(self.fn.__name__, ct, lambda: flatten(self.fn(*self._bind(primals)), out))
            raise
        ct_shapes(self.fn.__name__, ct, lambda: value)
        if records:
            return unflatten(value, out), unflatten_each(cts, [sig.avals[i] for i in self._positions_of(sig)], True)
        return value, cts

    def value_and_grad(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """``(value, gradient)`` of a scalar-valued function."""
        return self.__dict__.get("value_and_grad", self._value_and_grad)(
            *args, **kwargs
        )  # (the fast entry, for a bound method taken first)

    def _value_and_grad(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """``value_and_grad`` itself: the arguments checked, bound and the code for their signature made (the fast
        entry installed on ``self`` for later calls like this one falls back to it)."""
        fast = record_entry(self, "value_and_grad", args, kwargs)  # records: a call like an earlier one
        if fast is not None:
            return fast[0]
        args, sig = self._bound(args, kwargs)
        self._require_scalar("value_and_grad", sig)
        function = self._function("value_and_grad", sig)
        if self._fast_path("value_and_grad", sig):  # later calls like this one skip the checks
            self._numbers_first("value_and_grad", "value_and_grad", Differentiable._value_and_grad, None, sig)
        if converts(sig.avals):
            value, g = function(*args)
            self._remember_records("value_and_grad", sig, function, True)
            return value, gradient_of(g, [sig.avals[i] for i in self._positions_of(sig)])
        return function(*args)

    def grad(self, *args: Any, **kwargs: Any) -> Any:
        """The gradient: one value for a single wrt parameter, else a tuple."""
        return self.__dict__.get("grad", self._grad)(
            *args, **kwargs
        )  # (the fast entry, for a bound method taken first)

    def _grad(self, *args: Any, **kwargs: Any) -> Any:
        """``grad`` itself: the arguments checked, bound and the code for their signature made (the fast
        entry installed on ``self`` for later calls like this one falls back to it)."""
        fast = record_entry(self, "grad", args, kwargs)  # records: a call like an earlier one
        if fast is not None:
            return fast[0]
        args, sig = self._bound(args, kwargs)
        self._require_scalar("grad", sig)
        function = self._function("grad", sig)
        if self._fast_path("grad", sig):  # later calls like this one skip the checks
            self._numbers_first("grad", "grad", Differentiable._grad, None, sig)
        if converts(sig.avals):
            g = gradient_of(function(*args), [sig.avals[i] for i in self._positions_of(sig)])
            self._remember_records("grad", sig, function, False)
            return g
        return function(*args)

    def _remember_records(self, name: str, sig: V.Sig, function, both: bool) -> None:
        """A records entry for later calls like this one (``entries.remember_records``): the structure
        described once, not per call; not for derivative code (its records are tuples already)."""
        if self.target.numpy_only and self._origin is None and not narrow_floats(sig.avals):
            with BUILDING:
                remember_records(self, name, sig, function, self._positions_of(sig), both)

    def compiled(self, mode: str = "reverse", *args: Any):
        """The derivative ``mode`` as the Numba dispatcher ``backend="numba"`` compiles, for ``@numba.njit``
        code to call (an optimiser's loop, a sampler), with the signatures of the module ``adc compile
        --target numba`` writes: "reverse" ``f_reverse(*params, ct=1.0) -> (value, cotangents)``, "forward"
        ``f_forward(*params, *tangents) -> (value, tangent)``, "grad" ``f_grad(*params)`` (one gradient per
        wrt parameter, a tuple of them for several), "value_and_grad" ``f_value_and_grad(*params)``.
        ``args``: example arguments, whose signature chooses the code (as a call's does); none: the last
        call's, or, before any call, what the code's use of each parameter says.  Numba compiles the
        dispatcher for the argument types of its first call; compiled code takes lists as NumPy arrays."""
        if not self.target.dispatchers:
            raise ValueError(f'compiled() gives Numba dispatchers: differentiate({self.fn.__name__}, backend="numba")')
        if mode not in _COMPILED:
            raise ValueError(f"compiled({mode!r}): choose one of {', '.join(map(repr, _COMPILED))}")
        if args:
            sig = self._bound(args)[1]
        else:
            self._check_current()
            with BUILDING:
                self.program  # noqa: B018  (makes the assumed signature when nothing was called yet)
                sig = self._sig
        if mode in ("grad", "value_and_grad"):
            self._require_scalar(mode, sig)
        return self._function(mode, sig).compiled

    def _fast_path(self, name: str, sig: V.Sig) -> bool:
        """Whether ``f.<name>`` gets a fast entry for signature ``sig`` now: it has none yet, and every
        argument is a float, a float array, a list or a tuple, or an int or a bool not differentiated (a
        constant: ode's number of steps, particle's inner_forward; the code is the same for every int and
        either bool, tested by its type)."""
        if not self.target.numpy_only or name in self.__dict__:
            return False
        wrt = self._positions_of(sig)
        if not all(V.entry_testable(a) or a in (V.INT, V.BOOL) and i not in wrt for i, a in enumerate(sig.avals)):
            return False
        return not converts([sig.avals[i] for i in self._positions]) and not narrow_floats(sig.avals)  # (trees)

    def _numbers_first(self, name: str, mode: str, method, sequences, sig: V.Sig, ct_aval=None) -> None:
        """Make ``f.<name>`` for later calls like this one (``entries.install``)."""
        install(self, name, mode, method, sequences, sig, ct_aval, BUILDING, no_cycle_collection)


setattr(differentiate, "__adc_static__", "call")  # called while lowering differentiate(f).grad (lower.nested)
_COMPILED = ("reverse", "forward", "grad", "value_and_grad")  # the modes compiled() gives
_MODES = {"grad": "grad", "value_and_grad": "value_and_grad", "vjp": "reverse", "jvp": "forward"}


def code_of(owner: Differentiable, mode: str, sig: V.Sig, wrt: tuple) -> Differentiable:
    """``owner``'s generated ``mode`` code for arguments of signature ``sig``, itself made differentiable
    with respect to ``wrt`` (once): what a transform of a transform (``grad(grad(f))``) differentiates."""
    with BUILDING:
        key = ("code", mode, sig, wrt)
        if key not in owner.derived:
            owner.derived[key] = Differentiable((owner, mode, sig), wrt, owner.checkpoint)  # type: ignore[arg-type]
        return owner.derived[key]


def _origin(fn):
    """For ``f.grad`` / ``f.vjp`` / ... of a Differentiable: ``(f, mode, signature)``, the generated
    function behind it being ``f._function(mode, signature)`` (for the signature of f's last call);
    for ``(f, mode, signature)`` itself (``code_of``), that; None for anything else."""
    if type(fn) is tuple:
        return fn
    owner = getattr(fn, "__self__", None)
    if not isinstance(owner, Differentiable) or fn.__name__ not in _MODES:
        return None
    owner._check_current()
    with BUILDING:
        owner.program  # noqa: B018  (makes the assumed signature when nothing was called yet)
        return owner, _MODES[fn.__name__], owner._sig
