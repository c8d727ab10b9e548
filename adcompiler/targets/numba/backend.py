"""``differentiate(f, backend="numba")``: the generated derivative code compiled by ``numba.njit``.

The code of the python target is rewritten into the form Numba types (``back.numba_target``),
loaded like any generated code, and its functions compiled in nopython mode; the user's functions
it calls are compiled too (a ``@numba.njit`` one is used as it is).  The entry made here converts
the arguments for compiled code (``back.numba_values``), calls it, and gives back every result in
the structure the python target gives (lists where the argument was a list); a typing error of
Numba is reported at the user's line, with the construct, and the advice that ``backend="python"``
handles it.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
import types

from ...analysis import values as V
from ...compile import emit
from ...compile.load import load, reads
from ...compile.origins import Told
from . import cache
from .joined_loops import joins_in_loops
from .explained import located
from .library import in_object_mode, library_functions, library_rule
from .lists import spelled_as_calls
from .operand_shapes import shapes_from_operands
from .translate import GUARDS, translate
from ..python.runtime import HELPERS
from .parallel import outlined
from .room import roomy
from ...modes.callgraph import changes_in_place
from .runtime import NUMBA_HELPERS
from ...ir import expr as E
from ...ir.nodes import Assign, Def, Eq, For, Function, If, Var, While, map_equations, substituted, walk
from ...ir.supplied import constant
from ...analysis.infer import global_value
from .subset import refuse_draws, refuse_mixed_record_params, refuse_mixed_tuple_lists, refuse_record_lists
from .subset import refuse_row_slices
from ...optimize.inline import Folding, fold_function
from ...compile.pipeline import TargetPasses

BACKENDS = ("python", "numba")

NUMBA = dict(  # the switches of code generation the Numba target sets (adcompiler.options)
    recompute_recursion=True,
    written_shadows=False,  # shadows of nested lists and tuples by the overloaded zeros_like/like (modes.structures)
    releases=False,  # no ``del`` (Numba refuses it, and frees what compiled code no longer reads itself)
    versioned_loops=True,  # (modes.versions) its arrays of one ndim: both versions type alike (analysis.loop_shapes)
    new_array_stores=False,  # x[k] += v kept (Numba's tuples of arrays take it as add_at: modes.owned)
    shaped_zeros=True,  # a shadow list of arrays holds zeros of their shapes (Numba's list has one element type)
    parallel_loops=True,  # prange loops' primal, tangent and adjoint loops are Numba prange loops (modes.parallel)
    recomputed_residuals=True,  # (modes.recomputed) a residual that is arithmetic of others: an array fewer
    shaped_parameters=True,  # (modes.shape_kept) an array a residual holds costs its reference counts
    inline_looped_calls=True,  # (lower.inline_calls) and so does a call's tuple of residuals, made in a loop
    typed_zeros=True,  # an array's adjoint set to zero in a loop or branch is an array (one type a variable)
    calls_generated=True,  # a user function not differentiated called as its generated code, in this target's forms
    frozen_globals=True,  # Numba compiles the values of the globals the code reads into it: a change builds again
)


def _folded(defs: list, program, facts) -> list:
    """The generated functions, each tangent and adjoint name read once folded into its use (see
    ``optimize.inline.Folding``): Numba fuses an expression of arrays into one loop making one array,
    where a line for each operation makes an array each.  A variable an accumulator is of stays: the
    accumulator starts as zeros of it (see ``translate``).  The shapes ``unbroadcast`` reads are taken from
    the operands of the arithmetic that made them first (``operand_shapes``), so that it folds too; a join of
    elementwise pieces is written as loops (``joined_loops``, reading ``facts``' abstract values)."""
    folding = Folding(frozenset(program.kept_names) | frozenset(program.accumulators.values()), derivatives=True)
    shaped = [_with_body(d, shapes_from_operands(d.body, folding.foldable)) for d in defs]
    if any(a is not b for a, b in zip(shaped, defs)):
        program.helper("shape_like")  # (the module then defines it)
        defs = shaped
    return [joins_in_loops(fold_function(d, folding), facts) for d in defs]


def _with_body(d: Def, body: tuple) -> Def:
    return d if body == d.body else Def(d.name, d.params, d.defaults, body, d.doc, d.source)


def _refused_row_slices(facts) -> None:
    """A slice of a list of lists, and a list of records holding arrays built in the function, refused (see
    ``subset``): only the abstract values tell them from a slice of an array and from a list of numbers."""
    refuse_row_slices(facts.fn, facts.of)
    refuse_record_lists(facts.fn, facts.of)


def _records_of_the_module_supplied(function: Function) -> Function:
    """``function`` with each item it reads of a dict or object of the module (``params["W"]``,
    ``net.first.W``: a ``global`` equation with a path) read as a constant handed to the code
    (``ir.supplied``), as an array of another module is: Numba types no dict or object of the user's.  Its
    value is compiled into the code, whose dependencies test it (``frozen_globals``)."""

    items = {
        e.outs[0].name: constant(
            global_value(function.source.globals, e.param), "_".join([e.param[0], *(str(k) for _, k in e.param[1:])])
        )
        for e in walk(function.body)
        if isinstance(e, Eq) and e.prim == "global" and not isinstance(e.param, str)
    }
    if not items:
        return function
    kept = map_equations(function.body, lambda e: [] if e.prim == "global" and e.outs[0].name in items else e)
    return function.with_body(substituted(kept, items))


PASSES = TargetPasses(
    options=NUMBA,
    lowered=lambda function, namer: _list_arguments_copied(_records_of_the_module_supplied(function), namer),
    refuse_lowered=refuse_draws,  # (a function that draws random numbers: refused on every call)
    refuse_facts=_refused_row_slices,
    refuse_reverse=lambda facts, active: (
        refuse_mixed_tuple_lists(facts.fn, facts.of),
        refuse_mixed_record_params(facts.fn, facts.sig, active),
    ),
    generated=_folded,
)
"""The Numba target's passes (``compile.pipeline.TargetPasses``): a call of a recursive function
recomputes its residuals in the adjoint sweep (``modes.plan.recomputed``), since Numba has no type for
residuals that hold the next level's; a list parameter copied where a variable also holds a list the
function builds; draws and slices of lists of lists refused; tangents and adjoints folded into their uses."""


_READS = ("getitem", "len", "read", "write")  # what leaves a list as it was (a call may change it)


def _list_arguments_copied(function: Function, namer) -> Function:
    """``function`` with ``h = x`` made ``h = list(x)`` where ``x`` is a parameter and ``h`` also holds
    a list the function builds (``h = z`` after ``z = []`` and appends: a layer of a network on lists):
    a list argument reaches compiled code as an array, which Numba cannot hold in one variable with a
    list.  The copy is the same list as long as nothing changes the argument; where something may (a
    write, an append, a call it is passed to, through any name that may hold it), the line is left as
    it is and Numba's refusal stands."""
    eqs = [e for e in walk(function.body) if isinstance(e, Eq)]
    moves = [(e.ins[0].name, e.outs[0].name) for e in eqs if e.prim in ("read", "write") and isinstance(e.ins[0], Var)]
    built = {e.outs[0].name for e in eqs if e.prim == "list"}
    while any(a in built and b not in built for a, b in moves):
        built |= {b for a, b in moves if a in built}
    used = {a.name for e in eqs if e.prim not in _READS for a in e.ins if isinstance(a, Var)}
    copied_params = set()
    for p in {getattr(p, "name", p) for p in function.params}:
        holders = {p}  # the names that may hold the argument's list
        while any(a in holders and b not in holders for a, b in moves):
            holders |= {b for a, b in moves if a in holders}
        if holders & built and not holders & used:
            copied_params.add(Var(p))

    def copied(stmts) -> tuple:
        out: list = []
        for s in stmts:
            if isinstance(s, (If, For, While)):
                parts = {k: copied(getattr(s, k)) for k in ("body", "orelse", "header") if hasattr(s, k)}
                out.append(dataclasses.replace(s, **parts))
            elif isinstance(s, Eq) and s.prim == "write" and s.outs[0].name in built and s.ins[0] in copied_params:
                copy = Var(namer.fresh(s.outs[0].name))
                out += [Eq((copy,), "list_copy", s.ins, s.line), Eq(s.outs, "write", (copy,), s.line)]
            else:
                out.append(s)
        return tuple(out)

    return function.with_body(copied(function.body))


def numba_module():
    """The ``numba`` module, or an ImportError that says how to install it."""
    try:
        import numba
    except ImportError:
        raise ImportError(
            'backend="numba" needs Numba: pip install "adcompiler[numba]" (or use backend="python")'
        ) from None
    return numba


def for_backend(fn, backend: str):
    """``fn`` as the backend differentiates it: for "numba", the Python function behind a
    ``@numba.njit`` dispatcher (Numba imported now, so that a missing one is reported at once)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}: choose one of {', '.join(map(repr, BACKENDS))}")
    if backend == "python" or fn is None:
        return fn
    numba_module()
    py_func = getattr(fn, "py_func", None)
    return py_func if isinstance(py_func, types.FunctionType) else fn


def build(owner, program, built: list, mode: str, sig: V.Sig):
    """The entry function for ``mode``: the generated functions ``built`` compiled by Numba."""
    numba = numba_module()
    from .values import (
        class_constants,
        convert,
        converter,
        restore,
        user_class,
    )  # NumPy, imported only where Numba is used

    defs = [spelled_as_calls(d) for d in built]  # lists joined and repeated: on arrays, + adds and * multiplies
    arrays = {a for a, ndim in program.array_accumulators.items() if ndim and ndim > 0}
    defs = outlined(defs, program.module.fresh, arrays)  # prange loops: their iterations functions of their own
    origins: list = []
    python = emit.render_module(defs, program.ns, program.helper_sources, formatted=False, origins=origins)
    scope = getattr(owner.fn, "__adc_scope__", None) or owner.fn.__globals__  # (generated code's: its helpers too)
    fn = owner.fn

    where = cache.directory()  # compiled once per machine: Numba's cache beside the file (targets.numba.cache)
    source = translate(
        python,
        program.helpers,
        program.module.fresh,
        where is not None,
        program.accumulators,
        scope,
        shared=True,
        array_accumulators=program.array_accumulators,
        narrow_floats=any(_narrow(a) for a in sig.avals),
    )
    source, path = emit.format_source(source), None
    label = f"{mode} of {fn.__qualname__} (numba)"

    compiled_users: dict = {}
    libraries = library_functions(list(program.anf_cache.values()))  # (SciPy's: called in object mode)

    def supply(read):
        handed = program.supplied(read)
        for name in read:
            value = handed.get(name, fn.__globals__.get(name))
            helper = getattr(value, "__adc_primitive__", None)  # of the reverse code hessian differentiates
            if id(value) in libraries or library_rule(value):
                handed[name] = in_object_mode(value)
            elif helper in NUMBA_HELPERS or helper in GUARDS:
                handed[name] = _numba_helper(helper, numba)
            elif isinstance(value, types.FunctionType) and (helper is None or helper in HELPERS):
                handed[name] = _jitted(value, numba, compiled_users)  # a user function the code calls as it is
            elif user_class(value):  # getattr(Spring, "k") of a class attribute read through an object
                handed[name] = class_constants(value)
            elif type(value) is list and value:  # a list the code reads as a constant (a global, a closure's
                handed[name] = convert(value)  # cell's): as an argument goes in (Numba takes no list global)
            elif isinstance(value, types.CellType) and type(value.cell_contents) is list and value.cell_contents:
                handed[name] = types.CellType(convert(value.cell_contents))
        return handed

    supplied = supply
    if where is not None:
        handed = supply(reads(source))
        supplied = lambda read: handed  # noqa: E731  (asked once)
        read = {n: handed[n] if n in handed else fn.__globals__.get(n, _UNBOUND) for n in cache.global_reads(source)}
        read["__name__"] = fn  # (the module the code runs in: Numba imports it to load the cached code)
        read["__module__"] = fn.__module__  # (by its name: code cached for a module another process names
        # otherwise, a fuzzer's or a script's, cannot be loaded, as its environment imports the module)
        path = cache.place(where, source, read)
        if path is None:  # something read has no fingerprint: compiled in this process only
            source = re.sub(r"^(\s*@\w+\.njit\()cache=True(, )?", r"\1", source, flags=re.M)
    told = Told(python, origins, source)  # (where each line of the code comes from, worked out if an error asks)
    namespace = load(source, fn.__globals__, label, supplied, {d.name for d in defs}, path, told=told)
    compiled = namespace[built[0].name]
    facts = program.facts(fn, sig)
    changed = changes_in_place(program)  # (a list argument goes in as an array: its changes copied back out)
    written = tuple(i for i, a in enumerate(sig.avals) if changed and V.holds_list(a))
    return _entry(
        compiled, mode, sig, owner._positions_of(sig), facts.summary.out, told, fn, converter, restore, written
    )


def _narrow(aval) -> bool:
    """Whether a value of abstract value ``aval`` holds floats narrower than float64 (float32, float16)."""
    if isinstance(aval, V.Seq):
        return any(_narrow(a) for a in (aval.items if aval.items is not None else (aval.elem,)))
    dtype = getattr(aval, "dtype", None) or ""
    return dtype.startswith("float") and dtype not in ("float", "float64")


def reverse_code(d, sig: V.Sig, mode: str = "reverse"):
    """The python target's reverse-mode function of ``d`` for ``sig`` (``mode`` "reverse", or "grad":
    the gradient code, whose tangent hvp is), for hessian and hvp to differentiate under this target:
    made by d's program (a call of a recursive function recomputes its residuals), each accumulator of
    an array starting as zeros of its shape (so that Numba gives its tangent one type), and marked with
    the user's function, at whose lines its errors are told."""
    with d._building:
        program = d._built.program(sig)
        built = program.build(d.fn, mode, d._wrt_of(sig), sig)
        built = _accumulators_as_zeros(built, program.accumulators, program.helper("zeros_like"))
        origins: list = []
        source = emit.render_module(built, program.ns, program.helper_sources, formatted=False, origins=origins)
    label = f"{mode} of {d.fn.__qualname__}"
    told = Told(source, origins)
    namespace = load(source, d.fn.__globals__, label, program.supplied, {f.name for f in built}, told=told)
    for name, alias in program.helpers.items():
        namespace[alias].__adc_primitive__ = name  # so the code can be differentiated
    function = namespace[built[0].name]
    function.__adc_user__ = d.fn
    return function


def _accumulators_as_zeros(defs: list, accumulators: dict, zeros: str) -> list:
    """``defs`` with each accumulator ``d_x = 0.0`` at a function's top level, where ``x`` is surely bound
    (a parameter, or assigned by an earlier statement at that level), made ``d_x = zeros(x)``."""
    out = []
    for d in defs:
        bound, body = set(d.params), []
        for s in d.body:
            if isinstance(s, Assign) and len(s.targets) == 1 and _a_zero(s.value):
                variable = accumulators.get(s.targets[0]) if isinstance(s.targets[0], str) else None
                if variable in bound:
                    s = dataclasses.replace(s, value=E.Call(zeros, (E.Name(variable),)))
            if isinstance(s, Assign):
                bound |= set(_names(s.targets))
            body.append(s)
        out.append(dataclasses.replace(d, body=tuple(body)))
    return out


def _a_zero(e) -> bool:
    """Whether ``e`` is the literal zero an accumulator starts as (``0.0``, not ``-0.0``)."""
    return isinstance(e, E.Num) and e.text is None and e.value == 0.0 and str(e.value)[0] != "-"


def _names(targets) -> list:
    """The names an assignment's targets bind."""
    return [n for t in targets for n in (_names(t) if isinstance(t, tuple) else [t] if isinstance(t, str) else [])]


_UNBOUND = "(unbound)"  # what the code reads by a name nothing binds (a builtin)

_GUARDS: dict = {}  # argument check -> the function compiled code calls for it (made once)


def _numba_helper(name: str, numba):
    """The Numba form of runtime helper ``name``: the process's one (``targets.numba.live``), or for an
    argument check a function that does nothing."""
    if name not in GUARDS:
        from . import live

        return getattr(live, name)
    if name not in _GUARDS:
        _GUARDS[name] = numba.njit(lambda *args: None)
    return _GUARDS[name]


def _jitted(fn, numba, done: dict):
    """``fn`` compiled by ``numba.njit``, reading the user functions it calls (itself too, when it
    recurses) as compiled ones: a copy of it over a copy of its globals (Numba freezes them anyway)."""
    if fn in done:
        return done[fn]
    scope = dict(fn.__globals__)
    copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    done[fn] = numba.njit(copy, error_model="numpy")  # (as the generated code: translate)
    for name in fn.__code__.co_names:
        value = scope.get(name)
        if isinstance(value, types.FunctionType) and not hasattr(value, "__adc_primitive__"):
            scope[name] = _jitted(value, numba, done)
    return done[fn]


def _entry(compiled, mode: str, sig: V.Sig, positions: tuple, out: V.Aval, told, fn, converter, restore, written=()):
    """The Python entry around ``compiled``: arguments converted, results restored, typing errors
    of Numba located in the user's file (``told``: where each line of the compiled code comes from);
    ``written``: the positions of list arguments the code may change, whose converted values' entries are
    then written back into the caller's lists (as the function changes them when it runs as Python)."""
    from .values import written_back

    avals = sig.avals
    cts = tuple(avals[i] for i in positions)
    out = tangent = _tupled(out)  # (a number's tangent may carry many directions: restore keeps them)

    def gradients(g):
        return restore(g, cts[0]) if len(cts) == 1 else tuple(map(restore, g, cts))

    finish = {
        "grad": gradients,
        "value_and_grad": lambda r: (restore(r[0], out), gradients(r[1])),
        "reverse": lambda r: (restore(r[0], out), tuple(map(restore, r[1], cts))),
        "forward": lambda r: (restore(r[0], out), restore(r[1], tangent)),
    }[mode]

    extra = {"forward": cts, "reverse": (out,)}.get(mode, ())  # tangents, or the output's cotangent
    convert = tuple(map(converter, avals + extra))
    if all(map(_plain, cts + (out,))):  # what compiled code returns is already what the python target gives
        finish = _same
    if all(map(_plain, avals + extra)):  # floats and float64 arrays go in as they are: no conversion
        convert_all = _same
    else:

        def convert_all(args):
            return tuple(c(a) for c, a in zip(convert, args, strict=True))

    def explained(e, args):
        if len(args) != len(convert):  # (as the call of the python target's function raises it)
            raise TypeError(f"{fn.__name__}() takes {len(convert)} arguments ({len(args)} given)") from None
        problem = located(e, told, fn, numba_module())
        if problem is None:
            raise e
        raise problem from None

    roomy(compiled)
    if finish is _same and convert_all is _same:  # (the call of the compiled code is all there is to do)

        @functools.wraps(compiled.py_func)
        def entry(*args):
            try:
                return compiled(*args)
            except Exception as e:
                explained(e, args)

    else:

        @functools.wraps(compiled.py_func)
        def entry(*args):
            converted = convert_all(args)
            try:
                result = compiled(*converted)
            except Exception as e:
                explained(e, args)
            for i in written:
                written_back(args[i], converted[i])
            return finish(result)

    entry.compiled, entry.convert = compiled, convert
    return entry


def _plain(aval) -> bool:
    """Whether values of ``aval`` cross into and out of compiled code unchanged: Python floats (and
    NumPy float64 scalars, which come back as the floats the python target gives) and float64 arrays."""
    return aval == V.FLOAT or isinstance(aval, V.Arr) and aval.dtype == "float64"


def _same(value):
    return value


def hessian_rows(r, args: tuple, zeros: tuple, written: bool) -> list:
    """hessian's rows under this target: for each unit tangent (one per scalar of ``zeros``, the zero
    tangents of the wrt arguments), the tangent of the cotangents the reverse code ``r`` returns for
    ``args``, flat, by r's compiled forward code: the first pass through the entry (a typing error
    told at the user's line), the others straight to the compiled code, the arguments converted once
    (each pass, from a copy, if the function writes into them)."""
    import numpy

    one = _one_like(
        args, numpy
    )  # (the cotangent 1 of the output, of the arguments' float dtype: float32 code stays so)
    entry = r._built.function("forward", r._bound(args + (one,))[1])
    n = len(args) + 1
    values, tangents = entry.convert[:n], entry.convert[n:]
    rows, primals = [], None
    for ts in _units(tuple(c(z) for c, z in zip(tangents, zeros, strict=True))):
        if not rows:
            cts = entry(*(copy.deepcopy(args) if written else args), one, *ts)[1][1]
        else:
            if primals is None or written:
                primals = [c(a) for c, a in zip(values, copy.deepcopy(args) if written else args)] + [one]
            cts = entry.compiled(*primals, *ts)[1][1]
        rows.append(numpy.concatenate(_flat(cts, numpy)))
    return rows


def _one_like(args, numpy):
    """1.0, as a float32 where every float array among ``args`` (at any depth) is float32."""
    dtypes = set()
    todo = list(args)
    while todo:
        a = todo.pop()
        if type(a) is numpy.ndarray and a.dtype.kind == "f":
            dtypes.add(a.dtype)
        elif type(a) in (list, tuple):
            todo.extend(a)
    return numpy.float32(1.0) if dtypes == {numpy.dtype(numpy.float32)} else 1.0


def _units(value):
    """Copies of ``value`` (zeros: numbers, arrays, and tuples or typed lists of them, as compiled code
    takes them) with one scalar 1.0, for each scalar in turn, left to right."""
    if isinstance(value, (float, int)):
        yield 1.0
    elif hasattr(value, "flat"):
        for k in range(value.size):
            unit = value.copy()
            unit.flat[k] = 1.0
            yield unit
    else:
        items = list(value)
        for k, item in enumerate(items):
            for unit in _units(item):
                yield type(value)(items[:k] + [unit] + items[k + 1 :])


def _flat(value, numpy) -> list:
    """The arrays and numbers of a nested structure of them, each raveled, left to right."""
    if isinstance(value, numpy.ndarray) or numpy.isscalar(value):
        return [numpy.ravel(value)]
    if all(isinstance(v, float) for v in value):  # a list of numbers at once
        return [numpy.array(value, dtype=float)]
    return [x for v in value for x in _flat(v, numpy)]


def _tupled(out):
    """An output's abstract value, a Python tuple of them for a tuple output as a tuple's (so that
    ``restore`` gives each part its structure: the reverse code hessian differentiates returns lists)."""
    if isinstance(out, tuple):
        return V.seq("tuple", [_tupled(a) for a in out])
    return out


def finished_defs(defs: list, fresh) -> list:
    """The module ``adc compile --target numba`` writes, on the IR: lists joined and repeated as calls
    (on the arrays lists are in compiled code, ``+`` adds and ``*`` multiplies), and each prange loop's
    iterations a function of their own (``parallel``)."""
    return outlined([spelled_as_calls(d) for d in defs], fresh)


def written_constant(value):
    """A global's value as the module ``adc compile --target numba`` writes it: a list as compiled code takes it
    (``values.convert``: a list of numbers a 1-D array, of equal rows a 2-D one; Numba takes no list global),
    a class whose attributes the code reads as a named tuple of them (``class_constants``), as the code compiled
    in the process is handed them; anything else as it is."""
    from .values import class_constants, convert, user_class  # NumPy, imported only where Numba is used

    if user_class(value):
        return class_constants(value)
    if type(value) is not list or not value:
        return value

    return convert(value)


def written(text: str, program, path: str, user: dict, origins: list) -> str:
    """The module text ``adc compile --target numba`` writes for ``text`` (the python target's): its
    functions compiled by ``@numba.njit(cache=True)``; the file's own import of numba or numpy serves
    the module too (``user``: the file's names; ``origins``: those of text's lines, which it needs not)."""

    def fresh(name):
        return name if getattr(user.get(name), "__name__", None) == name else program.module.fresh(name)

    return translate(
        text, program.helpers, fresh, True, program.accumulators, user, array_accumulators=program.array_accumulators
    )
