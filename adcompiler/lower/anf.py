"""ast -> A-normal form: the statements (expressions are lowered in expressions.py).

Accepts a fenced ``parse.Parsed`` function.  Returns an ``ir.Function`` whose
body is a list of ``Eq`` (one primitive applied to atoms) ending in a
``Return``.  Every nested sub-expression gets its own variable: named after the
user's variable when it is the whole right-hand side (``z``; a reassigned ``z``
becomes ``z_1``), a numbered temporary ``t1`` otherwise.  Tuples are kept
symbolic (a tuple of atoms), so ``a, b = b, a`` and ``p = g(x); p[0]``-free
tuple code needs no tuple objects at all.

The lowering is one object per concept, each in its own module, composed rather than inherited:
``StatementLowering`` here (statements, and the function around them), ``expressions`` (operators,
comparisons, calls), ``names`` (names and globals), ``lists``, ``arrays`` (with ``spellings``, NumPy's
other spellings), ``idioms`` (everyday Python: sum of a generator, sorted, print, assert), ``records``
(dicts, NamedTuples, dataclasses) and ``nested`` (calls of derivatives).  What they share is one
``emitter.Emitter``: the block being built, the environment of names, the slots and what was read of
them, and the operations that emit (``apply``, ``read``, ``write``, ...); statement-only state
(``assigned``, the return's slots) stays on ``StatementLowering``.  ``Lowering`` makes them all for one
function, each given the ``Lowering`` itself: that record is how one concept calls another
(``self.lower.arrays.numpy_call(...)``; expressions call arrays, arrays call expressions back), so the
references between them are set up in this one place.
"""

from __future__ import annotations

import ast
import builtins

from ..front.parallel import is_prange
from ..ir.nodes import (
    EXTENDED,
    IN_PLACE,
    UNPACKED,
    Break,
    Const,
    Continue,
    Eq,
    For,
    Function,
    If,
    Return,
    Var,
    While,
    flatten,
)
from ..ir.nodes import rebuild
from ..ir.supplied import constant
from ..front.names import Namer
from ..front.parse import BINOPS, Parsed
from .arrays import ArrayLowering
from .emitter import Emitter
from .expressions import ExpressionLowering
from .idioms import IdiomLowering, desugar_loop_else
from .lists import ListLowering, is_append
from .names import NameLowering
from .nested import NestedLowering
from .params import separate_rebound_params
from .records import Record, RecordLowering
from .spellings import SpellingLowering
from ..front.scopes import falls_through, find_slots, loop_targets, may_jump, may_return, nodes


def lower(parsed: Parsed, namer: Namer, callee_shape, foreign: bool = False, cell_name=None) -> Function:
    """Lower one parsed function to ANF; ``callee_shape(fn, node)`` gives a callee's output shape; ``foreign``:
    the function is of another module than the code generated for it runs in (its module's numbers and
    arrays are then handed to the code, not read by their names: ``names.NameLowering.name``);
    ``cell_name(name, cell)``: the name the code reads a closure's variable by (``Program.cell_name``)."""
    return Lowering(parsed, namer, callee_shape, foreign, cell_name).statements.run()


class Lowering:
    """The lowerers of one function, one per concept, made here together: each holds this record, and
    calls another concept's through it (``self.lower.arrays.numpy_call(...)``); all of them emit through
    the one ``Emitter`` (``self.emit``)."""

    def __init__(self, parsed: Parsed, namer: Namer, callee_shape, foreign: bool, cell_name=None):
        self.emit = Emitter(parsed, namer)
        self.statements = StatementLowering(self)
        self.expressions = ExpressionLowering(self, callee_shape)
        self.names = NameLowering(self, foreign, cell_name or (lambda name, cell, closure: name))
        self.lists = ListLowering(self)
        self.arrays = ArrayLowering(self)
        self.spellings = SpellingLowering(self)
        self.idioms = IdiomLowering(self)
        self.records = RecordLowering(self)
        self.nested = NestedLowering(self)


class StatementLowering:
    """Statements -> ANF: assignments, branches, loops, returns (and the function around them: ``run``)."""

    def __init__(self, lower):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see Lowering)
        self.assigned: set = set()  # slots surely assigned on the path being lowered
        self.block_assigned: set = set()  # what the last block lowered surely assigned, for an if to merge
        self.direct_return = False  # the function returns once, at its end
        self.results = None  # the slots holding the return value, when there are several returns
        self.returned = None  # the flag slot set by a return inside a loop

    def run(self) -> Function:
        fdef = self.parsed.node
        desugar_loop_else(fdef, self.emit.namer.fresh)
        params = tuple(a.arg for a in fdef.args.args + fdef.args.kwonlyargs)
        separate_rebound_params(fdef, params, self.emit.namer.fresh)
        for p in params:
            self.emit.env[p] = Var(p)
            self.emit.defined.add(p)
        targets = loop_targets(fdef)
        self.emit.loop_names = {  # every name a for loop binds (for i, (a, b) in ...: i, a and b)
            n.id
            for loop in nodes(fdef)
            if isinstance(loop, ast.For)
            for n in ast.walk(loop.target)
            if isinstance(n, ast.Name)
        }
        self.emit.slots = find_slots(fdef) - targets
        self.refuse_parameter_loop_variables(fdef, params)
        read = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for stmt in nodes(fdef):
            if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                for t in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    clash = next(
                        (
                            n
                            for n in ast.walk(t)
                            if isinstance(n, ast.Name)
                            and isinstance(n.ctx, ast.Store)
                            and n.id in targets
                            and n.id in read  # (a name never read, _ of `for _ in` and `a, _ = ...`: no clash)
                        ),
                        None,
                    )
                    if clash is not None:
                        raise self.parsed.error(
                            clash,
                            f"assigning to {clash.id!r}, which is also a for-loop variable",
                            "use a different name for one of them",
                        )
        self.emit.defined |= self.emit.slots
        self.assigned = set(params) & self.emit.slots
        returns = [n for n in nodes(fdef) if isinstance(n, ast.Return)]
        self.direct_return = len(returns) == 1 and fdef.body[-1] is returns[0]
        positional = (self.parsed.obj.__defaults__ or ())[::-1]
        defaults = tuple(constant(v, f"{a.arg}_default") for v, a in zip(positional, fdef.args.args[::-1]))[::-1]
        kwdefaults = self.parsed.obj.__kwdefaults__ or {}
        defaults += tuple(constant(kwdefaults[a.arg], f"{a.arg}_default") for a in fdef.args.kwonlyargs)
        statements = [s for s in fdef.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if not returns and statements:  # a procedure (it fills a list it is given): it returns None
            end = ast.Return(ast.Constant(None), lineno=statements[-1].lineno, col_offset=0)
            statements.append(end)
            returns, self.direct_return = [end], True
        if not returns or (falls_through(statements) and not self.direct_return):
            raise self.parsed.error(
                fdef,
                f"the function {fdef.name} may end without returning a value",
                "end every path with return <value>",
            )
        if any(may_return(s) for s in nodes(fdef) if isinstance(s, (ast.For, ast.While))):
            self.returned = self.emit.hidden_slot("returned")
            self.emit.write(self.returned, Const(False), fdef.lineno)
        self.lower_stmts(statements, 0)
        if not self.direct_return:
            reads = [self.emit.read(slot) for slot in self.results[1]]
            self.emit.body.append(Return(rebuild(self.results[0], iter(reads)), fdef.body[-1].lineno))
        slots = frozenset(self.emit.slots)
        return Function(fdef.name, params, defaults, tuple(self.emit.body), self.parsed.source, slots)

    def refuse_parameter_loop_variables(self, fdef, params) -> None:
        """A parameter bound by a for loop: after the loop it holds the argument or the last element,
        which the derivative cannot tell apart from the argument; refused at the loop."""
        for loop in nodes(fdef):
            bound = [n for n in ast.walk(loop.target) if isinstance(n, ast.Name)] if isinstance(loop, ast.For) else []
            for name in bound:
                if name.id in params:
                    raise self.parsed.error(
                        name,
                        f"the parameter {name.id!r} as a for-loop variable",
                        f"give the loop its own variable (for item in ...) and assign {name.id} = item if needed",
                    )

    def block(self, stmts, loops: int) -> tuple:
        """Lower a nested block; names it binds do not leak out (slots carry what must)."""
        saved_body, saved_env, saved_assigned = self.emit.body, dict(self.emit.env), set(self.assigned)
        self.emit.body = []
        self.lower_stmts(list(stmts), loops)
        out = tuple(self.emit.body)
        self.block_assigned = self.assigned  # what the block surely assigned, for an if to merge
        self.emit.body, self.emit.env, self.assigned = saved_body, saved_env, saved_assigned
        return out

    def lower_stmts(self, stmts: list, loops: int) -> None:
        """Lower a block so that jumps end it: what follows a conditional jump moves into the paths that fall through."""
        for i, stmt in enumerate(stmts):
            self.emit.line = stmt.lineno
            rest = stmts[i + 1 :]
            if isinstance(stmt, ast.Return):
                return self.ret(stmt, loops)
            if isinstance(stmt, (ast.Break, ast.Continue)):
                self.emit.body.append(Break(stmt.lineno) if isinstance(stmt, ast.Break) else Continue(stmt.lineno))
                return None
            if isinstance(stmt, ast.If) and may_jump(stmt):
                return self.if_(stmt, loops, rest)
            self.statement(stmt, loops)
            if isinstance(stmt, (ast.For, ast.While)) and may_return(stmt):
                read = self.emit.read(self.returned)
                exit_ = (Break(stmt.lineno),) if loops else ()
                self.emit.body.append(If(read, exit_, self.block(rest, loops), stmt.lineno))
                return None
        return None

    def statement(self, stmt, loops: int) -> None:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Subscript) and len(stmt.targets) == 1:
            self.lower.lists.setitem(stmt.targets[0], self.lower.expressions.expr(stmt.value))
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Subscript):
            load = ast.Subscript(
                stmt.target.value, stmt.target.slice, ast.Load(), lineno=stmt.lineno, col_offset=stmt.col_offset
            )
            current = self.lower.expressions.expr(load)
            self.lower.lists.setitem(
                stmt.target,
                self.emit.apply(BINOPS[type(stmt.op)], [current, self.lower.expressions.expr(stmt.value)], None),
            )
        elif isinstance(stmt, ast.Expr) and is_append(stmt.value):
            self.lower.lists.append(stmt.value)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.lower.expressions.expr(stmt.value)  # a call for its effect on a list argument; the value is dropped
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Attribute):
                    raise self.parsed.error(
                        target,
                        f"assigning to the attribute {ast.unparse(target)} (an object is a value here, not changed)",
                        "make a new object with the new value (s = Stats(s.a * s.b, s.b)), or keep it in a name",
                    )
                if not isinstance(target, (ast.Name, ast.Tuple)):
                    raise self.parsed.error(
                        target, "assignment to this target", "assign to a plain name or a tuple of names"
                    )
            value = self.lower.expressions.expr(stmt.value, hint=_hint(stmt.targets[-1]))
            for target in stmt.targets:
                self.bind(target, value)
        elif isinstance(stmt, ast.AugAssign) and _extends(stmt):  # xs += [a, b]: the list itself extended, as
            # Python's += of a list does (another name of it sees the items), not a new list
            self.extend(stmt)
        elif isinstance(stmt, ast.AugAssign):
            if isinstance(stmt.target, ast.Attribute):
                raise self.parsed.error(
                    stmt.target,
                    f"changing the attribute {ast.unparse(stmt.target)} (an object is a value here, not changed)",
                    "make a new object with the new value, or keep the value in a name: v = s.a; v += 1.0",
                )
            if not isinstance(stmt.target, ast.Name):
                raise self.parsed.error(stmt.target, "augmented assignment to this target", "use a plain name: x += y")
            current = self.lower.names.name(stmt.target)
            right = self.lower.expressions.expr(stmt.value)
            changed = self.emit.apply(BINOPS[type(stmt.op)], [current, right], stmt.target.id, param=IN_PLACE)
            self.bind(stmt.target, changed)  # on an array NumPy changes it in place: see inplace.py
        elif isinstance(stmt, ast.If):
            self.if_(stmt, loops, [])
        elif isinstance(stmt, (ast.For, ast.While)):
            pinned = dict(self.emit.pinned)
            self.pin_invariant_slots(stmt)
            self.for_(stmt, loops) if isinstance(stmt, ast.For) else self.while_(stmt, loops)
            self.emit.pinned = pinned
        elif isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            pass  # a string as a comment
        elif isinstance(stmt, ast.Expr):  # generated code differentiated again: a product run for its error only
            self.lower.expressions.expr(stmt.value)  # (optimize.known_arrays; the fence refuses one in user code)
        elif isinstance(stmt, ast.Assert):
            self.lower.idioms.assert_(stmt)
        else:
            raise self.parsed.error(
                stmt, f"the statement {type(stmt).__name__}", "use assignments, if, for, while and return"
            )

    def extend(self, stmt: ast.AugAssign) -> None:
        """``xs += [a, b]``: ``xs.append(a)``, ``xs.append(b)``; ``xs += [f(v) for v in vs]`` or ``xs +=
        list(...)``: ``xs.extend(...)`` (see ``_extends``)."""
        method = lambda name: ast.Attribute(stmt.target, name, ast.Load())  # noqa: E731
        if isinstance(stmt.value, ast.List):
            xs = self.emit.element(self.lower.names.name(stmt.target))
            for item in stmt.value.elts:  # (marked: of an array, refused where the analysis knows it is one)
                value = self.emit.element(self.lower.expressions.expr(item))
                self.emit.body.append(Eq((), "append", (xs, value), self.emit.line, EXTENDED))
            return
        self.lower.lists.list_method(ast.copy_location(ast.Call(method("extend"), [stmt.value], []), stmt), None)

    def pin_invariant_slots(self, loop) -> None:
        """Read once, before ``loop``, each slot its body reads but never assigns (and that is surely
        assigned already): every iteration sees the same value, so the adjoint sweep has one value
        to keep per run of the loop instead of one per iteration."""
        names = [n for n in nodes(loop) if isinstance(n, ast.Name)]
        stored = {n.id for n in names if not isinstance(n.ctx, ast.Load)}
        stored |= {
            t.id for n in nodes(loop) if isinstance(n, ast.AugAssign) for t in [n.target] if isinstance(t, ast.Name)
        }
        read = [n.id for n in names if isinstance(n.ctx, ast.Load)]
        for name in dict.fromkeys(read):
            if (
                name in self.emit.slots
                and name in self.assigned
                and name not in stored
                and name not in self.emit.pinned
            ):
                self.emit.pinned[name] = self.emit.read(Var(name))

    def if_(self, stmt: ast.If, loops: int, rest: list) -> None:
        test = self.emit.atom(self.lower.expressions.expr(stmt.test))
        body = stmt.body + rest if falls_through(stmt.body) else stmt.body
        orelse = stmt.orelse + rest if falls_through(stmt.orelse) else stmt.orelse
        lowered_body = self.block(body, loops)
        assigned_body = self.block_assigned
        lowered_orelse = self.block(orelse, loops)
        self.assigned |= assigned_body & self.block_assigned  # assigned on both paths
        self.emit.body.append(If(test, lowered_body, lowered_orelse, stmt.lineno))

    def for_(self, stmt: ast.For, loops: int) -> None:
        if stmt.orelse:
            raise self.parsed.error(stmt, "for ... else", "set a flag before break and test it after the loop")
        it = stmt.iter
        functions = self.lower.names.function_list(it)
        if functions is not None:  # for f in fs, fs a list of functions the module or a closure holds
            return self.unrolled(stmt, functions, loops)
        keys = self.lower.names.constant_keys(it)
        if keys is not None:  # for k in ["W", "b"]: params[k], each key a constant
            return self.unrolled_keys(stmt, keys, loops)
        backwards = _reversed_range(it)
        if backwards is not None:
            it = backwards
        parallel = backwards is None and self.parallel_range(it)
        if not parallel and not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            return self.lower.lists.iterate(stmt, loops)
        if not isinstance(stmt.target, ast.Name):
            raise self.parsed.error(stmt.target, "unpacking a range loop's index", "use one name: for i in range(n)")
        if not (
            (parallel or self.lower.names.resolve(it.func) is builtins.range)
            and 1 <= len(it.args) <= 3
            and not it.keywords
        ):
            raise self.parsed.error(it, f"a for loop over {ast.unparse(it)}", "loop over range(...)")
        args = [self.emit.atom(self.lower.expressions.expr(a)) for a in it.args]
        start, stop, step = (
            (Const(0), args[0], Const(1))
            if len(args) == 1
            else (args[0], args[1], args[2] if len(args) == 3 else Const(1))
        )
        if backwards is not None:  # reversed(range(a, b, s)) is range(a + (n - 1) * s, a - s, -s), n its length
            n = self.emit.apply("len", [self.emit.apply("range", [start, stop, step], None)], None)
            last = self.emit.apply(
                "add", [start, self.emit.apply("mul", [self.emit.apply("sub", [n, Const(1)], None), step], None)], None
            )
            start, stop, step = last, self.emit.apply("sub", [start, step], None), self.emit.apply("neg", [step], None)
        target = self.emit.new_var(stmt.target.id)
        saved = self.emit.env.get(stmt.target.id)
        self.emit.env[stmt.target.id] = target
        body = self.block(stmt.body, loops + 1)
        if saved is None:
            del self.emit.env[stmt.target.id]
        else:
            self.emit.env[stmt.target.id] = saved
        self.emit.body.append(For(target, start, stop, step, body, stmt.lineno, parallel))

    def parallel_range(self, it) -> bool:
        """Whether ``it`` is ``prange(...)`` (Numba's or adcompiler's, under any name: ``from numba import
        prange as pr``): a loop of independent iterations."""
        func = it.func if isinstance(it, ast.Call) else None
        if isinstance(func, ast.Name):  # a global's name (a local one holds no prange)
            return (
                func.id not in self.emit.env
                and func.id not in self.emit.slots
                and is_prange(self.lower.names.resolve(func))
            )
        return isinstance(func, ast.Attribute) and func.attr == "prange" and is_prange(self.lower.names.resolve(func))

    def unrolled(self, stmt: ast.For, functions: tuple, loops: int) -> None:
        """``for f in fs: x = f(x)`` over a list of functions: the body once per function, ``f(...)``
        a call of that function (each may be of another kind: a loop could not call them alike)."""
        if not isinstance(stmt.target, ast.Name):
            raise self.parsed.error(stmt.target, "unpacking a function of a list of them", "loop over one name")
        jump = next((n for n in nodes(stmt) if isinstance(n, (ast.Break, ast.Continue, ast.Return))), None)
        if jump is not None:
            raise self.parsed.error(
                jump, f"{type(jump).__name__.lower()} in a loop over functions", "loop without jumps: for f in fs"
            )
        saved = self.emit.called.get(stmt.target.id)
        for function in functions:
            self.emit.called[stmt.target.id] = function
            self.lower_stmts(list(stmt.body), loops)
        if saved is None:
            del self.emit.called[stmt.target.id]
        else:
            self.emit.called[stmt.target.id] = saved

    def unrolled_keys(self, stmt: ast.For, keys: tuple, loops: int) -> None:
        """``for k in ["l1", "l2"]: h = layer(params[k], h)`` over string constants: the body once per key,
        ``k`` that key (so ``params[k]`` reads an item of a dict by a constant key); ``k`` keeps the last
        one after the loop, as in Python."""
        target = stmt.target
        if not isinstance(target, ast.Name) or target.id in self.emit.slots:
            raise self.parsed.error(target, "this target of a loop over keys", "loop over one name: for k in keys")
        jump = next((n for n in nodes(stmt) if isinstance(n, (ast.Break, ast.Continue, ast.Return))), None)
        if jump is not None:
            raise self.parsed.error(
                jump, f"{type(jump).__name__.lower()} in a loop over constant keys", "loop without jumps: for k in keys"
            )
        for key in keys:
            self.emit.env[target.id] = Const(key)
            self.lower_stmts(list(stmt.body), loops)

    def while_(self, stmt: ast.While, loops: int) -> None:
        if stmt.orelse:
            raise self.parsed.error(stmt, "while ... else", "set a flag before break and test it after the loop")
        saved = self.emit.body
        self.emit.body = []
        test = self.emit.atom(self.lower.expressions.expr(stmt.test))
        header, self.emit.body = tuple(self.emit.body), saved
        self.emit.body.append(While(header, test, self.block(stmt.body, loops + 1), stmt.lineno))

    def ret(self, stmt: ast.Return, loops: int) -> None:
        if stmt.value is None:
            raise self.parsed.error(stmt, "return without a value", "return the function's result")
        value = self.lower.records.solid(self.lower.expressions.expr(stmt.value))
        if self.direct_return:
            self.emit.body.append(Return(value, stmt.lineno))
            return
        leaves = flatten(value)
        shape = _shape(value)
        if self.results is None:
            self.results = (shape, [self.emit.hidden_slot("result") for _ in leaves])
        elif self.results[0] != shape:
            raise self.parsed.error(
                stmt, "returns of different shapes", "return the same number of values on every path"
            )
        for slot, leaf in zip(self.results[1], leaves, strict=True):
            self.emit.write(slot, leaf, stmt.lineno)
        if loops:
            self.emit.write(self.returned, Const(True), stmt.lineno)
            self.emit.body.append(Break(stmt.lineno))

    def bind(self, target, value) -> None:
        """Give a user name (or a tuple of names) the value of an atom or symbolic tuple."""
        if isinstance(value, Record) and hasattr(value.cls, "_fields") and not isinstance(target, ast.Name):
            value = tuple(value)  # m, v = Stats(...): a NamedTuple unpacks into its items
        if isinstance(target, ast.Tuple) and any(isinstance(e, ast.Starred) for e in target.elts):
            return self.unpack_starred(target, value)
        if isinstance(value, Record) and not isinstance(target, ast.Name):
            raise self.parsed.error(
                target, "unpacking a dict (Python gives its keys)", "unpack d.values() or d.items()"
            )
        if isinstance(target, ast.Name):
            if any(v is value for v in self.emit.env.values()) or target.id in self.emit.slots:
                self.lower.records.share(value)  # a dict now named twice: changing it through one name is refused
            if target.id in self.emit.slots:  # a tuple kept in a name assigned in several places is a tuple object
                self.emit.write(Var(target.id), self.emit.element(value), self.emit.line)
                self.assigned.add(target.id)
            else:
                self.emit.env[target.id] = value
            return
        if isinstance(value, Var):  # unpacking a real tuple, list or array: Python's length check, one read per name
            self.emit.body.append(Eq((), "effect", (value, Const(len(target.elts))), self.emit.line, UNPACKED))
            value = tuple(
                self.emit.apply("getitem", [value, Const(k)], _hint(t) if isinstance(t, ast.Name) else None)
                for k, t in enumerate(target.elts)
            )
        if not isinstance(value, tuple) or len(value) != len(target.elts):
            size = len(value) if isinstance(value, tuple) else 1
            raise self.parsed.error(
                target,
                f"unpacking {size} value(s) into {len(target.elts)} names",
                "unpack exactly as many names as there are values",
            )
        for elt, item in zip(target.elts, value, strict=True):
            if isinstance(elt, ast.Subscript):  # a[i], a[j] = a[j], a[i]: left to right, values read first
                self.lower.lists.setitem(elt, self.emit.element(item))
                continue
            if not isinstance(elt, (ast.Name, ast.Tuple)):
                raise self.parsed.error(elt, "unpacking into this target", "unpack into plain names")
            self.bind(elt, item)

    def unpack_starred(self, target: ast.Tuple, value) -> None:
        """``a, *rest, z = value``: the names before the star read by position, those after it from the
        end, and the starred name a new list of the items between, as Python gives them (a list even of a
        tuple); Python's own length check (at least as many items as plain names) where the length is
        known here, else the reads' IndexError."""
        k = next(j for j, e in enumerate(target.elts) if isinstance(e, ast.Starred))
        after, plain = len(target.elts) - k - 1, len(target.elts) - 1
        if isinstance(value, Record) and hasattr(value.cls, "_fields"):
            value = tuple(value)
        if isinstance(value, Record) or not isinstance(value, (tuple, Var)):
            raise self.parsed.error(target, "starred unpacking of this value", "index it: a = t[0]; rest = t[1:]")
        if isinstance(value, tuple) and len(value) < plain:
            raise self.parsed.error(
                target,
                f"unpacking {len(value)} value(s) into at least {plain} names",
                "unpack at most as many plain names as there are values",
            )
        held = "*unpacked"  # a name no variable of the user's can have, for the reads below
        self.emit.env[held] = value

        def read(index, hint):
            where = dict(lineno=target.lineno, col_offset=target.col_offset)
            node = ast.Subscript(ast.Name(held, ast.Load(), **where), index, ast.Load(), **where)
            return self.lower.lists.subscript(node, hint)

        items = []
        for j, elt in enumerate(target.elts):
            if j != k:
                items.append(read(ast.Constant(j if j < k else j - len(target.elts)), _hint(elt)))
                continue
            star = elt.value
            part = read(ast.Slice(ast.Constant(k), ast.Constant(-after) if after else None, None), None)
            if isinstance(part, tuple):
                items.append(self.emit.apply("list", [self.emit.element(p) for p in part], _hint(star)))
            else:
                items.append(self.emit.apply("list_copy", [self.emit.element(part)], _hint(star)))
        del self.emit.env[held]
        for elt, item in zip(target.elts, items, strict=True):
            self.bind(elt.value if isinstance(elt, ast.Starred) else elt, item)


def _hint(target):
    """The user's name(s) for a value: a name, or a tuple shaped like the target."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Tuple):
        return tuple(_hint(elt) for elt in target.elts)
    return None


def _reversed_range(it):
    """The ``range(...)`` call inside ``reversed(range(...))``, else None."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and len(it.args) == 1:
        inner = it.args[0]
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "range":
            return inner
    return None


def _shape(value):
    """The shape of a value: None for one atom, nested tuples for a (nested) tuple of them."""
    return tuple(_shape(v) for v in value) if isinstance(value, tuple) else None


def output_shape(fn: Function):
    """The shape of a function's return value: None for one value, nested tuples otherwise."""
    return _shape(fn.body[-1].value)


def _extends(stmt: ast.AugAssign) -> bool:
    """Whether ``stmt`` is ``name += <a list>``: a list display (no ``*``), a list comprehension or a call of
    ``list``, which only a list's ``+=`` takes (an array's too: ``a += [1.0, 2.0]`` is refused then, the
    append of an array).  Where the right side is a name, ``+=`` may be a number's (lowered as ``x = x + y``)."""
    value = stmt.value
    listed = (
        isinstance(value, ast.List)
        and not any(isinstance(e, ast.Starred) for e in value.elts)
        or isinstance(value, ast.ListComp)
        or isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "list"
    )
    return isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name) and listed
