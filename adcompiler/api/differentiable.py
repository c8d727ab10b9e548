"""The public object: a user function with derivatives, built once on first use."""

from __future__ import annotations

import copy
import functools
from typing import Any, Callable, Sequence, Union, overload

from ..analysis import values as V
from ..analysis.assume import assumed_signature
from ..modes.callgraph import changes_in_place
from ..modes.checkpoint import checkpoint_problem
from .built import Built, with_rows
from .arguments import all_floats, as_sequence, checked_ct, checked_tangents, constant_integers
from .arguments import active_tangents, refuse_not_differentiable, refuse_other_arrays, refuse_partial
from .arguments import copied_lists, ct_shapes, refuse_shared_writes, require_number, require_scalar, tangent_like
from .entries import NO_ENTRY, ct_kind, fast_path, install, record_entry, remember_records
from .iterables import refuse_other_iterables
from ..compile.origins import note_origin
from ..errors import UnknownKindError
from ..compile.page import page_of
from .pickling import reduce
from .methods import bind, method_of
from ..compile.building import Building
from ..compile.pipeline import Program
from .trees import any_records, constant_argument, converts, flatten, gradient_of, unflatten, unflatten_each
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
    again = lambda f, wrt=wrt: differentiate(f, **dict(options, wrt=wrt))  # noqa: E731
    method = method_of(fn, Differentiable, again, wrt)  # model.forward, static methods
    refuse_partial(fn)
    if fn is None or method is not None:
        return method or (lambda f: differentiate(f, **options))
    return Differentiable(fn, wrt, checkpoint, backend, arrays)


def _telling(method):
    """``method`` (``Differentiable._grad``, ``_jvp``, ...: what the public methods and the fast entries fall back
    to), an error it raises told as ``Differentiable._told`` says."""

    @functools.wraps(method)
    def told(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except Exception as e:
            if method.__name__ in ("_jvp", "_vjp"):
                self._told(e, args[0] if args else kwargs.get("primals"), {})
            else:
                self._told(e, args, kwargs)
            raise

    return told


class Differentiable:
    """A function together with its forward- and reverse-mode derivative code."""

    def __new__(cls, fn, *options, **keywords):  # def f(*xs): one Differentiable per number of arguments
        return Variadic(fn, *options, **keywords, make=cls) if has_varargs(fn) else super().__new__(cls)

    def __init__(
        self, fn: Callable[..., Any], wrt: Wrt = None, checkpoint: Checkpoint = None, backend="python", arrays="numpy"
    ) -> None:
        self._origin = _origin(fn)  # (owner, mode, signature) when fn is g.grad, g.jvp, ... of a Differentiable
        # g.grad, ... taken as an attribute: its code follows the signature of what each call hands g's code
        self._follows = self._origin is not None and type(fn) is not tuple
        self._followed: dict = {}  # g's signature -> what was built for its code (_follow)
        if self._origin is not None:
            owner, mode, sig = self._origin
            fn = owner._built.differentiated(mode, sig)  # the generated function itself
        # held while anything of it is built: a derivative of generated code shares its owner's (one family)
        self._building = Building() if self._origin is None else self._origin[0]._building
        self.checkpoint = checkpoint
        self.backend, self.arrays = backend, arrays  # as the user gave them (pickling, methods, variadic)
        self.target = targets.of(backend, arrays)  # where the code runs (adcompiler.targets.registry)
        functools.update_wrapper(self, fn)
        self._called = fn  # what a call runs (self.fn: the function differentiated, see adcompiler.api.runs)
        self.wrt_given = wrt is not None  # (a method's default leaves self out: adcompiler.api.methods)
        self._read(wrt)
        self._sig: V.Sig | None = None  # the abstract signature of the last call's arguments: what the code is for
        self._built = Built(self)  # the code built for each signature (adcompiler.api.built)
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

    @property
    def __adc_runs__(self) -> Callable[..., Any]:
        """What a call runs: the function a differentiated caller differentiates through (``lower``)."""
        return self._called

    def __reduce__(self):
        """Pickled by reference (see ``adcompiler.api.pickling``)."""
        options = (self.wrt, self.checkpoint, self.backend, self.arrays)
        return reduce(self, self._called, options, self._origin is not None)

    def __get__(self, obj, objtype=None):
        return self if obj is None else bind(self, obj)  # a method of obj (adcompiler.api.methods)

    # ---- building -------------------------------------------------------------------
    #
    # The code is built per signature by ``self._built`` (adcompiler.api.built).  Everything that creates
    # or fills a Program, generates code or makes an entry holds ``self._building`` (compile.building):
    # two threads asking for the same signature's code at once must not build it twice into one Program;
    # two threads building two functions do not wait for each other.  Each call works with the signature it
    # bound itself (``_bound``), never with another thread's: ``_sig`` only remembers the last call's, for
    # ``source()`` and ``program``.

    @property
    def program(self) -> Program:
        """The program generated for the last call's signature (one per signature, so each names its
        entry points ``f_forward``, ``f_reverse``, ...)."""
        with self._building:
            if self._sig is None:  # no call yet: what the code's use of each parameter says (as adc compile)
                program = self._built.new_program(self.target.program)
                self._sig = assumed_signature(program, self.fn)
                self._built.programs.setdefault(self._sig, program)
            return self._built.program(self._sig)

    def _specialise(self, args) -> V.Sig:
        """The abstract signature of the arguments, which chooses the generated code: every leaf of
        every list and tuple looked at, and which arguments share a list (built once per signature)."""
        sig = V.signature(args)
        if self.target.small_rows:  # (the length of short vectors and rows, held as numbers)
            sig = with_rows(sig, args, self.params, self._reading.rows)
        if sig not in self._built.compiled_for:
            refuse_other_iterables(self.fn, self.params, args, sig, lambda: self._built.program(sig))
            refuse_shared_writes(self.fn, self.params, sig, lambda: self._built.facts(sig))
        self._sig = sig
        return sig

    def _check_current(self) -> None:
        """Drop everything built if the module no longer holds what it was built from."""
        if self._built.stale():
            with self._building:
                if self._built.stale():  # not already dropped (and built again) by another thread
                    self._forget()

    def _forget(self) -> None:
        """Forget every program, loaded function and fast entry (later calls build them again), and,
        for a derivative of a derivative, take the differentiated code as it is now."""
        with self._building:
            if self._origin is not None:
                owner, mode, sig = self._origin
                owner._check_current()
                self._called = owner._built.differentiated(mode, sig)
                self._read(self._wrt_asked)
                functools.update_wrapper(self, self._called)
            if runs.changed(self._reading):
                self._read(self._wrt_asked)  # its signature, defaults and tree as they are now
            self._built.forget()
            self.derived, self._record_entries = {}, {}
            for name in ("jvp", "vjp", "grad", "value_and_grad"):  # the fast entries of the old code
                self.__dict__.pop(name, None)

    def source(self, stage: str = "reverse", html: bool = False) -> str:
        """The Python source of one stage: "anf", "dup", "forward", "reverse" (the vjp) or "grad" (the
        gradient of a scalar output: the reverse code with the cotangent 1.0 folded in); a ``str``
        (``back.display.Source``) that Jupyter shows highlighted when Pygments is installed.  ``html=True``: a
        page of this function beside its forward, reverse and ``stage`` code, line linked to line (``back.page``)."""
        self._check_current()
        with self._building:
            program, sig = self.program, self._sig
            wrt = self.wrt if sig is None else self._wrt_of(sig)
            shown = []
            for each in dict.fromkeys(("forward", "reverse", stage) if html else (stage,)):
                self._built.function(each, sig) if each in ("forward", "reverse", "grad") else None
                origins: list | None = [] if html else None
                shown.append((each, program.stage(self.fn, each, wrt, sig, origins), origins))
            return page_of(self.fn.__name__, shown, stage) if html else shown[0][1]

    # ---- derivatives ----------------------------------------------------------------

    def _wrt_of(self, sig: V.Sig) -> tuple:
        """The parameters differentiated for arguments of signature ``sig``: ``wrt`` as given, or by
        default every parameter but those whose argument is an integer or a string (``arguments.constant_integers``)."""
        if self.wrt_given or not any(constant_argument(sig.avals[i]) for i in self._positions):
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
        if self._follows:
            self._follow(values)
        if values is args:
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

    def _follow(self, values) -> None:
        """For a derivative of ``g.grad`` (``g.vjp``, ...) taken as an attribute: ``g``'s code for the signature of
        the arguments it is handed now (its first parameters: ``values``' first), differentiated.  ``g.grad``
        taken before ``g`` was called is the code for the signature its text suggests (``assumed_signature``),
        and ``g`` itself builds its code for each call's arguments: a derivative of the assumed code, called
        with a list where it took an array, lost the list's structure or failed (the nested fuzz check).
        What was built for each of ``g``'s signatures is kept (``_followed``)."""
        owner, mode, sig = self._origin
        mine = values[: len(owner.params)]
        if len(mine) != len(owner.params) or owner._refusal is not None:
            return  # (a call g itself refuses: the derivative's own checks say so)
        now = owner._bound(mine)[1]
        if now == sig:
            return
        with self._building:
            self._followed[sig] = (self._built, self.derived, self._record_entries)
            self._origin = (owner, mode, now)
            self._called = owner._built.differentiated(mode, now)
            self._read(self._wrt_asked)
            functools.update_wrapper(self, self._called)
            self._built, self.derived, self._record_entries = self._followed.pop(now, None) or (Built(self), {}, {})
            for name in ("jvp", "vjp", "grad", "value_and_grad"):  # (the fast entries of the other code)
                self.__dict__.pop(name, None)

    def _told(self, e: Exception, args, kwargs: dict) -> None:
        """What a call that raised ``e`` raises: where ``e`` refuses a value of a kind the arguments do not decide
        (``errors.UnknownKindError``) and the function itself raises for these arguments (a list where it
        multiplies numbers, None, a string), the function's own error, as a derivative raises every error its primal does (run on copies of the arguments:
        this path is taken only where the call is refused); else ``e``, with a note naming the user's line the
        derivative code that raised it was made from (``compile.origins.note_origin``)."""
        if isinstance(e, UnknownKindError) and isinstance(args, (tuple, list)):
            try:
                copied = copy.deepcopy((tuple(args), dict(kwargs)))
            except Exception:  # noqa: BLE001 - arguments that do not copy: the refusal stands
                copied = None
            if copied is not None:
                try:
                    self._called(*copied[0], **copied[1])
                except Exception as primal:  # noqa: BLE001 - whatever the function raises is the call's error
                    raise primal from None
        note_origin(e)

    def _require_scalar(self, what: str, sig: V.Sig) -> None:
        """Refuse ``grad`` of a function whose output is not one number (``arguments.require_scalar``)."""
        require_scalar(self.fn.__name__, what, self._built.output_shape(), lambda: self._built.facts(sig).summary.out)

    def jvp(self, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
        """Forward mode: ``(value, tangent of the output)`` along ``tangents`` (one per wrt parameter)."""
        return self.__dict__.get("jvp", self._jvp)(
            primals, tangents
        )  # (the fast entry, for a bound method taken first)

    @_telling
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
        forward = self._built.function("forward", sig)
        out = self._built.facts(sig).summary.out
        records = any_records(sig.avals) or any_records(out if isinstance(out, tuple) else (out,))
        owned = any(V.holds_list(sig.avals[i]) for i in positions) and changes_in_place(self.program)
        if owned:  # the code changes its list arguments' tangents as it changes them: the caller's stay as given
            tangents = [copied_lists(t) for t in tangents]
        if (
            not records
            and not owned
            and fast_path(self, "jvp", sig)
            and all(tangent_like(args[i], t, sig.avals[i]) for i, t in zip(positions, tangents))
        ):
            sequences = [("primals", len(self.params)), ("tangents", len(wrt))]
            install(self, "jvp", "forward", Differentiable._jvp, sequences, sig)
        if records:  # dicts, NamedTuples, dataclasses in or out: the records again, as in every entry point
            return unflatten_each(forward(*args, *tangents), (out, out))
        return forward(*args, *tangents)

    def vjp(self, primals: Sequence[Any], ct: Any) -> tuple[Any, Any]:
        """Reverse mode: ``(value, cotangents)``, one cotangent per wrt parameter."""
        return self.__dict__.get("vjp", self._vjp)(primals, ct)  # (the fast entry, for a bound method taken first)

    @_telling
    def _vjp(self, primals: Sequence[Any], ct: Any) -> tuple[Any, Any]:
        """``vjp`` itself: the arguments checked, bound and the code for their signature made (the fast
        entry installed on ``self`` for later calls like this one falls back to it)."""
        primals = as_sequence(primals, "primals", self.fn.__name__, "vjp", self.params)
        args, sig = self._bound(primals)
        shape = self._built.output_shape()
        out = self._built.facts(sig).summary.out
        records = converts(sig.avals) or any_records(out if isinstance(out, tuple) else (out,))
        ct = checked_ct(self.fn.__name__, out, ct, records, self._origin)
        reverse = self._built.function("reverse", sig)
        if not records and fast_path(self, "vjp", sig) and (shape is None or all(s is None for s in shape)):
            sequences = [("primals", len(self.params)), ("ct", None if shape is None else len(shape))]
            ct_aval = ct_kind(ct, shape)  # what later cotangents are tested against (floats: None)
            if ct_aval is not NO_ENTRY:
                install(self, "vjp", "reverse", Differentiable._vjp, sequences, sig, ct_aval)
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

    @_telling
    def _value_and_grad(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """``value_and_grad`` itself: the arguments checked, bound and the code for their signature made (the fast
        entry installed on ``self`` for later calls like this one falls back to it)."""
        fast = record_entry(self, "value_and_grad", args, kwargs)  # records: a call like an earlier one
        if fast is not None:
            return fast[0]
        args, sig = self._bound(args, kwargs)
        self._require_scalar("value_and_grad", sig)
        function = self._built.function("value_and_grad", sig)
        require_number(self.fn.__name__, "value_and_grad", self._built.facts(sig).summary.out)
        if fast_path(self, "value_and_grad", sig):  # later calls like this one skip the checks
            install(self, "value_and_grad", "value_and_grad", Differentiable._value_and_grad, None, sig)
        if converts(sig.avals):
            value, g = function(*args)
            remember_records(self, "value_and_grad", sig, function, True)
            return value, gradient_of(g, [sig.avals[i] for i in self._positions_of(sig)])
        return function(*args)

    def grad(self, *args: Any, **kwargs: Any) -> Any:
        """The gradient: one value for a single wrt parameter, else a tuple."""
        return self.__dict__.get("grad", self._grad)(
            *args, **kwargs
        )  # (the fast entry, for a bound method taken first)

    @_telling
    def _grad(self, *args: Any, **kwargs: Any) -> Any:
        """``grad`` itself: the arguments checked, bound and the code for their signature made (the fast
        entry installed on ``self`` for later calls like this one falls back to it)."""
        fast = record_entry(self, "grad", args, kwargs)  # records: a call like an earlier one
        if fast is not None:
            return fast[0]
        args, sig = self._bound(args, kwargs)
        self._require_scalar("grad", sig)
        function = self._built.function("grad", sig)
        require_number(self.fn.__name__, "grad", self._built.facts(sig).summary.out)
        if fast_path(self, "grad", sig):  # later calls like this one skip the checks
            install(self, "grad", "grad", Differentiable._grad, None, sig)
        if converts(sig.avals):
            g = gradient_of(function(*args), [sig.avals[i] for i in self._positions_of(sig)])
            remember_records(self, "grad", sig, function, False)
            return g
        return function(*args)

    def value(self, *args: Any, **kwargs: Any) -> Any:
        """The function's value, by the code its target runs, as ``jax.jit(f)`` gives it: under
        ``backend="numba"`` the function compiled, derivatives it takes inside included (``adcompiler.grad``
        of a helper: code ``numba.njit`` cannot compile as written), without any tangent; under the
        python target the function itself."""
        if not self.target.dispatchers:
            return self._called(*args, **kwargs)
        plain = self.derived.get("value")
        if plain is None:  # the forward code of nothing varied: the primal's lines alone
            with self._building:
                plain = self.derived.setdefault(
                    "value", Differentiable(self._called, (), self.checkpoint, self.backend, self.arrays)
                )
        return plain.jvp(plain._bind(args, kwargs) if kwargs else args, ())[0]

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
            with self._building:
                self.program  # noqa: B018  (makes the assumed signature when nothing was called yet)
                sig = self._sig
        if mode in ("grad", "value_and_grad"):
            self._require_scalar(mode, sig)
        return self._built.function(mode, sig).compiled


setattr(differentiate, "__adc_static__", "call")  # called while lowering differentiate(f).grad (lower.nested)
_COMPILED = ("reverse", "forward", "grad", "value_and_grad")  # the modes compiled() gives
_MODES = {"grad": "grad", "value_and_grad": "value_and_grad", "vjp": "reverse", "jvp": "forward"}


def code_of(owner: Differentiable, mode: str, sig: V.Sig, wrt: tuple) -> Differentiable:
    """``owner``'s generated ``mode`` code for arguments of signature ``sig``, itself made differentiable
    with respect to ``wrt`` (once): what a transform of a transform (``grad(grad(f))``) differentiates."""
    with owner._building:
        key = ("code", mode, sig, wrt)
        if key not in owner.derived:  # (the python target's code of a Numba derivative: compiled by Numba again)
            backend = owner.backend if owner.target.reverse_code is not None else "python"
            owner.derived[key] = Differentiable((owner, mode, sig), wrt, owner.checkpoint, backend)  # type: ignore[arg-type]
        return owner.derived[key]


def _origin(fn):
    """For ``f.grad`` / ``f.vjp`` / ... of a Differentiable: ``(f, mode, signature)``, the generated
    function behind it being ``f._built.function(mode, signature)`` (for the signature of f's last call);
    for ``(f, mode, signature)`` itself (``code_of``), that; None for anything else."""
    if type(fn) is tuple:
        return fn
    owner = getattr(fn, "__self__", None)
    if not isinstance(owner, Differentiable) or fn.__name__ not in _MODES:
        return None
    owner._check_current()
    with owner._building:
        owner.program  # noqa: B018  (makes the assumed signature when nothing was called yet)
        return owner, _MODES[fn.__name__], owner._sig
