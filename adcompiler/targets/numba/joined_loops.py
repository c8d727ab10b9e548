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

An arithmetic piece often reads a name bound just before the join to elementwise arithmetic of float64 vectors,
or a slice of it, that the adjoint reads too (so that it was not folded into the piece): an RK4 stage's
``t6_2 = (y_2 + h / 2 * k1)[t5_2]``.  Its elements are then computed in the piece's loop, stored into its own
array as they are read, where the vectors it reads are of one length (no broadcasting: their parts at the slice,
views, are then the slice of the arithmetic)::

    y_2_cut = y_2[t5_2]
    k1_cut = k1[t5_2]
    count2 = len(t4_2)
    if len(k1) == len(y_2) and len(y_2_cut) == count2:
        t6_2 = numpy.empty(count2)
        k2 = numpy.empty(len(t2_2) + count2)
        ...
        for k5 in range(count2):
            t6_2_k = y_2_cut[k5] + h / 2 * k1_cut[k5]
            t6_2[k5] = t6_2_k
            k2[at2 + k5] = t4_2[k5] * t6_2_k
    else:
        t6_2 = (y_2 + h / 2 * k1)[t5_2]
        k2 = numpy.concatenate([t2_2, t4_2 * t6_2], axis=0)

(it moves past the views and slices bound between it and the join, which neither read it nor bind what it
reads).  Only a join of a list or tuple of pieces along axis 0 (``numpy.hstack`` of vectors too) with at least one
arithmetic piece is written so; a piece that is a name is copied by a loop; a join that reads its own target,
or inside a parallel loop's iteration, is left as it is.  The pieces the join's adjoint reads for their shapes
are read as the shapes of their operands (``operand_shapes``), so that an arithmetic piece is folded into the
join.

The line just after the join, where it binds another name to elementwise arithmetic of float64 vectors and
numbers that reads the join (RK4's update after ``k4``'s join), is computed in the join's loops too: each
element of the join is stored and read as a number where the line's element at the same place is computed
and stored, the line's other vectors tested to be as long as the join (``whole``), both lines as they were in
the ``else``::

    whole = len(t2_4) + count4
    if len(k3) == len(y_2) and len(y_2_cut3) == count4 and len(y_2) == whole and len(k1) == whole and ...:
        ...
        y = numpy.empty(whole)
        ...
        for k7 in range(count4):
            t6_4_k = y_2_cut3[k7] + h * k3_cut[k7]
            t6_4[k7] = t6_4_k
            k4_k2 = t4_4[k7] * t6_4_k
            k4[at4 + k7] = k4_k2
            y[at4 + k7] = y_2[at4 + k7] + h / 6 * (k1[at4 + k7] + 2 * k2[at4 + k7] + 2 * k3[at4 + k7] + k4_k2)

(not where the line binds a name the join's pieces or the line before read: their loops run after its array
is made).  The join's array is made all the same (the tape reads its shape, say); what goes is a pass over it
and the line's own pass: GradBench ode's forward sweep at n = 100000, 154 -> 132 µs.

A line left that binds a name to elementwise arithmetic of float64 vectors and numbers of two operations on
vectors or more (``LINE_OPERATIONS``; RK4's update ``y = y_2 + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)``; not
``x * (k + 1.0)``, one) is a loop storing into its array, under the same test of the lengths::

    count5 = len(y_2)
    if len(k1) == count5 and len(k2) == count5 and len(k3) == count5 and len(k4) == count5:
        y = numpy.empty(count5)
        for k8 in range(count5):
            y[k8] = y_2[k8] + h / 6 * (k1[k8] + 2 * k2[k8] + 2 * k3[k8] + k4[k8])
    else:
        y = y_2 + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

Numba's fused loop of one statement indexes each array it reads as broadcasting may, and runs 2.5 times as
long as the loop over vectors (GradBench ode's update at n = 100000: 97 against 39 µs); one operation is as
quick either way, and is left as it is.  A line a join's loops compute (above) is not written so.
"""

from __future__ import annotations

from ...analysis import values as V
from ...analysis.defuse import reads, writes_block
from ...ir import expr as E
from ...ir.nodes import Assign, Def, ForS, IfS, Var, WhileS
from .by_element import fresh_name

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
    taken_after = None  # the statement after a join that the join's loops compute (skipped where it comes)
    for n, s in enumerate(stmts):
        if s is taken_after:
            continue
        if isinstance(s, IfS):
            s = IfS(s.test, _block(s.body, of, taken), _block(s.orelse, of, taken), s.line)
        elif isinstance(s, ForS) and not s.parallel:
            s = ForS(s.target, s.iterable, _block(s.body, of, taken), s.line, s.parallel)
        elif isinstance(s, WhileS):
            s = WhileS(s.header, s.test, _block(s.body, of, taken), s.line)
        elif isinstance(s, Assign):
            at, passed = _earlier(out, of)
            after = stmts[n + 1] if n + 1 < len(stmts) else None
            looped, fused, taken_after = _looped(s, of, taken, None if at is None else out[at], passed, after)
            if looped is not None:
                if fused:
                    del out[at]
                out += looped
                continue
        out.append(s)
    lines: list = []  # (then each elementwise line left, not computed by a join's loops: a loop of its own)
    for s in out:
        looped = _line_looped(s, of, taken) if isinstance(s, Assign) else None
        lines += [s] if looped is None else looped
    return tuple(lines)


def _earlier(out: list, of) -> tuple:
    """``(the place in out of the statement before a join that its loops may compute too, the statements
    after it)``: the last statement but slices and views bound by basic slices (which change nothing and
    raise nothing, so that it may move past them), ``(None, ())`` where there is none."""
    for at in range(len(out) - 1, max(-1, len(out) - 1 - MOST_PASSED), -1):
        s = out[at]
        if not isinstance(s, Assign) or len(s.targets) != 1 or not isinstance(s.targets[0], str):
            return None, ()
        if not _a_view(s.value, of):
            return at, tuple(out[at + 1 :])
    return None, ()


MOST_PASSED = 8  # (the views ode's right-hand side binds: x[:1], x[1:] and their slices)


def _a_view(e, of) -> bool:
    """Whether ``e`` is ``slice(a, b, c)`` of names and numbers, or a read of a name at a slice (a view)."""
    if isinstance(e, E.Call):
        return e.func == "slice" and not e.keywords and all(isinstance(a, (E.Num, E.Name)) for a in e.args)
    if isinstance(e, E.Subscript) and isinstance(e.value, E.Name) and not e.lists:
        index = e.index
        if isinstance(index, E.Name):
            aval = of(index.id)
            return isinstance(aval, V.Static) and aval.what == "slice"
        return isinstance(index, E.Slice) and all(
            x is None or isinstance(x, (E.Num, E.Name)) for x in vars(index).values()
        )
    return False


def _looped(s: Assign, of, taken: set, before: Assign | None, passed: tuple = (), after=None) -> tuple:
    """``(the loops for s, 1 where they compute the statement before it too, else 0, the statement after it
    where they compute it too, else None)`` for ``s`` a join as above, else ``(None, 0, None)``."""
    if len(s.targets) != 1 or not isinstance(s.targets[0], str):
        return None, 0, None
    target, call = s.targets[0], s.value
    if not (isinstance(call, E.Call) and call.func in JOINS and len(call.args) == 1):
        return None, 0, None
    if any(
        k != "axis" or not (isinstance(v, E.Num) and v.value == 0 and type(v.value) is int) for k, v in call.keywords
    ):
        return None, 0, None
    pieces = call.args[0]
    if not isinstance(pieces, (E.List, E.Tuple)) or not pieces.elts:
        return None, 0, None
    vectors: list = []  # per piece: the vectors it reads (a name piece: itself)
    for piece in pieces.elts:
        read = _vectors_read(piece, of)
        if read is None or not read or target in read:
            return None, 0, None
        vectors.append(read)
    if all(isinstance(p, E.Name) for p in pieces.elts):
        return None, 0, None  # (copies only: Numba's join is as quick)
    made = _made_before(before, pieces.elts, vectors, target, of, passed)
    used = _used_after(after, target, made, vectors, of)
    return _written(s, target, pieces.elts, vectors, taken, made, used), 0 if made is None else 1, used and used[0]


def _made_before(before: Assign | None, pieces: tuple, vectors: list, target: str, of, passed: tuple = ()):
    """``(before, its name, its arithmetic, its index or None, the vectors the arithmetic reads)`` where
    ``before``, the statement just before the join, binds a float64 vector to elementwise arithmetic or a
    basic slice of it (``t6_2 = (y_2 + h / 2 * k1)[t5_2]``) that one arithmetic piece of the join reads and no
    other piece does (a name kept for the adjoint, say): its elements are computed in that piece's loop,
    stored into it as they are read (see ``_written``); else None.  ``passed``: the statements between it and
    the join (views, see ``_earlier``), which must neither read its name nor bind a name it reads."""
    if before is None or len(before.targets) != 1 or not isinstance(before.targets[0], str):
        return None
    name, value, index = before.targets[0], before.value, None
    if any(name in reads(p) or p.targets[0] in reads(before) for p in passed):
        return None
    if isinstance(value, E.Subscript) and not value.lists:
        value, index = value.value, value.index
        sliced = of(index.id) if isinstance(index, E.Name) else None
        if not (isinstance(sliced, V.Static) and sliced.what == "slice"):
            return None
    if not isinstance(value, (E.BinOp, E.Unary)) or not _float_vector(of(name)):
        return None
    read = _vectors_read(value, of)
    if not read or name in read or target in read:
        return None
    readers = [n for n, (piece, r) in enumerate(zip(pieces, vectors)) if name in r]
    if len(readers) != 1 or isinstance(pieces[readers[0]], E.Name):
        return None
    return before, name, value, index, read


def _used_after(after, target: str, made, vectors: list, of):
    """``after``, the statement just after the join, where it binds another name to elementwise arithmetic of
    float64 vectors and numbers that reads the join's target (RK4's update ``y = y_2 + h / 6 * (k1 + 2 * k2 + 2 *
    k3 + k4)`` after ``k4``'s join) and not its own name nor the name the loops compute before the join, its name
    read by neither (their loops run after it is made): its elements are computed in the join's loops, each
    where the join's is stored (see ``_written``); ``(after, the vectors it reads)``, else None."""
    if not isinstance(after, Assign) or len(after.targets) != 1 or not isinstance(after.targets[0], str):
        return None
    name = after.targets[0]
    if not isinstance(after.value, (E.BinOp, E.Unary)) or name == target:
        return None
    read = _vectors_read(after.value, of)
    if not read or target not in read or name in read or made is not None and made[1] in read:
        return None
    if any(name in r for r in vectors) or made is not None and (name == made[1] or name in made[4]):
        return None
    return after, read


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


def _length(name: str) -> E.Expr:
    return E.Call("len", (E.Name(name),))


def _by_element(e, k, vectors: set):
    """``e`` with each of ``vectors`` it reads read at ``k`` (a name, or an expression of the index)."""
    if isinstance(e, E.Name):
        return E.Subscript(e, E.Name(k) if isinstance(k, str) else k) if e.id in vectors else e
    if isinstance(e, E.BinOp):
        left, right = _by_element(e.left, k, vectors), _by_element(e.right, k, vectors)
        if e.op == "/" and (left != e.left or right != e.right):  # (an element read: NumPy's division)
            return E.Call("numpy.divide", (left, right))
        return E.BinOp(e.op, left, right)
    if isinstance(e, E.Unary):
        return E.Unary(e.op, _by_element(e.operand, k, vectors))
    return e


def _written(s: Assign, target: str, pieces: tuple, vectors: list, taken: set, made=None, after=None) -> tuple:
    """The statements for join ``s`` (see the module docstring); ``made``: what ``_made_before`` says of the
    statement before it, which the loops then compute too; ``after``: the statement after it that they compute
    too (``_used_after``)."""
    k, line = fresh_name(taken, "k"), s.line
    counts: list = []  # ``count = len(v)`` of the first vector of each arithmetic piece (and the cuts, below)
    tests: list = []  # its other vectors of that length
    sizes: list = []  # each piece's length
    reads = [list(read) for read in vectors]
    if made is not None:  # the piece reading made's name reads the vectors made's arithmetic reads instead
        before, name, value, index, made_reads = made
        cuts = made_reads
        if index is not None:  # (their parts at index, views; where their own lengths agree: no broadcasting)
            cuts = [fresh_name(taken, f"{v}_cut") for v in made_reads]
            counts += [Assign((c,), E.Subscript(E.Name(v), index), line) for c, v in zip(cuts, made_reads)]
            tests += [E.Compare("==", _length(v), _length(made_reads[0])) for v in made_reads[1:]]
        instead = cuts if index is None else cuts[:1]
        reads = [r if name not in r else [v for v in r if v != name] + instead for r in reads]
    for piece, read in zip(pieces, reads):
        if isinstance(piece, E.Name):
            sizes.append(_length(piece.id))
            continue
        count = fresh_name(taken, "count")
        counts.append(Assign((count,), _length(read[0]), line))
        tests += [E.Compare("==", _length(v), E.Name(count)) for v in dict.fromkeys(read[1:]) if v != read[0]]
        sizes.append(E.Name(count))
    total = sizes[0]
    for size in sizes[1:]:
        total = E.BinOp("+", total, size)
    body: list = [Assign((target,), E.Call("numpy.empty", (total,)), line)]
    if after is not None:  # (its other vectors as long as the join: no broadcasting)
        after, after_reads = after
        after_name, others = after.targets[0], [v for v in after_reads if v != target]
        whole = fresh_name(taken, "whole")
        counts.append(Assign((whole,), total, line))
        tests += [E.Compare("==", _length(v), E.Name(whole)) for v in others]
        body.append(Assign((after_name,), E.Call("numpy.empty", (E.Name(whole),)), after.line))
    at = None  # the name of where the next piece starts (None: at 0)
    for n, (piece, read, size) in enumerate(zip(pieces, reads, sizes)):
        place = E.Name(k) if at is None else E.BinOp("+", at, E.Name(k))
        loop: list = []
        if made is not None and name in vectors[n]:  # made's element: computed, stored, read as a number
            element = fresh_name(taken, f"{name}_k")
            body.insert(0, Assign((name,), E.Call("numpy.empty", (size,)), before.line))
            arithmetic = _renamed(value, dict(zip(made_reads, cuts)))
            loop += [
                Assign((element,), _by_element(arithmetic, k, set(cuts)), before.line),
                Assign((E.Subscript(E.Name(name), E.Name(k)),), E.Name(element), before.line),
            ]
            piece = _renamed(piece, {name: element})
        stored = _by_element(piece, k, set(read))
        if after is None:
            loop.append(Assign((E.Subscript(E.Name(target), place),), stored, line))
        else:  # (the element stored, then read by the line after as a number)
            joined = fresh_name(taken, f"{target}_k")
            later = _by_element(_renamed(after.value, {target: joined}), place, set(others))
            loop += [
                Assign((joined,), stored, line),
                Assign((E.Subscript(E.Name(target), place),), E.Name(joined), line),
                Assign((E.Subscript(E.Name(after_name), place),), later, after.line),
            ]
        body.append(ForS(k, E.Call("range", (size,)), tuple(loop), line))
        if n < len(pieces) - 1:
            at_name = fresh_name(taken, "at")
            body.append(Assign((at_name,), size if at is None else E.BinOp("+", at, size), line))
            at = E.Name(at_name)
    if not tests:
        return (*counts, *body)
    test = tests[0] if len(tests) == 1 else E.BoolOp("and", tuple(tests))
    orelse = ((s,) if made is None else (made[0], s)) + (() if after is None else (after,))
    return (*counts, IfS(test, tuple(body), orelse, line))


LINE_OPERATIONS = 2  # the fewest operations on vectors of a line written as a loop (one: Numba's is as quick)


def _line_looped(s: Assign, of, taken: set):
    """The statements for ``s`` where it binds a name to elementwise arithmetic of float64 vectors and numbers of
    ``LINE_OPERATIONS`` operations or more (see the module docstring), else None."""
    if len(s.targets) != 1 or not isinstance(s.targets[0], str) or not isinstance(s.value, (E.BinOp, E.Unary)):
        return None
    target, value = s.targets[0], s.value
    read = _vectors_read(value, of)
    if not read or target in read or _operations(value, set(read)) < LINE_OPERATIONS:
        return None
    k, count, line = fresh_name(taken, "k"), fresh_name(taken, "count"), s.line
    element = Assign((E.Subscript(E.Name(target), E.Name(k)),), _by_element(value, k, set(read)), line)
    body = (
        Assign((target,), E.Call("numpy.empty", (E.Name(count),)), line),
        ForS(k, E.Call("range", (E.Name(count),)), (element,), line),
    )
    head = Assign((count,), _length(read[0]), line)
    tests = [E.Compare("==", _length(v), E.Name(count)) for v in read[1:]]
    if not tests:
        return (head, *body)
    test = tests[0] if len(tests) == 1 else E.BoolOp("and", tuple(tests))
    return (head, IfS(test, body, (s,), line))


def _operations(e, vectors: set) -> int:
    """The arithmetic operations of elementwise ``e`` on ``vectors`` (one of numbers alone, ``k + 1.0``, is a
    number, not a pass over a vector)."""
    if isinstance(e, (E.BinOp, E.Unary)):
        inner = sum(_operations(p, vectors) for p in E.parts(e))
        return inner + (1 if _mentions(e, vectors) else 0)
    return 0


def _mentions(e, vectors: set) -> bool:
    """Whether ``e`` reads one of ``vectors``."""
    return isinstance(e, E.Name) and e.id in vectors or any(_mentions(p, vectors) for p in E.parts(e))


def _renamed(e, names: dict):
    """Arithmetic ``e`` with the names of ``names`` read as the names they map to."""
    if isinstance(e, E.Name):
        return E.Name(names.get(e.id, e.id))
    if isinstance(e, E.BinOp):
        return E.BinOp(e.op, _renamed(e.left, names), _renamed(e.right, names))
    if isinstance(e, E.Unary):
        return E.Unary(e.op, _renamed(e.operand, names))
    return e
