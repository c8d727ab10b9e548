"""A fuzzer of what users write with structured values: lists of ``(W, b)`` layers and tuples of
arrays of different shapes handed through helpers (one to three levels), arrays of shape ``()`` and
``(1,)`` and 3-D ones in flat lists, dicts, NamedTuples and plain objects, list slices and concatenation, the same list passed twice to a
helper that writes one and reads the other, reductions over lists, NumPy products of every ndim,
writes with repeated indices, float32 mixed with float64, and structures built in the function (plain
classes among them) with items never read; small matrices a helper builds as nested displays of a
number's functions (a rotation), whose Hessian is checked too.

    python -m adcompiler.testing.structures --programs 500 --seed 1 [--out DIR]

Each program is random source text (a seeded ``random.Random``), written to a file, imported,
differentiated in both modes and checked by ``adcompiler.testing.oracle`` at a random point: against
central finite differences, ``<u, J v> == <J^T u, v>``, each cotangent's structure, shape and dtype,
and autograd's gradient (the same source with ``np`` bound to ``autograd.numpy``) where autograd
can differentiate it.  A refusal (a located ``UnsupportedSyntaxError``) is counted apart; a wrong
value or an internal error is a failure, written with its source to ``--out``.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import random
import sys
import tempfile
import traceback
import types

SHAPES = [(), (1,), (3,), (2, 3), (2, 2, 3)]
ACTIVATIONS = ["np.tanh({})", "np.sin({})", "np.maximum({}, 0.0)", "({}) * 0.5"]


@dataclasses.dataclass
class Program:
    source: str
    args: dict  # parameter -> a builder (rng -> value)
    second: bool = False  # its Hessian checked too (against central differences of its checked gradient)


class _Writer:
    """Source text of one program: helpers first, then ``f``."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.helpers: list = []
        self.count = 0

    def helper(self, params: str, body: list) -> str:
        self.count += 1
        name = f"_h{self.count}"
        self.helpers.append(f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body))
        return name

    def program(self, params: list, body: list, args: dict, second: bool = False) -> Program:
        lines = ["import math", "", "import numpy as np", "", ""]
        for h in self.helpers:
            lines += [h, ""]
        lines.append(f"def f({', '.join(params)}):")
        lines += [f"    {line}" for line in body]
        return Program("\n".join(lines) + "\n", args, second)


def _array(shape, dtype="float64"):
    return lambda rng: _values(rng, shape, dtype)


def _values(rng, shape, dtype="float64"):
    import numpy as np

    gen = np.random.default_rng(rng.randrange(2**32))
    return gen.uniform(-1.0, 1.0, size=shape).astype(dtype)


def layers_program(rng: random.Random) -> Program:
    """A dense network: a list (or tuple) of (W, b), the layer loop in a helper (nested one or two deep)."""
    w = _Writer(rng)
    sizes = [rng.choice([1, 2, 3]) for _ in range(rng.choice([2, 3, 4]))]
    act = rng.choice(ACTIVATIONS)
    loop = rng.choice(["unpack", "index", "enumerate"])
    if loop == "unpack":
        body = ["h = x", "for W, b in layers:", f"    h = {act.format('W @ h + b')}", "return h"]
    elif loop == "index":
        body = ["h = x", "for l in range(len(layers)):", "    W = layers[l][0]", "    b = layers[l][1]"]
        body += [f"    h = {act.format('np.dot(W, h) + b')}", "return h"]
    else:
        body = ["h = x", "for l, layer in enumerate(layers):", f"    h = {act.format('layer[0] @ h + layer[1]')}"]
        body += ["return h"]
    apply = w.helper("layers, x", body)
    if rng.random() < 0.5:  # a second level
        apply = w.helper("params, x", [f"return {apply}(params, x)"])
    pick = rng.choice(["layers", "layers[0:]", "layers[:1] + layers[1:]"])
    out = rng.choice(["np.sum(h ** 2)", "np.sum(np.exp(h) / np.sum(np.exp(h)) * c)", "np.sum(h * c)"])
    body = [f"h = {apply}({pick}, x)", f"return {out}"]
    kind = rng.choice([list, tuple])
    args = {
        "layers": lambda r: kind(
            (_values(r, (sizes[i + 1], sizes[i])), _values(r, (sizes[i + 1],))) for i in range(len(sizes) - 1)
        ),
        "x": _array((sizes[0],)),
        "c": _array((sizes[-1],)),
    }
    return w.program(["layers", "x", "c"], body, args)


def broadcast_program(rng: random.Random) -> Program:
    """Arrays of different shapes in a flat list, a tuple or a record, broadcast inside helpers."""
    w = _Writer(rng)
    hshape = rng.choice([(3,), (2, 3), (2, 2, 3)])
    shapes = [rng.choice([(), (1,), (3,), hshape[-2:], hshape]) for _ in range(rng.choice([1, 2, 3]))]
    k = rng.randrange(len(shapes))
    op = rng.choice(["h + {}", "h * {}", "np.sin(h) - {}", "h / (1.5 + np.tanh({}))"])
    inner = w.helper("bs, h", [f"return {op.format(f'bs[{k}]')}"])
    if rng.random() < 0.5:
        inner = w.helper("bs, h", [f"t = {inner}(bs, h)", "return t * 2.0"])
    structure = rng.choice(["list", "tuple", "record"])
    if structure == "record":  # a float among the arrays
        shapes.append(None)
    reduce = rng.choice(["np.sum({} ** 2)", "np.sum(np.tanh({}))", "np.mean({})"])
    body = [f"return {reduce.format(f'{inner}(bs, h)')}"]
    if structure == "record":
        body = [f"s = bs[{len(shapes) - 1}]", f"return {reduce.format(f'{inner}(bs, h)')} * s"]

    def build(r):
        items = [float(r.uniform(-1, 1)) if s is None else _values(r, s) for s in shapes]
        return tuple(items) if structure == "tuple" else items

    return w.program(["bs", "h"], body, {"bs": build, "h": _array(hshape)})


def lists_program(rng: random.Random) -> Program:
    """Lists of floats: slices, concatenation, repetition, reductions, and the same list passed twice
    to a helper that writes one and reads the other."""
    w = _Writer(rng)
    n = rng.choice([3, 4, 5, 6])
    body = []
    a, b = sorted(rng.sample(range(-n, n + 1), 2))
    step = rng.choice([1, 1, 2, -1])
    body.append(f"ys = xs[{a}:{b}:{step}] if {step} > 0 else xs[::-1]")
    body.append(rng.choice(["zs = ys + [c * xs[0]]", "zs = [c] + xs + ys", "zs = xs * 2", "zs = list(xs)"]))
    if rng.random() < 0.6:
        alias = rng.choice(["zs, zs", "zs, xs", "xs, zs"])
        scale = w.helper(
            "dst, src, k", ["for i in range(min(len(dst), len(src))):", "    dst[i] = src[i] * k + dst[i]"]
        )
        body.append(f"{scale}({alias}, c)")
    if rng.random() < 0.5:
        shift = w.helper(
            "dst, src", ["for i in range(1, len(dst)):", "    dst[i] = dst[i] - 0.5 * src[i - 1]", "return dst"]
        )
        body.append(f"zs = {shift}(zs, zs)")
    total = rng.choice(["sum(zs)", "max(zs) + min(zs)", "zs[0] * zs[-1]", "sum([z * z for z in zs])"])
    body.append(f"return {total} + (sum(ys) if ys else 0.0) * c")
    return w.program(
        ["xs", "c"],
        body,
        {"xs": lambda r: [float(r.uniform(-1, 1)) for _ in range(n)], "c": lambda r: float(r.uniform(0.5, 1.5))},
    )


def products_program(rng: random.Random) -> Program:
    """@, np.dot, np.matmul, np.inner and einsum with operands of 0 to 3 dimensions."""
    w = _Writer(rng)
    op = rng.choice(["@", "matmul", "dot", "inner", "einsum"])
    na, nb = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
    if op in ("dot", "inner") and rng.random() < 0.3:
        na = 0
    k = 3
    a_shape = {0: (), 1: (k,), 2: (2, k), 3: (2, 2, k)}[na]
    if op == "inner":
        b_shape = {1: (k,), 2: (4, k), 3: (2, 4, k)}[nb]
    else:
        b_shape = {1: (k,), 2: (k, 4), 3: (2, k, 4)}[nb]
    expr = {
        "@": "a @ b" if na else "a * b",
        "matmul": "np.matmul(a, b)" if na else "a * b",
        "dot": "np.dot(a, b)",
        "inner": "np.inner(a, b)",
        "einsum": "np.einsum('...ij,...jk->...ik', a, b)" if na >= 2 and nb >= 2 else "np.einsum('i,i->', a, b)",
    }[op]
    if op == "einsum" and not (na >= 2 and nb >= 2):
        a_shape, b_shape = (k,), (k,)
    prod = w.helper("a, b", [f"return {expr}"])
    dtype = rng.choice(["float64", "float64", "float32"])
    body = [f"p = {prod}(a, b)", "return np.sum(np.sin(p)) + np.sum(a * a)"]
    return w.program(["a", "b"], body, {"a": _array(a_shape, dtype), "b": _array(b_shape)})


def writes_program(rng: random.Random) -> Program:
    """Writes into a local array with integer indices, repeated ones included (NumPy keeps the last)."""
    w = _Writer(rng)
    idx = [rng.randrange(4) for _ in range(rng.choice([2, 3]))]
    body = ["y = np.zeros(4)", f"y[np.array({idx})] = v * x[:{len(idx)}]"]
    if rng.random() < 0.5:
        body.append(f"y[np.array({[rng.randrange(4) for _ in range(2)]})] += x[1] * v")
    body.append("return np.sum(np.sin(y) * x)")
    return w.program(["x", "v"], body, {"x": _array((4,)), "v": lambda r: float(r.uniform(0.5, 1.5))})


def rows_program(rng: random.Random) -> Program:
    """Lists of lists: rows read, sliced and joined, minors of a matrix, a recursive determinant."""
    w = _Writer(rng)
    n = rng.choice([2, 3])
    det = w.helper(
        "m",
        [
            "if len(m) == 1:",
            "    return m[0][0]",
            "total = 0.0",
            "for j in range(len(m)):",
            "    minor = [row[:j] + row[j + 1:] for row in m[1:]]",
            "    total = total + (1.0 if j % 2 == 0 else -1.0) * m[0][j] * " + "__DET__(minor)",
            "return total",
        ],
    )
    w.helpers[-1] = w.helpers[-1].replace("__DET__", det)
    body = [
        rng.choice(
            [
                f"return {det}(m)",
                f"return {det}(m) + sum(m[0][1:]) * m[-1][0]",
                f"return sum([r[0] * r[-1] for r in m]) + {det}(m)",
            ]
        )
    ]
    return w.program(["m"], body, {"m": lambda r: [[float(r.uniform(-1, 1)) for _ in range(n)] for _ in range(n)]})


# ---- random structures ----------------------------------------------------------------------------

LEAF_SHAPES = [None, (), (1,), (3,), (1, 3), (2, 1), (2, 3), (2, 2, 3)]  # any two of these broadcast
UNARY = ["np.sin({})", "np.tanh({})", "np.exp(0.3 * {})", "({}) ** 2", "np.log(1.5 + np.tanh({}))", "-({})"]
BINARY = ["{} + {}", "{} * {}", "{} - {}", "{} / (2.0 + np.tanh({}))", "np.maximum({}, {})"]


class Box:
    """A plain object whose attributes hold parts of a structure (read as ``p.f0``)."""


RECORDS = {n: collections.namedtuple(f"Record{n}", [f"f{k}" for k in range(n)]) for n in (1, 2, 3)}


def _tree(rng: random.Random, depth: int):
    """A random structure: ("leaf", shape) or (kind, [children]) with kind list (alike elements or a
    record), tuple, dict (keys k0, k1, ...), a NamedTuple or a plain object (fields f0, f1, ...)."""
    if depth >= 3 or rng.random() < 0.35:
        return ("leaf", rng.choice(LEAF_SHAPES))
    kind = rng.choice(["list", "list", "tuple", "dict", "namedtuple", "object"])
    n = rng.choice([1, 2, 3])
    if kind == "list" and rng.random() < 0.6:  # elements alike
        child = _tree(rng, depth + 1)
        return (kind, [child] * n)
    return (kind, [_tree(rng, depth + 1) for _ in range(n)])


def _build(tree, rng):
    if tree[0] == "leaf":
        return float(rng.uniform(-1, 1)) if tree[1] is None else _values(rng, tree[1])
    items = [_build(t, rng) for t in tree[1]]
    if tree[0] == "dict":
        return {f"k{k}": item for k, item in enumerate(items)}
    if tree[0] in ("namedtuple", "object"):
        record = RECORDS[len(items)](*items) if tree[0] == "namedtuple" else Box()
        record.__dict__.update({f"f{k}": item for k, item in enumerate(items)}) if tree[0] == "object" else None
        return record
    return tuple(items) if tree[0] == "tuple" else items


def _paths(tree, path):
    """(access path, shape) of every leaf."""
    if tree[0] == "leaf":
        return [(path, tree[1])]
    index = {"dict": "['k{}']", "namedtuple": ".f{}", "object": ".f{}"}.get(tree[0], "[{}]")
    return [leaf for k, t in enumerate(tree[1]) for leaf in _paths(t, path + index.format(k))]


def _expr(rng, leaves, depth=0):
    """A random expression of some leaves (every shape broadcasts with every other)."""
    if depth >= 2 or rng.random() < 0.3:
        return rng.choice(leaves)[0]
    if rng.random() < 0.5:
        return rng.choice(UNARY).format(_expr(rng, leaves, depth + 1))
    return rng.choice(BINARY).format(_expr(rng, leaves, depth + 1), _expr(rng, leaves, depth + 1))


def tree_program(rng: random.Random) -> Program:
    """A random structure of floats and arrays in lists and tuples, read at paths, in loops over lists
    of alike elements, through sliced and joined lists, and in helpers handed parts of it."""
    w = _Writer(rng)
    tree = ("tuple", [_tree(rng, 1) for _ in range(rng.choice([1, 2]))])
    body, terms = [], []
    for k, part in enumerate(tree[1]):
        leaves = _paths(part, f"p{k}")
        if part[0] != "leaf" and rng.random() < 0.5:  # hand the part to a helper (one or two levels)
            inner = [(path.replace(f"p{k}", "q", 1), shape) for path, shape in leaves]
            helper = w.helper("q", [f"return np.sum({_expr(rng, inner)})"])
            if rng.random() < 0.4:
                helper = w.helper("q", [f"return 2.0 * {helper}(q)"])
            terms.append(f"{helper}(p{k})")
        else:
            terms.append(f"np.sum({_expr(rng, leaves)})")
        if part[0] in ("list", "dict") and all(c == part[1][0] for c in part[1]):  # alike: a loop, a slice
            elem = [(path, shape) for path, shape in _paths(part[1][0], "e")]
            acc = f"acc{k}"
            source = rng.choice([f"p{k}", f"p{k}[1:] + p{k}[:1]", f"p{k}[::-1]", f"p{k}[:2]"])
            source = f"p{k}.values()" if part[0] == "dict" else source
            body += [f"{acc} = 0.0", f"for e in {source}:", f"    {acc} = {acc} + np.sum({_expr(rng, elem)})"]
            terms.append(acc)
    body.append(f"return {' + '.join(terms)}")
    params = [f"p{k}" for k in range(len(tree[1]))]
    args = {p: (lambda r, t=t: _build(t, r)) for p, t in zip(params, tree[1])}
    return w.program(params, body, args)


def built_program(rng: random.Random) -> Program:
    """A structure built in the function from its parameters (a list, a tuple, a dict, a NamedTuple, a
    dataclass, or a plain class whose ``__init__`` stores its arguments), some of its items never read (so
    their parameters' cotangents are zeros of their shapes, not the number 0.0), read where it is built,
    in a helper it is handed, or in a method of its class (of a subclass at times, overriding a method the
    base's method calls: the object's class decides which runs)."""
    w = _Writer(rng)
    n = rng.choice([2, 3])
    shapes = [rng.choice(LEAF_SHAPES) for _ in range(n)]
    params = [f"a{k}" for k in range(n)]
    items = [rng.choice([p, f"{p} * 2.0", f"np.sin({p})"]) for p in params]
    kind = rng.choice(["list", "tuple", "dict", "namedtuple", "dataclass", "plain"])
    fields = [f"f{k}" for k in range(n)]
    read = sorted(rng.sample(range(n), rng.choice(range(1, n + 1))))  # not every item, at times
    index = {"list": "[{}]", "tuple": "[{}]", "dict": "['f{}']"}.get(kind, ".f{}")
    paths = lambda base: [(base + index.format(k), shapes[k]) for k in read]  # noqa: E731
    method = kind in ("dataclass", "plain") and rng.random() < 0.5
    override = False
    if kind == "namedtuple":
        w.helpers.append(f"Made = collections.namedtuple('Made', {fields!r})\n")
    elif kind in ("dataclass", "plain"):
        lines = ["@dataclasses.dataclass", "class Made:"] if kind == "dataclass" else ["class Made:"]
        if kind == "dataclass":
            lines += [f"    {f}: object" for f in fields]
        else:
            lines += [f"    def __init__(self, {', '.join(fields)}):"] + [f"        self.{f} = {f}" for f in fields]
        override = method and rng.random() < 0.5  # a subclass overriding a method the base's method calls
        if override:
            lines += ["", "    def part(self):", f"        return np.sum({_expr(rng, paths('self'))})"]
            lines += ["", "    def total(self):", "        return self.part() * 2.0"]
        elif method:
            lines += ["", "    def total(self):", f"        return np.sum({_expr(rng, paths('self'))})"]
        w.helpers.append("\n".join(lines) + "\n")
        if override:
            w.helpers.append(
                f"class Sub(Made):\n    def part(self):\n        return np.sum({_expr(rng, paths('self'))}) * 3.0\n"
            )
    made = {
        "list": "[{}]",
        "tuple": "({},)",
        "dict": "{{{}}}",
    }.get(kind, "Sub({})" if kind in ("dataclass", "plain") and override else "Made({})")
    parts = [f"'f{k}': {item}" for k, item in enumerate(items)] if kind == "dict" else items
    body = [f"s = {made.format(', '.join(parts))}"]
    if method:
        body.append("return s.total() * 1.5")
    elif rng.random() < 0.5:
        helper = w.helper("q", [f"return np.sum({_expr(rng, paths('q'))})"])
        body.append(f"return {helper}(s)")
    else:
        body.append(f"return np.sum({_expr(rng, paths('s'))})")
    program = w.program(params, body, {p: (lambda r, t=t: _build(("leaf", t), r)) for p, t in zip(params, shapes)})
    header = "import collections\nimport dataclasses\n"
    return Program(header + program.source, program.args)


def displayed_program(rng: random.Random) -> Program:
    """A helper building a small matrix of a number's functions as a nested display (a rotation, a scaling:
    ``np.array([[c, -s], [s, c]])``) that ``f`` reads: its Hessian checked too.  (The shadows of the rows and
    of the matrix, residuals of one call, lost their sharing in forward mode over the reverse code: a
    Hessian of 0.)"""
    w = _Writer(rng)
    n = rng.choice([2, 3])
    entries = ["np.cos(t)", "np.sin(t)", "-np.sin(t)", "t * t", "t", "1.0", "0.5 * t", "np.exp(0.3 * t)"]
    rows = ", ".join("[" + ", ".join(rng.choice(entries) for _ in range(n)) + "]" for _ in range(n))
    h = w.helper("t", [f"return np.array([{rows}])"])
    if rng.random() < 0.5:  # called through a second helper
        h = w.helper("t, p", [f"return {h}(t) @ p"])
        use = rng.choice(["np.sum({h}(t, p) ** 2)", "np.sum(np.tanh({h}(t, p)))", "np.sum({h}(t, p) * p) * t"])
    else:
        use = rng.choice(["np.sum(({h}(t) @ p) ** 2)", "np.sum({h}(t) * {h}(t)) * t", "np.sum(np.tanh({h}(t) @ p))"])
    body = [f"return {use.format(h=h)}"]
    return w.program(["t", "p"], body, {"t": lambda r: r.uniform(-1.0, 1.0), "p": _array((n,))}, second=True)


def _hessian_problem(f, args) -> str | None:
    """Where ``adcompiler.hessian_matrix(f)`` at ``args`` differs from central differences of the gradient
    (checked first), or None."""
    import numpy as np

    import adcompiler

    flat = lambda g: np.concatenate([np.ravel(x) for x in g])  # noqa: E731
    grad = adcompiler.grad(f, argnums=tuple(range(len(args))))
    h = np.asarray(adcompiler.hessian_matrix(f)(*args))
    sizes = [np.size(a) for a in args]
    step, columns = 1e-6, []
    for k, a in enumerate(args):
        for i in range(sizes[k]):
            moved = []
            for sign in (1.0, -1.0):
                shifted = list(args)
                if np.ndim(a) == 0:
                    shifted[k] = a + sign * step
                else:
                    shifted[k] = np.array(a, dtype=float)
                    shifted[k].flat[i] += sign * step
                moved.append(flat(grad(*shifted)))
            columns.append((moved[0] - moved[1]) / (2 * step))
    want = np.array(columns).T
    if h.shape != want.shape or not np.allclose(h, want, rtol=1e-5, atol=1e-6):
        return f"hessian_matrix {np.round(h, 6).tolist()}, central differences of the gradient {np.round(want, 6).tolist()}"
    return None


def _reverse_over_reverse_problem(f, args) -> str | None:
    """Where reverse mode over the gradient code (``vjp(grad(f))``, the pullback of a direction w) differs
    from forward mode over it (``jvp(grad(f))``): both are H w, w here the arguments themselves (shaped as
    the gradient is).  None where they agree, or where reverse over reverse is refused (a located error).
    (A loop over a slice of a list of lists counted its rows' adjoints twice there once.)"""
    import copy

    import adcompiler
    from ..errors import UnsupportedSyntaxError
    from .oracle import leaves

    grad = adcompiler.grad(f, argnums=tuple(range(len(args))))
    _, forward = adcompiler.jvp(grad, copy.deepcopy(args), copy.deepcopy(args))
    try:
        _, pullback = adcompiler.vjp(grad, *copy.deepcopy(args))
        backward = pullback(tuple(copy.deepcopy(args)))  # (grad's output: a tuple, one gradient per argument)
    except UnsupportedSyntaxError:
        return None
    if not _trees_close(backward, forward):
        return f"H w by reverse over reverse {leaves(backward)}, by forward over reverse {leaves(forward)}"
    return None


def _trees_close(a, b) -> bool:
    """Whether two values of one structure (lists, tuples, dicts, objects, arrays, numbers) hold close numbers
    (a number against an array: broadcast, as forward mode's zero tangent of a list's array is 0.0)."""
    import numpy as np

    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_trees_close, a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_trees_close(a[k], b[k]) for k in a)
        )
    if hasattr(a, "__dict__") or hasattr(b, "__dict__"):
        return type(a) is type(b) and _trees_close(vars(a), vars(b))
    try:
        return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-6, atol=1e-9))
    except (TypeError, ValueError):
        return False


FAMILIES = [layers_program, broadcast_program, lists_program, products_program, writes_program, rows_program]
FAMILIES += [tree_program, tree_program]  # random structures: drawn twice as often
FAMILIES += [built_program, displayed_program]


def generate(rng: random.Random) -> Program:
    return rng.choice(FAMILIES)(rng)


@dataclasses.dataclass
class Summary:
    programs: int = 0
    ok: int = 0
    refusals: int = 0
    failures: int = 0
    reports: list = dataclasses.field(default_factory=list)

    def __str__(self):
        return f"programs {self.programs}, ok {self.ok}, refusals {self.refusals}, failures {self.failures}"


def _autograd_twin(module):
    """The same ``f`` with ``np`` bound to autograd.numpy in every function of its module, or None."""
    try:
        import autograd.numpy as anp
    except ImportError:
        return None
    g = dict(vars(module), np=anp)
    for name, value in vars(module).items():
        if isinstance(value, types.FunctionType):
            g[name] = types.FunctionType(value.__code__, g, name, value.__defaults__)
    return g["f"]


def check(program: Program, seed: int, directory: str, k: int) -> str:
    """ "ok", "refusal: ..." or "failure: ..." for one program at one random point."""
    from ..errors import UnsupportedSyntaxError
    from .fuzz import load_module
    from .oracle import check_both_modes

    module = load_module(program.source, directory, f"structures{k}")
    rng = random.Random(seed)
    args = tuple(build(rng) for build in program.args.values())
    twin = _autograd_twin(module)
    try:
        check_both_modes(module.f, args, twin=_twin_jacobian(twin, args) if twin else None)
        problem = _hessian_problem(module.f, args) if program.second else None
        problem = problem or _reverse_over_reverse_problem(module.f, args)
        if problem is not None:
            return f"failure: {problem}"
    except UnsupportedSyntaxError as exc:
        return f"refusal: {exc}"
    except Exception as exc:  # noqa: BLE001 - a wrong value or an internal error
        return f"failure: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"
    return "ok"


def _twin_jacobian(twin, args):
    """A function of the arguments giving autograd's flattened Jacobian (None where autograd cannot)."""
    import numpy as np

    from .oracle import leaves

    try:
        import autograd

        row = []
        for k in range(len(args)):
            g = autograd.grad(twin, k)(*args)
            row += leaves(g)
    except Exception:  # noqa: BLE001 - autograd lacks the function: finite differences only
        return None
    return lambda *a: np.array([row])


def run(programs: int, seed: int, out_dir: str | None = None) -> Summary:
    summary = Summary()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="adc_structures_") as directory:
        for k in range(programs):
            program = generate(rng)
            result = check(program, rng.randrange(2**31), directory, k)
            summary.programs += 1
            if result == "ok":
                summary.ok += 1
                continue
            if result.startswith("refusal"):
                summary.refusals += 1
            else:
                summary.failures += 1
            if out_dir:
                os.makedirs(out_dir, exist_ok=True)
                path = os.path.join(out_dir, f"{result.split(':')[0]}_seed{seed}_prog{k}.py")
                with open(path, "w") as fh:
                    fh.write("# " + result.replace("\n", "\n# ") + "\n" + program.source)
                summary.reports.append(path)
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None)
    a = parser.parse_args(argv)
    s = run(a.programs, a.seed, a.out)
    print(s)
    return 1 if s.failures else 0


if __name__ == "__main__":
    sys.exit(main())
