"""What has been built for a Differentiable: its Programs, loaded entry functions and what they depend on.

A Differentiable holds one Built (``d._built``).  Code is built per abstract signature of the arguments
(``analysis.values.signature``): a Program each, generated and loaded on first use, entry point by
entry point.  Everything here that creates or fills a Program holds the owner's lock (``compile.building``):
two threads asking for the same signature's code at once must not build it twice into one Program.

The generated code reads the module's globals when it runs, as the primal does; what it was built
from (the helpers it calls and differentiates, the kinds of the globals it reads, an integer that
chose an index) is tested on every call, a few dictionary lookups in the fast entries (see
front.environment); when the module no longer holds it (a helper redefined, as in a notebook),
everything built is dropped (``forget``) and built again on this call.
"""

from __future__ import annotations


from ..analysis import values as V
from ..compile import emit
from ..compile.collector import no_cycle_collection
from ..compile.load import load
from ..compile.origins import Told, second_order_of
from ..compile.pipeline import Program
from ..front.environment import namespace_of
from ..options import Options
from ..rules.custom import through_rule
from ..lower import vector_classes as S
from . import runs


class Built:
    """The code built for ``owner`` (a Differentiable), by signature."""

    def __init__(self, owner):
        self.owner = owner
        self.forget()

    def forget(self) -> None:
        """Forget every program and loaded function (later calls build them again)."""
        self.programs: dict = {}  # signature -> its Program
        self.sources: dict = {}  # each generated entry function: the IR it was emitted from
        self.compiled_for: dict = {}  # signature -> mode -> the loaded entry function
        self.out_shape: tuple | None = None  # (the output's tuple structure,) once read

    def program(self, sig: V.Sig) -> Program:
        """The program for arguments of signature ``sig`` (made on first use)."""
        program = self.programs.get(sig)
        if program is None:
            kind = self.owner.target.program
            with self.owner._building:  # (another thread's, if it made one meanwhile)
                program = self.programs.get(sig) or self.programs.setdefault(sig, self.new_program(kind, sig))
        return program

    def new_program(self, kind, sig: V.Sig | None = None) -> Program:
        """A new ``kind`` of Program for the function (for arguments of signature ``sig``, where its short
        rows are held as numbers).  The first is handed the tree the fence read when the function was made
        differentiable, so the function is parsed once, not twice; only one Program may have it (lowering
        changes the tree)."""
        d = self.owner
        options = Options(checkpoint=d.checkpoint)
        if sig is not None and d.target.small_rows:  # (short vectors held as numbers: rows, displays)
            options = options.but(small_arrays=(d.fn, held_kinds(d.params, sig)))
        program, parsed, d._parsed = kind(namespace_of(d.fn), options), d._parsed, None
        if parsed is not None and through_rule(d.fn) is d.fn:  # (a function with rules lowers a wrapper)
            program.parsed[d.fn] = parsed
        return program

    def _told(self):
        """Where a refusal of derivative code differentiated again is told: at the line of the user's function
        it came from (``second_order_of``: of g.grad's code, g's; of the code of a derivative the function
        takes inside, the function's); of the user's own code, where it is."""
        origin = self.owner._origin
        return second_order_of(origin[0].fn if origin is not None else self.owner.fn)

    def facts(self, sig: V.Sig):
        """What the analysis knows of the function for arguments of signature ``sig``."""
        with self.owner._building, no_cycle_collection():
            try:
                with self._told():
                    return self.program(sig).facts(self.owner.fn, sig)
            except Exception:  # refused: not a Program left half analysed, which the next call would take
                if not self.compiled_for.get(sig):
                    self.programs.pop(sig, None)
                raise

    def function(self, mode: str, sig: V.Sig | None = None):
        """The loaded entry function for ``mode``, for arguments of signature ``sig`` (the last call's
        when None), transforming on first use only.

        Each entry point (``jvp``, ``vjp``, ``grad``, ``value_and_grad``) is generated when first
        asked for; the functions it calls are generated once per program and shared.
        """
        if sig is None:  # asked from outside (higher, a derivative of this one): the last call's code
            d = self.owner
            d._check_current()
            d.program  # noqa: B018  (makes the assumed signature when nothing was called yet)
            sig = d._sig
        compiled = self.compiled_for.get(sig)
        if compiled is None or mode not in compiled:
            with self.owner._building, no_cycle_collection():
                compiled = self.compiled_for.setdefault(sig, {})
                if mode not in compiled:
                    try:
                        with self._told():
                            self.build(mode, sig, compiled)
                    except Exception:  # refused: the next call like this one is refused the same way
                        if not compiled:  # (not a Program left half analysed, which fails otherwise)
                            self.compiled_for.pop(sig, None)
                            self.programs.pop(sig, None)
                        raise
        return compiled[mode]

    def differentiated(self, mode: str, sig: V.Sig, make: bool = True):
        """The function behind the ``mode`` code for ``sig`` that a derivative of it differentiates
        (``grad(d.grad)``, ``jvp(d.grad)``, ``code_of``): the entry function, or, where the target makes that
        code itself (Numba's gradient and reverse code: ``reverse_code``), the python target's code its
        program makes, kept with the derived code (dropped when the function changes); ``make``: made now
        where it is not yet (else None)."""
        d = self.owner
        made = d.target.reverse_code
        if made is None or mode not in ("grad", "reverse"):
            return self.function(mode, sig) if make else self.compiled_for.get(sig, {}).get(mode)
        key = ("differentiated", mode, sig)
        if key not in d.derived and make:
            d.derived[key] = made(d, sig, mode)
        return d.derived.get(key)

    def build(self, mode: str, sig: V.Sig, compiled: dict) -> None:
        """Generate, load and remember (in ``compiled``) the entry function for ``mode`` (see ``function``)."""
        d = self.owner
        program = self.program(sig)
        built = program.build(d.fn, mode, d._wrt_of(sig), sig)
        if d.target.load is not None:  # compiled by numba.njit, calling its arguments' array namespace, ...
            return compiled.update({mode: d.target.load(d, program, built, mode, sig)})
        origins: list = []
        source = emit.render_module(built, program.ns, program.helper_sources, formatted=False, origins=origins)
        # run in the function's own module (its globals read when the code runs), nothing written into it
        label = f"{mode} of {d.fn.__qualname__}"
        told = Told(source, origins)
        namespace = load(source, d.fn.__globals__, label, program.supplied, {f.name for f in built}, told=told)
        for name, alias in program.helpers.items():
            namespace[alias].__adc_primitive__ = name  # so derivative code can itself be differentiated
        function = namespace[built[0].name]
        self.sources[function] = (built[0], program.ns)
        compiled[mode] = function

    def output_shape(self):
        """The tuple structure of the output (None: one value), from the function's return statements."""
        shape = self.out_shape  # read once: another thread may forget it meanwhile
        if shape is None:
            with self.owner._building, no_cycle_collection():
                shape = self.out_shape = (self.owner.program.shape(self.owner.fn),)
        return shape[0]

    # ---- what the code was built from -----------------------------------------------

    def dependencies(self) -> tuple:
        """What everything built so far depends on, with, for a derivative of derivative code, what
        that code depends on."""
        d = self.owner
        found: dict = {}
        deps = [dep for program in list(self.programs.values()) for dep in program.dependencies()]
        deps += runs.own_dependency(d._reading)
        if d._origin is not None:
            deps += d._origin[0]._built.dependencies()
        for dep in deps:
            found.setdefault((id(dep.where), dep.name), dep)
        return tuple(found.values())

    def stale(self) -> bool:
        """Whether the module no longer holds something the code was built from."""
        d = self.owner
        if d._origin is not None:  # the differentiated code: stale, or built again since
            owner, mode, sig = d._origin
            if owner._built.stale() or owner._built.differentiated(mode, sig, make=False) is not d._called:
                return True
        return runs.changed(d._reading) or any(
            not dep.holds() for program in list(self.programs.values()) for dep in program.dependencies()
        )


def with_rows(sig: V.Sig, args: tuple, params: tuple, rows: frozenset) -> V.Sig:
    """``sig`` with the length of each float64 vector, and of the rows of each float64 matrix the function
    reads by rows, where it is short enough to hold as numbers (``lower.small_arrays``): code is built for
    that length."""
    lengths = tuple(
        a.shape[-1] if (aval == _VECTOR or p in rows and aval == _MATRIX) and 2 <= a.shape[-1] <= S.SMALL else None
        for p, a, aval in zip(params, args, sig.avals)
    )
    return V.Sig(sig.avals, sig.alias, lengths) if any(k is not None for k in lengths) else sig


_MATRIX, _VECTOR = V.Arr(2, "float64"), V.Arr(1, "float64")


def held_kinds(params: tuple, sig: V.Sig) -> dict:
    """What each parameter holds, for ``lower.small_arrays``: rows of a known length, a number, an int, a
    vector of floats, or something else."""
    kinds = {}
    for p, aval, k in zip(params, sig.avals, sig.lengths or (None,) * len(sig.avals)):
        if k is not None:
            kinds[p] = ("rows", k) if aval == _MATRIX else ("vec", k)
        elif aval == V.INT:
            kinds[p] = S.INT
        elif isinstance(aval, V.Num) and aval.dtype in ("float", "float64"):
            kinds[p] = S.NUM
        else:
            kinds[p] = S.ARRAY if aval == V.Arr(1, "float64") else S.TOP
    return kinds
