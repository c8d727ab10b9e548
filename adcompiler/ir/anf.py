"""ast -> A-normal form.

Accepts a fenced ``parse.Parsed`` function.  Returns an ``ir.Function`` whose
body is a list of ``Eq`` (one primitive applied to atoms) ending in a
``Return``.  Every nested sub-expression gets its own variable: named after the
user's variable when it is the whole right-hand side (``z``; a reassigned ``z``
becomes ``z_1``), a numbered temporary ``t1`` otherwise.  Tuples are kept
symbolic (a tuple of atoms), so ``a, b = b, a`` and ``p = g(x); p[0]``-free
tuple code needs no tuple objects at all.
"""

from __future__ import annotations

import ast
import builtins
import types

from .. import rules
from ..analysis.inplace import IN_PLACE
from ..errors import MissingRuleError
from .nodes import Break, Const, Continue, Eq, For, Function, If, Return, Var, While, flatten, rebuild
from ..front.environment import ABSENT, Read
from ..front.names import Namer, is_builtin, root
from ..front.parse import BINOPS, COMPARES, UNARYOPS, Parsed
from .lower_numpy import ArrayLowering, numpy_name
from .lower_lists import ListLowering, is_append
from ..back.runtime import CHANGES, INERT, MAKES
from ..front.scopes import falls_through, find_slots, loop_targets, may_jump, may_return, nodes


def lower(parsed: Parsed, namer: Namer, callee_shape) -> Function:
    """Lower one parsed function to ANF; ``callee_shape(fn)`` gives a callee's output shape."""
    return _Lowering(parsed, namer, callee_shape).run()


class _Lowering(ListLowering, ArrayLowering):
    def __init__(self, parsed: Parsed, namer: Namer, callee_shape):
        self.parsed = parsed
        self.namer = namer
        self.callee_shape = callee_shape
        self.env: dict = {}
        self.defined: set = set()  # SSA names already given out in this function
        self.body: list = []
        self.line = parsed.node.lineno
        self.assigned: set = set()  # slots surely assigned on the path being lowered
        self.pinned: dict = {}  # slot -> its value read once before a loop that never assigns it
        self.last_read: dict = {}  # slot -> (the block, its read there): reused until the slot is written

    # ---- statements -------------------------------------------------------------

    def run(self) -> Function:
        fdef = self.parsed.node
        params = tuple(a.arg for a in fdef.args.args)
        for p in params:
            self.env[p] = Var(p)
            self.defined.add(p)
        targets = loop_targets(fdef)
        self.loop_names = {  # every name a for loop binds (for i, (a, b) in ...: i, a and b)
            n.id
            for loop in nodes(fdef)
            if isinstance(loop, ast.For)
            for n in ast.walk(loop.target)
            if isinstance(n, ast.Name)
        }
        self.slots = find_slots(fdef) - targets
        for stmt in nodes(fdef):
            if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                for t in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    clash = next(
                        (
                            n
                            for n in ast.walk(t)
                            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in targets
                        ),
                        None,
                    )
                    if clash is not None:
                        raise self.parsed.error(
                            clash,
                            f"assigning to {clash.id!r}, which is also a for-loop variable",
                            "use a different name for one of them",
                        )
        self.defined |= self.slots
        self.assigned = set(params) & self.slots
        returns = [n for n in nodes(fdef) if isinstance(n, ast.Return)]
        self.direct_return = len(returns) == 1 and fdef.body[-1] is returns[0]
        self.results = None  # the slots holding the return value, when there are several returns
        self.returned = None  # the flag slot set by a return inside a loop
        defaults = tuple(Const(v) for v in (self.parsed.obj.__defaults__ or ()))
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
            self.returned = self.hidden_slot("returned")
            self.write(self.returned, Const(False), fdef.lineno)
        self.lower_stmts(statements, 0)
        if not self.direct_return:
            reads = [self.read(slot) for slot in self.results[1]]
            self.body.append(Return(rebuild(self.results[0], iter(reads)), fdef.body[-1].lineno))
        slots = frozenset(self.slots)
        return Function(fdef.name, params, defaults, tuple(self.body), self.parsed.source, slots)

    # ---- statements -------------------------------------------------------------

    def block(self, stmts, loops: int) -> tuple:
        """Lower a nested block; names it binds do not leak out (slots carry what must)."""
        saved_body, saved_env, saved_assigned = self.body, dict(self.env), set(self.assigned)
        self.body = []
        self.lower_stmts(list(stmts), loops)
        out = tuple(self.body)
        self.block_assigned = self.assigned  # what the block surely assigned, for an if to merge
        self.body, self.env, self.assigned = saved_body, saved_env, saved_assigned
        return out

    def lower_stmts(self, stmts: list, loops: int) -> None:
        """Lower a block so that jumps end it: what follows a conditional jump moves into the paths that fall through."""
        for i, stmt in enumerate(stmts):
            self.line = stmt.lineno
            rest = stmts[i + 1 :]
            if isinstance(stmt, ast.Return):
                return self.ret(stmt, loops)
            if isinstance(stmt, (ast.Break, ast.Continue)):
                self.body.append(Break(stmt.lineno) if isinstance(stmt, ast.Break) else Continue(stmt.lineno))
                return None
            if isinstance(stmt, ast.If) and may_jump(stmt):
                return self.if_(stmt, loops, rest)
            self.statement(stmt, loops)
            if isinstance(stmt, (ast.For, ast.While)) and may_return(stmt):
                read = self.read(self.returned)
                exit_ = (Break(stmt.lineno),) if loops else ()
                self.body.append(If(read, exit_, self.block(rest, loops), stmt.lineno))
                return None
        return None

    def statement(self, stmt, loops: int) -> None:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Subscript) and len(stmt.targets) == 1:
            self.setitem(stmt.targets[0], self.expr(stmt.value))
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Subscript):
            load = ast.Subscript(
                stmt.target.value, stmt.target.slice, ast.Load(), lineno=stmt.lineno, col_offset=stmt.col_offset
            )
            current = self.expr(load)
            self.setitem(stmt.target, self.apply(BINOPS[type(stmt.op)], [current, self.expr(stmt.value)], None))
        elif isinstance(stmt, ast.Expr) and is_append(stmt.value):
            self.append(stmt.value)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.expr(stmt.value)  # a call for its effect on a list argument; the value is dropped
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if not isinstance(target, (ast.Name, ast.Tuple)):
                    raise self.parsed.error(
                        target, "assignment to this target", "assign to a plain name or a tuple of names"
                    )
            value = self.expr(stmt.value, hint=_hint(stmt.targets[-1]))
            for target in stmt.targets:
                self.bind(target, value)
        elif isinstance(stmt, ast.AugAssign):
            if not isinstance(stmt.target, ast.Name):
                raise self.parsed.error(stmt.target, "augmented assignment to this target", "use a plain name: x += y")
            current = self.name(stmt.target)
            right = self.expr(stmt.value)
            changed = self.apply(BINOPS[type(stmt.op)], [current, right], stmt.target.id, param=IN_PLACE)
            self.bind(stmt.target, changed)  # on an array NumPy changes it in place: see inplace.py
        elif isinstance(stmt, ast.If):
            self.if_(stmt, loops, [])
        elif isinstance(stmt, (ast.For, ast.While)):
            pinned = dict(self.pinned)
            self.pin_invariant_slots(stmt)
            self.for_(stmt, loops) if isinstance(stmt, ast.For) else self.while_(stmt, loops)
            self.pinned = pinned
        elif isinstance(stmt, ast.Pass):
            pass
        else:
            raise self.parsed.error(
                stmt, f"the statement {type(stmt).__name__}", "use assignments, if, for, while and return"
            )

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
            if name in self.slots and name in self.assigned and name not in stored and name not in self.pinned:
                self.pinned[name] = self.read(Var(name))

    def if_(self, stmt: ast.If, loops: int, rest: list) -> None:
        test = self.atom(self.expr(stmt.test))
        body = stmt.body + rest if falls_through(stmt.body) else stmt.body
        orelse = stmt.orelse + rest if falls_through(stmt.orelse) else stmt.orelse
        lowered_body = self.block(body, loops)
        assigned_body = self.block_assigned
        lowered_orelse = self.block(orelse, loops)
        self.assigned |= assigned_body & self.block_assigned  # assigned on both paths
        self.body.append(If(test, lowered_body, lowered_orelse, stmt.lineno))

    def for_(self, stmt: ast.For, loops: int) -> None:
        if stmt.orelse:
            raise self.parsed.error(stmt, "for ... else", "set a flag before break and test it after the loop")
        it = stmt.iter
        backwards = _reversed_range(it)
        if backwards is not None:
            it = backwards
        elif not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            return self.iterate(stmt, loops)
        if not isinstance(stmt.target, ast.Name):
            raise self.parsed.error(stmt.target, "unpacking a range loop's index", "use one name: for i in range(n)")
        if not (self.resolve(it.func) is builtins.range and 1 <= len(it.args) <= 3 and not it.keywords):
            raise self.parsed.error(it, f"a for loop over {ast.unparse(it)}", "loop over range(...)")
        args = [self.atom(self.expr(a)) for a in it.args]
        start, stop, step = (
            (Const(0), args[0], Const(1))
            if len(args) == 1
            else (args[0], args[1], args[2] if len(args) == 3 else Const(1))
        )
        if backwards is not None:  # reversed(range(a, b, s)) is range(a + (n - 1) * s, a - s, -s), n its length
            n = self.apply("len", [self.apply("range", [start, stop, step], None)], None)
            last = self.apply(
                "add", [start, self.apply("mul", [self.apply("sub", [n, Const(1)], None), step], None)], None
            )
            start, stop, step = last, self.apply("sub", [start, step], None), self.apply("neg", [step], None)
        target = self.new_var(stmt.target.id)
        saved = self.env.get(stmt.target.id)
        self.env[stmt.target.id] = target
        body = self.block(stmt.body, loops + 1)
        if saved is None:
            del self.env[stmt.target.id]
        else:
            self.env[stmt.target.id] = saved
        self.body.append(For(target, start, stop, step, body, stmt.lineno))

    def while_(self, stmt: ast.While, loops: int) -> None:
        if stmt.orelse:
            raise self.parsed.error(stmt, "while ... else", "set a flag before break and test it after the loop")
        saved = self.body
        self.body = []
        test = self.atom(self.expr(stmt.test))
        header, self.body = tuple(self.body), saved
        self.body.append(While(header, test, self.block(stmt.body, loops + 1), stmt.lineno))

    def ret(self, stmt: ast.Return, loops: int) -> None:
        if stmt.value is None:
            raise self.parsed.error(stmt, "return without a value", "return the function's result")
        value = self.expr(stmt.value)
        if self.direct_return:
            self.body.append(Return(value, stmt.lineno))
            return
        leaves = flatten(value)
        shape = _shape(value)
        if self.results is None:
            self.results = (shape, [self.hidden_slot("result") for _ in leaves])
        elif self.results[0] != shape:
            raise self.parsed.error(
                stmt, "returns of different shapes", "return the same number of values on every path"
            )
        for slot, leaf in zip(self.results[1], leaves, strict=True):
            self.write(slot, leaf, stmt.lineno)
        if loops:
            self.write(self.returned, Const(True), stmt.lineno)
            self.body.append(Break(stmt.lineno))

    def bind(self, target, value) -> None:
        """Give a user name (or a tuple of names) the value of an atom or symbolic tuple."""
        if isinstance(target, ast.Name):
            if target.id in self.slots:  # a tuple kept in a name assigned in several places is a tuple object
                self.write(Var(target.id), self.element(value), self.line)
                self.assigned.add(target.id)
            else:
                self.env[target.id] = value
            return
        if isinstance(value, Var):  # unpacking a real tuple or list: one read per name
            value = tuple(
                self.apply("getitem", [value, Const(k)], _hint(t) if isinstance(t, ast.Name) else None)
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
            if not isinstance(elt, (ast.Name, ast.Tuple)):
                raise self.parsed.error(elt, "unpacking into this target", "unpack into plain names")
            self.bind(elt, item)

    def hidden_slot(self, base: str) -> Var:
        """A slot the user did not name (a return value, a flag, a conditional expression's value)."""
        slot = Var(self.namer.fresh(base))
        self.slots.add(slot.name)
        return slot

    def read(self, slot: Var) -> Var:
        """The slot's value: one read per block until the slot is written (``px * px`` reads px once, so
        reverse mode tapes it once)."""
        last = self.last_read.get(slot.name)
        if last is not None and last[0] is self.body:
            return last[1]
        out = Var(self.namer.fresh(root(slot.name)))
        self.body.append(Eq((out,), "read", (slot,), self.line))
        self.last_read[slot.name] = (self.body, out)
        return out

    def write(self, slot: Var, value, line: int) -> None:
        self.body.append(Eq((slot,), "write", (value,), line))
        self.last_read.pop(slot.name, None)

    def atom(self, value):
        if isinstance(value, tuple):
            raise self.parsed.error(
                self.parsed.node, "a tuple used as a condition or loop bound", "use a single number"
            )
        return value

    # ---- expressions ------------------------------------------------------------

    def expr(self, node, hint: str | None = None):
        """Lower an expression to an atom or a tuple of atoms, emitting equations."""
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(elt, _leaf_hint(hint, i)) for i, elt in enumerate(node.elts))
        if isinstance(node, ast.Attribute):
            if _local_root(node.value, self) or not _module_path(node.value, self):
                return self.attribute(node, _leaf_hint(hint))  # of a value: A.T, np.sin(A).T, (A * 2.0).T
            return self.global_constant(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.apply("not", [self.atom(self.expr(node.operand))], _leaf_hint(hint))
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand)
            if isinstance(operand, Const) and isinstance(operand.value, (int, float)) and operand.text is None:
                return Const(-operand.value if isinstance(node.op, ast.USub) else +operand.value)
            return self.apply(UNARYOPS[type(node.op)], [operand], _leaf_hint(hint))
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mult)
            and (isinstance(node.left, ast.List) or isinstance(node.right, ast.List))
        ):
            return self.repeat(node, _leaf_hint(hint))
        if isinstance(node, ast.BinOp):
            left = self.expr(node.left)
            right = self.expr(node.right)
            return self.apply(BINOPS[type(node.op)], [left, right], _leaf_hint(hint))
        if isinstance(node, ast.Call):
            return self.call(node, hint)
        if isinstance(node, ast.List):
            return self.list_literal(node, _leaf_hint(hint))
        if isinstance(node, ast.ListComp):
            return self.comprehension(node, _leaf_hint(hint))
        if isinstance(node, ast.Subscript):
            return self.subscript(node, _leaf_hint(hint))
        if isinstance(node, ast.Compare):
            return self.compare(node, _leaf_hint(hint))
        if isinstance(node, ast.BoolOp):
            slot = self.hidden_slot(_leaf_hint(hint) or "t")
            self.short_circuit(node.op, node.values, slot)
            return self.read(slot)
        if isinstance(node, ast.IfExp):
            return self.if_exp(node, _leaf_hint(hint))
        raise self.parsed.error(
            node, f"the expression {type(node).__name__}", "use arithmetic, math functions and calls"
        )

    def compare(self, node: ast.Compare, hint):
        """``a < b < c`` is ``a < b and b < c``, with ``b`` evaluated once."""
        left = self.atom(self.expr(node.left))
        rights = [self.atom(self.expr(c)) for c in node.comparators]
        tests, prev = [], left
        for op, right in zip(node.ops, rights, strict=True):
            tests.append((COMPARES[type(op)], prev, right))
            prev = right
        if len(tests) == 1:
            return self.apply(tests[0][0], [tests[0][1], tests[0][2]], hint)
        slot = self.hidden_slot(hint or "t")
        self._chain(tests, slot)
        return self.read(slot)

    def _nested(self, build) -> tuple:
        """The statements ``build()`` emits, collected into a separate block."""
        saved = self.body
        self.body = []
        build()
        out, self.body = tuple(self.body), saved
        return out

    def _chain(self, tests, slot) -> None:
        op, a, b = tests[0]
        value = self.apply(op, [a, b], None)
        self.write(slot, value, self.line)
        if len(tests) > 1:
            self.body.append(If(value, self._nested(lambda: self._chain(tests[1:], slot)), (), self.line))

    def short_circuit(self, op, values, slot) -> None:
        """``a and b``: ``r = a; if r: r = b`` (``or``: the else branch), so ``b`` runs only when Python runs it."""
        first = self.atom(self.expr(values[0]))
        self.write(slot, first, self.line)
        if len(values) > 1:
            rest = self._nested(lambda: self.short_circuit(op, values[1:], slot))
            self.body.append(
                If(first, rest, (), self.line) if isinstance(op, ast.And) else If(first, (), rest, self.line)
            )

    def if_exp(self, node: ast.IfExp, hint):
        test = self.atom(self.expr(node.test))
        slot = self.hidden_slot(hint or "t")
        branches = [
            self._nested(lambda b=b: self.write(slot, self.atom(self.expr(b)), self.line))
            for b in (node.body, node.orelse)
        ]
        self.body.append(If(test, branches[0], branches[1], self.line))
        return self.read(slot)

    def name(self, node: ast.Name):
        if node.id in self.pinned:
            return self.pinned[node.id]
        if node.id in self.slots:
            return self.read(Var(node.id))
        if node.id in self.env:
            return self.env[node.id]
        value = self.resolve(node)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return Const(value, node.id)
        if type(value).__name__ == "ndarray":  # a constant array of the module, read when the code runs
            return self.apply("global", [], node.id, param=node.id)
        raise self.parsed.error(
            node,
            f"the global {node.id!r} ({type(value).__name__})",
            "use numbers, NumPy arrays, math functions and functions defined with def",
        )

    def global_constant(self, node: ast.Attribute):
        value = self.resolve(node)
        text = ast.unparse(node)
        canonical = next(
            (c for c, v in rules.CONSTANTS.items() if v == value or (v != v and value != value)),
            None,
        )
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if canonical is None:  # a number of another module (cfg.SCALE), read when the code runs
                self.read_attribute(node, value)
            return Const(value, canonical or text)
        raise self.parsed.error(node, f"the attribute {text}", "use numbers and math functions")

    def read_attribute(self, node: ast.Attribute, value) -> None:
        """Remember that the code depends on ``module.attr`` being ``value`` (a helper of another module
        it calls, a number of another module it reads; see ``front.environment``)."""
        base = self.resolve(node.value)
        if isinstance(base, types.ModuleType):
            self.parsed.reads.append(Read(vars(base), node.attr, value))

    def resolve(self, node):
        """The object a global name or dotted module attribute refers to."""
        if isinstance(node, ast.Name):  # the code depends on what the name holds now (front.environment)
            glob = self.parsed.source.globals
            if node.id in glob:
                value = glob[node.id]
                self.parsed.reads.append(Read(glob, node.id, value))
                return value
            if hasattr(builtins, node.id):
                self.parsed.reads.append(Read(glob, node.id, ABSENT))
                return getattr(builtins, node.id)
            if node.id in self.loop_names:
                raise self.parsed.error(
                    node,
                    f"the loop variable {node.id!r} read after its loop",
                    f"keep the value you need in another name inside the loop (last = {node.id}) and read that",
                )
            raise self.parsed.error(node, f"the undefined name {node.id!r}", "define it before use")
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if not isinstance(base, types.ModuleType) and type(base).__module__.split(".")[0] == "numpy":
                raise self.parsed.error(  # a method of a NumPy object (np.add.at, np.random.rand)
                    node,
                    f"{ast.unparse(node)}, which has no derivative rule",
                    "write it with the NumPy functions adcompiler knows (see README), or give it rules with adcompiler.defrule",
                    MissingRuleError,
                )
            if not isinstance(base, types.ModuleType):
                raise self.parsed.error(
                    node,
                    f"the attribute access {ast.unparse(node)}",
                    "only module attributes such as math.pi or math.sin are supported",
                )
            if not hasattr(base, node.attr):
                raise self.parsed.error(
                    node,
                    f"{ast.unparse(node)} (no such attribute)",
                    "check the spelling",
                )
            return getattr(base, node.attr)
        raise self.parsed.error(node, "calling the result of an expression", "call a named function")

    def call(self, node: ast.Call, hint):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "pop" and not node.args and not node.keywords:
            base = node.func.value
            if isinstance(base, ast.Name) and (base.id in self.env or base.id in self.slots):
                return self.apply("pop", [self.element(self.expr(base))], _leaf_hint(hint))
        if isinstance(node.func, ast.Attribute) and (
            _local_root(node.func.value, self) or not _module_path(node.func.value, self)
        ):
            return self.method_call(node, _leaf_hint(hint))  # a method of a value: x.sum(), np.arange(6).reshape(2, 3)
        if isinstance(node.func, ast.Name) and node.func.id in self.env:
            raise self.parsed.error(
                node.func,
                f"calling the local variable {node.func.id!r}",
                "call a function defined at module level",
            )
        target = self.resolve(node.func)
        text = ast.unparse(node.func)
        canonical = numpy_name(target)
        if canonical is not None:
            return self.numpy_call(node, canonical, _leaf_hint(hint))
        if _custom(target):
            if isinstance(node.func, ast.Attribute):
                self.read_attribute(node.func, target)
            if node.keywords:
                raise self.parsed.error(node, f"keyword arguments to {text}", "pass the arguments positionally")
            return self.apply(
                "custom", [self.atom(self.element(self.expr(a))) for a in node.args], _leaf_hint(hint), param=target
            )
        if getattr(target, "__module__", None) and target.__module__.split(".")[0] == "numpy":
            raise self.parsed.error(  # NumPy's own Python functions are not differentiated through
                node,
                f"{text}, which has no derivative rule",
                "write it with the NumPy functions adcompiler knows (see README), or give it rules with adcompiler.defrule",
                MissingRuleError,
            )
        if isinstance(target, types.FunctionType) and not is_builtin(text, target) and _prim_of(target) is None:
            if isinstance(node.func, ast.Attribute):  # helpers.g(x): g is compiled into the derivative
                self.read_attribute(node.func, target)
            return self.user_call(node, target, hint)
        hint = _leaf_hint(hint)
        if target is builtins.range and 1 <= len(node.args) <= 3 and not node.keywords:  # a range value (len of it)
            args = [self.atom(self.expr(a)) for a in node.args]
            start, stop, step = (
                (Const(0), args[0], Const(1))
                if len(args) == 1
                else (args[0], args[1], args[2] if len(args) == 3 else Const(1))
            )
            return self.apply("range", [start, stop, step], _leaf_hint(hint))
        if target in (builtins.len, builtins.sum, builtins.list) or (
            target in (builtins.max, builtins.min) and len(node.args) == 1
        ):
            return self.list_builtin(node, target, hint)
        prim = _prim_of(target)
        if prim is None:
            raise self.parsed.error(
                node,
                f"{text}, which has no derivative rule",
                "give it rules with adcompiler.defrule(fn, jvp=..., vjp=...), or call only math/NumPy functions adcompiler knows, abs/min/max/pow/round/int/float and your own Python functions",
                MissingRuleError,
            )
        if node.keywords:
            raise self.parsed.error(node, f"keyword arguments to {text}", "pass the arguments positionally")
        args = [self.expr(a) for a in node.args]
        if any(isinstance(a, tuple) for a in args):
            raise self.parsed.error(node, f"a tuple passed to {text}", "pass numbers")
        if prim in ("max", "min"):
            if len(args) < 2:
                raise self.parsed.error(
                    node,
                    f"{prim} of a single iterable",
                    f"pass two or more numbers: {prim}(a, b)",
                )
            result = args[0]
            for i, arg in enumerate(args[1:]):
                result = self.apply(prim, [result, arg], hint if i == len(args) - 2 else None)
            return result
        if prim in HELPER_PRIMS:
            return self.apply(prim, args, hint, param=text)
        if not rules.has_rule(prim, len(args)):
            raise self.parsed.error(
                node,
                f"{text} with {len(args)} arguments",
                "check the call against the function's documentation",
                MissingRuleError,
            )
        return self.apply(prim, args, hint)

    def user_call(self, node: ast.Call, target, hint):
        """A call of another user function: bind arguments, fill defaults."""
        import inspect

        try:
            inspect.getsourcelines(target)
        except (OSError, TypeError):
            raise self.parsed.error(
                node,
                f"the call of {target.__name__}, which has no source (defined at a REPL or by exec)",
                "define it in a .py file, or give it rules with adcompiler.defrule",
                MissingRuleError,
            ) from None

        try:
            bound = inspect.signature(target).bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            raise self.parsed.error(
                node,
                f"the call {ast.unparse(node)} ({exc})",
                "pass one argument per parameter",
            ) from None
        values = []
        for name, param in inspect.signature(target).parameters.items():
            if name in bound.arguments:
                values.append(self.element(self.expr(bound.arguments[name])))  # a tuple is passed as one
            elif param.default is not inspect.Parameter.empty:
                values.append(Const(param.default))
            else:  # *args or **kwargs: the callee's own fence refuses it, with its location
                values.append(Const(None))
        shape = self.callee_shape(target, node)
        hints = _shaped_hints(shape, hint)
        outs = [self.new_var(h) for h in hints]
        self.body.append(Eq(tuple(outs), "call", tuple(values), self.line, target))
        if not isinstance(shape, tuple):
            return outs[0]
        return rebuild(shape, iter(outs))

    def apply(self, prim: str, args: list, hint: str | None, param=None) -> Var:
        """Emit ``out = prim(*args)`` and return ``out``."""
        for a in args:
            if isinstance(a, tuple):
                raise self.parsed.error(
                    self.parsed.node,
                    "arithmetic on a tuple",
                    "unpack the tuple into names first",
                )
        out = self.new_var(hint)
        self.body.append(Eq((out,), prim, tuple(args), self.line, param))
        return out

    def new_var(self, hint: str | None) -> Var:
        """The user's own name for its first definition, ``z_1``, ``z_2`` after; ``t1`` without a name."""
        if hint is None:
            return Var(self.namer.temp())
        user_name = not self.namer._free(hint)  # a name of the user's, reserved: its first definition keeps it
        name = hint if hint not in self.defined and user_name else self.namer.fresh(hint)
        self.defined.add(name)
        return Var(name)


def _hint(target):
    """The user's name(s) for a value: a name, or a tuple shaped like the target."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Tuple):
        return tuple(_hint(elt) for elt in target.elts)
    return None


def _leaf_hint(hint, index=None):
    """The single-name part of a hint (``None`` for tuple hints)."""
    if index is not None:
        return hint[index] if isinstance(hint, tuple) and index < len(hint) else None
    return hint if isinstance(hint, str) else None


def _shaped_hints(shape, hint) -> list:
    """One name hint per output leaf, taken from a target of the same shape."""
    if shape is None:
        return [hint if isinstance(hint, str) else None]
    parts = hint if isinstance(hint, tuple) and len(hint) == len(shape) else (None,) * len(shape)
    return [h for s, part in zip(shape, parts, strict=True) for h in _shaped_hints(s, part)]


HELPER_PRIMS = MAKES + CHANGES + INERT + tuple(rules.HELPER_RULES)


def _reversed_range(it):
    """The ``range(...)`` call inside ``reversed(range(...))``, else None."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and len(it.args) == 1:
        inner = it.args[0]
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "range":
            return inner
    return None


def _shape(value):
    return tuple(_shape(v) for v in value) if isinstance(value, tuple) else None


def _local_root(node, lowering) -> bool:
    """Whether an expression is rooted in a local variable (so ``.attr`` is a method of a value)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and (node.id in lowering.env or node.id in lowering.slots)


def _module_path(node, lowering) -> bool:
    """Whether ``node`` is a dotted path of global names (``np``, ``np.linalg``): a module, not a value."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id not in lowering.env and node.id not in lowering.slots


def _custom(obj) -> bool:
    try:
        return obj in rules.CUSTOM
    except TypeError:
        return False


def _prim_of(obj):
    helper = getattr(obj, "__adc_primitive__", None)
    if helper is not None:
        return helper
    try:
        return rules.PRIMS.get(obj)
    except TypeError:
        return None


def output_shape(fn: Function):
    """The shape of a function's return value: None for one value, nested tuples otherwise."""
    value = fn.body[-1].value

    def shape(v):
        return tuple(shape(x) for x in v) if isinstance(v, tuple) else None

    return shape(value)
