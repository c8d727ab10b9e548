"""ANF equations as generated-program statements and expressions: the primal lines both modes emit."""

from __future__ import annotations
from . import expr as E
from .expr import CASTS, pad_call
from .nodes import Assign, Break, Const, Continue, Def, Do, Eq, For, ForS, Function, If, IfS, Ret, Var, While, WhileS
from .nodes import LIST_SLICE, rebuild

BINARY = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "truediv": "/",
    "floordiv": "//",
    "mod": "%",
    "pow": "**",
    "matmul": "@",
    "bitand": "&",
    "bitor": "|",
    "bitxor": "^",
}
UNARY = {"neg": "-", "pos": "+", "not": "not", "invert": "~"}
COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "is_": "is", "is_not": "is not"}
COPIES = ("read", "write")  # slot access: out = in
CONTAINER_EXPRS = {
    "list": lambda *xs: E.List(xs),
    "tuple": lambda *xs: E.Tuple(xs),
    "list_copy": lambda xs: E.Call("list", (xs,)),
    "list_repeat": lambda a, n: E.BinOp("*", E.List((a,)), n),
    "list_concat": lambda a, b: E.BinOp("+", a, b, True),
    "list_times": lambda xs, n: E.BinOp("*", xs, n, True),
    "array_sum": lambda x: E.Call("sum", (x,)),
    "getitem": lambda xs, i: E.Subscript(xs, i),
    "numpy.dtype_of": lambda x: E.Attr(x, "dtype"),  # x.dtype, as written (NumPy has no function of it)
    "numpy.split/part": lambda x, kind, sections, axis, i, raw: E.Subscript(raw, i),  # one piece of a split
    "numpy.pad": pad_call,
    **{cast: (lambda x, dtype, f=f: E.Call(f, (x,), (("dtype", dtype),))) for cast, f in CASTS.items()},
    "len": lambda xs: E.Call("len", (xs,)),
    "range": lambda a, b, s: E.Call("range", (a, b, s)),
    "pop": lambda xs: E.Method(xs, "pop", ()),
    "sum": lambda xs: E.Call("sum", (xs,)),
    "argmax": lambda xs: E.Call("@argmax", (xs,)),
    "add_at": lambda d, x, index, v: E.Call("@add_at", (d, x, index, v)),
    "argmin": lambda xs: E.Call("@argmin", (xs,)),
    "argsort": lambda keys, reverse: E.Call("@argsort", (keys, reverse)),
    "with_value": lambda s, value: value,
    "sum_start": lambda xs, start: E.Call("sum", (xs, start)),
}
EFFECTS = ("setitem", "append")  # equations without outputs: they change a list


def atom(a) -> E.Expr:
    """The expression for an atom or a nested tuple of atoms."""
    if isinstance(a, Var):
        return E.Name(a.name)
    if isinstance(a, Const):
        return E.Num(a.value, a.text)
    if isinstance(a, tuple):
        return E.Tuple(tuple(atom(x) for x in a))
    raise TypeError(f"not an atom: {a!r}")


def prim_expr(eq: Eq, callee_name=None, rename=None) -> E.Expr:
    """The Python expression computing one equation's right-hand side.

    ``callee_name(fn)`` spells a call of a user function; ``rename`` maps
    primitive names to the helper names a printed stage defines (``dup``).
    """
    args = tuple(atom(a) for a in eq.ins)
    if rename and eq.prim in rename:
        return E.Call(rename[eq.prim], args)
    if eq.prim in BINARY:
        return E.BinOp(BINARY[eq.prim], *args)
    if eq.prim in UNARY:
        return E.Unary(UNARY[eq.prim], args[0])
    if eq.prim in COMPARE:
        return E.Compare(COMPARE[eq.prim], *args)
    if eq.prim in COPIES:
        return args[0]
    if eq.prim == "global":  # a module's constant array, by its name (an item of its dict: by its path)
        return global_expr(eq.param)
    if eq.param == LIST_SLICE:  # xs[a:b] of a list: marked, so that a target may spell Python's copy
        return E.Subscript(*args, lists=True)
    if eq.prim in CONTAINER_EXPRS:
        return CONTAINER_EXPRS[eq.prim](*args)
    if eq.prim.endswith("]"):  # numpy.linalg.eigh[1](a, ..., raw): one array of a decomposition
        return E.Subscript(args[-1], E.Num(int(eq.prim[eq.prim.rindex("[") + 1 : -1])))
    if eq.prim in (
        "effect",
        "draw",
        "library",
    ):  # print(...), np.random.normal(...), np.vander(...): (_, name, keywords)
        if eq.param[1].startswith("builtins.str."):  # kind.startswith("ab"): a string's method (analysis.methods)
            return E.Method(args[0], eq.param[1][len("builtins.str.") :], args[1:])
        n = len(args) - len(eq.param[2])
        return E.Call(eq.param[1], args[:n], tuple(zip(eq.param[2], args[n:])))
    if eq.prim == "str_format":  # an f-string as "template".format(values)
        return E.Method(E.Num(eq.param[1]), "format", args)
    if isinstance(eq.param, str):  # a runtime helper, called by the name the code used
        return E.Call(eq.param, args)
    if eq.prim.endswith("/list"):  # numpy.vstack(xs), numpy.concatenate(xs, axis=...) of a sequence xs
        return E.Call(eq.prim[: -len("/list")], args[:1], (("axis", args[1]),) if len(args) > 1 else ())
    if "/" in eq.prim:  # a primitive's variant for operands of one kind (analysis.specialise): its own call
        return prim_expr(Eq(eq.outs, eq.prim[: eq.prim.index("/")], eq.ins, eq.line, eq.param), callee_name, rename)
    if isinstance(eq.param, tuple) and eq.param[:1] == ("seq",):  # numpy.concatenate([a, b], axis=...)
        k = eq.param[1]
        keywords = (("axis", args[k]),) if len(args) > k else ()
        return E.Call(eq.prim, (E.List(args[:k]),), keywords)
    if eq.prim.startswith("numpy.") and isinstance(eq.param, tuple):  # keywords kept as written
        n = len(args) - len(eq.param)
        return E.Call(eq.prim, args[:n], tuple(zip(eq.param, args[n:])))
    if eq.prim in ("call", "custom"):
        return E.Call(callee_name(eq.param) if callee_name else eq.param.__name__, args)
    return E.Call(eq.prim, args)


def primal_stmt(eq: Eq, callee_name=None, rename=None, shape_of=None):
    """The output statement that performs one equation; ``shape_of(fn)``: the shape of what a user function
    returns (``ir.nodes.rebuild``'s), for a call's targets (``p, (q, r) = helper(2.0)``)."""
    if eq.prim == "setitem":
        xs, i, v = (atom(a) for a in eq.ins)
        return Assign((E.Subscript(xs, i),), v, eq.line)
    if eq.prim == "append":
        xs, v = (atom(a) for a in eq.ins)
        return Do(E.Method(xs, "append", (v,)), eq.line)
    if not eq.outs:  # a check run for its error (check_unpack)
        return Do(prim_expr(eq, callee_name, rename), eq.line)
    names = tuple(v.name for v in eq.outs)
    if eq.prim == "call" and shape_of is not None:
        names = (rebuild(shape_of(eq.param), iter(names)),)
    return Assign(names, prim_expr(eq, callee_name, rename), eq.line)


def to_def(fn: Function, name: str, callee_name=None, rename=None, shape_of=None) -> Def:
    """An input-side function as an output-side ``Def`` (for printing a stage)."""

    def block(stmts) -> tuple:
        out = []
        for stmt in stmts:
            if isinstance(stmt, Eq):
                out.append(primal_stmt(stmt, callee_name, rename, shape_of))
            elif isinstance(stmt, If):
                out.append(IfS(atom(stmt.test), block(stmt.body), block(stmt.orelse), stmt.line))
            elif isinstance(stmt, For):
                out.append(ForS(stmt.target.name, range_expr(stmt), block(stmt.body), stmt.line))
            elif isinstance(stmt, While):
                out.append(WhileS(block(stmt.header), atom(stmt.test), block(stmt.body), stmt.line))
            elif isinstance(stmt, (Break, Continue)):
                out.append(stmt)
            else:
                out.append(Ret(atom(stmt.value), stmt.line))
        return tuple(out)

    return Def(name, fn.params, tuple(atom(d) for d in fn.defaults), block(fn.body), source=fn.source)


def range_expr(stmt: For) -> E.Expr:
    """``range(start, stop, step)`` written as briefly as Python allows."""
    args = [atom(stmt.start), atom(stmt.stop), atom(stmt.step)]
    if stmt.step == Const(1):
        args = args[1:2] if stmt.start == Const(0) else args[:2]
    return E.Call("range", tuple(args))


def global_expr(param) -> E.Expr:
    """What a ``global`` equation reads: a name, or an item of a dict or object a name holds by its path
    (``("params", ("[]", "W"))``: ``params["W"]``; ``(".", "W")``: an attribute)."""
    if isinstance(param, str):
        return E.Name(param)
    out: E.Expr = E.Name(param[0])
    for kind, key in param[1:]:
        out = E.Subscript(out, E.Num(key)) if kind == "[]" else E.Attr(out, key)
    return out
