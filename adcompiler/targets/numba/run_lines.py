"""The lines a run of elementwise adjoint lines holds (``element_runs``): what kind each statement of generated code
is, and where a run ends.

A ``Line`` is a statement of one of the kinds a run may hold: ``lazy`` (a name bound to ``+ - * /`` and negation
of names and numbers, and ``unbroadcast`` of such), ``view`` (``unjoin`` of a name along axis 0 of a
``concatenate``: a piece of its cotangent), ``fresh`` (``scatter_add(0.0, x, index, e)``: a scatter into zeros),
``into`` (``d = scatter_into(d, x, index, e)`` or ``d += e``: an accumulator added into), ``comment``, or
``other`` (an assignment of names calling only functions that read, kept in its place).  ``Lines.classified``
says which a statement is; ``Lines.clashes``, that a line ends the run before it (it reads as a whole what the
run binds, or binds what the run binds).  What each line reads, as elements (``element_reads``: the names the
loop indexes) or as a whole (``whole_reads``: the lengths, pieces and parts), is read off its expression
(``leaves``, ``spans``).
"""

from __future__ import annotations

import ast

from .by_element import cheap_index

_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


class Line:
    """One statement of a run: ``kind`` "lazy" (``target = e``), "view" (``target = unjoin(g, ...)``),
    "fresh" (``target = scatter_add(0.0, x, index, e)``) or "into" (``target = scatter_into(target, x,
    index, e)``); ``parts``: what it reads by kind."""

    def __init__(self, stmt, kind, target, **parts):
        self.stmt, self.kind, self.target = stmt, kind, target
        self.e, self.x, self.index = parts.get("e"), parts.get("x"), parts.get("index")
        self.g, self.i, self.pieces = parts.get("g"), parts.get("i"), parts.get("pieces")
        self.length = None  # the name of its length (lazy, view) or count (fresh, into) in the code
        self.line = None  # the name of its line (fresh, into)
        self.at = None  # the name of its offset in g (a view after the first piece)
        self.targets: set = set()  # the names it binds (other)


class Lines:
    """The kinds of the statements of one generated function: ``into``, ``scatter_add``, ``unbroadcast``,
    ``unjoin``: the names the code calls those helpers by (sets); ``numpy_names``: its names of NumPy;
    ``comment``: the call that stands for a comment; ``vectors``: a name -> its ndim; ``reading``: the helpers
    that only read (``shape_like``); ``numbers``: the accumulators of numbers' adjoints."""

    def __init__(
        self, into, scatter_add, unbroadcast, unjoin, numpy_names, comment, vectors, reading, numbers, counters=()
    ):
        self.into, self.scatter_add, self.unbroadcast, self.unjoin = into, scatter_add, unbroadcast, unjoin
        self.numpy_names, self.comment, self.vectors, self.reading = numpy_names, comment, vectors, reading
        self.counters = set(counters)  # names of loops' counters over ranges: integers
        self.numbers = numbers

    def classified(self, s):
        """The ``Line`` of ``s``, None where it is none of the four (a comment, kept as a call: one too)."""
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and _name(s.value.func):
            return Line(s, "comment", None) if s.value.func.id == self.comment else None
        if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and _name(s.target):
            if self.vectors.get(s.target.id) == 1 and self.elementwise(s.value):  # (an accumulator of a vector's
                return Line(s, "into", s.target.id, e=s.value)  # adjoint, added into in place: in_place)
        if isinstance(s, (ast.Assign, ast.AugAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if not all(_name(t) for t in targets) or isinstance(s, ast.AugAssign) and s.target.id not in self.numbers:
                return None  # (an augmented assignment may change an array in place: only a number's accumulator)
            other = Line(s, "other", None) if all(self.pure(n) for n in ast.walk(s)) else None
            if other is not None:
                other.targets = {t.id for t in targets}
        else:
            return None
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
            return other
        target, value = s.targets[0].id, s.value
        if self.elementwise(value):
            return Line(s, "lazy", target, e=value) if not isinstance(value, (ast.Name, ast.Constant)) else None
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.keywords):
            return other
        f, args = value.func.id, value.args
        if f in self.unjoin and len(args) >= 5 and _name(args[0]) and all(self.shaped(p) for p in args[4:]):
            kind, axis, i = args[1], args[2], args[3]
            if (
                isinstance(kind, ast.Constant)
                and kind.value == "concatenate"
                and _int(axis) == 0
                and _int(i) is not None
                and 0 <= i.value < len(args) - 4
            ):
                return Line(s, "view", target, g=args[0].id, i=i.value, pieces=args[4:])
            return other
        if len(args) != 4 or not (_name(args[1]) and cheap_index(args[2])):
            return other
        d, x, index, e = args
        if not (self.elementwise(e) and not isinstance(e, ast.Constant)):
            return other
        if self.one_number(d, index):  # (d[i] += e of a vector's adjoint: a number, which a loop does not help)
            return other
        if f in self.scatter_add and isinstance(d, ast.Constant) and d.value == 0.0 and type(d.value) is float:
            return Line(s, "fresh", target, x=x.id, index=index, e=e)
        if f in self.into and _name(d) and d.id == target:
            return Line(s, "into", target, x=x.id, index=index, e=e)
        return other

    def one_number(self, d, index) -> bool:
        """Whether ``d[index]`` is one number: ``d`` an accumulator of an array of as many axes as the index has
        parts, each a loop's counter or an integer (a name may hold a slice: lstm's gates)."""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        ints = all(_name(p) and p.id in self.counters or _int(p) is not None for p in parts)
        return ints and _name(d) and self.vectors.get(d.id) == len(parts)

    def shaped(self, e) -> bool:
        """Whether ``e`` is a name, or a call of a function that only reads (``shape_like``) of names: what
        ``unbroadcast`` sums down to and ``unjoin`` cuts by, read only for its shape."""
        if _name(e):
            return True
        return (
            isinstance(e, ast.Call)
            and _name(e.func)
            and e.func.id in self.reading
            and not e.keywords
            and all(_name(a) for a in e.args)
        )

    def pure(self, node) -> bool:
        """Whether ``node`` changes nothing (a call of a helper that only reads, or of a function of NumPy)."""
        if isinstance(node, ast.NamedExpr):
            return False
        if not isinstance(node, ast.Call):
            return True
        f = node.func
        if _name(f):
            return f.id in self.unbroadcast or f.id in self.reading
        return isinstance(f, ast.Attribute) and _name(f.value) and f.value.id in self.numpy_names and not node.keywords

    def elementwise(self, e) -> bool:
        """Whether ``e`` is ``+ - * /`` and negation of names and numbers, and ``unbroadcast`` of such to a name."""
        if isinstance(e, ast.Name):
            return True
        if isinstance(e, ast.Constant):
            return type(e.value) in (int, float)
        if isinstance(e, ast.BinOp):
            return isinstance(e.op, _OPS) and self.elementwise(e.left) and self.elementwise(e.right)
        if isinstance(e, ast.UnaryOp):
            return isinstance(e.op, ast.USub) and self.elementwise(e.operand)
        return (
            isinstance(e, ast.Call)
            and isinstance(e.func, ast.Name)
            and e.func.id in self.unbroadcast
            and not e.keywords
            and len(e.args) == 2
            and self.shaped(e.args[1])
            and self.elementwise(e.args[0])
        )

    def clashes(self, run: list, line: Line) -> bool:
        """Whether ``line`` reads as a whole (a length, a part, a piece) a name the run binds, binds one the run
        binds but for an accumulator it adds into again, or reads or binds one another statement of the run
        binds (``other``: a statement of no kind above, kept in its place): the run ends before it."""
        if line.kind == "comment":
            return False
        bound = {r.target for r in run if r.kind not in ("comment", "other")}
        others = set().union(*(r.targets for r in run if r.kind == "other"))
        if line.kind == "other":
            return bool(line.targets & (bound | others | self._read_by(run)))
        if (whole_reads(line, self.unbroadcast) | set(element_reads(line, self.unbroadcast))) & others:
            return True
        if line.target in others or whole_reads(line, self.unbroadcast) & bound:
            return True
        return line.target in bound and not (
            line.kind == "into" and all(r.kind == "into" for r in run if r.target == line.target)
        )

    def _read_by(self, run: list) -> set:
        """The names the lines of ``run`` read (as elements or as a whole)."""
        out: set = set()
        for r in run:
            if r.kind not in ("comment", "other"):
                out |= whole_reads(r, self.unbroadcast) | set(element_reads(r, self.unbroadcast))
        return out


def spans(e) -> list:
    """What each ``unbroadcast`` of elementwise ``e`` sums down to (expressions), in order."""
    if isinstance(e, ast.BinOp):
        return spans(e.left) + spans(e.right)
    if isinstance(e, ast.UnaryOp):
        return spans(e.operand)
    if isinstance(e, ast.Call):
        return [e.args[1]] + spans(e.args[0])
    return []


def leaves(e, unbroadcast: set) -> list:
    """The names (str) and numbers an elementwise expression reads as elements (not what unbroadcast sums to)."""
    if isinstance(e, ast.Name):
        return [e.id]
    if isinstance(e, ast.Constant):
        return [e.value]
    if isinstance(e, ast.BinOp):
        return leaves(e.left, unbroadcast) + leaves(e.right, unbroadcast)
    if isinstance(e, ast.UnaryOp):
        return leaves(e.operand, unbroadcast)
    return leaves(e.args[0], unbroadcast)


def element_reads(r: Line, unbroadcast: set) -> list:
    """The names line ``r`` reads as elements (a view: the array it cuts)."""
    if r.kind in ("comment", "other"):
        return []
    if r.kind == "view":
        return [r.g]
    return [leaf for leaf in leaves(r.e, unbroadcast) if isinstance(leaf, str)]


def whole_reads(r: Line, unbroadcast: set) -> set:
    """The names line ``r`` reads as a whole: lengths, pieces, parts, and an accumulator's array."""
    if r.kind == "view":
        return {n.id for p in r.pieces for n in ast.walk(p) if _name(n)}
    names = {n.id for span in spans(r.e) for n in ast.walk(span) if _name(n)}
    if r.kind in ("fresh", "into") and r.x is not None:
        names |= {r.x} | {n.id for n in ast.walk(r.index) if isinstance(n, ast.Name)}
    return names


def _name(e) -> bool:
    return isinstance(e, ast.Name)


def _int(e):
    return e.value if isinstance(e, ast.Constant) and type(e.value) is int else None
