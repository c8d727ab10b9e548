"""Arrays of a few numbers held as numbers (the Numba target): with rows of two numbers, ``d =
centres[c] - x`` is ``d_at0 = centres[c, 0] - x_at0`` and ``d_at1 = centres[c, 1] - x_at1``.

Numba makes an array for each operation on arrays that it cannot fuse, and each costs an allocation and
the atomic counting of its references: on arrays of two to four numbers that is most of the time, and
more so in a derivative, whose sweeps make an array for each adjoint and keep arrays on tapes (the
paper's particles, written with rows of two numbers, took eleven times its primal).  Held as numbers,
such a vector makes no array at all, in the primal and in every derivative made of it.

Under ``backend="numba"`` a build for arguments with float64 vectors of two to ``SMALL`` numbers, or
matrices with rows of that many it reads by rows, knows those lengths (``analysis.values.Sig.lengths``:
part of the signature its code is built for, as ``jax.jit`` builds for shapes), and the entry function's
ANF is rewritten first.  A 1-d array whose length is known (such an argument, a row of such a matrix, a
display of numbers ``numpy.array([0.0, w])``, ``numpy.zeros(k)`` or ``numpy.ones(k)``, and elementwise
arithmetic of those with numbers and arrays of the same length) is held as ``k`` numbers when every use
of it is one of: that arithmetic (``+ - * /``, ``**`` of a constant, negation, NumPy's one-argument
elementwise functions), a read at a constant position, its ``len`` (the constant ``k``), ``numpy.sum``, ``mean``, ``prod``, ``numpy.dot``
or ``numpy.linalg.norm`` of the whole (``math.hypot`` of the numbers, whose derivative is 0 at the origin
as norm's rule says), a copy (``numpy.copy``, ``numpy.array``, ``numpy.asarray``) or a copy into a
variable assigned in several places (which is then ``k`` variables); the helpers derivative code calls
on such vectors (``array_like``, ``unbroadcast``, ``scatter_add`` at a constant place, ``reject_ints``),
so that a nested derivative's code holds them too; ``x += v`` is such arithmetic where no other variable
holds x's array when it changes (``vector_classes._shared_in_place``: else the change, which another
name would see, is left to be refused as the python target refuses it).  A call handed such a vector is
first written in place where the callee allows it (``lower.inline_calls.inline_handed``: a helper of the
user's, or a nested derivative's generated code), so that the vector's numbers flow through it.
Anything else a vector flows into (a call, a return, a store into it, a read at a computed position, a
broadcast against another shape) keeps the array as it was, and the arrays it is computed from too; a
kept array read by a held one is read at each position.  An argument's numbers, and a row's, are read as
numbers only where nothing may change the array meanwhile (the function stores only into arrays it
made itself, and hands no array to a call): an argument, and a row of a NumPy matrix, are views of the
caller's memory, whose later reads would see a change.

The numbers are NumPy's: ``+ - *`` on each position are what the array operation computes there, a
division is ``numpy.divide`` of numbers and a power ``numpy.power`` (a zero divisor gives inf, as the
array's division does, not Python's ZeroDivisionError), and a sum adds its numbers left to right, as
NumPy adds fewer than eight.  The function first checks that each such argument has the length it was
built for, or rows of it (``check_rows``): code compiled for two numbers never reads three, whoever calls
it (an ``@njit`` caller of ``d.compiled()`` too).
"""

from __future__ import annotations

from ..front.names import root
from ..ir.nodes import Const, Eq, For, Function, If, Return, Var, While
from .vector_classes import (
    ARITHMETIC,
    COPIES,
    FOLDS,
    MAKERS,
    NUM,
    ROW,
    TOP,
    UNARY,
    classes,
    held,
    is_a,
    may_change,
    named,
    position,
    unread,
)

_HANDED = 8  # rounds of calls handed a vector written in place (a callee's own calls are written in the next)


def as_numbers(fn: Function, kinds: dict, namer, inline=None) -> Function:
    """``fn`` (ANF) with its small vectors held as numbers (see the module docstring); ``kinds``: each
    parameter's ``INT``, ``NUM``, ``ARRAY`` (a 1-d float array), ``("vec", k)``, ``("rows", k)`` or ``TOP``;
    ``namer.fresh`` names the new variables; ``inline(fn, names)``: ``fn`` with the calls handed one of
    those variables written in place where they can be (``lower.inline_calls.inline_handed``)."""
    kinds = {p: k for p, k in kinds.items() if k != TOP}
    function = fn
    for _ in range(_HANDED if inline is not None else 0):  # a vector handed to a helper: its lines written here
        handed = {n for n, c in classes(function, kinds, calls_unknown=True).items() if is_a(c, "vec")}
        written = inline(function, handed) if handed else function
        if written is function:
            break
        function = written
    of = classes(function, kinds)
    if any(is_a(k, "rows") or is_a(k, "vec") for k in kinds.values()) and may_change(function, of):  # the
        kinds = {p: unread(k) for p, k in kinds.items()}  # arguments' numbers are read first, and only where
        of = classes(function, kinds)  # nothing may change them
    holding = held(function, of)
    if not holding:
        return fn
    return _AsNumbers(function, of, holding, namer).function()


class _AsNumbers:
    """The function with its held vectors written as numbers (``as_numbers``)."""

    def __init__(self, fn: Function, of: dict, held: set, namer):
        self.fn, self.of, self.held, self.namer = fn, of, held, namer
        self.parts: dict = {}  # a held vector -> the atom of each of its numbers
        self.subst: dict = {}  # a number read from a held vector -> that number's atom
        self.checked: dict = {}  # a matrix read by rows -> the rows' length
        self.row_of: dict = {}  # an index (p, :) -> p
        self.lists: dict = {}  # a display of numbers -> their atoms

    def function(self) -> Function:
        body = self.block(self.fn.body)
        line = body[0].line if body and hasattr(body[0], "line") else 0
        read = []  # a vector argument held: its numbers read first
        for p in self.fn.params:
            if p in self.held:
                self.checked[p] = k = self.of[p][1]
                read += [Eq((v,), "getitem", (Var(p), Const(j)), line) for j, v in enumerate(self.names(p, k))]
        checks = [
            Eq((), "effect", (Var(p), Const(k)), line, ("effect", "@check_rows", ())) for p, k in self.checked.items()
        ]
        checks += read
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
        if is_a(self.of.get(a.name), "vec"):  # a kept vector: its number read once for the equation
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
        if is_a(c, "list"):
            self.lists[name] = tuple(self.atom(a) for a in e.ins)
        if e.prim == "len" and named(e.ins[0]) in self.held:  # (a held vector's length: its k numbers)
            self.subst[name] = Const(self.of[e.ins[0].name][1])
            return []
        if e.prim == "reject_ints" and any(isinstance(a, Var) and a.name in self.held for a in e.ins):
            rest = tuple(self.atom(a) for a in e.ins if not (isinstance(a, Var) and a.name in self.held))
            if len(rest) == 1:  # (only the vectors held were checked: floats pass)
                self.subst.update((v.name, Const(None)) for v in e.outs)
                return []
            return [Eq(e.outs, e.prim, rest, e.line, e.param)]
        return [Eq(e.outs, e.prim, tuple(self.atom(a) for a in e.ins), e.line, e.param)]

    def vector(self, e: Eq, k: int) -> list:
        """The lines computing each number of the held vector ``e`` makes."""
        p, lines = e.prim, []
        if p in MAKERS:
            self.parts[e.outs[0].name] = (Const(MAKERS[p]),) * k
            return []
        if p in ("numpy.array", "numpy.array/dtype") and named(e.ins[0]) in self.lists:  # a display's numbers
            self.parts[e.outs[0].name] = self.lists[e.ins[0].name]
            return []
        if p == "scatter_add":  # the accumulator's numbers, g added at j
            j, g = position(e.ins[2], k), self.atom(e.ins[3])
            parts = [self.part(e.ins[0], i, lines, e.line) for i in range(k)]
            parts[j] = Var(self.namer.temp())
            lines.append(Eq((parts[j],), "add", (self.part(e.ins[0], j, lines, e.line), g), e.line))
            self.parts[e.outs[0].name] = tuple(parts)
            return lines
        if p == "array_like" and not is_a(self.of.get(named(e.ins[0])), "vec"):
            self.parts[e.outs[0].name] = (self.atom(e.ins[0]),) * k  # (a number broadcast)
            return []
        if p in COPIES and p not in ("read", "write"):  # (numbers are values: a copy is the same numbers)
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
        prim = p if p in ("read", "write") else ARITHMETIC.get(p) or UNARY[p]
        for j in range(k):
            ins = tuple(self.part(a, j, lines, e.line) for a in e.ins)
            lines.append(Eq((outs[j],), prim, ins, e.line))
        return lines

    def reduced(self, e: Eq) -> list:
        """A number read from, or summed over, held vectors."""
        lines: list = []
        if e.prim == "getitem":
            k = self.of[e.ins[0].name][1]
            self.subst[e.outs[0].name] = self.part(e.ins[0], position(e.ins[1], k), lines, e.line)
            return lines
        k, fold = self.of[e.ins[0].name][1], FOLDS.get(e.prim, "add")
        if e.prim == "numpy.linalg.norm":  # math.hypot of two numbers at a time (its derivative 0 at the
            parts = [self.part(e.ins[0], j, lines, e.line) for j in range(k)]  # origin, as norm's rule gives;
            total = parts[0]  # Numba's hypot takes two)
            for j, x in enumerate(parts[1:], 2):
                out = e.outs[0] if j == k else Var(self.namer.temp())
                lines.append(Eq((out,), "math.hypot", (total, x), e.line))
                total = out
            return lines
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
