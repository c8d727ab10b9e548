"""Fast entries: what ``f.grad``, ``f.jvp``, ``f.vjp`` and ``f.value_and_grad`` become after a
call with floats (and float arrays).

An entry is a small generated function.  It tests that its arguments are like that first call's
(a type test each) and runs the generated derivative; anything else goes to the checking method
of ``Differentiable``, which binds keywords and defaults, refuses integers and wrong structures,
and specialises for other arrays.  For a small derivative (straight-line code, a few lines) the
entry holds the derivative's body itself: a Python call costs about as much as ``x * y``'s whole
tangent, and the forward mode of ``x * y`` is what the hand-written tangent is measured against.
"""

from __future__ import annotations

import gc
import inspect
import sys
from operator import countOf

from ..analysis import values as V
from ..analysis.holds import written_tangent_test, written_test
from ..compile.emit import render_body
from ..ir import expr as E
from ..ir.nodes import Def, Do, ForS, IfS, WhileS
from ..compile.collector import no_cycle_collection
from ..compile.load import load
from ..compile.origins import Told, note_origin
from ..modes.callgraph import reaches_recursion
from ..front.environment import Scope, cells_of, namespace_of
from .shared_lists import shared_list_tests
from .trees import converts, narrow_floats

_INLINE_LIMIT = 30  # statements: a longer derivative's own work hides the cost of one call
_GUARDED_LIMIT = 400  # statements: a body whose int check looks at lists is inlined up to this size (see below)


def fast_path(owner, name: str, sig) -> bool:
    """Whether ``owner.<name>`` (``grad``, ``jvp``, ...) gets a fast entry for signature ``sig`` now: it has
    none yet, and every argument is a float, a float array, a list or a tuple, or an int or a bool not
    differentiated (a constant: ode's number of steps, particle's inner_forward; the code is the same for
    every int and either bool, tested by its type)."""
    if not owner.target.numpy_only or name in owner.__dict__:
        return False
    wrt = owner._positions_of(sig)
    if not all(V.entry_testable(a) or a in (V.INT, V.BOOL) and i not in wrt for i, a in enumerate(sig.avals)):
        return False
    return not converts([sig.avals[i] for i in owner._positions]) and not narrow_floats(sig.avals)  # (trees)


def install(owner, name: str, mode: str, method, sequences, sig, ct_aval=None) -> None:
    """Make ``owner.<name>`` (``grad``, ``jvp``, ...) for later calls: the generated code for ``mode``
    when the arguments have signature ``sig`` (floats, arrays of the same ndim and dtype with tangents
    of their shapes, lists of the same abstract value: a test or two each), else ``method``, which
    checks, binds and specialises (other kinds, keywords, integers, wrong structures).  ``sequences``:
    the entry's parameters, each with the number of values it holds (None: one value); None: the
    function's own parameters.  Made holding the owner's lock (``compile.building``), the garbage
    collector paused meanwhile (``collector.no_cycle_collection``).  The entry of reverse code that reaches a recursive function
    pauses the collector while it runs (``make_entry``)."""
    ndarray = getattr(sys.modules.get("numpy"), "ndarray", None)
    with owner._building, no_cycle_collection():
        if name in owner.__dict__:  # another thread made it meanwhile
            return
        generated = owner._built.function(mode, sig)
        source = owner._built.sources.get(generated)
        depends = owner._built.dependencies()
        paused = mode != "forward" and reaches_recursion(owner._built.program(sig), owner.fn)
        entry = make_entry(name, owner, generated, method, sequences, sig, ndarray, source, depends, ct_aval, paused)
        setattr(owner, name, entry)


def make_entry(
    name: str,
    owner,
    generated,
    method,
    sequences=None,
    sig=None,
    ndarray=None,
    source=None,
    depends=(),
    ct_aval=None,
    paused=False,
):
    """The entry ``f.<name>`` of Differentiable ``owner``: ``generated`` (the derivative for this
    call's signature) when the arguments have that signature, else ``method(owner, ...)``.

    ``sequences``: the entry's parameters, each with the number of values it holds (None: passed
    whole), in the order ``generated`` takes their values; None: the function's own parameters.
    ``sig``: the abstract signature ``generated`` is specialised on: a float is tested by its type,
    an array by its type, ndim and dtype (its tangent: an array of the same shape), a list or tuple
    by its whole abstract value (every element looked at: one of floats by their types at C speed,
    else ``values.describe``) and, where several arguments hold lists, by which of them share one.
    ``source``: ``(Def, Namespace)``, the IR ``generated`` was emitted from, to inline a short body.
    ``depends``: what the code was built from (``front.environment.Dependency``), tested on every
    call; when the module no longer holds it the method builds the code again.
    ``ct_aval``: the abstract value of the first call's cotangent where it is not a float, which later
    cotangents are tested against (``ct_kind``): for a list output a list of numbers, tested whole; for
    an array output an array, tested by its type, ndim and dtype, and after the call by its shape
    against the output's (else the method runs, which tells a wrong shape); for a tuple output one
    such value (or None: a float) per part.
    ``paused``: the cyclic garbage collector paused while ``generated`` runs (reverse code of a
    recursive function keeps a residual tuple per call alive until its adjoint sweep ends: collections
    that find nothing to free took half of GradBench det's gradient at ell = 8).
    """
    code = getattr(generated, "__wrapped__", generated).__code__  # (a compiled target's entry: its code's)
    gen_params = code.co_varnames[: code.co_argcount]
    sequenced = sig is not None and any(not isinstance(a, V.Num) for a in sig.avals)
    inlined: list = []  # where each line of an inlined body comes from (compile.origins: an error told there)
    body = _inlined_body(*source, sequenced, inlined) if source is not None and not paused else None
    inlined = inlined if body is not None else []
    if body is not None and sequences is None and gen_params != owner.params:
        body = None
    scope = namespace_of(generated)  # what an inlined body reads: the generated names, the module's globals
    taken = set(scope) | set(code.co_varnames) | set(code.co_names) | set(owner.params)
    wholes = [p for p, n in sequences or () if p != "ct"]
    parts = [f"ct{j}" for p, n in sequences or () if p == "ct" for j in range(n or 0)]
    defaults = [f"default{i}" for i in range(len(owner.params))]
    slots = [*range(len(owner.params)), "ct", *parts]  # (parts: a tuple output's cotangents)
    kinds = [f"{k}{i}" for i in slots for k in ("aval", "dtype", "holds", "ids", "matches", "rows")]
    helpers = ("generated", "method", "owner", "ndarray", "describe", "mismatch", "alias", "pattern", "avals", "unset")
    helpers += ("repeats",)
    helpers += ("float64",)
    helpers += ("current", "now") + tuple(f"{k}{j}" for j in range(len(depends)) for k in STATES)
    helpers += ("collecting", "pause", "resume", "out", "note", "error")
    g = _fresh([name, *helpers, *_BUILTINS, *wholes, *parts, *defaults, *kinds], taken)
    space = {g[k]: v for k, v in _BUILTINS.items()}  # the entry's own names, handed to it (back.load)
    space.update({g["generated"]: generated, g["method"]: method, g["owner"]: owner, g["ndarray"]: ndarray})
    space[g["float64"]] = getattr(sys.modules.get("numpy"), "float64", float)  # (NumPy's float: a float subclass)
    space.update({g["collecting"]: gc.isenabled, g["pause"]: gc.disable, g["resume"]: gc.enable})
    space[g["note"]] = note_origin
    current = current_tests(depends, g, space)
    shaped: list = []  # (the output's part, the cotangent given for it): shapes compared after the call
    if sequences is None:
        head, guard = _own_parameters(owner, g, space, sig, current)
    else:
        head, guard, (shaped, fallback) = _sequence_parameters(
            owner, gen_params, sequences, g, space, sig, current, ct_aval
        )
    if current and all(d.kind == "code" for d in depends):  # the function's own code and defaults: attributes
        guard[:0] = [f"    {g['current']} = {' and '.join(current)}"]
    elif current:  # a name the module no longer has (KeyError) is a change too
        tests = " and ".join(current)
        guard[:0] = [
            "    try:",
            f"        {g['current']} = {tests}",
            f"    except {g['KeyError']}:",
            f"        {g['current']} = False",
        ]
    call = f"{g['generated']}({', '.join(gen_params)})"
    if shaped:  # an array cotangent: the output's shape, known once the code has run, is its own
        body, inlined = _shape_checked(call, shaped, fallback, paused, g), []
    elif body is None and paused:
        body = [f"if not {g['collecting']}():", f"    return {call}", f"{g['pause']}()", "try:", f"    return {call}"]
        body += ["finally:", f"    {g['resume']}()"]
    elif body is None:
        body = [f"return {call}"]
    # an error the code raises told at the user's line it comes from (a note: no cost unless it raises); not
    # around a body nested so deep that one block more passes Python's limit of 20 (twenty loops, inlined)
    deep = max((len(line) - len(line.lstrip(" ")) for line in body), default=0) >= 4 * 12
    if not deep:
        body = ["try:", *("    " + line for line in body), f"except {g['BaseException']} as {g['error']}:"]
        body += [f"    {g['note']}({g['error']})", "    raise"]
    text = "\n".join([f"def {g[name]}({head}):", *guard, *("    " + line for line in body), ""])
    before = 1 + (not deep) + sum(line.count("\n") + 1 for line in guard)  # (the def, the guard, try)
    told = Told(text, [None] * before + inlined) if inlined else None
    own = scope.own if isinstance(scope, Scope) else {}
    cells = cells_of(scope)  # a closure's captured variables: read from its cells (back.load)

    def supply(names) -> dict:
        found = {n: space[n] if n in space else own[n] for n in names if n in space or n in own}
        return found | {n: cells[n] for n in names if n in cells and n not in found}

    entry = load(text, generated.__globals__, f"{name} entry of {owner.fn.__qualname__}", supply, told=told)[g[name]]
    entry.__name__ = name
    entry.__module__ = owner.fn.__module__  # pickled by reference as the module's f.grad (or f.jvp, ...)
    entry.__qualname__ = f"{owner.fn.__qualname__}.{name}"
    entry.__self__ = owner  # like the bound method it replaces: differentiate(f.grad) finds f
    return entry


def _shape_checked(call: str, shaped: list, fallback: str, paused: bool, g: dict) -> list:
    """The body of a vjp entry whose cotangent holds arrays: ``call``, its output's parts (``shaped``:
    ``(index of the part or None, the cotangent's name)``) compared in shape with their cotangents, and
    ``fallback`` (the checking method, which runs the code again and raises the error it always raised)
    where one differs or the code raised what a cotangent of the wrong shape raises (NumPy would
    otherwise broadcast it, or refuse it from deep inside the code).  ``paused``: the collector paused
    while the code runs (see ``make_entry``)."""
    out = g["out"]
    if paused:
        run = [f"if {g['collecting']}():", f"    {g['pause']}()", "    try:", f"        {out} = {call}"]
        run += ["    finally:", f"        {g['resume']}()", "else:", f"    {out} = {call}"]
    else:
        run = [f"{out} = {call}"]
    value = f"{out}[0]"
    tests = [
        f"{g['getattr']}({value if j is None else f'{value}[{j}]'}, 'shape', None) == {ct}.shape" for j, ct in shaped
    ]
    body = [
        "try:",
        *("    " + line for line in run),
        f"except ({g['ValueError']}, {g['TypeError']}, {g['IndexError']}):",
    ]
    body += [f"    {out} = None", f"if {out} is None or not ({' and '.join(tests)}):", f"    return {fallback}"]
    return body + [f"return {out}"]


def ct_kind(ct, shape):
    """What a vjp entry tests later cotangents against (``make_entry``'s ``ct_aval``), from the first
    call's ``ct`` for an output of tuple structure ``shape`` (None: one value): None where a float is
    tested; the abstract value of a flat list (a list output), or of an array of one or more dimensions;
    for a tuple output, one of those per part; ``NO_ENTRY`` where no entry is made (a list of lists)."""
    if shape is not None:
        parts = tuple(_array_kind(c) for c in ct) if isinstance(ct, (list, tuple)) else ()
        return parts if any(p is not None for p in parts) else None
    if isinstance(ct, (list, tuple)):
        listed = V.describe(ct)
        return listed if V.flat(listed) else NO_ENTRY
    return _array_kind(ct)


def _array_kind(ct):
    """The abstract value of a NumPy array of one or more dimensions, else None."""
    ndarray = getattr(sys.modules.get("numpy"), "ndarray", None)
    return V.describe(ct) if type(ct) is ndarray and ct.ndim > 0 else None


NO_ENTRY = object()  # ct_kind's answer where no entry is made


def tangent_mismatch(value, tangent, where="") -> str:
    """Why ``tangent`` cannot be a tangent of ``value`` (lists must match in length and nesting), or ""."""
    if isinstance(value, (list, tuple)):
        if not isinstance(tangent, (list, tuple)) and not hasattr(tangent, "shape"):
            return f"{where or 'it'} is a {type(value).__name__} of {len(value)} but the tangent is {type(tangent).__name__}"
        if len(tangent) != len(value):
            return f"{where or 'it'} has {len(value)} elements but the tangent has {len(tangent)}"
        kinds = set(map(type, value))
        if kinds & {list, tuple} or any(k.__name__ == "ndarray" for k in kinds):  # numbers only: the length is enough
            for k, (v, t) in enumerate(zip(value, tangent)):
                if tangent_mismatch(v, t):
                    return tangent_mismatch(v, t, f"{where}[{k}]")  # named only when wrong: formatting costs
        return ""
    if type(value).__name__ == "ndarray":  # numbers carry vector tangents
        shape = value.shape
        if isinstance(tangent, (list, tuple)):
            kind = type(tangent).__name__
            return f"{where or 'it'} is an array of shape {shape} but the tangent is a {kind} of {len(tangent)}: give an array"
        other = getattr(tangent, "shape", ())
        if tuple(other) != shape and not (isinstance(tangent, (int, float)) and tangent == 0):
            what = f"has shape {tuple(other)}" if hasattr(tangent, "shape") else f"is {tangent!r}"
            return f"{where or 'it'} has shape {shape} but the tangent {what}"
        return ""
    if isinstance(tangent, (list, tuple)):
        return f"{where or 'it'} is a number but the tangent is a {type(tangent).__name__}"
    return ""


# what the entry's tests call, as globals no name of the derivative's body can shadow
_BUILTINS = {
    "type": type,
    "float": float,
    "int": int,
    "bool": bool,
    "isinstance": isinstance,
    "hasattr": hasattr,
    "len": len,
    "seq": (tuple, list),
    "list": list,
    "tuple": tuple,
    "map": map,
    "countOf": countOf,
    "KeyError": KeyError,
    "BaseException": BaseException,
    "ValueError": ValueError,
    "TypeError": TypeError,
    "IndexError": IndexError,
    "getattr": getattr,
}


def _fresh(bases, taken) -> dict:
    """``base + "_" * width`` for each base, with the least width that clashes with no taken name."""
    width = 1
    while any(b + "_" * width in taken for b in bases):
        width += 1
    return {b: b + "_" * width for b in bases}


def _float_test(v: str, exact: bool, g: dict) -> str:
    """The test that value ``v`` is a float (``exact``: a Python float or NumPy's float64, which the
    signature describes alike, not another subclass of float)."""
    if exact:
        return f"({g['type']}({v}) is {g['float']} or {g['type']}({v}) is {g['float64']})"
    return f"{g['isinstance']}({v}, {g['float']})"


# the names a dependency's test binds, with its number: the dictionary, the value, a function's code and defaults
# then, an object's class
STATES = ("module", "was", "code", "defaults", "kwdefaults", "class")


def current_tests(depends, g, space) -> list:
    """The tests that the module still holds what the code was built from (``depends``; see
    ``front.environment.Dependency``): a dictionary lookup and an identity or type test each."""
    tests, modules = [], {}
    for k, dep in enumerate(depends):
        if id(dep.where) not in modules:
            modules[id(dep.where)] = g[f"module{len(modules)}"]
            space[modules[id(dep.where)]] = dep.where
        where, was, now = modules[id(dep.where)], g[f"was{k}"], g["now"]
        space[was] = dep.value
        read = f"{where}[{dep.name!r}]"
        if dep.kind == "absent":
            tests.append(f"{dep.name!r} not in {where}")
        elif dep.kind == "same":
            tests.append(f"{read} is {was}")
        elif dep.kind == "object":  # the same object, of the same class
            space[was], space[g[f"class{k}"]] = dep.value
            tests.append(f"{read} is {was} and {g['type']}({was}) is {g[f'class{k}']}")
        elif dep.kind in ("function", "code"):  # the same function (code: the entry's own), its code and
            space[was] = dep.value[0]  # defaults not replaced
            tests += [f"{read} is {was}"] if dep.kind == "function" else []
            for attribute, value in zip(("__code__", "__defaults__", "__kwdefaults__"), dep.value[1:]):
                if value is not None or attribute == "__code__":  # (no defaults then: every call gave each
                    space[g[f"{attribute.strip('_')}{k}"]] = value  # argument, none to go stale)
                    tests.append(f"{was}.{attribute} is {g[attribute.strip('_') + str(k)]}")
        elif dep.kind == "type":
            tests.append(f"{g['type']}({read}) is {was}")
        elif dep.kind == "int":
            tests.append(f"{g['type']}({now} := {read}) is {g['int']} and {now} == {was}")
        elif dep.kind == "frozen" and type(dep.value) is float:  # a number compiled into the code (Numba's):
            tests.append(f"{g['type']}({now} := {read}) is {g['float']} and {now} == {was}")  # the same number
        elif dep.kind in ("sequence", "frozen"):  # a list or tuple of numbers: of the same structure (rarely
            # read: a call); a value compiled into the code (Numba's): the same numbers
            space[was] = dep
            tests.append(f"{was}.holds()")
        else:  # an array: of the same ndim and dtype
            space[was] = dep.value[1]
            tests.append(
                f"{g['type']}({now} := {read}) is {g['ndarray']} and {now}.ndim == {dep.value[0]} and {now}.dtype == {was}"
            )
    return tests


def _own_parameters(owner, g, space, sig, current=()):
    """Head and guard of an entry taking the function's own parameters (``grad``, ``value_and_grad``);
    ``current``: whether the module still holds what the code was built from (tested first: where it
    does not, an argument left out is handed to the method as ``UNSET``, which reads the function's
    defaults as they are then)."""
    signature, filled = [], []
    call = f"{g['method']}({g['owner']}, {', '.join(owner.params)})"
    for i, (n, param) in enumerate(owner.signature.parameters.items()):
        if param.default is not inspect.Parameter.empty:
            space[g[f"default{i}"]], space[g["unset"]] = param.default, UNSET
            filled += [f"    if {n} is {g['unset']}:", f"        {n} = {g[f'default{i}']}"]
            n = f"{n}={g['unset']}"
        signature.append(n)
    guard = [f"    if not {g['current']}:", f"        return {call}"] if current else []
    tests = [_kind_test(n, i, sig.avals[i], g, space, True) for i, n in enumerate(owner.params)]
    tests += [f"{n}.shape[-1] == {k}" for n, k in zip(owner.params, sig.lengths) if k is not None]  # (short rows)
    tests += shared_list_tests(owner, owner.params, sig, g, space)
    guard += filled + [f"    if not ({' and '.join(tests) or 'True'}):", f"        return {call}"]
    return ", ".join(signature), guard


class _Unset:
    """An argument a fast entry was called without (its default is the function's, read by the method)."""

    def __repr__(self) -> str:
        return "<unset>"


UNSET = _Unset()


def _kind_test(v: str, i: int, aval, g, space, exact: bool) -> str:
    """The test that value ``v`` of the ``i``-th parameter has the abstract value ``aval``: a float, an
    int, an array of its ndim and dtype, or a list or tuple whose every element is as before."""
    if isinstance(aval, V.Seq):  # equal structures are mostly the same cached object: tested first
        space[g[f"aval{i}"]], space[g["describe"]] = aval, V.describe
        described = f"(({g['now']} := {g['describe']}({v})) is {g[f'aval{i}']} or {g['now']} == {g[f'aval{i}']})"
        floats = _floats_test(v, aval, g)  # a flat list of floats: its element types at C speed
        if floats:
            return f"({floats} or {described})"
        holds = written_test(aval)  # lists and tuples of arrays: a test written out, quicker than describe
        if holds is None:
            return described
        space[g[f"holds{i}"]] = holds
        return f"({g[f'holds{i}']}({v}) or {described})"
    if isinstance(aval, V.Arr):
        space[g[f"dtype{i}"]] = _numpy_dtype(aval.dtype)
        return f"{g['type']}({v}) is {g['ndarray']} and {v}.ndim == {aval.ndim} and {v}.dtype is {g[f'dtype{i}']}"
    if aval == V.INT:  # (an int not differentiated: a constant)
        return f"{g['type']}({v}) is {g['int']}"
    if aval == V.BOOL:  # (a flag: the code is the same for either value, which it reads when it runs)
        return f"{g['type']}({v}) is {g['bool']}"
    return _float_test(v, exact, g)


def _floats_test(v: str, aval, g) -> str:
    """For a list or tuple of floats: a test that ``v`` is one, at C speed (a third of ``describe``'s
    cost), which implies ``describe(v) == aval``; "" for other structures.  Python floats and NumPy's
    float64, which describe alike (``list(array)`` gives the latter), are counted, the floats first
    (without NumPy, float64 is float, and the second count never matches)."""
    if aval == V.describe([1.0]):  # a list of floats, of any length but 0
        head, length = f"{g['type']}({v}) is {g['list']} and {g['len']}({v})", f"{g['len']}({v})"
        return f"({head} and {_counted(v, length, g)})"
    k = len(aval.items or ())
    if aval.kind == "tuple" and 0 < k <= V.MAX_ITEMS and aval == V.describe((1.0,) * k):
        head = f"{g['type']}({v}) is {g['tuple']} and {g['len']}({v}) == {k}"
        return f"({head} and {_counted(v, str(k), g)})"
    return ""


def _counted(v: str, n: str, g) -> str:
    """The test that every one of the ``n`` elements of ``v`` is a float or NumPy's float64."""
    floats = f"{g['countOf']}({g['map']}({g['type']}, {v}), {g['float']})"
    float64s = f"{g['countOf']}({g['map']}({g['type']}, {v}), {g['float64']})"
    return f"({floats} == {n} or {floats} + {float64s} == {n})"


def _numpy_dtype(name: str):
    import numpy

    return numpy.dtype(name)


def _sequence_parameters(owner, gen_params, sequences, g, space, sig, current=(), ct_aval=None):
    """Head and guard of an entry taking sequences (``jvp(primals, tangents)``, ``vjp(primals,
    ct)``).  Primals and tangents are unpacked into the generated function's parameter names; the
    cotangent is its one parameter, unpacked only to test a tuple's parts.

    Unpacking in a ``try`` costs nothing when it succeeds, where testing each sequence's type and
    length first cost as much as the tangent of ``x * y``.  A one-shot iterator spent so is handed
    on as a tuple of its values, so only where any other length is an error anyway: not the
    primals of a function with defaults, nor a tuple cotangent (the generated code unpacks it
    again, and the method takes only a tuple or list)."""
    has_defaults = any(p.default is not inspect.Parameter.empty for p in owner.signature.parameters.values())
    heads, slots, k = [], [], 0
    for p, n in sequences:  # the generated parameters each sequence fills
        width = 1 if p == "ct" else n
        heads.append(gen_params[k] if p == "ct" else g[p])
        slots.append(gen_params[k : k + width])
        k += width
    guard, tests, passed, shaped = [], [g["current"]] if current else [], list(heads), []
    active = owner._wrt_of(sig)  # the parameters the tangents are for (not an int argument: a constant)
    for i, ((p, n), head, slot) in enumerate(zip(sequences, heads, slots)):
        items = slot if p != "ct" or n is None else [g[f"ct{j}"] for j in range(n)]
        if n is not None:
            target = "()" if n == 0 else ", ".join(items) + ("," if n == 1 else "")
            fallback = f"        return {g['method']}({g['owner']}, {', '.join(passed)})"
            if p == "ct" or p == "primals" and has_defaults:
                test = f"{g['type']}({head}) in {g['seq']} and {g['len']}({head}) == {n}"
                guard += [f"    if not ({test}):", fallback, f"    {target} = {head}"]
            else:
                guard += ["    try:", f"        {target} = {head}", "    except (TypeError, ValueError):", fallback]
            if p != "ct":
                passed[i] = f"({target})"
        for j, v in enumerate(items):
            aval = sig.avals[owner.params.index(active[j])] if p == "tangents" else None
            if p == "primals":
                tests.append(_kind_test(v, j, sig.avals[j], g, space, False))
                if sig.lengths and sig.lengths[j] is not None:  # (built for rows, or a vector, of that length)
                    tests.append(f"{v}.shape[-1] == {sig.lengths[j]}")
            elif p == "tangents" and isinstance(aval, V.Arr):  # an array of its primal's shape
                primal = gen_params[owner.params.index(active[j])]
                tests.append(f'{g["type"]}({v}) is {g["ndarray"]} and {v}.shape == {primal}.shape')
            elif p == "tangents" and V.flat(aval):  # numbers (the primal's test said so): the length is enough
                primal = gen_params[owner.params.index(active[j])]
                tests.append(
                    f'({g["type"]}({v}) in {g["seq"]} or {g["hasattr"]}({v}, "shape")) and {g["len"]}({v}) == {g["len"]}({primal})'
                )
            elif p == "tangents" and isinstance(aval, V.Seq):  # a list of its primal's structure
                primal = gen_params[owner.params.index(active[j])]
                matches = written_tangent_test(aval)
                if matches is None:
                    space[g["mismatch"]] = tangent_mismatch
                    tests.append(f"not {g['mismatch']}({primal}, {v})")
                else:
                    space[g[f"matches{j}"]] = matches
                    tests.append(f"{g[f'matches{j}']}({primal}, {v})")
            elif p == "ct" and (ct_aval if n is None else ct_aval and ct_aval[j]) is not None:
                kind = ct_aval if n is None else ct_aval[j]  # a list of numbers (a list output's), or an array
                tests.append(_kind_test(v, f"ct{'' if n is None else j}", kind, g, space, False))
                shaped += [(None if n is None else j, v)] if isinstance(kind, V.Arr) else []
            else:
                tests.append(_float_test(v, False, g))
        if p == "primals":
            tests += shared_list_tests(owner, items, sig, g, space)
    guard += [
        f"    if not ({' and '.join(tests) or 'True'}):",
        f"        return {g['method']}({g['owner']}, {', '.join(passed)})",
    ]
    return ", ".join(heads), guard, (shaped, f"{g['method']}({g['owner']}, {', '.join(passed)})")


def _inlined_body(d: Def | None, ns, sequenced: bool = False, origins: list | None = None) -> list | None:
    """The statements of generated function ``d`` as source lines if it is short and straight-line
    (no loop: a loop's own work hides the cost of one call), else None.  ``sequenced``: an argument is
    a list, tuple or array, which the generated function's check refusing integers walks on every call
    (about a microsecond) though the entry's own tests have passed: then a body of up to
    ``_GUARDED_LIMIT`` statements, loops included, is inlined without that check."""
    if d is None:
        return None
    guarded = sequenced and bool(d.body) and _int_guard(d.body[0])
    limit = _GUARDED_LIMIT if guarded else _INLINE_LIMIT
    count, todo = 0, list(d.body)
    while todo:
        s = todo.pop()
        count += 1
        if isinstance(s, (ForS, WhileS)) and not guarded or count > limit:
            return None
        if isinstance(s, (IfS, ForS)):
            todo.extend(s.body + getattr(s, "orelse", ()))
        elif isinstance(s, WhileS):
            todo.extend(s.header + s.body)
    if d.body and _int_guard(d.body[0]):  # the entry's own tests are stricter: floats and float arrays
        d = Def(d.name, d.params, d.defaults, d.body[1:], d.doc, d.source)
    return render_body(d, ns, origins)


def _int_guard(s) -> bool:
    """Whether ``s`` is the check refusing integer arguments (``modes.guards.int_guard``)."""
    if isinstance(s, IfS) and len(s.body) == 1 and not s.orelse:
        s = s.body[0]
    return isinstance(s, Do) and isinstance(s.value, E.Call) and s.value.func.lstrip("@").startswith("reject_ints")


# ---- records: the structure described once per distinct structure --------------------------------

_RECORD_ENTRIES = 8  # distinct structures remembered per entry point (others take the checking method)


def record_entry(owner, name: str, args: tuple, kwargs: dict):
    """``(result,)`` of ``owner.<name>(*args)`` (``grad`` or ``value_and_grad``) through an entry made
    for an earlier call whose arguments had the same structure (``remember_records``), or None: no such
    entry, keywords, or code built from what the module no longer holds (the checking method runs).
    Each argument is tested and flattened by code written for its abstract value
    (``analysis.flattening``): a type test per part instead of ``values.describe`` of it."""
    entries = owner._record_entries.get(name)
    if not entries or kwargs or len(args) != len(owner.params) or owner._built.stale():
        return None
    for flats, function, rebuild in entries:
        values = []
        for flat, arg in zip(flats, args):
            found = flat(arg)
            if found is None:
                break
            values.append(found[0])
        else:
            return (rebuild(function(*values)),)
    return None


def remember_records(owner, name: str, sig, function, both: bool) -> None:
    """Remember, for ``record_entry``, how calls whose arguments have signature ``sig`` (records in them)
    reach ``function``, the generated ``name`` code, and how its result becomes records again (``both``:
    a ``(value, gradient)`` pair): the structure described once, not per call.  Not for derivative code
    (its records are tuples already), not where two arguments hold lists (which of them share one is a
    test of its own) or where something is not written out (``analysis.flattening``)."""
    from ..analysis.flattening import written_flatten, written_rebuild

    if not owner.target.numpy_only or owner._origin is not None or narrow_floats(sig.avals):
        return
    with owner._building:
        entries = owner._record_entries.setdefault(name, [])
        if len(entries) >= _RECORD_ENTRIES or sum(1 for a in sig.avals if V.holds_list(a)) > 1:
            return
        flats = [written_flatten(a) for a in sig.avals]
        if any(f is None for f in flats):
            return
        gradient = written_rebuild([sig.avals[i] for i in owner._positions_of(sig)])
        rebuild = (lambda out: (out[0], gradient(out[1]))) if both else gradient
        entries.append((flats, function, rebuild))
