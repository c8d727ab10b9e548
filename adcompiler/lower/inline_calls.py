"""ANF -> the same ANF with each call of a small leaf function of the same module written in its place.

``z.append(relu(acc + b[i]))`` in a loop calls ``relu`` once per neuron; differentiated, each call is
two calls (the callee's forward and reverse sweeps) with a tape list and a tuple of residuals each,
which cost more than ``relu`` itself.  A hand-written gradient writes ``relu`` inline; so does this
pass, for a callee that is

* a plain function of the caller's module (its globals are the caller's: names read the same),
* a leaf (it calls no function of its own: no recursion, nothing to inline within it),
* short and without loops (``_LIMIT`` statements),
* arithmetic, comparisons and ``math`` on numbers, and NumPy's elementwise functions (``_ELEMENTWISE``:
  each result a new array, sharing nothing with the arguments; GradBench lstm's ``sigmoid`` of a slice of
  its gates), and nothing else (``_OPERATORS``), reading no global or captured name (which in the caller
  may be one of its own variables), and
* returns, once and last, a variable one equation of its own assigns.

Where the options ask for it (``looped``: the Numba target, where each call's residuals are a tuple
whose arrays cost their reference counts as the tuple is made, pushed, popped and unpacked), a call in
a loop of the caller is also written in place when the callee is a function of the module up to
``_LOOPED_LIMIT`` statements, calling no function itself (after its own calls were written in place:
GradBench lstm's ``lstm_model`` in ``predict``, then ``predict`` in the objective's loop over
characters), with ``for`` loops (not ``prange``) and branches but no ``while``, ``break``, ``continue``
or early return, changing none of its arguments, and returning, last, variables of its own (a tuple of
them for several outputs): its lines then join the caller's loop, their residuals its tapes.

Under the Numba target a call handed a short vector is written in place too (``inline_handed``, asked for by
``lower.small_arrays``), for a callee of any module up to ``_HANDED_LIMIT`` statements (a nested
derivative's generated code among them, its statements taking the call's line), so that the vector may be
held as numbers through it: GradBench particle's ``force(x, w)``, which calls the gradient of a potential.

Its variables take fresh names in the caller; a parameter it never assigns is the caller's atom
itself (Python binds a parameter to the argument's object: a list argument is the caller's list), one
it assigns (a slot) starts as a copy.  Its returned variable is the caller's output.  The equations
keep the callee's line numbers (the same file), whose source lines join the caller's for comments.
"""

from __future__ import annotations

import types

from ..ir.nodes import IN_PLACE, STORES, Break, Const, Continue, Eq, For, Function, If, Return, Source, Var, While
from ..ir.nodes import copies_of, flatten, map_equations, walk

_LIMIT = 16  # statements of a callee written in place, at most
_LOOPED_LIMIT = 80  # statements of a callee called in a loop written in place (``looped``), at most
_HANDED_LIMIT = 120  # statements of a callee handed a short vector written in place (``inline_handed``), at most
_CALLS = ("call", "library", "custom")  # (a callee still calling a function is not a leaf)


def inline_small_calls(fn: Function, anf_of, namer, lowering=(), looped: bool = False) -> Function:
    """``fn`` with its calls of small leaf functions of its own module written in place; ``anf_of``
    gives a callee's ANF, ``namer`` the caller's fresh names; ``lowering``: the functions being
    lowered (a call of one is a recursion, never written in place); ``looped``: calls in loops of larger
    callees too (see the module's docstring)."""
    in_loops = {id(s) for s in _in_loops(fn.body)} if looped else set()

    def wanted(s: Eq) -> bool:
        return _inlinable(s, fn, anf_of) or id(s) in in_loops and _inlinable_in_loop(s, fn, anf_of)

    return _written_in_place(fn, wanted, anf_of, namer, lowering)


def inline_handed(fn: Function, handed: set, anf_of, namer, lowering=()) -> Function:
    """``fn`` with each call handed one of the variables ``handed`` written in place where the callee
    allows it: a plain function of any module (a nested derivative's generated code too) of at most
    ``_HANDED_LIMIT`` statements, with no ``while``, jump or early return, changing none of its
    arguments, reading no global of its own by name, and returning variables of its own last.  So that
    a short vector handed to a helper can be held as numbers across it (``small_arrays``)."""

    def wanted(s: Eq) -> bool:
        if not any(isinstance(a, Var) and a.name in handed for a in s.ins):
            return False
        code, statements = _callee(eq=s, fn=fn, anf_of=anf_of, limit=_HANDED_LIMIT, anywhere=True)
        if code is None or code.defaults or not _changes_nothing_handed(code, statements):
            return False
        if code.source.globals is not fn.source.globals and _reads(statements)[1]:
            return False  # (a global of another module, spelt by name, would be read in fn's)
        return _own_names(code, statements, fn) and _returns_own(code, statements, s)

    return _written_in_place(fn, wanted, anf_of, namer, lowering)


def _written_in_place(fn: Function, wanted, anf_of, namer, lowering) -> Function:
    """``fn`` with each call ``wanted`` says written in place (never a call of a function being lowered)."""
    done: list = []  # the callees written in place
    slots: set = set(fn.slots)  # with the fresh names of the callees' slots

    def place(s: Eq):
        if s.prim != "call" or s.param in lowering or not wanted(s):
            return s
        callee = anf_of(s.param)
        here = callee.source.filename == fn.source.filename  # (else its lines are the call's)
        written, renamed = _in_place(s, callee, namer, None if here else s.line)
        slots.update(renamed)
        done.append(callee)
        return written

    body = map_equations(fn.body, place)
    if not done:
        return fn
    lines = dict(fn.source.lines)
    for callee in (c for c in done if c.source.filename == fn.source.filename):  # (their lines join fn's)
        lines.update((k, v) for k, v in callee.source.lines.items() if k not in lines)
    source = Source(fn.source.filename, lines, fn.source.globals, fn.source.module)
    return Function(fn.name, fn.params, fn.defaults, body, source, frozenset(slots))


def _inlinable(eq: Eq, fn: Function, anf_of) -> bool:
    """Whether ``eq`` calls a small leaf on numbers of fn's module, written in place wherever it is called."""
    code, statements = _callee(eq, fn, anf_of, _LIMIT)
    if code is None or len(eq.outs) != 1:
        return False
    if any(isinstance(s, (For, While)) or isinstance(s, Eq) and not _scalar(s.prim) for s in statements):
        return False
    return _own_names(code, statements, fn) and _returns_own(code, statements, eq)


def _in_loops(stmts, inside: bool = False):
    """The equations of ``stmts`` inside a loop."""
    for s in stmts:
        if isinstance(s, Eq) and inside:
            yield s
        elif isinstance(s, If):
            yield from _in_loops(s.body, inside)
            yield from _in_loops(s.orelse, inside)
        elif isinstance(s, For):
            yield from _in_loops(s.body, True)
        elif isinstance(s, While):
            yield from _in_loops(s.header + s.body, True)


def _inlinable_in_loop(eq: Eq, fn: Function, anf_of) -> bool:
    """Whether a call in a loop of ``fn`` is written in place (``looped``: see the module's docstring)."""
    code, statements = _callee(eq, fn, anf_of, _LOOPED_LIMIT)
    if code is None or code.defaults:
        return False
    eqs = [s for s in statements if isinstance(s, Eq)]
    if any(s.prim in _CALLS or s.param is IN_PLACE or isinstance(s.param, types.FunctionType) for s in eqs):
        return False
    if not _changes_nothing_handed(code, statements):
        return False
    return _own_names(code, statements, fn) and _returns_own(code, statements, eq)


def _changes_nothing_handed(code: Function, statements: list) -> bool:
    """Whether the callee runs straight through (no ``while``, jump or ``prange`` loop) and changes none
    of its arguments (no store or change in place into what it was handed)."""
    if any(isinstance(s, (While, Break, Continue)) or isinstance(s, For) and s.parallel for s in statements):
        return False
    eqs = [s for s in statements if isinstance(s, Eq)]
    arguments = copies_of(eqs, code.params)
    return not any(
        (s.prim in STORES or s.param is IN_PLACE) and s.ins and isinstance(s.ins[0], Var) and s.ins[0].name in arguments
        for s in eqs
    )


def _callee(eq: Eq, fn: Function, anf_of, limit: int, anywhere: bool = False) -> tuple:
    """``(the callee's ANF, its statements)`` where ``eq`` calls a plain function of fn's module and file
    (of any module: ``anywhere``) with an argument for each parameter, of at most ``limit`` statements
    ending in a return; else ``(None, None)``."""
    callee = eq.param
    if not isinstance(callee, types.FunctionType) or not anywhere and callee.__globals__ is not fn.source.globals:
        return None, None
    code = anf_of(callee)
    here = code.source.filename == fn.source.filename
    if not (here or anywhere) or len(code.params) != len(eq.ins):
        return None, None
    statements = list(walk(code.body))
    if len(statements) > limit or not isinstance(code.body[-1], Return):
        return None, None
    return code, statements


def _own_names(code: Function, statements: list, fn: Function) -> bool:
    """Whether the callee reads only its own variables (a captured name may be another variable in the
    caller) and no global spelt as one of the caller's variables."""
    assigned = {v.name for s in statements if isinstance(s, Eq) for v in s.outs} | set(code.params)
    assigned |= {s.target.name for s in statements if isinstance(s, For)}
    names, spelt = _reads(statements)
    return all(name in assigned for name in names) and not spelt & _variables(fn)


def _returns_own(code: Function, statements: list, eq: Eq) -> bool:
    """Whether the callee returns, once and last, one variable for each output of the call (a tuple of
    them for several), each its own (not a parameter or a slot), assigned by one equation."""
    returned = flatten(code.body[-1].value)
    if sum(isinstance(s, Return) for s in statements) != 1 or len(returned) != len(eq.outs):
        return False
    own = [a for a in returned if isinstance(a, Var) and a.name not in code.params and a.name not in code.slots]
    if len(own) != len(returned) or len({a.name for a in own}) != len(own):
        return False
    return all(sum(isinstance(s, Eq) and a in s.outs for s in statements) == 1 for a in own)


_OPERATORS = frozenset(
    "add sub mul truediv floordiv mod pow neg pos lt le gt ge eq ne not abs read write".split()
)  # a callee doing only these (and math's functions, NumPy's elementwise ones below) is written in place;
# reads, slices, writes and lists, whose aliasing the caller's analyses see differently across a call,
# are left to calls
_ELEMENTWISE = frozenset(
    "numpy." + f for f in "exp log tanh sin cos sqrt expm1 log1p square negative absolute arctan sinh cosh".split()
)  # each result a new number or array: the helper's result shares nothing with its arguments


def _scalar(prim: str) -> bool:
    return prim in _OPERATORS or prim in _ELEMENTWISE or prim.startswith("math.")


def _reads(statements) -> tuple:
    """The variables the statements read (their inputs and tests), and the first names of the
    globals they read as constants (``x`` of a module's ``x``, ``math`` of ``math.pi``)."""
    found: set = set()
    spelt: set = set()

    def atoms(a):
        if isinstance(a, Var):
            found.add(a.name)
        elif isinstance(a, Const) and a.text is not None:
            spelt.add(a.text.split(".")[0])
        elif isinstance(a, tuple):
            for x in a:
                atoms(x)

    for s in statements:
        if isinstance(s, For):
            atoms((s.start, s.stop, s.step))
            continue
        atoms(s.ins if isinstance(s, Eq) else s.test if isinstance(s, If) else s.value if isinstance(s, Return) else ())
    return found, spelt


def _variables(fn: Function) -> set:
    """Every variable of ``fn``: its parameters and the names its equations and loops assign."""
    names = set(fn.params)
    for s in walk(fn.body):
        if isinstance(s, Eq):
            names.update(v.name for v in s.outs)
        elif isinstance(s, For):
            names.add(s.target.name)
    return names


def _in_place(eq: Eq, callee: Function, namer, line: int | None = None) -> tuple:
    """The callee's equations for this call (its names renamed, its result the call's output), and the
    names its slots took; ``line``: the line every statement takes (a callee of another file: the call's)."""
    names: dict = {}
    prologue: list = []
    for p, arg in zip(callee.params, eq.ins):
        if p in callee.slots:  # assigned in the callee: a variable of its own, starting as the argument
            names[p] = Var(namer.fresh(p))
            prologue.append(Eq((names[p],), "write", (arg,), eq.line))
        else:
            names[p] = arg
    for v, out in zip(flatten(callee.body[-1].value), eq.outs, strict=True):
        names[v.name] = out
    for s in walk(callee.body):
        for v in s.outs if isinstance(s, Eq) else (s.target,) if isinstance(s, For) else ():
            if v.name not in names:
                names[v.name] = Var(namer.fresh(v.name))

    def atom(a):
        if isinstance(a, Var):
            return names.get(a.name, a)
        if isinstance(a, tuple):
            return tuple(atom(x) for x in a)
        return a

    def block(stmts) -> list:
        out = []
        for s in stmts:
            at = s.line if line is None else line
            if isinstance(s, Eq):
                out.append(Eq(tuple(atom(v) for v in s.outs), s.prim, atom(s.ins), at, s.param))
            elif isinstance(s, If):
                out.append(If(atom(s.test), tuple(block(s.body)), tuple(block(s.orelse)), at))
            elif isinstance(s, For):
                bounds = (atom(s.start), atom(s.stop), atom(s.step))
                out.append(For(atom(s.target), *bounds, tuple(block(s.body)), at, s.parallel))
            elif not isinstance(s, Return):
                raise AssertionError(f"not written in place: {s!r}")  # (_inlinable lets no while through)
        return out

    return prologue + block(callee.body), {names[n].name for n in callee.slots if isinstance(names.get(n), Var)}
