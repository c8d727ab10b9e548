"""A join of vectors whose pieces are elementwise arithmetic, written as loops that store each piece's elements
straight into the joined array: one array made, not one a piece and then the join.

GradBench ode's right-hand side is ``np.concatenate((x[:1], x[1:] * y[:-1]))``; its generated line is::

    k1 = numpy.concatenate([t2_1, t4_1 * t6_1], axis=0)

Numba fuses ``t4_1 * t6_1`` into one loop, but into an array of its own, which the join then copies: two
arrays of the state's length written a stage, four stages an RK4 step.  Where the code's abstract values
say every array a piece reads is a vector of float64 (so that the pieces and the join are float64 vectors
too, whatever Numba is handed: the loop version and the join have one type), the line is::

    count = len(t4_1)
    if len(t6_1) == count:
        k1 = numpy.empty(len(t2_1) + count)
        for k in range(len(t2_1)):
            k1[k] = t2_1[k]
        at = len(t2_1)
        for k in range(count):
            k1[at + k] = t4_1[k] * t6_1[k]
    else:
        k1 = numpy.concatenate([t2_1, t4_1 * t6_1], axis=0)

Each arithmetic piece's length is that of the first vector it reads; the test is that its other vectors are of
that length too (NumPy's broadcasting of a vector of one element, or an error, is the join as it was, the
``else``; a piece that reads one vector needs none, nor a join whose pieces all do).  Each element gets the
operations the fused loop gave it, in the same order (``+ - * /`` and negation of the vectors' elements and of
numbers, no function whose vectorised loop may round otherwise): the same numbers, bit for bit.  A division that
reads an element is ``numpy.divide`` of the two numbers, as NumPy (and Numba's fused loop) divides: by zero, an
infinity or a NaN, where ``/`` of two numbers in compiled code raises ZeroDivisionError.

Only a join of a list or tuple of pieces along axis 0 (``numpy.hstack`` of vectors too) with at least one
arithmetic piece is written so; a piece that is a name is copied by a loop; a join that reads its own target,
or inside a parallel loop's iteration, is left as it is.  The pieces the join's adjoint reads for their shapes
are read as the shapes of their operands (``operand_shapes``), so that an arithmetic piece is folded into the
join.
"""

from __future__ import annotations

from ...analysis import values as V
from ...analysis.defuse import reads, writes_block
from ...ir import expr as E
from ...ir.nodes import Assign, Def, ForS, IfS, Var, WhileS

JOINS = ("numpy.concatenate", "numpy.hstack")  # (hstack of vectors: their concatenation)
ARITHMETIC = ("+", "-", "*", "/")
# an array's dtype "float" is float64 joined with Python's numbers (as modes.shape_kept reads it)
FLOAT64 = ("float64", "float")


def joins_in_loops(d: Def, facts) -> Def:
    """The generated function ``d`` with each join above written as loops; ``facts``: the abstract values of the
    names of the function it was generated from (``analysis.facts``; None: ``d`` as it is)."""
    if facts is None:
        return d
    taken = set(d.params) | writes_block(d.body) | set().union(*(reads(s) for s in d.body))
    body = _block(d.body, lambda name: facts.of(Var(name)), taken)
    return d if body == d.body else Def(d.name, d.params, d.defaults, body, d.doc, d.source)


def _block(stmts: tuple, of, taken: set) -> tuple:
    out: list = []
    for s in stmts:
        if isinstance(s, IfS):
            s = IfS(s.test, _block(s.body, of, taken), _block(s.orelse, of, taken), s.line)
        elif isinstance(s, ForS) and not s.parallel:
            s = ForS(s.target, s.iterable, _block(s.body, of, taken), s.line, s.parallel)
        elif isinstance(s, WhileS):
            s = WhileS(s.header, s.test, _block(s.body, of, taken), s.line)
        elif isinstance(s, Assign):
            looped = _looped(s, of, taken)
            if looped is not None:
                out += looped
                continue
        out.append(s)
    return tuple(out)


def _looped(s: Assign, of, taken: set):
    """The loops for ``s``, a join as above, or None."""
    if len(s.targets) != 1 or not isinstance(s.targets[0], str):
        return None
    target, call = s.targets[0], s.value
    if not (isinstance(call, E.Call) and call.func in JOINS and len(call.args) == 1):
        return None
    if any(
        k != "axis" or not (isinstance(v, E.Num) and v.value == 0 and type(v.value) is int) for k, v in call.keywords
    ):
        return None
    pieces = call.args[0]
    if not isinstance(pieces, (E.List, E.Tuple)) or not pieces.elts:
        return None
    vectors: list = []  # per piece: the vectors it reads (a name piece: itself)
    for piece in pieces.elts:
        read = _vectors_read(piece, of)
        if read is None or not read or target in read:
            return None
        vectors.append(read)
    if all(isinstance(p, E.Name) for p in pieces.elts):
        return None  # (copies only: Numba's join is as quick)
    return _written(s, target, pieces.elts, vectors, taken)


def _vectors_read(e, of):
    """The names of the float64 vectors elementwise arithmetic ``e`` reads (in order, each once), None where
    ``e`` is something else or reads anything else but numbers."""
    out: list = []

    def walk(x) -> bool:
        if isinstance(x, E.Num):
            return type(x.value) in (int, float)
        if isinstance(x, E.Name):
            aval = of(x.id)
            if _float_vector(aval):
                if x.id not in out:
                    out.append(x.id)
                return True
            return _number(aval)
        if isinstance(x, E.BinOp):
            return x.op in ARITHMETIC and not x.lists and walk(x.left) and walk(x.right)
        if isinstance(x, E.Unary):
            return x.op == "-" and walk(x.operand)
        return False

    return out if walk(e) else None


def _float_vector(aval) -> bool:
    return isinstance(aval, V.Arr) and aval.ndim == 1 and aval.dtype in FLOAT64


def _number(aval) -> bool:
    return isinstance(aval, V.Num) and aval.dtype in ("float", "float64", "int", "int64", "bool")


def _fresh(taken: set, base: str) -> str:
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}{k}"
    taken.add(name)
    return name


def _length(name: str) -> E.Expr:
    return E.Call("len", (E.Name(name),))


def _by_element(e, k: str, vectors: set):
    """``e`` with each of ``vectors`` it reads read at ``k``."""
    if isinstance(e, E.Name):
        return E.Subscript(e, E.Name(k)) if e.id in vectors else e
    if isinstance(e, E.BinOp):
        left, right = _by_element(e.left, k, vectors), _by_element(e.right, k, vectors)
        if e.op == "/" and (left != e.left or right != e.right):  # (an element read: NumPy's division)
            return E.Call("numpy.divide", (left, right))
        return E.BinOp(e.op, left, right)
    if isinstance(e, E.Unary):
        return E.Unary(e.op, _by_element(e.operand, k, vectors))
    return e


def _written(s: Assign, target: str, pieces: tuple, vectors: list, taken: set) -> tuple:
    """The statements for join ``s`` (see the module docstring)."""
    k, line = _fresh(taken, "k"), s.line
    counts: list = []  # ``count = len(v)`` of the first vector of each arithmetic piece
    tests: list = []  # its other vectors of that length
    sizes: list = []  # each piece's length
    for piece, read in zip(pieces, vectors):
        if isinstance(piece, E.Name):
            sizes.append(_length(piece.id))
            continue
        count = _fresh(taken, "count")
        counts.append(Assign((count,), _length(read[0]), line))
        tests += [E.Compare("==", _length(v), E.Name(count)) for v in read[1:]]
        sizes.append(E.Name(count))
    total = sizes[0]
    for size in sizes[1:]:
        total = E.BinOp("+", total, size)
    body: list = [Assign((target,), E.Call("numpy.empty", (total,)), line)]
    at = None  # the name of where the next piece starts (None: at 0)
    for n, (piece, read, size) in enumerate(zip(pieces, vectors, sizes)):
        place = E.Name(k) if at is None else E.BinOp("+", at, E.Name(k))
        store = Assign((E.Subscript(E.Name(target), place),), _by_element(piece, k, set(read)), line)
        body.append(ForS(k, E.Call("range", (size,)), (store,), line))
        if n < len(pieces) - 1:
            name = _fresh(taken, "at")
            body.append(Assign((name,), size if at is None else E.BinOp("+", at, size), line))
            at = E.Name(name)
    if not tests:
        return (*counts, *body)
    test = tests[0] if len(tests) == 1 else E.BoolOp("and", tuple(tests))
    return (*counts, IfS(test, tuple(body), (s,), line))
