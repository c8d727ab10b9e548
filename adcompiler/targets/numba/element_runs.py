"""A run of elementwise adjoint lines over vectors written as loops that make no array for the cotangents only
the run reads: the reverse sweep's counterpart of ``joined_loops``.

The adjoint of a join of elementwise pieces (GradBench ode's ``np.concatenate((x[:1], x[1:] * y[:-1]))``, four
stages a step of RK4) is a run of lines like::

    d_t15 = t10 * unbroadcast(d_y, t15)
    d_k4 = unbroadcast(d_t15, k4)
    d_t2_4 = unjoin(d_k4, "concatenate", 0, 0, t2_4, t7_4)
    d_t7_4 = unjoin(d_k4, "concatenate", 0, 1, t2_4, t7_4)
    d_t9 = scatter_add(0.0, t9, t5_4, unbroadcast(t4_4 * d_t7_4, t6_4))
    d_x = scatter_into(d_x, x, t3_4, unbroadcast(t6_4 * d_t7_4, t4_4))
    d_k3 = h * unbroadcast(d_t9, k3) + 2 * unbroadcast(d_t15, k3)
    ...

where Numba makes an array of each elementwise line, zeros for each fresh scatter, and a loop for each line
``by_element`` writes, each reading the cotangent again: a pass over the state's memory a line.  A run here is
consecutive statements each of which is a name bound to ``+ - * /`` and negation of names and numbers and
``unbroadcast`` of such (to a name or ``shape_like`` of names); ``unjoin`` of a name along axis 0 of a
``concatenate``; ``scatter_add(0.0, x, index, e)``, ``d = scatter_into(d, x, index, e)`` or ``d += e`` (an
accumulator of a vector's adjoint) of such an ``e``; a comment; or another assignment of names calling only
functions that read (kept in its place; the run ends before a line reading what it binds).  It is written::

    <the lengths: line_of(s)[0] of what each unbroadcast sums down to, of each piece unjoin cuts; the counts>
    if <every length the lines need agrees: no broadcasting, no number where a vector is read>:
        t10_line = as_line(t10, size)  # (a number: a view of it as a vector; a vector: itself)
        d_t9 = numpy.empty(numpy.shape(t9))
        line = line_of(d_t9, t5_4)[1]
        zero_outside(d_t9, line)
        for k in range(count):
            line[k] = 0.0 + t4_4_line[k] * (t10_line[at + k] * d_y_line[at + k])
            line2[k] += t6_4_line[k] * (t10_line[at + k] * d_y_line[at + k])
        ...
    else:
        <the run as it was>

A name the run binds once and reads only as elements of its own lines (a cotangent, a piece ``unjoin`` cuts: a
view at an offset) is not made: a line reading it computes its element where it reads it, at the index the
views say (an expression of up to ``INLINED`` names and numbers, computed again where it is read twice).
Anything else (read after the run or as a whole) is made by its own line, kept in its place, or, where it
reads an array the fast branch makes (a fresh scatter's, or another such line's: a float64 vector there too) and
computes a line not made or makes two operations or more, by a loop storing into its array (``line_loop``:
RK4's ``d_y = d_y_5 + (unbroadcast(d_t4, y_2) + ...)``, the four stages' cotangents of y added), where the
names its elements read are real numbers or float64 vectors (``fits_float``, ``float_line``; Numba's fused
loop of one statement is 2.5 times as slow on long vectors).  Consecutive
scatters that read one such name at their own index (so of one count) and not what the other writes are one
loop.  Each element gets the operations it got, in the same order (``0.0 +`` for the zeros a fresh scatter
adds into, NumPy's division), and each accumulator's elements are added into in the same order (two lines
adding into one accumulator are never one loop): the same numbers, bit for bit.  ``by_element`` then writes
the lines of the ``else`` as it writes any.
"""

from __future__ import annotations

import ast
import collections

from .by_element import fresh_name
from .run_lines import Line, Lines, element_reads, leaves, spans

INLINED = 12  # the most names and numbers an element of a cotangent not made is computed from
LINE_OPERATIONS = 2  # the fewest operations of a line made that is written as a loop (as joined_loops')


class Runs:
    """The rewrite of one generated function (see the module docstring); ``into``, ``scatter_add``,
    ``unbroadcast``, ``unjoin``: the names the code calls those helpers by (sets); ``numpy``: the module's
    name of NumPy; ``call(helper, args)``: a call of a helper of ``by_element`` (the module defines it)."""

    def __init__(
        self,
        function: ast.FunctionDef,
        into,
        scatter_add,
        unbroadcast,
        unjoin,
        numpy,
        numpy_names,
        call,
        comment,
        vectors,
        reading,
        sums,
    ):
        self.unbroadcast, self.numpy, self.call = unbroadcast, numpy, call
        numbers = set(sums) - {n for n, ndim in vectors.items() if ndim}  # accumulators of numbers' adjoints
        counters = {  # (for i in range(...): an integer)
            n.target.id
            for n in ast.walk(function)
            if isinstance(n, ast.For)
            and isinstance(n.target, ast.Name)
            and isinstance(n.iter, ast.Call)
            and isinstance(n.iter.func, ast.Name)
            and n.iter.func.id in ("range", "prange")
        }
        self.lines = Lines(
            into, scatter_add, unbroadcast, unjoin, numpy_names, comment, vectors, reading, numbers, counters
        )
        self.looped: set = set()  # the lines made that a run's fast branch writes as loops (rewritten)
        self.floats: set = set()  # what their elements read: tested to be of float64 (rewritten)
        self.taken = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)} | {a.arg for a in function.args.args}
        self.loads = collections.Counter(
            n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        )
        self.stores = collections.Counter(
            n.id for n in ast.walk(function) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        )

    # ---- the run's statements

    def block(self, stmts: list) -> list:
        """``stmts`` with each run rewritten (a run of two lines or more with a scatter among them)."""
        out, run = [], []
        for s in stmts + [None]:
            line = None if s is None else self.lines.classified(s)
            if line is not None and not self.lines.clashes(run, line):
                run.append(line)
                continue
            out += self.rewritten(run)
            run = [] if line is None else [line]
            if s is not None and line is None:
                out.append(s)
        return out

    # ---- the rewrite of one run

    def rewritten(self, run: list) -> list:
        """The statements for ``run`` (see the module docstring), the run itself where there is nothing to gain."""
        stmts = [r.stmt for r in run]
        if len(run) < 2 or not any(r.kind in ("fresh", "into") for r in run):
            return stmts
        lines = {r.target: r for r in run if r.kind in ("lazy", "view")}
        made = self.made(run, lines)
        inlined = {n: r for n, r in lines.items() if n not in made}
        if not inlined:
            return stmts
        self.looped = set()
        arrays = set()  # the vectors of float64 the fast branch makes: fresh scatters' and looped lines' arrays
        for r in run:
            if r.kind == "fresh":
                arrays.add(r.target)
            elif r.kind == "lazy" and r.target in made and self._worth(r, inlined, arrays):
                self.looped.add(r.target)
                arrays.add(r.target)
        self.floats = set()  # the names bound before the run an element of a looped line reads (and sums down to)
        for n in self.looped:
            self.floats |= self._float_reads(lines[n], lines)
        head, tests = [], []
        lengths: dict = {}  # ast.dump of a length's expression -> the name bound to it

        def length_of(expr) -> str:
            key = ast.dump(expr)
            if key not in lengths:
                lengths[key] = fresh_name(self.taken, "size")
                head.append(_assign(lengths[key], expr))
                tests.append(_compare(lengths[key], ast.GtE(), ast.Constant(0)))
            return lengths[key]

        known: dict = {}  # a vector the run binds -> the name of its length
        whole = self.whole = {}  # a view -> the name of the length of the array it cuts
        self.rebound: set = set()  # the names the fast branch has bound again so far (read by element())
        for r in run:
            if r.kind in ("comment", "other"):
                continue
            if r.kind == "view":
                sizes = [length_of(self._first(self.call("line_of", [p]))) for p in r.pieces]
                r.length = sizes[r.i]
                total = _sum([_load(s) for s in sizes])
                whole[r.target] = fresh_name(self.taken, "whole")
                head.append(_assign(whole[r.target], total))
                if r.i:
                    r.at = fresh_name(self.taken, "at")
                    head.append(_assign(r.at, _sum([_load(s) for s in sizes[: r.i]])))
                tests.append(self._spans(_load(whole[r.target]), _load(r.g), known))
                if r.g in self.floats and r.g not in known:
                    tests.append(self.call("float_line", [_load(whole[r.target]), _load(r.g)]))
            elif r.kind == "lazy":
                anchor = self._anchor(r.e, known)
                if anchor is None:
                    return stmts
                r.length = length_of(anchor) if not isinstance(anchor, str) else anchor
                tests += self._fits(r.e, r.length, known)
            else:
                r.length, r.line = fresh_name(self.taken, "count"), fresh_name(self.taken, "line")
                if r.kind == "fresh":
                    head.append(_assign(r.length, self._first(self.call("line_of", [_load(r.x), r.index]))))
                    if any(r.target in element_reads(q, self.unbroadcast) for q in run):  # (zeros of x's shape:
                        known[r.target] = length_of(self._first(self.call("line_of", [_load(r.x)])))  # a vector)
                else:
                    part = self.call("line_of", [_load(r.target)] + ([] if r.index is None else [r.index]))
                    head.append(ast.Assign([_tuple_store(r.length, r.line)], part))
                tests.append(_compare(r.length, ast.GtE(), ast.Constant(0)))
                tests += self._fits(r.e, r.length, known)
            if r.kind in ("lazy", "view"):
                known[r.target] = r.length
        self.fresh_made: set = set()  # the fresh scatters' arrays made so far (read by index)
        self.bound: dict = {}  # (a name bound before the run, the length it is read at) -> its line's name
        fast = self.loops(run, made, inlined)
        fast = [
            _assign(line, self.call("as_line", [_load(n), _load(size)])) for (n, size), line in self.bound.items()
        ] + fast
        tests = list({ast.dump(t): t for t in tests}.values())
        return head + [ast.If(ast.BoolOp(ast.And(), tests) if len(tests) > 1 else tests[0], fast, stmts)]

    def made(self, run: list, lines: dict) -> set:
        """The names of ``lines`` (lazy and view lines) the run still makes: read elsewhere than as elements of
        the run's later lines, bound more than once, too large to compute again, or read by a line made."""
        as_elements = collections.Counter()
        later: dict = {}
        for n, r in enumerate(run):
            for name in element_reads(r, self.unbroadcast):
                as_elements[name] += 1
                later.setdefault(name, n)
        made = set()
        for n, r in enumerate(run):
            name = r.target
            if name not in lines:
                continue
            if self.stores[name] != 1 or self.loads[name] != as_elements[name] or later.get(name, n + 1) <= n:
                made.add(name)
        changed = True
        while changed:
            changed = False
            for name, r in lines.items():
                if name in made:
                    continue
                size = self._size(r, lines, made)
                reads_made = any(name in element_reads(lines[m], self.unbroadcast) for m in made)
                if size > INLINED or reads_made or self._changed_before_read(run, r, lines, made):
                    made.add(name)
                    changed = True
        return made

    def _size(self, r: Line, lines: dict, made: set) -> int:
        """The names and numbers an element of ``r`` is computed from, its lines not made written out."""
        if r.kind == "view":
            g = lines.get(r.g)
            return 1 if g is None or r.g in made else self._size(g, lines, made)
        total = 0
        for leaf in leaves(r.e, self.unbroadcast):
            inner = lines.get(leaf) if isinstance(leaf, str) else None
            total += 1 if inner is None or leaf in made else self._size(inner, lines, made)
        return total

    def _changed_before_read(self, run: list, r: Line, lines: dict, made: set) -> bool:
        """Whether a name an element of ``r`` reads is bound again between ``r`` and its last reader in the run
        (a line computing it there would read the new value)."""
        names = self._expanded(r, lines, made)
        start = run.index(r)
        last = max((n for n, q in enumerate(run) if r.target in element_reads(q, self.unbroadcast)), default=start)
        return any(q.target in names for q in run[start + 1 : last + 1] if q.target != r.target)

    def _expanded(self, r: Line, lines: dict, made: set) -> set:
        """The names an element of ``r`` reads, its lines not made written out."""
        names = {r.g} if r.kind == "view" else {leaf for leaf in leaves(r.e, self.unbroadcast) if isinstance(leaf, str)}
        out = set()
        for name in names:
            inner = lines.get(name)
            out |= {name} if inner is None or name in made else self._expanded(inner, lines, made) | {name}
        return out

    def _first(self, call) -> ast.expr:
        return ast.Subscript(call, ast.Constant(0), ast.Load())

    def _anchor(self, e, known: dict):
        """The length of lazy ``e``: that of the first name an ``unbroadcast`` in it sums down to (an expression),
        or of the first vector the run binds that it reads (its length's name), else the longest of the names it
        reads (``line_of``'s -1 for a number: none a vector, the test that it is at least 0 fails)."""
        sums = spans(e)
        if sums:
            return self._first(self.call("line_of", [sums[0]]))
        for node in ast.walk(e):
            if isinstance(node, ast.Name) and node.id in known:
                return known[node.id]
        names = list(dict.fromkeys(leaf for leaf in leaves(e, self.unbroadcast) if isinstance(leaf, str)))
        sizes = [self._first(self.call("line_of", [_load(n)])) for n in names]
        return None if not sizes else sizes[0] if len(sizes) == 1 else ast.Call(_load("max"), sizes, [])

    def _spans(self, size, span, known: dict):
        """The test that ``span`` (a name, or a call of names) is a vector of ``size`` elements (an expression)."""
        if _name(span) and span.id in known:
            return ast.Compare(_load(known[span.id]), [ast.Eq()], [size])
        return self.call("spans_line", [size, span])

    def _fits(self, e, size: str, known: dict) -> list:
        """The tests that every name ``e`` reads is a number or a vector of ``size`` elements, and every name its
        ``unbroadcast`` sums down to a vector of them."""
        tests = []
        for span in spans(e):
            tests.append(self._spans(_load(size), span, known))
            if ast.dump(span) in self.floats:
                tests.append(self.call("float_line", [_load(size), span]))
        for leaf in leaves(e, self.unbroadcast):
            if isinstance(leaf, str):
                if leaf in known:
                    tests.append(_compare(known[leaf], ast.Eq(), _load(size)))
                else:
                    fits = "fits_float" if leaf in self.floats else "fits_line"
                    tests.append(self.call(fits, [_load(size), _load(leaf)]))
        return tests

    def _worth(self, r: Line, inlined: dict, arrays: set) -> bool:
        """Whether lazy line ``r``, made, is written as a loop storing into an array of float64: it reads (through
        the lines not made) one of ``arrays``, vectors of float64 the fast branch makes (so that the line's
        value is such a vector in compiled code's types too), and computes a line not made or makes
        ``LINE_OPERATIONS`` operations or more (Numba's fused loop of one statement indexes each array it reads
        as broadcasting may: 2.5 times as slow as a loop over vectors, GradBench ode's at n = 100000)."""
        reads = self._expanded(r, inlined, set())
        if not reads & arrays:
            return False
        if any(leaf in inlined for leaf in leaves(r.e, self.unbroadcast) if isinstance(leaf, str)):
            return True
        return _operations(r.e) >= LINE_OPERATIONS

    def _float_reads(self, r: Line, lines: dict) -> set:
        """The names an element of ``r`` reads and the ``ast.dump`` of what its ``unbroadcast`` sums down to,
        through the run's lines but those looped (whose arrays are of float64): a looped line's array is of
        float64, as the line's is where each of those is a float64 vector or a real number (``fits_float``,
        ``float_line``)."""
        names = [r.g] if r.kind == "view" else [leaf for leaf in leaves(r.e, self.unbroadcast) if isinstance(leaf, str)]
        out = set() if r.kind == "view" else {ast.dump(span) for span in spans(r.e)}
        for name in names:
            out.add(name)
            inner = lines.get(name)
            if inner is not None and name not in self.looped:
                out |= self._float_reads(inner, lines)
        return out

    # ---- the loops

    def loops(self, run: list, made: set, inlined: dict):
        """The statements of the run's fast branch: each line made as it was, each scatter a loop, consecutive
        scatters that may be one loop one loop, the other statements in their places."""
        out: list = []
        group: list = []  # the scatters of the loop being gathered

        def close():
            if group:
                out.extend(self.loop(group, inlined))
                self.fresh_made |= {r.target for r in group if r.kind == "fresh"}
                group.clear()

        for r in run:
            if r.kind == "comment":
                out.append(r.stmt)
                continue
            if r.kind == "other":
                close()
                out.append(r.stmt)
                self.rebound |= r.targets
                continue
            if r.kind in ("lazy", "view"):
                if r.target in self.looped:
                    close()
                    out.extend(self.line_loop(r, inlined))
                    self.fresh_made.add(r.target)
                elif r.target in made:
                    close()
                    out.append(r.stmt)
                    self.rebound.add(r.target)
                continue
            if group and not self.joins(group, r, inlined):
                close()
            group.append(r)
        close()
        return out

    def joins(self, group: list, r: Line, inlined: dict) -> bool:
        """Whether scatter ``r`` may run in the loop of ``group``: a vector read at the loop's index by both (the
        same count), neither reading what the other writes, no accumulator added into twice."""
        written = {q.target for q in group}
        if r.target in written:
            return False
        mine = self._read_at_index(r, inlined)
        if not any(mine & self._read_at_index(q, inlined) for q in group):
            return False
        reads = self._expanded(r, inlined, set())
        return not reads & written and not any(r.target in self._expanded(q, inlined, set()) for q in group)

    def _read_at_index(self, r: Line, inlined: dict) -> set:
        """The vectors the run binds that ``r``'s element ``k`` reads at ``k`` itself (their lengths: the count)."""
        return {leaf for leaf in leaves(r.e, self.unbroadcast) if isinstance(leaf, str) and leaf in inlined}

    def loop(self, group: list, inlined: dict) -> list:
        """The loop of ``group``'s scatters (a fresh one's zeros and line made before it)."""
        k = fresh_name(self.taken, "k")
        numpy = _load(self.numpy)
        out, body = [], []
        for r in group:
            value = self.element(r.e, _load(k), inlined, r.length)
            if r.kind == "fresh":
                shape = ast.Call(ast.Attribute(numpy, "shape", ast.Load()), [_load(r.x)], [])
                out.append(_assign(r.target, ast.Call(ast.Attribute(numpy, "empty", ast.Load()), [shape], [])))
                part = ast.Subscript(self.call("line_of", [_load(r.target), r.index]), ast.Constant(1), ast.Load())
                out.append(_assign(r.line, part))
                out.append(ast.Expr(self.call("zero_outside", [_load(r.target), _load(r.line)])))
                body.append(
                    ast.Assign(
                        [ast.Subscript(_load(r.line), _load(k), ast.Store())],
                        ast.BinOp(ast.Constant(0.0), ast.Add(), value),
                    )
                )
            else:
                body.append(ast.AugAssign(ast.Subscript(_load(r.line), _load(k), ast.Store()), ast.Add(), value))
        out.append(ast.For(ast.Name(k, ast.Store()), ast.Call(_load("range"), [_load(group[0].length)], []), body, []))
        return out

    def line_loop(self, r: Line, inlined: dict) -> list:
        """Lazy line ``r``, made, as a loop storing each element into its array (of float64: the tests say so)."""
        k = fresh_name(self.taken, "k")
        numpy = _load(self.numpy)
        store = ast.Assign(
            [ast.Subscript(_load(r.target), _load(k), ast.Store())], self.element(r.e, _load(k), inlined, r.length)
        )
        return [
            _assign(r.target, ast.Call(ast.Attribute(numpy, "empty", ast.Load()), [_load(r.length)], [])),
            ast.For(ast.Name(k, ast.Store()), ast.Call(_load("range"), [_load(r.length)], []), [store], []),
        ]

    def element(self, e, at, inlined: dict, size: str):
        """The element ``at`` of ``e``, a vector of ``size`` elements: names not made computed where they are read,
        a name bound before the run read from its line (``as_line``), a fresh scatter's zeros indexed."""
        if isinstance(e, ast.Name):
            r = inlined.get(e.id)
            if r is None:
                if e.id in self.fresh_made:
                    return ast.Subscript(_load(e.id), at, ast.Load())
                if e.id in self.rebound:
                    return self.call("element", [_load(e.id), at])
                line = self.bound.setdefault((e.id, size), fresh_name(self.taken, f"{e.id}_line"))
                return ast.Subscript(_load(line), at, ast.Load())
            if r.kind == "view":
                where = at if r.at is None else ast.BinOp(_load(r.at), ast.Add(), at)
                return self.element(ast.Name(r.g, ast.Load()), where, inlined, self.whole[r.target])
            return self.element(r.e, at, inlined, r.length)
        if isinstance(e, ast.Constant):
            return e
        if isinstance(e, ast.BinOp):
            left, right = self.element(e.left, at, inlined, size), self.element(e.right, at, inlined, size)
            if isinstance(
                e.op, ast.Div
            ):  # (NumPy's division of the elements: a zero divisor gives inf, as the array's)
                return ast.Call(ast.Attribute(_load(self.numpy), "divide", ast.Load()), [left, right], [])
            return ast.BinOp(left, e.op, right)
        if isinstance(e, ast.UnaryOp):
            return ast.UnaryOp(e.op, self.element(e.operand, at, inlined, size))
        return self.element(e.args[0], at, inlined, size)  # unbroadcast to a vector of the same length: e itself


def _operations(e) -> int:
    """The arithmetic operations of elementwise ``e``."""
    if isinstance(e, ast.BinOp):
        return 1 + _operations(e.left) + _operations(e.right)
    if isinstance(e, ast.UnaryOp):
        return 1 + _operations(e.operand)
    if isinstance(e, ast.Call):
        return _operations(e.args[0])
    return 0


def _name(e) -> bool:
    return isinstance(e, ast.Name)


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _assign(name: str, value) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


def _tuple_store(*names: str) -> ast.Tuple:
    return ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())


def _compare(name: str, op, right) -> ast.Compare:
    return ast.Compare(_load(name), [op], [right])


def _sum(terms: list):
    total = terms[0]
    for t in terms[1:]:
        total = ast.BinOp(total, ast.Add(), t)
    return total


def fused_runs(function: ast.FunctionDef, **helpers) -> None:
    """``function`` (a generated function's ``ast``, its accumulators added into in place already) with each run
    of the module docstring rewritten, in place, before ``by_element`` writes the lines left."""
    runs = Runs(function, **helpers)
    for node in list(ast.walk(function)):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, runs.block(block))
