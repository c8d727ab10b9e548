"""Array expressions of one shape: ArrayExprs, the array side of a NumPy program's expressions.

Elementwise arithmetic, powers, functions and comparisons, operands that broadcast, array outputs, and
which values are new arrays and which names may be written into; what changes shape is ShapeExprs'
(numpy_shape).
"""

from __future__ import annotations

import ast
import math

from .config import SQUASH_AT
from .numpy_shape import ShapeExprs
from .scalar_expr import draw_const, lit, wrap
from .scope import Env, NpEnv

# NumPy calls whose result is a new array (never a view of an argument): see is_fresh
_FRESH_CALLS = {
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "exp", "expm1", "log", "log1p",
    "log2", "log10", "sqrt", "square", "abs", "sign", "maximum", "minimum", "where", "clip", "power", "hypot",
    "logaddexp", "arctan2", "sum", "mean", "max", "min", "dot", "matmul", "outer", "inner", "cumsum", "copy",
    "array", "concatenate", "stack", "hstack", "vstack", "zeros", "ones", "zeros_like", "ones_like", "full",
    "arange", "eye", "linspace",
}  # fmt: skip


def is_fresh(src: str, np: str) -> bool:
    """Is the value of src a new array (not a view of, nor the same object as, a variable)? ``np``: NumPy's
    import alias."""
    node = ast.parse(src, mode="eval").body
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return True
    if isinstance(node, ast.Call):
        fn = node.func
        if isinstance(fn, ast.Name):
            return fn.id.startswith("h")  # helpers return fresh arrays (Draft.fresh_returns)
        if isinstance(fn, ast.Attribute):
            if isinstance(fn.value, ast.Name) and fn.value.id == np:
                return fn.attr in _FRESH_CALLS
            return fn.attr in ("copy", "sum", "mean", "max", "min", "dot", "cumsum", "clip")
    if isinstance(node, ast.Subscript):  # advanced indexing copies
        idx = node.slice
        return isinstance(idx, (ast.Compare, ast.Call))
    return False


def names_in(src: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(src, mode="eval")) if isinstance(n, ast.Name)}


class ArrayExprs:
    """Array expressions of the program being written, made by ``exprs`` (its Exprs, whose floats they
    read, and which reads floats from them); ``across`` (a ShapeExprs) writes those that change shape."""

    def __init__(self, exprs):
        self.exprs, self.draft = exprs, exprs.draft
        self.rng = self.draft.rng
        self.across = ShapeExprs(self)

    def owned(self, env: NpEnv, src: str) -> tuple[str, bool]:
        """src made safe to bind to a name: (src, writable).

        A view of (or another name for) a writable array would see that array's later element writes
        (aliasing, which README does not claim for arrays): such a value is copied. Fresh values are
        writable; other views stay read-only (sometimes copied, to make a writable array).
        """
        if is_fresh(src, self.draft.np):
            return src, True
        writable = {n for n, a in env.arrays.items() if a.writable}
        if names_in(src) & writable or self.draft.chance(0.2):
            if isinstance(ast.parse(src, mode="eval").body, (ast.Name, ast.Attribute, ast.Subscript)):
                return (f"{src}.copy()" if self.draft.chance(0.5) else f"{self.draft.f('copy')}({src})"), True
            return f"{self.draft.f('copy')}({src})", True
        return src, False

    def asquash(self, src: str, b: float, cap: float = SQUASH_AT) -> tuple[str, float]:
        """An array expression with entries of src's signs and bound <= cap (squash, elementwise)."""
        f = self.draft.f
        return self.exprs.squash(src, b, cap, (f("tanh"), f("sin"), f("arctan"), f("abs")))

    def afit(self, src: str, b: float, cap: float) -> tuple[str, float]:
        """Make the bound of an array expression at most cap."""
        return self.exprs.fit(src, b, cap, arrays=True)

    def index_dim(self, env: Env, dim: int) -> str:
        """An integer index valid on an axis of length dim."""
        rng = self.rng
        cands = [str(k) for k in range(dim)] + ["-1", f"-{dim}"]
        for i, ix in env.idx.items():
            if ix.hi <= dim:
                cands += [i, i, f"{i} - 1", f"-1 - {i}"]
            cands += [f"({i} + 1) % {dim}"]
        for k in env.ints:
            cands += [f"{k} % {dim}"]
        return rng.choice(cands)

    # ---------------------------------------------------------------- array expressions

    def aexpr(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An array expression of exactly this shape, and a bound on its entries."""
        src, b = self._aexpr(env, shape, depth)
        return self.asquash(src, b)

    def const_array(self, shape: tuple) -> tuple[str, float]:
        rng = self.rng
        c = draw_const(rng)
        if len(shape) == 1:
            (k,) = shape
            return rng.choice(
                [
                    (f"{self.draft.f('linspace')}(-1.0, 1.0, {k})", 1.0),
                    (f"0.25 * {self.draft.f('arange')}({k}.0)", 0.25 * k),
                    (f"{self.draft.f('ones')}({k})", 1.0),
                    (f"{self.draft.f('full')}({k}, {lit(c)})", abs(c)),
                    (f"{self.draft.f('array')}([{', '.join(lit(draw_const(rng)) for _ in range(k))}])", 1.0),
                ]
            )
        r, cc = shape
        return rng.choice(
            [
                (f"{self.draft.f('eye')}({r}, {cc})", 1.0),
                (f"{self.draft.f('ones')}(({r}, {cc}))", 1.0),
                (f"{self.draft.f('full')}(({r}, {cc}), {lit(c)})", abs(c)),
                (f"0.1 * {self.draft.f('arange')}({r * cc}.0).reshape({r}, {cc})", 0.1 * r * cc),
                (f"{self.draft.f('linspace')}(-1.0, 1.0, {r * cc}).reshape(({r}, {cc}))", 1.0),
            ]
        )

    def aleaf(self, env: NpEnv, shape: tuple, derive: bool = True) -> tuple[str, float]:
        names = env.arrays_of(shape)
        if names and self.draft.chance(0.85):
            name = names[-1 - min(int(self.rng.expovariate(0.6)), len(names) - 1)]
            return name, env.arrays[name].bound
        if derive and self.draft.chance(0.6):
            return self.across.reshape_expr(env, shape, 0)
        return self.const_array(shape)

    def sub(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An operand: an expression when depth allows, else a leaf that derives nothing."""
        if depth <= 0:
            return self.aleaf(env, shape, derive=False)
        return self.aexpr(env, shape, depth)

    def scalar(self, env: NpEnv, depth: int) -> tuple[str, float]:
        return self.exprs.expr(env, max(0, depth))

    def broadcast_operand(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An operand that broadcasts to shape without having it: a float, a row, a column, keepdims."""
        rng = self.rng
        if len(shape) == 1 or self.draft.chance(0.3):
            return self.scalar(env, depth)
        r, c = shape
        k = rng.random()
        if k < 0.35:
            return self.sub(env, (c,), depth)
        if k < 0.6:
            u, b = self.sub(env, (r,), depth)
            form = rng.choice(
                [f"{wrap(u)}[:, None]", f"{self.draft.f('expand_dims')}({u}, 1)", f"{wrap(u)}.reshape({r}, 1)"]
            )
            return form, b
        if k < 0.75:
            w, b = self.sub(env, (c,), depth)
            return rng.choice([f"{wrap(w)}[None, :]", f"{self.draft.f('expand_dims')}({w}, 0)"]), b
        X, b = self.sub(env, shape, depth)
        axis = rng.choice([0, 1, -1, None])  # None: a (1, 1) array, the shape np.max(X, keepdims=True) gives
        n_red = r * c if axis is None else r if axis == 0 else c
        fn = rng.choice(["sum", "mean", "max", "min"])
        if fn == "sum":
            return f"{self.draft.f('sum')}({X}, axis={axis}, keepdims=True)", b * n_red
        if self.draft.chance(0.3):
            return f"{wrap(X)}.{fn}(axis={axis}, keepdims=True)", b
        return f"{self.draft.f(fn)}({X}, axis={axis}, keepdims=True)", b

    def _aexpr(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        rng = self.rng
        if depth <= 0 or self.draft.chance(0.15):
            return self.aleaf(env, shape)
        sub = lambda: self.aexpr(env, shape, depth - 1)  # noqa: E731
        r = rng.random()
        if r < 0.22:  # arithmetic: array op array | float | broadcast operand
            a, ba = sub()
            k = rng.random()
            if k < 0.5:
                b, bb = sub()
            else:
                b, bb = self.broadcast_operand(env, shape, depth - 1)
            if self.draft.chance(0.3):
                a, ba, b, bb = b, bb, a, ba
            op = rng.choice(["+", "-", "*", "*"])
            if op == "*":
                return f"({a}) * ({b})", ba * bb
            return f"({a} {op} {b})", ba + bb
        if r < 0.29:  # division by something away from zero
            a, ba = sub()
            full = self.draft.chance(0.6)  # the denominator has the shape (else it broadcasts)
            b, _ = sub() if full else self.broadcast_operand(env, shape, depth - 1)
            den = rng.choice(
                [
                    (f"(1.0 + {self.draft.f('square')}({b}))", 1.0),
                    (f"(1.0 + ({b}) ** 2)", 1.0),
                    (f"(2.0 + {self.draft.f('sin')}({b}))", 1.0),
                    (f"(1.5 + {self.draft.f('tanh')}({b}))", 0.5),
                    (f"(1.0 + {self.draft.f('abs')}({b}))", 1.0),
                ]
            )
            if full and self.draft.chance(0.25):  # a float over an array of the shape
                s, sb = self.scalar(env, depth - 1)
                return f"({s}) / {den[0]}", sb / den[1]
            return f"({a}) / {den[0]}", ba / den[1]
        if r < 0.36:
            return self.apower(env, shape, depth)
        if r < 0.58:
            return self.aunary(env, shape, depth)
        if r < 0.68:
            return self.abinary(env, shape, depth)
        if r < 0.84:
            return self.across.reshape_expr(env, shape, depth - 1)
        if r < 0.88:
            (a, ba), (b, bb) = sub(), sub()
            return f"({a} if {self.exprs.cond(env)} else {b})", max(ba, bb)
        if r < 0.91:
            a, ba = sub()
            return f"-({a})", ba
        if r < 0.97:
            hs = [h for h in self.draft.ahelpers if h.outs == [shape]]
            if hs:
                h = rng.choice(hs)
                return f"{h.name}({self.across.ahelper_args(env, h)})", h.bound
        if r < 0.99:
            return self.constructed(env, shape, depth)
        return self.aleaf(env, shape)

    def constructed(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An array made by a constructor of values that may be active: ``np.full`` and ``np.full_like`` of a
        float expression, ``np.linspace`` between two (a column of them reshaped, for a matrix), or between two
        rows (a linspace of vectors, for a matrix: its ends' cotangents are sums down the new axis)."""
        f, rng = self.draft.f, self.rng
        (s, bs), (t, bt) = self.scalar(env, depth - 1), self.scalar(env, depth - 1)
        dims = ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")
        k = rng.random()
        if k < 0.3:
            return f"{f('full')}(({dims}), {s})", bs
        if k < 0.55:
            like, _ = self.aleaf(env, shape, derive=False)
            return f"{f('full_like')}({like}, {s})", bs
        if len(shape) == 1:
            return f"{f('linspace')}({s}, {t}, {shape[0]})", max(bs, bt)
        r, c = shape
        if k < 0.8:
            return f"{f('linspace')}({s}, {t}, {r * c}).reshape(({r}, {c}))", max(bs, bt)
        (u, bu), (v, bv) = self.sub(env, (c,), depth - 1), self.sub(env, (c,), depth - 1)
        endpoint = rng.choice(["", ", endpoint=False"])
        return f"{f('linspace')}({u}, {v}, {r}{endpoint})", max(bu, bv)

    def apower(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        rng = self.rng
        a, ba = self.aexpr(env, shape, depth - 1)
        k = rng.random()
        if k < 0.35:
            a, ba = self.afit(a, ba, 2.0)
            e = rng.choice([2, 2, 3])
            if self.draft.chance(0.3):
                return f"{self.draft.f('power')}({a}, {e})", ba**e
            return f"({a}) ** {e}", ba**e
        if k < 0.5:
            return f"(1.0 + {self.draft.f('square')}({a})) ** -1", 1.0
        if k < 0.7:  # an active array exponent
            b, bb = self.aexpr(env, shape, depth - 1) if self.draft.chance(0.6) else self.scalar(env, depth - 1)
            b, bb = self.afit(b, bb, 2.0)  # np.tanh squashes floats and arrays alike
            a1, _ = self.afit(a, ba, 1.0)
            if self.draft.chance(0.3):
                return f"{self.draft.f('power')}(1.0 + {self.draft.f('square')}({a1}), {b})", 2.0**bb
            return f"(1.2 + {self.draft.f('sin')}({a1})) ** ({b})", 2.2**bb
        if k < 0.85:  # a float base, an array exponent
            s, _ = self.scalar(env, depth - 1)
            a, ba = self.afit(a, ba, 2.0)
            return f"(1.2 + math.sin({s})) ** ({a})", 2.2**ba
        a, ba = self.afit(a, ba, 2.0)
        return f"2.0 ** ({a})", 2.0**ba

    def aunary(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        rng = self.rng
        a, ba = self.aexpr(env, shape, depth - 1)
        fn = rng.choice(
            ["sin", "cos", "tanh", "arctan", "exp", "expm1", "sinh", "cosh", "log", "log1p", "log2", "log10"]
            + ["sqrt", "abs", "square", "sign", "arcsin", "arccos", "tan"]
        )
        F = self.draft.f(fn)
        if fn in ("sin", "cos", "tanh"):
            return f"{F}({a})", 1.0
        if fn == "arctan":
            return f"{F}({a})", 1.6
        if fn in ("exp", "expm1", "sinh", "cosh"):
            a, ba = self.afit(a, ba, 2.0)
            return f"{F}({a})", math.exp(ba)
        if fn in ("log", "log2", "log10"):
            a, ba = self.afit(a, ba, 10.0)
            return f"{F}(1.0 + {self.draft.f('square')}({a}))", math.log(1 + ba * ba) * 1.5
        if fn == "log1p":
            a, ba = self.afit(a, ba, 10.0)
            return rng.choice([f"{F}({self.draft.f('abs')}({a}))", f"{F}(({a}) ** 2)"]), math.log1p(ba * ba)
        if fn == "sqrt":
            return f"{F}(1.0 + ({a}) ** 2)", math.sqrt(1 + ba * ba)
        if fn == "abs":
            return f"{F}({a})", ba
        if fn == "square":
            a, ba = self.afit(a, ba, 2.0)
            return f"{F}({a})", ba * ba
        if fn == "sign":
            if len(a) > 30:
                return f"{self.draft.f('abs')}({a})", ba
            return f"{F}({a}) * {wrap(a)}", ba
        if fn in ("arcsin", "arccos"):
            return f"{F}(0.9 * {self.draft.f('tanh')}({a}))", 2.7
        return f"{F}(0.5 * {self.draft.f('tanh')}({a}))", 0.6

    def acond(self, env: NpEnv, shape: tuple, depth: int) -> str:
        """An elementwise comparison, for np.where."""
        a, _ = self.aexpr(env, shape, max(0, depth - 1))
        op = self.rng.choice([">", "<", ">=", "<="])
        if self.draft.chance(0.5):
            b, _ = self.aexpr(env, shape, 0)
            test = f"{a} {op} {b}"
        else:
            test = f"{a} {op} {lit(draw_const(self.rng, -0.8, 0.8))}"
        idioms = self.draft.idioms()  # (sometimes combined with another: a seed's other choices stay as they were)
        if idioms.random() < 0.2:
            joint = idioms.choice(["&", "|", "^"])
            other = f"{a} {idioms.choice(['>', '<'])} {lit(draw_const(idioms, -0.8, 0.8))}"
            test = f"({test}) {joint} {'~' if idioms.random() < 0.5 else ''}({other})"
        return test

    def abinary(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        rng = self.rng
        a, ba = self.aexpr(env, shape, depth - 1)
        if self.draft.chance(0.6):
            b, bb = self.aexpr(env, shape, depth - 1)
        else:
            b, bb = self.broadcast_operand(env, shape, depth - 1)
        fn = rng.choice(["maximum", "minimum", "where", "where", "clip", "hypot", "logaddexp", "arctan2"])
        F = self.draft.f(fn)
        if fn in ("maximum", "minimum"):
            if self.draft.chance(0.3):
                return f"{F}({a}, {lit(draw_const(rng, -0.5, 0.5))})", ba
            return f"{F}({a}, {b})", max(ba, bb)
        if fn == "where":
            return f"{F}({self.acond(env, shape, depth)}, {a}, {b})", max(ba, bb)
        if fn == "clip":
            lo = draw_const(rng, -1.0, 0.0)
            hi = round(lo + rng.uniform(0.3, 1.5), 2)
            if self.draft.chance(0.3):
                return f"{wrap(a)}.clip({lit(lo)}, {lit(hi)})", max(abs(lo), abs(hi))
            return f"{F}({a}, {lit(lo)}, {lit(hi)})", max(abs(lo), abs(hi))
        if fn == "hypot":
            return f"{F}({a}, {b})", ba + bb
        if fn == "logaddexp":
            a, ba = self.afit(a, ba, 10.0)
            return f"{F}({a}, {b})", max(ba, bb) + 0.7
        b2, _ = self.afit(b, bb, 1.0)
        return f"{F}({a}, 1.5 + {b2})", 3.2

    # ---------------------------------------------------------------- outputs

    def alive_mix(self, env: NpEnv, shape: tuple, src: str, b: float) -> tuple[str, float]:
        """An array output plus small multiples of same-shaped arrays and floats."""
        names = env.arrays_of(shape) + list(env.floats)
        if not names or self.draft.chance(0.25):
            return src, b
        for n in self.rng.sample(names, min(len(names), self.rng.randint(1, 2))):
            nb = env.arrays[n].bound if n in env.arrays else env.floats[n]
            t, tb = (self.afit if n in env.arrays else self.exprs.fit)(n, nb, 3.0)
            src, b = f"{src} + {lit(draw_const(self.rng, -0.7, 0.7))} * {t}", b + 0.7 * tb
        return src, b

    def output(self, env: NpEnv, shape: tuple) -> tuple[str, float]:
        """An array output of this shape (a copy where the function's outputs must be fresh arrays)."""
        src, b = self.alive_mix(env, shape, *self.aexpr(env, shape, self.rng.randint(1, 3)))
        if self.draft.fresh_returns and not is_fresh(src, self.draft.np):
            src = f"{self.draft.f('copy')}({src})"
        return src, b
