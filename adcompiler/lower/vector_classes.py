"""Which short vectors of a function's ANF may be held as numbers (``lower.small_arrays`` writes them so):
what each variable holds (``classes``: an int, a number, a shape, a vector of ``k`` numbers, rows of ``k``
numbers, a display of ``k`` numbers, anything), and the vectors every use of which takes numbers (``held``),
an array changed in place only where no other variable holds it (``_shared_in_place``), an argument's or a
row's numbers read first only where nothing may change its array meanwhile (``may_change``).  The rules are
in ``small_arrays``' docstring.
"""

from __future__ import annotations

import ast

from ..ir.nodes import IN_PLACE, STORES, Const, Eq, For, Function, Var, uses, walk

SMALL = 4  # the longest rows held as numbers

INT, NUM, SHAPE, ARRAY, TOP = "int", "number", "shape", "array", "top"  # what a variable holds: an int, a
# number, a shape, a 1-d float array, anything; or a pair: ("vec", k), a 1-d float array of k numbers,
# ("rows", k), a float matrix whose rows hold k numbers, or ("list", k), a display of k floats read only by
# numpy.array
ALL, ROW = "all", "row"  # the slice ``:``, and the index ``(p, :)`` of a row

ARITHMETIC = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "numpy.divide", "pow": "numpy.power"}
ARITHMETIC |= {"numpy.add": "add", "numpy.subtract": "sub", "numpy.multiply": "mul", "numpy.divide": "numpy.divide"}
ARITHMETIC |= {"numpy.true_divide": "numpy.divide", "numpy.power": "numpy.power"}
_EXACT_ON_INTS = ("add", "sub", "mul", "numpy.add", "numpy.subtract", "numpy.multiply")
_ELEMENTWISE = ("exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "square", "negative", "abs")
_ELEMENTWISE += ("absolute", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh")
UNARY = {f"numpy.{f}": f"numpy.{f}" for f in _ELEMENTWISE} | {"neg": "neg"}
MAKERS = {"numpy.zeros": 0.0, "numpy.ones": 1.0}
_REDUCTIONS = ("numpy.sum", "numpy.max", "numpy.min", "numpy.amax", "numpy.amin", "numpy.mean", "numpy.prod")
FOLDS = {"numpy.sum": "add", "numpy.mean": "add", "numpy.prod": "mul", "numpy.dot": "add"}  # a reduction of k
# numbers: its k - 1 operations, left to right.  (Not max and min, nor maximum and minimum: their derivatives
# choose with numpy.where, which makes a 0-d array of numbers under Numba; nor a power but of a constant.)
_FRESH = ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.array", "numpy.copy", "list")  # made here
_COPY, _NEW = "copy", "new"  # how an equation's output is its inputs' array (IN_PLACE: changed in place)
_MAKES_NEW = tuple(ARITHMETIC) + tuple(UNARY)  # arithmetic makes a new array (in place: changes its first)
_CALLS = ("call", "custom", "library", "draw")  # a function of the user's, of its own rules, of a library, np.random's
_SAME = ("read", "write", "numpy.asarray", "array_like", "unbroadcast")  # the same array as their first input
# (``array_like(d, x)`` and ``unbroadcast(g, x)``, helpers of generated code, where d, g and x have one length)
_SHAPED = ("array_like", "unbroadcast", "scatter_add")  # helpers reading their second input for its shape
COPIES = ("numpy.copy", "numpy.array", "numpy.array/dtype") + _SAME  # the numbers of their first input


def rows_read(node: ast.FunctionDef) -> frozenset:
    """The parameters a function reads by rows somewhere (``x0[p]`` and ``x0[p, :]``, not a slice of rows;
    ``for x in x0``): the ones whose rows' length a signature for held numbers records."""
    params = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
    read = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and _a_row(n.slice):
            read.add(n.value.id)
        elif isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Name):
            read.add(n.iter.id)
    return frozenset(read & params)


def _a_row(index) -> bool:
    """Whether a subscript's index reads one row: ``[p]`` or ``[p, :]``."""
    if isinstance(index, ast.Tuple):
        return len(index.elts) == 2 and not isinstance(index.elts[0], ast.Slice) and _whole_slice(index.elts[1])
    return not isinstance(index, ast.Slice)


def _whole_slice(index) -> bool:
    return isinstance(index, ast.Slice) and index.lower is index.upper is index.step is None


def unread(kind):
    """What a parameter holds where its numbers may not be read as numbers."""
    return TOP if is_a(kind, "rows") else ARRAY if is_a(kind, "vec") else kind


def is_a(c, kind: str) -> bool:
    return type(c) is tuple and c[0] == kind


def _join(a, b):
    if b is None:  # (not known yet: an input's class comes later in the walk)
        return a
    if a is None or a == b:
        return b
    return NUM if {a, b} == {INT, NUM} else TOP


def _const(a: Const):
    v = a.value
    return INT if type(v) is int else NUM if type(v) is float else TOP


def _literal_lists(fn: Function) -> set:
    """The lists a display makes (``[a, b]``) that are read only as ``numpy.array``'s one argument: each
    such array the numbers of its display (a list of floats there: the class ``("list", k)``)."""
    made = {s.outs[0].name for s in walk(fn.body) if isinstance(s, Eq) and s.prim == "list" and len(s.outs) == 1}
    made -= set(fn.slots)
    for s in walk(fn.body):
        for a in uses(s):
            if a.name in made and not (isinstance(s, Eq) and _an_array_of(s)):
                made.discard(a.name)
    return made


def _an_array_of(eq: Eq) -> bool:
    """Whether ``eq`` makes a float array of its first input: ``numpy.array(xs)``, of dtype float64 too."""
    return eq.prim == "numpy.array" and len(eq.ins) == 1 or eq.prim == "numpy.array/dtype" and _float64(eq.ins[1])


def _float64(a) -> bool:
    return isinstance(a, Const) and (a.value in ("float64", float) or getattr(a.value, "__name__", "") == "float64")


def classes(fn: Function, params: dict, calls_unknown: bool = False) -> dict:
    """What each variable holds (its class), to a fixed point over loops and slots; ``calls_unknown``: the
    results of calls left unknown (the vectors a call might be handed once calls are written in place)."""
    cls = dict(params)
    lists = _literal_lists(fn)

    def of(a):
        return cls.get(a.name) if isinstance(a, Var) else _const(a)

    changed = True
    while changed:
        changed = False
        for s in walk(fn.body):
            if isinstance(s, For):
                outs, new = [s.target.name], [INT]
            elif isinstance(s, Eq) and s.prim == "list" and s.outs[0].name in lists:
                outs, ins = [s.outs[0].name], [of(a) for a in s.ins]
                new = [None if None in ins else ("list", len(ins)) if set(ins) == {NUM} else TOP]
            elif isinstance(s, Eq) and s.prim == "call" and calls_unknown:
                continue
            elif isinstance(s, Eq) and s.outs:
                outs = [v.name for v in s.outs]
                new = [_out(s, [of(a) for a in s.ins])] if len(outs) == 1 else [TOP] * len(outs)
            else:
                continue
            for name, c in zip(outs, new):
                joined = _join(cls.get(name), c)
                if joined != cls.get(name):
                    cls[name], changed = joined, True
    return cls


def _out(eq: Eq, ins: list):
    """The class of an equation's output from its inputs' (None: not known yet)."""
    p = eq.prim
    if None in ins and p not in ("read", "write"):
        return None
    if p == "numpy.shape":
        return SHAPE
    if p == "len" and len(ins) == 1:
        return INT
    if p == "slice" and all(isinstance(a, Const) and a.value is None for a in eq.ins):
        return ALL
    if p == "tuple" and ins == [INT, ALL]:
        return ROW
    if p == "getitem" and len(ins) == 2:
        (a, i), at = ins, eq.ins[1]
        if a == SHAPE and i == INT and isinstance(at, Const):
            return INT
        if is_a(a, "rows") and i in (INT, ROW):
            return ("vec", a[1])
        return NUM if (a == ARRAY or is_a(a, "vec")) and i == INT else TOP
    if p in ("read", "write"):
        return ins[0]
    if p in COPIES and is_a(ins[0], "vec") and (ins[1:] == [] or _copy_of(eq, ins)):
        return ins[0]
    if _an_array_of(eq) and is_a(ins[0], "list") and 2 <= ins[0][1] <= SMALL:
        return ("vec", ins[0][1])
    if p == "scatter_add" and is_a(ins[1], "vec") and ins[0] in (NUM, ins[1]) and ins[3] == NUM:  # generated code's
        return ins[1] if position(eq.ins[2], ins[1][1]) is not None else TOP  # adjoint of x[j]: g added at j
    if p == "array_like" and len(ins) == 2 and is_a(ins[1], "vec") and ins[0] == NUM:  # a number broadcast
        return ins[1]
    if p in ("array_like", "unbroadcast") and ins == [NUM, NUM]:  # (of a number: the number)
        return NUM
    if p in ARITHMETIC and len(ins) == 2 or p in UNARY and len(ins) == 1:
        return _elementwise(ins, p in _EXACT_ON_INTS or p == "neg")
    if p in MAKERS and len(eq.ins) == 1 and ins[0] == INT:
        k = eq.ins[0].value if isinstance(eq.ins[0], Const) else None
        return ("vec", k) if type(k) is int and 2 <= k <= SMALL else ARRAY
    if p in _REDUCTIONS and (ins[0] == ARRAY or is_a(ins[0], "vec")) and _whole(eq):
        return NUM
    if p == "numpy.linalg.norm" and is_a(ins[0], "vec") and _vector_norm(eq):
        return NUM
    if p == "numpy.dot" and len(ins) == 2 and is_a(ins[0], "vec") and ins[0] == ins[1]:
        return NUM
    if p.startswith("math.") and ins and all(c in (INT, NUM) for c in ins):
        return NUM
    return TOP


def _copy_of(eq: Eq, ins: list) -> bool:
    """Whether a copying equation of two inputs gives its first's numbers: ``numpy.array(v, dtype)`` of
    float64, and the helpers of generated code of two vectors of one length."""
    if eq.prim == "numpy.array/dtype":
        return _float64(eq.ins[1])
    return eq.prim in ("array_like", "unbroadcast") and ins[0] == ins[1]


def _whole(eq: Eq) -> bool:
    """Whether a reduction is over the whole array (no axis, no keepdims)."""
    rest = eq.ins[1:]
    return all(isinstance(a, Const) for a in rest) and [a.value for a in rest] in ([], [None], [None, False])


def _vector_norm(eq: Eq) -> bool:
    """Whether ``numpy.linalg.norm`` is the 2-norm of the whole vector (no ord, axis or keepdims)."""
    return [a.value if isinstance(a, Const) else a for a in eq.ins[1:]] in ([], [None, None, False])


def _elementwise(ins: list, exact_on_ints: bool):
    if any(c not in (INT, NUM, ARRAY) and not is_a(c, "vec") for c in ins):
        return TOP
    lengths = {c[1] for c in ins if is_a(c, "vec")}
    if len(lengths) > 1 or lengths and ARRAY in ins:  # (arrays of two lengths, or a length not known)
        return TOP
    if ARRAY in ins:
        return ARRAY
    if lengths:
        return ("vec", lengths.pop())
    return INT if exact_on_ints and all(c == INT for c in ins) else NUM


def position(a, k: int):
    """The position a constant index reads in a vector of ``k`` numbers (None: not a constant in range)."""
    if isinstance(a, Const) and type(a.value) is int and -k <= a.value < k:
        return a.value % k
    return None


def may_change(fn: Function, of) -> bool:
    """Whether the function may change an array it did not make itself (a store, an operation in place, a
    call), which a row held as numbers would not see."""
    fresh = _fresh(fn)
    for s in walk(fn.body):
        if not isinstance(s, Eq):
            continue
        ins = [a for a in s.ins if isinstance(a, Var) and of.get(a.name) not in (INT, NUM, SHAPE)]
        if (s.prim in STORES or s.param == IN_PLACE) and s.ins and isinstance(s.ins[0], Var):
            if of.get(s.ins[0].name) not in (INT, NUM) and s.ins[0].name not in fresh:
                return True
        elif ins and s.prim in _CALLS:
            return True  # a call handed an array (which it may change)
    return False


def _fresh(fn: Function) -> set:
    """Variables that surely hold an array the function made itself: one ``numpy.zeros`` and its kin or
    arithmetic made, the same changed in place, a slot all of whose writes are such, a read of such a
    slot (the largest such set: a slot changed in place in a loop is read, changed and written back)."""
    eqs = [s for s in walk(fn.body) if isinstance(s, Eq) and len(s.outs) == 1]
    made = {s.outs[0].name for s in eqs if s.prim in _FRESH or s.param != IN_PLACE and s.prim in _MAKES_NEW}
    sources: dict = {}  # a variable that is fresh if all of these are -> them
    for s in eqs:
        if s.prim in ("write", "read") or s.param == IN_PLACE and s.prim in _MAKES_NEW:
            sources.setdefault(s.outs[0].name, []).append(s.ins[0])
    fresh = made | set(sources)
    size = -1
    while size != len(fresh):
        size = len(fresh)
        fresh -= {n for n, ins in sources.items() if n not in made and not all(named(a) in fresh for a in ins)}
    return fresh


def named(a):
    return a.name if isinstance(a, Var) else None


def held(fn: Function, of: dict) -> set:
    """The vectors held as numbers: every vector but those with a use that needs the array, the ones
    copied to or from those, and the ones they are computed from."""
    vectors = {n for n, c in of.items() if is_a(c, "vec")}
    kept: set = set()
    links: list = []  # (out, vector inputs, how: COPY, IN_PLACE, or NEW) of the equations making a vector
    views = set()  # vectors that may be a view of another array (a row), which a change in place changes too
    for s in walk(fn.body):
        if isinstance(s, Eq):
            out = of.get(s.outs[0].name) if len(s.outs) == 1 else TOP
            for k, a in enumerate(s.ins):
                if isinstance(a, Var) and a.name in vectors and not _holds(s, k, out, of[a.name][1]):
                    kept.add(a.name)
            shaped = s.prim in _SHAPED  # (x read for its shape: an array kept needs its x kept too)
            ins = [a.name for a in (s.ins[:1] if shaped else s.ins) if isinstance(a, Var) and a.name in vectors]
            if len(s.outs) == 1 and is_a(out, "vec") and shaped and named(s.ins[1]) in vectors:
                links.append((s.outs[0].name, [s.ins[1].name], _NEW))
            if len(s.outs) == 1 and is_a(out, "vec") and ins:
                if (s.param == IN_PLACE or s.prim == "scatter_add") and s.ins[0].name in vectors:  # its first input
                    # changed: the same array
                    links += [(s.outs[0].name, ins[:1], IN_PLACE), (s.outs[0].name, ins[1:], _NEW)]
                else:
                    links.append((s.outs[0].name, ins, _COPY if s.prim in _SAME else _NEW))
            if s.prim == "getitem" and len(s.outs) == 1:
                views.add(s.outs[0].name)
        else:  # a return, a test, a loop's bounds need the array
            kept |= {a.name for a in uses(s) if a.name in vectors}
    kept |= _shared_in_place(fn, links, views)
    size = -1
    while size != len(kept):  # a copy is one with what it copies; an array made of vectors needs them whole
        size = len(kept)
        for out, ins, how in links:
            if out in kept:
                kept |= set(ins)
            elif how != _NEW and kept & set(ins):
                kept.add(out)
    return vectors - kept


def _shared_in_place(fn: Function, links: list, views: set) -> set:
    """The variables of every array changed in place that another variable may hold too: ``x += v`` of
    an array held in two slots (``y = x`` before) changes both, and of a row changes its matrix; held as
    numbers, it would change one.  An array is one set of variables joined by copies; changed in place,
    its numbers may change alone where it is made by the function (not a row), held in one slot at most,
    each value changed in place is read by that change only, and every other read of its slot is used on
    its own line (an expression's operand, not a name that outlives a later change)."""
    read_at: dict = {}  # a variable -> the lines of the statements that read it
    reads: dict = {}  # a slot -> (each read of it, its line)
    for s in walk(fn.body):
        for a in uses(s):
            read_at.setdefault(a.name, []).append(getattr(s, "line", 0))
        if isinstance(s, Eq) and s.prim == "read" and isinstance(s.ins[0], Var):
            reads.setdefault(s.ins[0].name, []).append((s.outs[0].name, s.line))
    parent: dict = {}

    def find(n):
        while parent.setdefault(n, n) != n:
            n = parent[n]
        return n

    for out, ins, how in links:
        for n in ins if how != _NEW else ():
            parent[find(n)] = find(out)
    groups: dict = {}
    for n in list(parent):
        groups.setdefault(find(n), set()).add(n)
    changed = {ins[0] for _, ins, how in links if how == IN_PLACE and ins}  # (the values changed)
    before = {out: ins[0] for out, ins, how in links if how != _NEW and ins}  # the array an array is
    read_from = {r for rs in reads.values() for r, _ in rs}

    def made_here(n) -> bool:  # (a value no slot or view held before, each array before it read only to
        seen = set()  # make the next: only its chain of changes holds it)
        while n is not None and n not in seen:
            if n in fn.slots or n in read_from or n in views or seen and len(read_at.get(n, ())) != 1:
                return False
            seen.add(n)
            n = before.get(n)
        return True

    def alone(group) -> bool:
        slots = group & set(fn.slots)
        if len(slots) > 1 or group & views or any(len(read_at.get(n, ())) != 1 for n in group & changed):
            return False
        if all(made_here(n) for n in group & changed):  # changed before any slot holds it: nothing else sees
            return True
        return all(set(read_at.get(r, ())) <= {line} for slot in slots for r, line in reads.get(slot, ()))

    shared = set()
    for group in groups.values():
        if group & changed and not alone(group):
            shared |= group
    return shared


def _holds(eq: Eq, k: int, out, length: int) -> bool:
    """Whether the ``k``-th input of ``eq`` (a vector of ``length`` numbers) may be held as numbers there."""
    p = eq.prim
    if eq.param == IN_PLACE and p not in _MAKES_NEW:
        return False
    if p in ("pow", "numpy.power") and not isinstance(eq.ins[1], Const):
        return False
    if p in COPIES or p in ARITHMETIC or p in UNARY:
        return is_a(out, "vec")  # (a copy into a variable that is not always such a vector needs the array)
    if p == "getitem":  # a number read at a constant place
        return k == 0 and position(eq.ins[1], length) is not None
    if p == "reject_ints":  # (generated code's check of what it is handed: a vector of floats passes)
        return True
    if p == "len":  # (its length: the constant k)
        return True
    if p == "scatter_add":  # (the accumulator, and x for its shape)
        return k in (0, 1) and is_a(out, "vec")
    return (p in FOLDS or p == "numpy.linalg.norm") and out == NUM
