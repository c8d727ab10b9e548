"""Arrays of a few numbers held as numbers (the Numba target): with rows of two numbers, ``d =
centres[c] - x`` is ``d_at0 = centres[c, 0] - x_at0`` and ``d_at1 = centres[c, 1] - x_at1``.

Numba makes an array for each operation on arrays that it cannot fuse, and each costs an allocation and
the atomic counting of its references: on arrays of two to four numbers that is most of the time, and
more so in a derivative, whose sweeps make an array for each adjoint and keep arrays on tapes (the
paper's particles, written with rows of two numbers, took eleven times its primal).  Held as numbers,
such a vector makes no array at all, in the primal and in every derivative made of it.

Under ``backend="numba"`` a build for arguments whose matrices have rows of at most ``SMALL`` numbers
knows those lengths (``analysis.values.Sig.lengths``: a matrix read by rows, ``x0[p]``, has its rows'
length in the signature its code is built for), and the entry function's ANF is rewritten first.  A
1-d array whose length is known (a row of such a matrix, ``numpy.zeros(k)`` or ``numpy.ones(k)``, and
elementwise arithmetic of those with numbers and arrays of the same length) is held as ``k`` numbers
when every use of it is one of: that arithmetic (``+ - * /``, ``**`` of a constant, negation, NumPy's
one-argument elementwise functions), a read at a constant position, ``numpy.sum``, ``mean``, ``prod`` or
``numpy.dot`` of the whole, or a copy into a variable assigned in several places (which is then ``k``
variables); ``x += v`` is such arithmetic where no other variable holds x's array when it changes
(``_shared_in_place``: else the change, which another name would see, is left to be refused as the
python target refuses it).  Anything else it flows into (a call, a return, a store into it, a read at a
computed position, a broadcast against another shape) keeps the array as it was, and the arrays it is
computed from too; a kept array read by a held one is read at each position.  Rows are read as numbers only where nothing
may change the matrix meanwhile (it is read only by rows and for its shape, and the function stores
only into arrays it made itself): a row of a NumPy matrix is a view, whose later reads would see a
change.

The numbers are NumPy's: ``+ - *`` on each position are what the array operation computes there, a
division is ``numpy.divide`` of numbers and a power ``numpy.power`` (a zero divisor gives inf, as the
array's division does, not Python's ZeroDivisionError), and a sum adds its numbers left to right, as
NumPy adds fewer than eight.  The function first checks that each such matrix has rows of the length it
was built for (``check_rows``): code compiled for rows of two never reads rows of three, whoever calls
it (an ``@njit`` caller of ``d.compiled()`` too).
"""

from __future__ import annotations

import ast

from ..front.names import root
from ..ir.nodes import IN_PLACE, STORES, Const, Eq, For, Function, If, Return, Var, While, uses, walk

SMALL = 4  # the longest rows held as numbers

INT, NUM, SHAPE, ARRAY, TOP = "int", "number", "shape", "array", "top"  # what a variable holds: an int, a
# number, a shape, a 1-d float array, anything; or a pair: ("vec", k), a 1-d float array of k numbers, or
# ("rows", k), a float matrix whose rows hold k numbers
ALL, ROW = "all", "row"  # the slice ``:``, and the index ``(p, :)`` of a row

_ARITHMETIC = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "numpy.divide", "pow": "numpy.power"}
_ARITHMETIC |= {"numpy.add": "add", "numpy.subtract": "sub", "numpy.multiply": "mul", "numpy.divide": "numpy.divide"}
_ARITHMETIC |= {"numpy.true_divide": "numpy.divide", "numpy.power": "numpy.power"}
_EXACT_ON_INTS = ("add", "sub", "mul", "numpy.add", "numpy.subtract", "numpy.multiply")
_ELEMENTWISE = ("exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "square", "negative", "abs")
_ELEMENTWISE += ("absolute", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh")
_UNARY = {f"numpy.{f}": f"numpy.{f}" for f in _ELEMENTWISE} | {"neg": "neg"}
_MAKERS = {"numpy.zeros": 0.0, "numpy.ones": 1.0}
_REDUCTIONS = ("numpy.sum", "numpy.max", "numpy.min", "numpy.amax", "numpy.amin", "numpy.mean", "numpy.prod")
_FOLDS = {"numpy.sum": "add", "numpy.mean": "add", "numpy.prod": "mul", "numpy.dot": "add"}  # a reduction of k
# numbers: its k - 1 operations, left to right.  (Not max and min, nor maximum and minimum: their derivatives
# choose with numpy.where, which makes a 0-d array of numbers under Numba; nor a power but of a constant.)
_FRESH = ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.array", "numpy.copy", "list")  # made here
_COPY, _NEW = "copy", "new"  # how an equation's output is its inputs' array (IN_PLACE: changed in place)
_MAKES_NEW = tuple(_ARITHMETIC) + tuple(_UNARY)  # arithmetic makes a new array (in place: changes its first)
_CALLS = ("call", "custom", "library", "draw")  # a function of the user's, of its own rules, of a library, np.random's


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


def as_numbers(fn: Function, kinds: dict, namer) -> Function:
    """``fn`` (ANF) with its small vectors held as numbers (see the module docstring); ``kinds``: each
    parameter's ``INT``, ``NUM``, ``ARRAY`` (a 1-d float array), ``("rows", k)`` or ``TOP``;
    ``namer.fresh`` names the new variables."""
    kinds = {p: k for p, k in kinds.items() if k != TOP}
    of = _classes(fn, kinds)
    if any(_is(k, "rows") for k in kinds.values()) and _may_change(fn, of):  # rows are views: read as numbers
        kinds = {p: (TOP if _is(k, "rows") else k) for p, k in kinds.items()}  # only where nothing changes them
        of = _classes(fn, kinds)
    held = _held(fn, of)
    if not held:
        return fn
    return _AsNumbers(fn, of, held, namer).function()


def _is(c, kind: str) -> bool:
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


def _classes(fn: Function, params: dict) -> dict:
    """What each variable holds (its class), to a fixed point over loops and slots."""
    cls = dict(params)

    def of(a):
        return cls.get(a.name) if isinstance(a, Var) else _const(a)

    changed = True
    while changed:
        changed = False
        for s in walk(fn.body):
            if isinstance(s, For):
                outs, new = [s.target.name], [INT]
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
        if _is(a, "rows") and i in (INT, ROW):
            return ("vec", a[1])
        return NUM if (a == ARRAY or _is(a, "vec")) and i == INT else TOP
    if p in ("read", "write") or p == "numpy.copy" and len(ins) == 1 and _is(ins[0], "vec"):
        return ins[0]
    if p in _ARITHMETIC and len(ins) == 2 or p in _UNARY and len(ins) == 1:
        return _elementwise(ins, p in _EXACT_ON_INTS or p == "neg")
    if p in _MAKERS and len(eq.ins) == 1 and ins[0] == INT:
        k = eq.ins[0].value if isinstance(eq.ins[0], Const) else None
        return ("vec", k) if type(k) is int and 2 <= k <= SMALL else ARRAY
    if p in _REDUCTIONS and (ins[0] == ARRAY or _is(ins[0], "vec")) and _whole(eq):
        return NUM
    if p == "numpy.dot" and len(ins) == 2 and _is(ins[0], "vec") and ins[0] == ins[1]:
        return NUM
    if p.startswith("math.") and ins and all(c in (INT, NUM) for c in ins):
        return NUM
    return TOP


def _whole(eq: Eq) -> bool:
    """Whether a reduction is over the whole array (no axis, no keepdims)."""
    rest = eq.ins[1:]
    return all(isinstance(a, Const) for a in rest) and [a.value for a in rest] in ([], [None], [None, False])


def _elementwise(ins: list, exact_on_ints: bool):
    if any(c not in (INT, NUM, ARRAY) and not _is(c, "vec") for c in ins):
        return TOP
    lengths = {c[1] for c in ins if _is(c, "vec")}
    if len(lengths) > 1 or lengths and ARRAY in ins:  # (arrays of two lengths, or a length not known)
        return TOP
    if ARRAY in ins:
        return ARRAY
    if lengths:
        return ("vec", lengths.pop())
    return INT if exact_on_ints and all(c == INT for c in ins) else NUM


def _position(a, k: int):
    """The position a constant index reads in a vector of ``k`` numbers (None: not a constant in range)."""
    if isinstance(a, Const) and type(a.value) is int and -k <= a.value < k:
        return a.value % k
    return None


def _may_change(fn: Function, of) -> bool:
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
        fresh -= {n for n, ins in sources.items() if n not in made and not all(_named(a) in fresh for a in ins)}
    return fresh


def _named(a):
    return a.name if isinstance(a, Var) else None


def _held(fn: Function, of: dict) -> set:
    """The vectors held as numbers: every vector but those with a use that needs the array, the ones
    copied to or from those, and the ones they are computed from."""
    vectors = {n for n, c in of.items() if _is(c, "vec")}
    kept: set = set()
    links: list = []  # (out, vector inputs, how: COPY, IN_PLACE, or NEW) of the equations making a vector
    views = set()  # vectors that may be a view of another array (a row), which a change in place changes too
    for s in walk(fn.body):
        if isinstance(s, Eq):
            out = of.get(s.outs[0].name) if len(s.outs) == 1 else TOP
            for k, a in enumerate(s.ins):
                if isinstance(a, Var) and a.name in vectors and not _holds(s, k, out, of[a.name][1]):
                    kept.add(a.name)
            ins = [a.name for a in s.ins if isinstance(a, Var) and a.name in vectors]
            if len(s.outs) == 1 and _is(out, "vec") and ins:
                if s.param == IN_PLACE and s.ins[0].name in vectors:  # its first input changed: the same array
                    links += [(s.outs[0].name, ins[:1], IN_PLACE), (s.outs[0].name, ins[1:], _NEW)]
                else:
                    links.append((s.outs[0].name, ins, _COPY if s.prim in ("read", "write") else _NEW))
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

    def alone(group) -> bool:
        slots = group & set(fn.slots)
        if len(slots) > 1 or group & views or any(len(read_at.get(n, ())) != 1 for n in group & changed):
            return False
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
    if p in ("read", "write", "numpy.copy") or p in _ARITHMETIC or p in _UNARY:
        return _is(out, "vec")  # (a copy into a variable that is not always such a vector needs the array)
    if p == "getitem":  # a number read at a constant place
        return k == 0 and _position(eq.ins[1], length) is not None
    return p in _FOLDS and out == NUM


class _AsNumbers:
    """The function with its held vectors written as numbers (``as_numbers``)."""

    def __init__(self, fn: Function, of: dict, held: set, namer):
        self.fn, self.of, self.held, self.namer = fn, of, held, namer
        self.parts: dict = {}  # a held vector -> the atom of each of its numbers
        self.subst: dict = {}  # a number read from a held vector -> that number's atom
        self.checked: dict = {}  # a matrix read by rows -> the rows' length
        self.row_of: dict = {}  # an index (p, :) -> p

    def function(self) -> Function:
        body = self.block(self.fn.body)
        line = body[0].line if body and hasattr(body[0], "line") else 0
        checks = [
            Eq((), "effect", (Var(p), Const(k)), line, ("effect", "@check_rows", ())) for p, k in self.checked.items()
        ]
        slots = {n for n in self.fn.slots if n not in self.held}
        slots |= {v.name for n in self.fn.slots if n in self.held for v in self.parts[n]}
        return Function(
            self.fn.name, self.fn.params, self.fn.defaults, tuple(checks + body), self.fn.source, frozenset(slots)
        )

    def block(self, stmts) -> list:
        out: list = []
        for s in stmts:
            if isinstance(s, Eq):
                out += self.equation(s)
            elif isinstance(s, If):
                out.append(If(self.atom(s.test), tuple(self.block(s.body)), tuple(self.block(s.orelse)), s.line))
            elif isinstance(s, For):
                bounds = (self.atom(s.start), self.atom(s.stop), self.atom(s.step))
                out.append(For(s.target, *bounds, tuple(self.block(s.body)), s.line, s.parallel))
            elif isinstance(s, While):
                out.append(While(tuple(self.block(s.header)), self.atom(s.test), tuple(self.block(s.body)), s.line))
            elif isinstance(s, Return):
                out.append(Return(self.value(s.value), s.line))
            else:
                out.append(s)
        return out

    def value(self, value):
        return tuple(self.value(v) for v in value) if isinstance(value, tuple) else self.atom(value)

    def atom(self, a):
        return self.subst.get(a.name, a) if isinstance(a, Var) else a

    def names(self, name: str, k: int) -> tuple:
        """The variables of a held vector's numbers (made once: a slot's are the same at every write)."""
        if name not in self.parts:
            self.parts[name] = tuple(Var(self.namer.fresh(f"{root(name)}_at{j}")) for j in range(k))
        return self.parts[name]

    def part(self, a, j: int, lines: list, line: int):
        """The ``j``-th number of the vector or number ``a`` (a kept vector read there by a new line)."""
        a = self.atom(a)
        if not isinstance(a, Var):
            return a
        if a.name in self.held:  # (a slot may be read above its first write, in a loop)
            return self.names(a.name, self.of[a.name][1])[j]
        if _is(self.of.get(a.name), "vec"):  # a kept vector: its number read once for the equation
            if (a.name, j) not in self.reads:
                self.reads[a.name, j] = Var(self.namer.fresh(f"{root(a.name)}_at{j}"))
                lines.append(Eq((self.reads[a.name, j],), "getitem", (a, Const(j)), line))
            return self.reads[a.name, j]
        return a

    def equation(self, e: Eq) -> list:
        self.reads: dict = {}  # (a kept vector, a place) -> the number read there for this equation
        name = e.outs[0].name if len(e.outs) == 1 else None
        c = self.of.get(name)
        if name in self.held:
            return self.vector(e, c[1])
        if c == NUM and any(isinstance(a, Var) and a.name in self.held for a in e.ins):
            return self.reduced(e)
        if c == ROW:  # (p, :): a row read at p
            self.row_of[e.outs[0]] = self.atom(e.ins[0])
        return [Eq(e.outs, e.prim, tuple(self.atom(a) for a in e.ins), e.line, e.param)]

    def vector(self, e: Eq, k: int) -> list:
        """The lines computing each number of the held vector ``e`` makes."""
        p, lines = e.prim, []
        if p in _MAKERS:
            self.parts[e.outs[0].name] = (Const(_MAKERS[p]),) * k
            return []
        if p == "numpy.copy":  # (numbers are values: a copy is the same numbers)
            self.parts[e.outs[0].name] = tuple(self.part(e.ins[0], j, lines, e.line) for j in range(k))
            return lines
        outs = self.names(e.outs[0].name, k)
        if p == "getitem":  # a row of a matrix: its numbers read at (i, j)
            matrix, i = e.ins[0], self.row_of.get(e.ins[1], self.atom(e.ins[1]))
            self.checked[matrix.name] = k
            for j in range(k):
                at = Var(self.namer.temp())
                lines += [Eq((at,), "tuple", (i, Const(j)), e.line), Eq((outs[j],), "getitem", (matrix, at), e.line)]
            return lines
        prim = p if p in ("read", "write") else _ARITHMETIC.get(p) or _UNARY[p]
        for j in range(k):
            ins = tuple(self.part(a, j, lines, e.line) for a in e.ins)
            lines.append(Eq((outs[j],), prim, ins, e.line))
        return lines

    def reduced(self, e: Eq) -> list:
        """A number read from, or summed over, held vectors."""
        lines: list = []
        if e.prim == "getitem":
            k = self.of[e.ins[0].name][1]
            self.subst[e.outs[0].name] = self.part(e.ins[0], _position(e.ins[1], k), lines, e.line)
            return lines
        k, fold = self.of[e.ins[0].name][1], _FOLDS[e.prim]
        if e.prim == "numpy.dot":
            terms = []
            for j in range(k):
                t = Var(self.namer.temp())
                lines.append(
                    Eq(
                        (t,),
                        "mul",
                        (self.part(e.ins[0], j, lines, e.line), self.part(e.ins[1], j, lines, e.line)),
                        e.line,
                    )
                )
                terms.append(t)
        else:
            terms = [self.part(e.ins[0], j, lines, e.line) for j in range(k)]
        total, mean = terms[0], e.prim == "numpy.mean"
        for j, term in enumerate(terms[1:], 2):
            out = e.outs[0] if j == k and not mean else Var(self.namer.temp())
            lines.append(Eq((out,), fold, (total, term), e.line))
            total = out
        if mean:  # (the sum over the count, as NumPy's mean divides it)
            lines.append(Eq(e.outs, "numpy.divide", (total, Const(float(k))), e.line))
        return lines
