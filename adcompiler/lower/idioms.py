"""Everyday Python lowered to what the rest of the compiler already differentiates.

Generator expressions consumed at once (``sum(x * x for x in xs)``) are list comprehensions;
``sum(xs, start)`` keeps Python's value with the derivative of the loop of additions; ``max``/``min`` with ``key=`` pick the item at the ``argmax``/``argmin`` of the keys;
``sorted`` gathers the items at the permutation ``argsort`` gives (a gather, so the adjoint scatters
back); ``reversed(xs)`` is ``xs[::-1]``; ``any``/``all`` are a loop that stops where Python's stops.
``math.prod`` is a loop of products (Python's order), ``math.fsum`` and ``math.dist`` keep their own
value with the derivative of the plain sum and norm (``with_value``).  ``print``, ``logging``'s
functions and f-strings are ``effect`` and ``str_format`` equations: they run in the primal with its
values and have no derivative.  ``assert`` fails through the runtime helper ``fail``.
"""

from __future__ import annotations

import ast
import builtins
import copy
import logging
import math

from ..ir.nodes import Const, For, If

CONSUMERS = (builtins.sum, builtins.max, builtins.min, builtins.any, builtins.all, builtins.sorted, builtins.list)
CONSUMERS += (builtins.tuple, math.fsum, math.prod)


class IdiomLowering:
    """The lowering of the idioms of the module docstring."""

    def __init__(self, lower):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see anf.Lowering)

    def idiom_call(self, node: ast.Call, target, hint):
        """The value of a call written with an idiom, or None when it is an ordinary call."""
        if target is builtins.print or _is_logging(target):
            return self.effect(node, "print" if target is builtins.print else f"logging.{target.__name__}")
        if getattr(target, "__adc_primitive__", None) == "fail":  # generated code's failed assert
            return self.effect(node, "@fail")
        if target is builtins.float and len(node.args) == 1 and _is_str(node.args[0]) and not node.keywords:
            return Const(float(node.args[0].value))  # float("inf"), float("nan")
        if target is builtins.reversed and len(node.args) == 1 and not node.keywords:
            whole = self.emit.apply("slice", [Const(None), Const(None), Const(-1)], None)
            return self.emit.apply(
                "getitem", [self.emit.element(self.lower.expressions.expr(node.args[0])), whole], hint
            )
        if target in (builtins.map, builtins.filter) and len(node.args) >= 2 and not node.keywords:
            return self.lower.lists.comprehension(_placed(self.map_filter(node, target is builtins.map), node), hint)
        if target is builtins.zip and node.args and not node.keywords:  # zip(...) as a value: a list of tuples
            names = [self.emit.namer.fresh("v") for _ in node.args]
            pack = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
            elt = ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())
            loop = ast.comprehension(pack, ast.Call(node.func, node.args, []), [], 0)
            return self.lower.lists.comprehension(_placed(ast.ListComp(elt, [loop]), node), hint)
        if target not in CONSUMERS and target not in (builtins.any, builtins.all, math.dist):
            return None
        keywords = {k.arg: k.value for k in node.keywords}
        if target in (builtins.sum, builtins.max, builtins.min) and self._of_a_range(node):
            # sum(range(n)), max(range(a, b)): integers, computed as the primal computes them
            return self.lower.expressions.library_call(node, target, hint, "compute it outside", pure=True)
        if target is math.dist and len(node.args) == 2 and not keywords:
            return self.dist(node, hint)
        if target in (builtins.any, builtins.all) and len(node.args) == 1 and not keywords:
            return self.any_all(node, target is builtins.any, hint)
        if target is builtins.sum and (len(node.args) == 2 or set(keywords) == {"start"}):
            start = node.args[1] if len(node.args) == 2 else keywords["start"]
            if isinstance(start, (ast.List, ast.ListComp)):
                raise self.parsed.error(node, "sum of lists with a start list", "concatenate with + in a loop")
            items, first = self.iterable(node.args[0]), self.emit.element(self.lower.expressions.expr(start))
            value = self.emit.apply("sum_start", [items, first], None)  # Python's own sum, with the derivative
            return self.emit.apply("with_value", [self.fold("add", items, first, None), value], hint)  # of a loop
        if target in (builtins.max, builtins.min) and len(node.args) > 1 and set(keywords) == {"key"}:
            listed = ast.copy_location(ast.List(list(node.args), ast.Load()), node)  # min(a, b, key=k): of [a, b]
            node = ast.copy_location(ast.Call(node.func, [listed], node.keywords), node)
        if target in (builtins.max, builtins.min) and len(node.args) == 1 and set(keywords) <= {"key"}:
            items = self.iterable(node.args[0])
            keys = self.keys(items, keywords["key"], node) if keywords else items
            index = self.emit.apply("argmax" if target is builtins.max else "argmin", [keys], None)
            return self.emit.apply("getitem", [items, index], hint)
        if target is builtins.sorted and len(node.args) == 1 and set(keywords) <= {"key", "reverse"}:
            items = self.iterable(node.args[0])
            keys = self.keys(items, keywords["key"], node) if "key" in keywords else items
            backwards = (
                self.emit.atom(self.lower.expressions.expr(keywords["reverse"]))
                if "reverse" in keywords
                else Const(False)
            )
            order = self.emit.apply("argsort", [keys, backwards], None)
            return self.gather(items, order, node)
        if target is math.prod and len(node.args) == 1 and set(keywords) <= {"start"}:
            return self.product(node, keywords.get("start"), hint)
        if target is math.fsum and len(node.args) == 1 and not keywords:
            items = self.iterable(node.args[0])
            value = self.emit.apply("math.fsum", [items], None)
            return self.emit.apply("with_value", [self.emit.apply("sum", [items], None), value], hint)
        if target is builtins.tuple and len(node.args) == 1 and not keywords and isinstance(node.args[0], ast.Tuple):
            return self.lower.expressions.expr(node.args[0], hint)  # tuple((w, v)): the tuple itself
        if len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp) and not keywords:
            items = self.iterable(node.args[0])  # sum, max, min, list and tuple of a generator
            if target is builtins.tuple:
                raise self.parsed.error(node, "tuple of a generator expression", "build a list: [... for ...]")
            return self.emit.apply({builtins.sum: "sum", builtins.list: "list_copy"}.get(target, "?"), [items], hint)
        return None

    def map_filter(self, node: ast.Call, mapped: bool) -> ast.ListComp:
        """``map(f, xs, ys)`` as ``[f(a, b) for a, b in zip(xs, ys)]``, ``filter(f, xs)`` as ``[v for v in xs if
        f(v)]`` (``filter(None, xs)``: ``if v``): a list of what the iterator gives, each item made once."""
        if not mapped and len(node.args) != 2:
            raise self.parsed.error(node, "filter with these arguments", "call filter(f, xs)")
        func, sources = node.args[0], node.args[1:]
        names = [self.emit.namer.fresh("v") for _ in sources]
        params = func.args if isinstance(func, ast.Lambda) else None
        inline = params is not None and not (params.vararg or params.kwarg or params.kwonlyargs or params.defaults)
        if inline and len(params.posonlyargs + params.args) == len(sources):  # map(lambda t: t * t, xs): its body,
            names = [a.arg for a in params.posonlyargs + params.args]  # the comprehension's target its parameter
        else:
            inline = False
        reads = [ast.Name(n, ast.Load()) for n in names]
        if len(sources) == 1:
            target, iterable = ast.Name(names[0], ast.Store()), sources[0]
        else:
            target = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
            iterable = ast.Call(ast.Name("zip", ast.Load()), list(sources), [])
        value = func.body if inline else ast.Call(func, reads, [])
        if mapped:
            return ast.ListComp(value, [ast.comprehension(target, iterable, [], 0)])
        test = reads[0] if isinstance(func, ast.Constant) and func.value is None else value
        return ast.ListComp(reads[0], [ast.comprehension(target, iterable, [test], 0)])

    def _of_a_range(self, node: ast.Call) -> bool:
        """Whether a call's one argument (no keywords) is a call of the builtin ``range``."""
        if len(node.args) != 1 or node.keywords:
            return False
        arg = node.args[0]
        if not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name)) or arg.func.id in self.emit.env:
            return False
        try:
            return self.lower.names.resolve(arg.func) is builtins.range
        except Exception:  # (a name of no global: its own lowering says so)
            return False

    def iterable(self, node):
        """A list holding the items of an iterable argument (a generator expression is a comprehension)."""
        if isinstance(node, ast.GeneratorExp):
            return self.lower.lists.comprehension(_placed(ast.ListComp(node.elt, node.generators), node), None)
        return self.emit.element(self.lower.expressions.expr(node))

    def own_targets(self, comp):
        """``comp`` with its targets that name slots of the function renamed: a comprehension's variables
        are its own (``[x for x in xs]`` leaves the function's ``x`` alone); its first iterable is read
        outside it, so stays as written."""
        clashes = {
            n.id
            for g in comp.generators
            for n in ast.walk(g.target)
            if isinstance(n, ast.Name) and n.id in self.emit.slots
        }
        if not clashes:
            return comp
        first = comp.generators[0].iter
        comp = copy.copy(comp)
        comp.generators = [copy.copy(g) for g in comp.generators]
        for old in clashes:
            new = self.emit.namer.fresh(old)
            comp.elt = _renamed(comp.elt, old, new)
            for g in comp.generators:
                g.target, g.ifs = _renamed(g.target, old, new), [_renamed(c, old, new) for c in g.ifs]
                g.iter = g.iter if g.iter is first else _renamed(g.iter, old, new)
        return comp

    def loop_over(self, items, name: str, elt, node):
        """``[elt for name in items]`` where ``items`` is an atom already computed."""
        held = self.emit.namer.fresh("items")
        self.emit.env[held] = items
        loop = ast.comprehension(ast.Name(name, ast.Store()), ast.Name(held, ast.Load()), [], 0)
        out = self.lower.lists.comprehension(_placed(ast.ListComp(elt, [loop]), node), None)
        del self.emit.env[held]
        return out

    def keys(self, items, key, node):
        """``[key(v) for v in items]``: a lambda's body with its parameter renamed, or a named function called."""
        v = self.emit.namer.fresh("v")
        if isinstance(key, ast.Lambda):
            a = key.args
            if a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg or a.defaults or len(a.args) != 1:
                raise self.parsed.error(key, "a key lambda of other than one parameter", "write lambda v: ...")
            body = _renamed(key.body, a.args[0].arg, v)
        else:
            body = ast.Call(key, [ast.Name(v, ast.Load())], [], lineno=key.lineno, col_offset=key.col_offset)
        return self.loop_over(items, v, body, node)

    def gather(self, items, order, node):
        """``[items[p] for p in order]``: reads at indices, whose adjoint adds back into ``items``."""
        p, held = self.emit.namer.fresh("p"), self.emit.namer.fresh("items")
        self.emit.env[held] = items
        read = ast.Subscript(ast.Name(held, ast.Load()), ast.Name(p, ast.Load()), ast.Load())
        out = self.loop_over(order, p, read, _placed(read, node))
        del self.emit.env[held]
        return out

    def product(self, node, start, hint):
        """``math.prod(xs, start=s)``: ``s * xs[0] * xs[1] ...`` in Python's order (a loop, so the adjoint
        is the product rule, right at zeros too)."""
        first = self.emit.atom(self.lower.expressions.expr(start)) if start is not None else Const(1)
        return self.fold("mul", self.iterable(node.args[0]), first, hint)

    def fold(self, prim: str, items, first, hint):
        """``first op items[0] op items[1] ...``, left to right, as a loop (arrays broadcast as they do)."""
        acc = self.emit.hidden_slot(hint or "acc")
        self.emit.write(acc, first, self.emit.line)
        k = self.emit.new_var("k")
        n = self.emit.apply("len", [items], None)

        def body():
            item = self.emit.apply("getitem", [items, k], None)
            self.emit.write(acc, self.emit.apply(prim, [self.emit.read(acc), item], None), self.emit.line)

        self.emit.body.append(For(k, Const(0), n, Const(1), self.emit.collected(body), self.emit.line))
        return self.emit.read(acc)

    def any_all(self, node, is_any: bool, hint):
        """``any(...)``/``all(...)``: a loop that stops at the first true (false) item, as Python's does."""
        flag = self.emit.hidden_slot(hint or ("found" if is_any else "every"))
        self.emit.write(flag, Const(not is_any), self.emit.line)
        arg, v = node.args[0], self.emit.namer.fresh("v")
        if isinstance(arg, ast.GeneratorExp) and len(arg.generators) == 1 and not arg.generators[0].is_async:
            arg = self.own_targets(arg)
            gen = arg.generators[0]
            target, source, test, ifs = gen.target, gen.iter, arg.elt, gen.ifs
        else:
            target, source, test, ifs = ast.Name(v, ast.Store()), arg, ast.Name(v, ast.Load()), []
            if isinstance(arg, ast.GeneratorExp):
                source = ast.ListComp(arg.elt, arg.generators)
        hit = test if is_any else ast.UnaryOp(ast.Not(), test)
        stop = [ast.Assign([ast.Name(flag.name, ast.Store())], ast.Constant(is_any)), ast.Break()]
        body = [ast.If(hit, stop, [])]
        for cond in reversed(ifs):
            body = [ast.If(cond, body, [])]
        self.lower.statements.for_(_placed(ast.For(target, source, body, [], None), node), 1)
        return self.emit.read(flag)

    def dist(self, node, hint):
        """``math.dist(p, q)``: its own value, with the derivative of sqrt(sum((p_i - q_i)**2)) (0 where
        the points coincide, as for math.hypot)."""
        p, q = (self.iterable(a) for a in node.args)
        value = self.emit.apply("math.dist", [p, q], None)
        out = self.emit.hidden_slot(hint or "dist")
        self.emit.write(out, value, self.emit.line)
        a, b = self.emit.namer.fresh("a"), self.emit.namer.fresh("b")
        self.emit.env[a], self.emit.env[b] = p, q
        diff = ast.BinOp(ast.Name("u", ast.Load()), ast.Sub(), ast.Name("w", ast.Load()))
        square = ast.BinOp(diff, ast.Mult(), copy.deepcopy(diff))
        pairs = ast.comprehension(
            ast.Tuple([ast.Name("u", ast.Store()), ast.Name("w", ast.Store())], ast.Store()),
            ast.Call(ast.Name("zip", ast.Load()), [ast.Name(a, ast.Load()), ast.Name(b, ast.Load())], []),
            [],
            0,
        )
        u, w = self.emit.namer.fresh("u"), self.emit.namer.fresh("w")
        comp = _placed(_renamed(_renamed(ast.ListComp(square, [pairs]), "u", u), "w", w), node)

        def smooth():
            total = self.emit.apply("sum", [self.lower.lists.comprehension(comp, None)], None)
            self.emit.write(
                out,
                self.emit.apply("with_value", [self.emit.apply("math.sqrt", [total], None), value], None),
                self.emit.line,
            )

        nonzero = self.emit.apply("ne", [value, Const(0.0)], None)
        self.emit.body.append(If(nonzero, self.emit.collected(smooth), (), self.emit.line))
        del self.emit.env[a], self.emit.env[b]
        return self.emit.read(out)

    def effect(self, node: ast.Call, name: str):
        """``print(...)``/``logging.info(...)``: called in the primal with its values, no derivative."""
        args = [self.emit.element(self.lower.expressions.expr(a)) for a in node.args]
        args += [self.emit.element(self.lower.expressions.expr(k.value)) for k in node.keywords]
        keys = tuple(k.arg for k in node.keywords)
        return self.emit.apply("effect", args, None, param=("effect", name, keys))

    def refused_expression(self, node):
        """The located error for an expression outside the subset."""
        what, remedy = REFUSED.get(type(node), (f"the expression {type(node).__name__}", "use arithmetic and calls"))
        return self.parsed.error(node, what, remedy)

    def method_idiom(self, node: ast.Call, hint):
        """``"{}".format(x)``, and the list methods ``extend``, ``insert`` and ``pop(i)`` (None: another call)."""
        if is_format(node):
            return self.format_call(node, hint)
        return self.lower.lists.list_method(node, hint)

    def format_call(self, node: ast.Call, hint):
        """``"{:.3f}".format(x)`` (what an f-string becomes in generated code)."""
        if node.keywords:
            raise self.parsed.error(node, "str.format with keyword arguments", "use an f-string")
        values = [self.emit.element(self.lower.expressions.expr(a)) for a in node.args]
        return self.emit.apply("str_format", values, hint, param=("format", node.func.value.value))

    def fstring(self, node: ast.JoinedStr, hint):
        """``f"a{x:.3f}"`` as ``"a{:.3f}".format(x)``: the same conversions and format specs."""
        values: list = []
        template = self.template(node, values)
        return self.emit.apply("str_format", values, hint, param=("format", template))

    def template(self, node: ast.JoinedStr, values: list) -> str:
        text = ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                text += str(part.value).replace("{", "{{").replace("}", "}}")
                continue
            values.append(self.emit.element(self.lower.expressions.expr(part.value)))
            conversion = "" if part.conversion == -1 else "!" + chr(part.conversion)
            spec = ":" + self.template(part.format_spec, values) if part.format_spec is not None else ""
            text += "{" + conversion + spec + "}"
        return text

    def assert_(self, stmt: ast.Assert) -> None:
        """``assert test, message``: the message is computed only when the test fails, as in Python."""
        if not __debug__:  # python -O drops the user's asserts: the derivative drops them too
            return
        failed = self.emit.apply("not", [self.emit.atom(self.lower.expressions.expr(stmt.test))], None)

        def fail():
            message = [self.emit.element(self.lower.expressions.expr(stmt.msg))] if stmt.msg is not None else []
            self.emit.apply("effect", message, None, param=("effect", "@fail", ()))

        self.emit.body.append(If(failed, self.emit.collected(fail), (), self.emit.line))


def desugar_loop_else(fdef: ast.FunctionDef, fresh) -> None:
    """``for``/``while`` with ``else``: a flag set before each ``break`` of the loop, and the ``else``
    block run after the loop when the flag is not set (``fresh(base)`` names the flag)."""

    def block(stmts: list) -> list:
        out = []
        for s in stmts:
            for name in ("body", "orelse"):
                if isinstance(s, (ast.If, ast.For, ast.While)) and name in s._fields:
                    setattr(s, name, block(getattr(s, name)))
            if isinstance(s, (ast.For, ast.While)) and s.orelse:
                flag = fresh("broke")
                at = {"lineno": s.lineno, "col_offset": s.col_offset}
                s.body = _flag_breaks(s.body, flag, at)
                out.append(ast.Assign([ast.Name(flag, ast.Store(), **at)], ast.Constant(False, **at), **at))
                out.append(s)
                test = ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load(), **at), **at)
                out.append(ast.If(test, s.orelse, [], **at))
                s.orelse = []
            else:
                out.append(s)
        return out

    fdef.body = block(fdef.body)
    fdef.__dict__.pop("_adc_nodes", None)  # the tree changed: scopes.nodes walks it again


def _flag_breaks(stmts: list, flag: str, at: dict) -> list:
    """``stmts`` with ``flag = True`` before each ``break`` of their loop (not of loops inside)."""
    out = []
    for s in stmts:
        if isinstance(s, ast.Break):
            out.append(ast.Assign([ast.Name(flag, ast.Store(), **at)], ast.Constant(True, **at), **at))
        elif isinstance(s, ast.If):
            s.body, s.orelse = _flag_breaks(s.body, flag, at), _flag_breaks(s.orelse, flag, at)
        out.append(s)
    return out


def _placed(tree, where):
    """``tree`` with ``where``'s position on each node that has none (errors inside it are located there)."""
    for n in ast.walk(tree):
        if isinstance(n, (ast.stmt, ast.expr)) and not hasattr(n, "lineno"):
            n.lineno, n.col_offset = where.lineno, where.col_offset
    return tree


def _renamed(node, old: str, new: str):
    """A copy of ``node`` reading ``new`` wherever it read ``old``."""
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == old:
            n.id = new
    return node


LOG_FUNCTIONS = ("debug", "info", "warning", "warn", "error", "exception", "critical", "log")
REFUSED = {
    ast.GeneratorExp: (
        "a generator expression kept as a value",
        "consume it where it is made (sum(... for ...), max, min, any, all, sorted, list) or build a list",
    ),
    ast.Lambda: (
        "a lambda neither assigned to a name nor the key= of max, min or sorted",
        "name it (f = lambda u: ...) or define the function with def",
    ),
}


METHODS = ("format", "extend", "insert", "pop")


def is_format(node) -> bool:
    """Whether ``node`` is ``"template".format(...)``."""
    return isinstance(node.func, ast.Attribute) and node.func.attr == "format" and _is_str(node.func.value)


def _is_logging(target) -> bool:
    name = getattr(target, "__name__", None)
    return name in LOG_FUNCTIONS and getattr(logging, name) is target


def _is_str(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
