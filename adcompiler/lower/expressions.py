"""Expressions -> ANF equations: operators, comparisons, short circuits, calls of
primitives, rules and user functions.

``ExpressionLowering.expr`` is where every concept lowerer (``anf``) turns a sub-expression into an
atom; it dispatches to the others (a list literal to ``lists``, a NumPy call to ``arrays``, a dict to
``records``, ...) through ``anf.Lowering``, and they call ``expr`` back for their operands."""

from __future__ import annotations

import ast
import inspect
import builtins
import operator
import os
import sys
import types
from .. import rules
from ..errors import MissingRuleError, UnsupportedSyntaxError
from ..ir.nodes import Const, Eq, If, rebuild
from ..ir.supplied import constant
from ..front.names import is_builtin
from ..front.callables import fixed_arity, given_local_functions, what_runs
from ..front.parse import BINOPS, COMPARES, IDENTITY, UNARYOPS, source_lines
from .arrays import numpy_name
from .draws import draw_name, lower_draw
from .library import LIBRARIES, PURE_BUILTINS, by_position, changes_parameter, library_path, public_name
from .library import scipy_rules, standard_library
from .emitter import leaf_hint
from .idioms import METHODS
from .records import DICT_METHODS, METHOD, record_class
from .names import callable_object, local_root, module_path
from ..rules.scalar import SCALAR_HELPERS
from ..rules import CHANGES, INERT, MAKES


class ExpressionLowering:
    """The expressions of ANF lowering (``anf``'s statements lower theirs here): ``expr(node)`` emits the
    equations that compute ``node`` and returns the atom holding its value."""

    def __init__(self, lower, callee_shape):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see anf.Lowering)
        self.callee_shape = callee_shape  # a user function's output shape: (callee, the call's node) -> shape

    def expr(self, node, hint: str | None = None):
        """Lower an expression to an atom or a tuple of atoms, emitting equations."""
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            return self.lower.names.name(node)
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(elt, leaf_hint(hint, i)) for i, elt in enumerate(node.elts))
        if isinstance(node, ast.Attribute):
            if local_root(node.value, self.emit) or not module_path(node.value, self.emit):
                return self.lower.arrays.attribute(node, leaf_hint(hint))  # of a value: A.T, np.sin(A).T, (A * 2.0).T
            return self.lower.names.global_constant(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.emit.apply("not", [self.emit.atom(self.expr(node.operand))], leaf_hint(hint))
        if isinstance(node, ast.UnaryOp):
            return self.unary_chain(node, hint)
        if _repeats(node):
            return self.lower.lists.repeat(node, leaf_hint(hint))
        if isinstance(node, ast.BinOp):
            return self.binary_chain(node, hint)
        if isinstance(node, ast.Call):
            return self.call(node, hint)
        if isinstance(node, ast.List):
            return self.lower.lists.list_literal(node, leaf_hint(hint))
        if isinstance(node, ast.Dict):
            return self.lower.records.dict_literal(node)
        if isinstance(node, ast.DictComp):
            return self.lower.records.dict_comprehension(node)
        if isinstance(node, ast.ListComp):
            return self.lower.lists.comprehension(node, leaf_hint(hint))
        if isinstance(node, ast.Subscript):
            return self.lower.lists.subscript(node, leaf_hint(hint))
        if isinstance(node, ast.Compare):
            return self.compare(node, leaf_hint(hint))
        if isinstance(node, ast.BoolOp):
            slot = self.emit.hidden_slot(leaf_hint(hint) or "t")
            self.short_circuit(node.op, node.values, slot)
            return self.emit.read(slot)
        if isinstance(node, ast.IfExp):
            return self.if_exp(node, leaf_hint(hint))
        if isinstance(node, ast.JoinedStr):
            return self.lower.idioms.fstring(node, leaf_hint(hint))
        raise self.lower.idioms.refused_expression(node)

    def unary_chain(self, node: ast.UnaryOp, hint):
        """``- - x``, ``-(+x)``: a chain of signs lowered in a loop, innermost first (see binary_chain)."""
        chain = [node]
        while isinstance(chain[-1].operand, ast.UnaryOp) and not isinstance(chain[-1].operand.op, ast.Not):
            chain.append(chain[-1].operand)
        value = self.expr(chain[-1].operand)
        for n in reversed(chain):
            number = isinstance(value, Const) and isinstance(value.value, (int, float)) and value.text is None
            if number and not (isinstance(n.op, ast.Invert) and not isinstance(value.value, int)):
                value = Const(UNARY_OF[type(n.op)](value.value))  # (-2.0, ~3: the constant; ~2.0 refused later)
            else:
                value = self.emit.apply(UNARYOPS[type(n.op)], [value], leaf_hint(hint) if n is node else None)
        return value

    def binary_chain(self, node: ast.BinOp, hint):
        """``a + b - c * d ...``: the operators down the left spine (``a + b + ... + z`` nests left, a
        thousand deep for a thousand terms) lowered in a loop, left to right as Python evaluates them,
        so lowering does not recurse as deep as the chain is long."""
        spine = [node]
        while isinstance(spine[-1].left, ast.BinOp) and not _repeats(spine[-1].left):
            spine.append(spine[-1].left)
        value = self.expr(spine[-1].left)
        for n in reversed(spine):
            right = self.expr(n.right)
            joined = _tuples_joined(n.op, value, right)
            if joined is not None:  # t + (x * y,), t * 2 of tuples: the tuple of their atoms, as Python makes it
                value = joined
                continue
            value = self.emit.apply(BINOPS[type(n.op)], [value, right], leaf_hint(hint) if n is node else None)
        return value

    def compare(self, node: ast.Compare, hint):
        """``a < b < c`` is ``a < b and b < c``, with ``b`` evaluated once."""
        left = self.emit.atom(self.expr(node.left))
        rights = [self.emit.atom(self.expr(c)) for c in node.comparators]
        tests, prev = [], left
        for op, right in zip(node.ops, rights, strict=True):
            tests.append((COMPARES.get(type(op)) or IDENTITY[type(op)], prev, right))
            prev = right
        if len(tests) == 1:
            return self.emit.apply(tests[0][0], [tests[0][1], tests[0][2]], hint)
        slot = self.emit.hidden_slot(hint or "t")
        self._chain(tests, slot)
        return self.emit.read(slot)

    def _chain(self, tests, slot) -> None:
        op, a, b = tests[0]
        value = self.emit.apply(op, [a, b], None)
        self.emit.write(slot, value, self.emit.line)
        if len(tests) > 1:
            self.emit.body.append(
                If(value, self.emit.collected(lambda: self._chain(tests[1:], slot)), (), self.emit.line)
            )

    def short_circuit(self, op, values, slot) -> None:
        """``a and b``: ``r = a; if r: r = b`` (``or``: the else branch), so ``b`` runs only when Python runs it."""
        first = self.emit.atom(self.expr(values[0]))
        self.emit.write(slot, first, self.emit.line)
        if len(values) > 1:
            rest = self.emit.collected(lambda: self.short_circuit(op, values[1:], slot))
            self.emit.body.append(
                If(first, rest, (), self.emit.line) if isinstance(op, ast.And) else If(first, (), rest, self.emit.line)
            )

    def if_exp(self, node: ast.IfExp, hint):
        test = self.emit.atom(self.expr(node.test))
        pair = (node.body, node.orelse)
        if all(isinstance(b, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in b.elts) for b in pair) and len(
            node.body.elts
        ) == len(
            node.orelse.elts
        ):  # p, q = (a, b) if c else (d, e): a slot per item, each branch writing its own
            slots = [self.emit.hidden_slot(leaf_hint(hint) or "t") for _ in node.body.elts]

            def written(b):
                items = [self.emit.atom(self.emit.element(self.expr(e))) for e in b.elts]
                for slot, item in zip(slots, items):
                    self.emit.write(slot, item, self.emit.line)

            branches = [self.emit.collected(lambda b=b: written(b)) for b in pair]
            self.emit.body.append(If(test, branches[0], branches[1], self.emit.line))
            return tuple(self.emit.read(slot) for slot in slots)
        slot = self.emit.hidden_slot(hint or "t")
        branches = [
            self.emit.collected(lambda b=b: self.emit.write(slot, self.emit.atom(self.expr(b)), self.emit.line))
            for b in (node.body, node.orelse)
        ]
        self.emit.body.append(If(test, branches[0], branches[1], self.emit.line))
        return self.emit.read(slot)

    def call(self, node: ast.Call, hint):
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in DICT_METHODS
            and local_root(node.func.value, self.emit)
        ):
            found = self.lower.records.record_method(node, leaf_hint(hint))
            if found is not None:
                return found
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "dict"
            and self.lower.names.is_builtin_name(node.func, dict)
        ):
            return self.lower.records.dict_call(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr in METHODS:  # "{}".format(x), xs.pop(i), ...
            found = self.lower.idioms.method_idiom(node, leaf_hint(hint))
            if found is not None:
                return found
        if isinstance(node.func, ast.Attribute) and node.func.attr == "pop" and not node.args and not node.keywords:
            base = node.func.value
            if isinstance(base, ast.Name) and (base.id in self.emit.env or base.id in self.emit.slots):
                return self.emit.apply("pop", [self.emit.element(self.expr(base))], leaf_hint(hint))
        if _is_add_at(node, self.emit, self.lower.names.resolve):
            return self.lower.arrays.add_at(node)
        outer = _ufunc_outer(node, self.emit, self.lower.names.resolve)  # np.multiply.outer(a, b): rules.numpy_written
        if outer is not None:
            return self.user_call(node, outer, hint)
        # adcompiler.grad(f)(x): the inner derivative's generated code
        found = self.lower.nested.nested_call(node, hint)
        if found is not None:
            return found
        found = self.lower.records.self_method(node, leaf_hint(hint))  # self.forward(x) in a method
        if found is not None:
            return found
        if isinstance(node.func, ast.Attribute) and (
            local_root(node.func.value, self.emit) or not module_path(node.func.value, self.emit)
        ):
            # a method of a value: x.sum(), np.arange(6).reshape(2, 3)
            return self.lower.arrays.method_call(node, leaf_hint(hint))
        local = self.parsed.local_functions.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if local is not None and node.func.id not in self.emit.env:  # g(x) -> g(W, b, x): front.closures
            function, frees = local
            reads = [ast.copy_location(ast.Name(v, ast.Load()), node) for v in frees]
            return self.user_call(
                ast.copy_location(ast.Call(node.func, reads + node.args, node.keywords), node), function, hint
            )
        if isinstance(node.func, ast.Name) and node.func.id in self.emit.env or isinstance(node.func, ast.Subscript):
            return self.object_call(node, "__call__", node.func, hint)  # layer(h), layers[0](h): its class's
        called = self.emit.called.get(node.func.id) if isinstance(node.func, ast.Name) else None
        found = self.distribution_call(node, hint) if called is None else None  # norm.logpdf(x, loc, scale)
        if found is not None:
            return found
        target = called if called is not None else self.lower.names.resolve(node.func)  # for f in fs: f(x), unrolled
        target = getattr(target, "__adc_runs__", target)  # @adcompiler.differentiate's: the function it calls
        target = getattr(target, "py_func", target) if hasattr(target, "py_func") else target  # @numba.njit's
        if type(target).__name__ == "_lru_cache_wrapper" and isinstance(
            getattr(target, "__wrapped__", None), types.FunctionType
        ):
            target = target.__wrapped__  # @functools.cache, lru_cache: the function (a cache gives its values)
        if record_class(target):  # Stats(m, v): a NamedTuple, dataclass or plain class built here
            return self.lower.records.record_call(node, target)
        if isinstance(node.func, ast.Name) and callable_object(target):  # net(x), net an object of the module
            return self.object_call(node, "__call__", node.func, hint)
        found = self.lower.idioms.idiom_call(node, target, hint)  # print, sum(x * x for x in xs), sorted(xs), ...
        if found is not None:
            return found
        text = ast.unparse(node.func)
        if draw_name(target) is not None:  # np.random.normal(size=3): made by the primal, no derivative
            return lower_draw(self.emit, self.expr, node, draw_name(target), hint)
        written = _numpy_written(target, len(node.args))  # np.corrcoef(x), np.nanmean(x), ...
        if written is not None:
            return self.user_call(node, written, hint)
        if target is getattr(sys.modules.get("numpy"), "meshgrid", None):
            raise self.parsed.error(
                node, f"{ast.unparse(node.func)} of {len(node.args)} arrays", "pass two or three arrays by position"
            )
        canonical = numpy_name(target)
        if canonical is not None:
            return self.lower.arrays.numpy_call(node, canonical, hint)  # a tuple hint names a decomposition's parts
        if not rules.has_custom_rule(target):
            scipy_rules(target)  # (SciPy's rules given on first use: SciPy is optional)
        if rules.has_custom_rule(target):
            if isinstance(node.func, ast.Attribute):
                self.lower.names.read_attribute(node.func, target)
            given = by_position(target, node)  # logsumexp(A, axis=1): A, 1 (rules take arguments by position)
            if given is None:
                raise self.parsed.error(node, f"keyword arguments to {text}", "pass the arguments positionally")
            args = [a if isinstance(a, Const) else self.emit.atom(self.emit.element(self.expr(a))) for a in given]
            size = rules.output_size(target)  # a tuple of values: one each, as a call of a user function gives
            if size is None:
                return self.emit.apply("custom", args, leaf_hint(hint), param=target)
            outs = tuple(self.emit.new_var(h) for h in _shaped_hints((None,) * size, hint))
            self.emit.body.append(Eq(outs, "custom", tuple(args), self.emit.line, target))
            return outs
        library = (getattr(target, "__module__", None) or "").split(".")[0]
        if library in ("numpy", "scipy") and rules.prim_of(target) is None:
            return self.library_call(  # NumPy's and SciPy's own Python functions are not differentiated through
                node,
                target,
                hint,
                "write it with the NumPy functions adcompiler knows (see README), or give it rules with adcompiler.defrule",
            )
        if standard_library(target) and rules.prim_of(target) is None:
            return self.library_call(  # copy.copy, statistics.mean, heapq.nsmallest: Python's own, not read
                node,
                target,
                hint,
                "write it with what adcompiler knows (list(xs) for copy.copy, [list(r) for r in rows] for"
                " copy.deepcopy, sum(xs) / len(xs) for statistics.mean), or give it rules with adcompiler.defrule",
            )
        if isinstance(target, types.FunctionType) and not is_builtin(text, target) and rules.prim_of(target) is None:
            if isinstance(node.func, ast.Attribute):  # helpers.g(x): g is compiled into the derivative
                self.lower.names.read_attribute(node.func, target)
            return self.user_call(node, target, hint)
        hint = leaf_hint(hint)
        if target is builtins.range and 1 <= len(node.args) <= 3 and not node.keywords:  # a range value (len of it)
            args = [self.emit.atom(self.expr(a)) for a in node.args]
            start, stop, step = (
                (Const(0), args[0], Const(1))
                if len(args) == 1
                else (args[0], args[1], args[2] if len(args) == 3 else Const(1))
            )
            return self.emit.apply("range", [start, stop, step], leaf_hint(hint))
        if target in (builtins.len, builtins.sum, builtins.list) or (
            target in (builtins.max, builtins.min) and len(node.args) == 1
        ):
            return self.lower.lists.list_builtin(node, target, hint)
        prim = rules.prim_of(target)
        if prim is None:
            return self.library_call(
                node,
                target,
                hint,
                "give it rules with adcompiler.defrule(fn, jvp=..., vjp=...), or call only math/NumPy functions adcompiler knows, abs/min/max/pow/round/int/float and your own Python functions",
            )
        if node.keywords:
            raise self.parsed.error(node, f"keyword arguments to {text}", "pass the arguments positionally")
        args = [self.expr(a) for a in node.args]
        if any(isinstance(a, tuple) for a in args) and prim in HELPER_PRIMS:  # generated code's helpers take
            args = [self.emit.element(a) if isinstance(a, tuple) else a for a in args]  # tuple values as they are
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
                result = self.emit.apply(prim, [result, arg], hint if i == len(args) - 2 else None)
            return result
        if prim in HELPER_PRIMS:  # generated code's runtime helper: the helper of the module the derivative is in
            return self.emit.apply(prim, args, hint, param="@" + prim)
        if not rules.has_rule(prim, len(args)):
            raise self.parsed.error(
                node,
                f"{text} with {len(args)} arguments",
                "check the call against the function's documentation",
                MissingRuleError,
            )
        return self.emit.apply(prim, args, hint)

    def distribution_call(self, node: ast.Call, hint):
        """``norm.logpdf(x, loc, scale)`` (any spelling of ``scipy.stats.norm``): a call of the function of
        ``rules.scipy_stats`` that computes it; a method of another ``scipy.stats`` distribution, or another
        of norm's, refused at this line; None for a call of anything else."""
        stats = sys.modules.get("scipy.stats")
        if stats is None or not isinstance(node.func, ast.Attribute) or not module_path(node.func.value, self.emit):
            return None
        try:
            base = self.lower.names.resolve(node.func.value)
        except SyntaxError:  # (not a module's path: what resolve says of the whole call, below)
            return None
        if not isinstance(base, getattr(stats, "rv_continuous", ())) and not isinstance(
            base, getattr(stats, "rv_discrete", ())
        ):
            return None
        from ..rules import scipy_special, scipy_stats

        scipy_special.register()  # (ndtr, log_ndtr: the rules the functions written for norm call)
        method = getattr(base, node.func.attr, None)
        written = scipy_stats.written(method)
        if written is None:
            raise self.parsed.error(
                node,
                f"{ast.unparse(node.func)}, which has no derivative rule",
                "adcompiler differentiates scipy.stats's "
                + scipy_stats.offered()
                + "; write others with NumPy and scipy.special (norm.isf(q) is -scipy.special.ndtri(q) * scale + loc), "
                "or give a function of yours rules with adcompiler.defrule",
                MissingRuleError,
            )
        return self.user_call(node, written, hint)

    def library_call(self, node: ast.Call, target, hint, remedy: str, pure: bool = False):
        """A call of a library function with no derivative rule (``np.triu_indices(d, 1)``, ``math.comb``):
        computed as the primal computes it, without reading its source; activity analysis refuses it, at
        this line, where an argument has a derivative (``analysis.activity``); ``pure``: a builtin the caller
        knows changes nothing here (``sum(range(n))``)."""
        text = ast.unparse(node.func)
        path = library_path(node.func, target, self.lower.names.resolve)
        refused = path is None or path.startswith("numpy.random.")  # (np.random.seed: a state, not a value)
        if target is super:  # (a language construct, not a function to give rules)
            raise self.parsed.error(
                node, "super()", "call the base class's method by its name: Base.method(self, x)", MissingRuleError
            )
        if refused or path.startswith("builtins.") and path[len("builtins.") :] not in PURE_BUILTINS and not pure:
            raise self.parsed.error(node, f"{text}, which has no derivative rule", remedy, MissingRuleError)
        if isinstance(node.func, ast.Attribute):
            self.lower.names.read_attribute(node.func, target)
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.parsed.error(node, f"*args or **kwargs passed to {text}", "pass the arguments one by one")
        args = [self.emit.element(self.expr(a)) for a in node.args]
        args += [self.emit.element(self.expr(k.value)) for k in node.keywords]
        keys = tuple(k.arg for k in node.keywords)
        return self.emit.apply("library", args, leaf_hint(hint), param=("library", path, keys, target, text))

    def object_call(self, node: ast.Call, name: str, receiver, hint):
        """``layer(h)`` (``name`` ``__call__``) or ``layer.forward(h)`` of a local value: the method of
        its class, which the analysis knows from its abstract value (``analysis.methods``)."""
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.parsed.error(
                node,
                f"keyword arguments in a call through an object ({ast.unparse(node.func)})",
                "pass them by position",
            )
        obj = self.emit.atom(self.emit.element(self.expr(receiver)))
        args = [self.emit.element(self.expr(a)) for a in node.args]
        return self.emit.apply(METHOD, [obj, *args], leaf_hint(hint), param=name)

    def module_function(self, node):
        """The user function of a module a name passed as an argument holds (``decay`` in ``euler(decay, y,
        h)``: a ``def`` of the user's, with source, not a library's), or None."""
        if not isinstance(node, ast.Name) or node.id in self.emit.env or node.id in self.emit.slots:
            return None
        if node.id in self.emit.pinned or node.id not in self.parsed.source.globals:
            return None
        value = self.parsed.source.globals[node.id]
        module = getattr(value, "__module__", None) or ""
        if not isinstance(value, types.FunctionType) or module.split(".")[0] in LIBRARIES:
            return None
        self.lower.names.resolve(node)  # (the name remembered: another function there builds the code again)
        return value

    def user_call(self, node: ast.Call, target, hint):
        """A call of another user function: bind arguments, fill defaults."""
        import inspect

        if (getattr(target, "__module__", None) or "").startswith("adcompiler.api."):  # check_grad, ... (grad, jvp:
            raise self.parsed.error(  # lower.nested): adcompiler's own, whose source is no code of the user's
                node,
                f"calling adcompiler.{target.__name__} inside a differentiated function",
                "call it outside; inside, adcompiler.grad, jvp, vjp, value_and_grad, hessian and jacobian are differentiated",
            )
        try:
            source_lines(target)
        except (OSError, TypeError):
            raise self.parsed.error(
                node,
                f"the call of {target.__qualname__} (of {getattr(target, '__module__', None) or 'no module'}), which has no"
                " source adcompiler can read (a function made at a REPL, by exec, or of a library without its files)",
                "define it in a .py file, or give it rules with adcompiler.defrule",
                MissingRuleError,
            ) from None

        target = what_runs(target)  # a functools.wraps wrapper: its own code, at the parameters it declares
        code = target.__code__
        if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):  # g(x, y) of def g(*xs): g of two
            named = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])  # parameters (and **kw:
            extra = tuple(k.arg for k in node.keywords if k.arg not in named)  # the call's keywords for it)
            target = fixed_arity(target, max(0, len(node.args) - code.co_argcount), extra)
        passed = {  # apply(g, x) with g a local function: apply with g's free variables in its place
            i: self.parsed.local_functions[a.id]
            for i, a in enumerate(node.args)
            if isinstance(a, ast.Name) and a.id in self.parsed.local_functions and a.id not in self.emit.env
        }
        passed.update(  # euler(decay, y, h) with decay a function of the module: the same, with no free variables
            (i, (function, ()))
            for i, a in enumerate(node.args)
            if i not in passed and (function := self.module_function(a)) is not None
        )
        if passed:
            target = given_local_functions(target, passed, lambda *why: self.parsed.error(node, *why))
            frees = [ast.copy_location(ast.Name(v, ast.Load()), node) for i in sorted(passed) for v in passed[i][1]]
            rest = [a for i, a in enumerate(node.args) if i not in passed]
            node = ast.copy_location(ast.Call(node.func, frees + rest, node.keywords), node)
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
            if name in bound.arguments and not isinstance(bound.arguments[name], ast.AST):  # **changes of a
                raise self.parsed.error(  # function whose keywords fixed_arity could not name (a library's)
                    node,
                    f"the call {ast.unparse(node)}, whose keywords {target.__qualname__} takes as **{name}",
                    "build the value with its own constructor: Point(x=p.x * 2.0, y=p.y) for "
                    "dataclasses.replace(p, x=p.x * 2.0)",
                )
            if name in bound.arguments:
                values.append(self.emit.element(self.expr(bound.arguments[name])))  # a tuple is passed as one
            elif param.default is not inspect.Parameter.empty:  # an array: a name the code is handed
                if isinstance(param.default, (list, dict)) and changes_parameter(target, name):
                    raise self.parsed.error(
                        node,
                        f"the call {ast.unparse(node)}, whose callee changes its default {name}="
                        f"{param.default!r} (Python keeps that one {type(param.default).__name__} for every call)",
                        f"pass {name} at the call, or default it to None and make a new one in {target.__name__}",
                    )
                values.append(constant(param.default, f"{name}_default"))
            else:  # *args or **kwargs: the callee's own fence refuses it, with its location
                values.append(Const(None))
        try:
            shape = self.callee_shape(target, node)
        except UnsupportedSyntaxError:
            ruled = rules.ruled_by(target)  # a rule of adcompiler's own, in derivative code differentiated again
            if ruled is None or not (getattr(target, "__module__", "") or "").startswith("adcompiler."):
                raise
            raise self.parsed.error(
                node,
                f"the rules of {public_name(ruled)} (adcompiler's, which it cannot differentiate again)",
                "write the function with NumPy (np.exp, np.log, np.sum), whose second derivatives adcompiler takes",
            ) from None
        hints = _shaped_hints(shape, hint)
        outs = [self.emit.new_var(h) for h in hints]
        self.emit.body.append(Eq(tuple(outs), "call", tuple(values), self.emit.line, target))
        if not isinstance(shape, tuple):
            return outs[0]
        return rebuild(shape, iter(outs))


def _is_add_at(node: ast.Call, emit, resolve) -> bool:
    """Whether a call is ``np.add.at(...)`` (NumPy under any alias)."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "at" and isinstance(func.value, ast.Attribute)):
        return False
    if func.value.attr != "add" or not module_path(func.value.value, emit):
        return False
    numpy = sys.modules.get("numpy")
    return numpy is not None and resolve(func.value) is numpy.add


def _numpy_written(target, nargs: int):
    """The function of ``rules.numpy_written`` computing what the NumPy function ``target`` does, or None."""
    if sys.modules.get("numpy") is None or isinstance(target, type) and target.__module__ != "numpy":
        return None
    from ..rules import numpy_written

    return numpy_written.written(target, nargs)


def _ufunc_outer(node: ast.Call, emit, resolve):
    """The function of ``rules.numpy_written`` for ``np.multiply.outer(a, b)`` (NumPy under any alias), or
    None for any other call."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "outer" and isinstance(func.value, ast.Attribute)):
        return None
    if sys.modules.get("numpy") is None or not module_path(func.value.value, emit):
        return None
    try:
        ufunc = resolve(func.value)
    except SyntaxError:
        return None
    if type(ufunc).__name__ != "ufunc":
        return None
    from ..rules import numpy_written

    found = numpy_written.written(ufunc.outer, len(node.args))
    if found is None:
        raise emit.parsed.error(
            node,
            f"{ast.unparse(func)}, which has no derivative rule",
            "write it with broadcasting, op(a[..., None], b), or use the outer of np.add, np.subtract, "
            "np.multiply, np.divide, np.power, np.maximum or np.minimum",
            MissingRuleError,
        )
    if len(node.args) != 2 or node.keywords:
        raise emit.parsed.error(node, f"{ast.unparse(func)} with these arguments", "call it with two arrays a, b")
    return found


def _shaped_hints(shape, hint) -> list:
    """One name hint per output leaf, taken from a target of the same shape."""
    if shape is None:
        return [hint if isinstance(hint, str) else None]
    parts = hint if isinstance(hint, tuple) and len(hint) == len(shape) else (None,) * len(shape)
    return [h for s, part in zip(shape, parts, strict=True) for h in _shaped_hints(s, part)]


HELPER_PRIMS = MAKES + CHANGES + INERT + tuple(rules.HELPER_RULES) + SCALAR_HELPERS


UNARY_OF = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}


def _tuples_joined(op, left, right) -> tuple | None:
    """``left + right`` of two tuples of atoms (not records), ``left * n`` or ``n * left`` of a tuple and a
    constant integer: the tuple Python makes; None for anything else."""
    tuples = [type(v) is tuple for v in (left, right)]
    if isinstance(op, ast.Add) and all(tuples):
        return left + right
    if isinstance(op, ast.Mult) and any(tuples) and not all(tuples):
        times = right if tuples[0] else left
        if isinstance(times, Const) and type(times.value) is int:
            return (left if tuples[0] else right) * max(times.value, 0)
    return None


def _repeats(node) -> bool:
    """Whether ``node`` is ``[...] * n`` or ``n * [...]``: a list repeated, not arithmetic."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mult)
        and (isinstance(node.left, ast.List) or isinstance(node.right, ast.List))
    )
