"""Expressions across shapes: ShapeExprs makes arrays from arrays of other shapes, and floats from arrays.

Rows, columns, axis reductions, matrix products, reshapes, slices, joins and fancy indexing; sums,
dot products, elements, norms and masks; and the arguments of helpers taking arrays (small shapes
among them).
"""

from __future__ import annotations

import math

from .config import HELPER_BOUND
from .scalar_expr import draw_const, lit, wrap
from .scope import ArrayHelper, NpEnv


class ShapeExprs:
    """The expressions of ``arrays`` (an ArrayExprs, which holds this part) whose shape is not their
    operands': arrays or floats from arrays."""

    def __init__(self, arrays):
        self.arrays, self.exprs, self.draft = arrays, arrays.exprs, arrays.draft
        self.rng = self.draft.rng

    def reshape_expr(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An expression of this shape made from arrays of other shapes (or an array of it, re-arranged)."""
        rng = self.rng
        S = lambda sh: self.arrays.sub(env, sh, depth)  # noqa: E731
        opts = []
        dims = self.draft.dims
        if len(shape) == 1:
            (k,) = shape

            def row(r=None):
                r = r if r is not None else rng.choice(dims)
                X, b = S((r, k))
                i = self.arrays.index_dim(env, r)
                return rng.choice([f"{wrap(X)}[{i}]", f"{wrap(X)}[{i}, :]"]), b

            def col():
                c = rng.choice(dims)
                X, b = S((k, c))
                return f"{wrap(X)}[:, {self.arrays.index_dim(env, c)}]", b

            def reduce_axis():
                other = rng.choice(dims)
                axis = rng.choice([0, 1, -1])
                X, b = S((other, k) if axis == 0 else (k, other))
                fn = rng.choice(["sum", "mean", "max", "min"])
                mult = other if fn == "sum" else 1
                if self.draft.chance(0.3):
                    return f"{wrap(X)}.{fn}(axis={axis})", b * mult
                return (
                    f"{self.draft.f(fn)}({X}, axis={axis})"
                    if self.draft.chance(0.7)
                    else f"{self.draft.f(fn)}({X}, {axis})"
                ), b * mult

            def matvec():
                c = rng.choice(dims)
                X, bx = S((k, c))
                w, bw = S((c,))
                form = rng.choice(
                    [
                        f"{wrap(X)} @ {wrap(w)}",
                        f"{self.draft.f('dot')}({X}, {w})",
                        f"{self.draft.f('matmul')}({X}, {w})",
                    ]
                    + [f"{self.draft.f('inner')}({X}, {w})", f"{wrap(X)}.dot({w})"]
                )
                return form, bx * bw * c

            def vecmat():
                r = rng.choice(dims)
                w, bw = S((r,))
                X, bx = S((r, k))
                return rng.choice([f"{wrap(w)} @ {wrap(X)}", f"{self.draft.f('dot')}({w}, {X})"]), bx * bw * r

            def rearrange():
                a, b = S(shape)
                return (
                    rng.choice(
                        [
                            f"{wrap(a)}[::-1]",
                            f"{self.draft.f('squeeze')}({wrap(a)}[None, :])",
                            f"{self.draft.f('squeeze')}({self.draft.f('expand_dims')}({a}, 1), axis=1)",
                            f"{self.draft.f('ravel')}({wrap(a)}[:, None])",
                            f"{wrap(a)}.reshape(1, {k}).ravel()",
                        ]
                    ),
                    b,
                )

            def cumsum():
                a, b = S(shape)
                return (f"{self.draft.f('cumsum')}({a})" if self.draft.chance(0.7) else f"{wrap(a)}.cumsum()"), b * k

            def splice():
                a, ba = S(shape)
                b, bb = S(shape)
                j = rng.randint(1, k - 1)
                fn = rng.choice(["concatenate", "concatenate", "hstack"])
                return f"{self.draft.f(fn)}([{wrap(a)}[:{j}], {wrap(b)}[{j}:]])", max(ba, bb)

            def slice_longer():
                L = rng.choice([d for d in dims if d > k])
                a, b = S((L,))
                forms = [f"[:{k}]", f"[{L - k}:]", f"[-{k}:]"]
                if L >= k + 1:
                    forms.append(f"[1:{k + 1}]")
                if (L + 1) // 2 == k:
                    forms.append("[::2]")
                if L // 2 == k:
                    forms.append("[1::2]")
                return f"{wrap(a)}{rng.choice(forms)}", b

            def take():
                L = rng.choice(dims)
                a, b = S((L,))
                idx = [rng.randint(-L, L - 1) if self.draft.chance(0.2) else rng.randint(0, L - 1) for _ in range(k)]
                return f"{wrap(a)}[{self.draft.f('array')}({idx})]", b

            def ravel():
                pairs = [(r, c) for r in dims for c in dims if r * c == k]
                X, b = S(rng.choice(pairs))
                return (
                    rng.choice(
                        [
                            f"{self.draft.f('ravel')}({X})",
                            f"{wrap(X)}.ravel()",
                            f"{self.draft.f('reshape')}({X}, ({k},))",
                        ]
                    ),
                    b,
                )

            def diag():
                X, b = S((k, k))
                return f"{self.draft.f('diag')}({X})", b

            opts = [row, row, col, reduce_axis, reduce_axis, matvec, matvec, vecmat, rearrange, cumsum]
            if k >= 2:
                opts.append(splice)
            if any(d > k for d in dims):
                opts += [slice_longer, slice_longer]
            opts.append(take)
            if any(r * c == k for r in dims for c in dims):
                opts.append(ravel)
            opts.append(diag)
            if len(self.draft.shapes) == 1:  # a 1-D program: no matrices
                opts = [rearrange, cumsum, splice, take, rearrange] + (
                    [slice_longer] if any(d > k for d in dims) else []
                )
                if k < 2:
                    opts.remove(splice)
            return rng.choice(opts)()
        r, c = shape

        def outer():
            (u, bu), (w, bw) = S((r,)), S((c,))
            return (
                rng.choice(
                    [
                        f"{self.draft.f('outer')}({u}, {w})",
                        f"{wrap(u)}[:, None] * {wrap(w)}[None, :]",
                        f"{wrap(u)}[:, None] * {wrap(w)}",
                        f"{self.draft.f('expand_dims')}({u}, 1) @ {self.draft.f('expand_dims')}({w}, 0)",
                    ]
                ),
                bu * bw,
            )

        def transpose():
            X, b = S((c, r))
            axes = rng.choice(["(1, 0)", "(-1, 0)", "(1, -2)", "(-1, -2)"])  # negative axes counted from the end
            forms = [
                f"{self.draft.f('transpose')}({X})",
                f"{self.draft.f('swapaxes')}({X}, 0, 1)",
                f"{wrap(X)}.transpose()",
                f"{self.draft.f('transpose')}({X}, {axes})",
                f"{wrap(X)}.transpose{axes}",
            ]
            return rng.choice(forms + [f"{wrap(X)}.T"]), b

        def matmul():
            k = rng.choice(dims)
            (X, bx), (Y, by) = S((r, k)), S((k, c))
            form = rng.choice(
                [f"{wrap(X)} @ {wrap(Y)}", f"{self.draft.f('dot')}({X}, {Y})", f"{self.draft.f('matmul')}({X}, {Y})"]
            )
            return form, bx * by * k

        def inner():
            k = rng.choice(dims)
            (X, bx), (Y, by) = S((r, k)), S((c, k))
            return f"{self.draft.f('inner')}({X}, {Y})", bx * by * k

        def reshape():
            X, b = S((c, r))
            return (
                rng.choice(
                    [f"{self.draft.f('reshape')}({X}, ({r}, {c}))", f"{wrap(X)}.reshape({r}, {c})"]
                    + [f"{wrap(X)}.reshape(({r}, {c}))", f"{wrap(X)}.ravel().reshape({r}, {c})"]
                ),
                b,
            )

        def broadcast_to():
            if self.draft.chance(0.5):
                w, b = S((c,))
                return f"{self.draft.f('broadcast_to')}({w}, ({r}, {c}))", b
            u, b = S((r,))
            return f"{self.draft.f('broadcast_to')}({wrap(u)}[:, None], ({r}, {c}))", b

        def stack():
            if r <= 3 and self.draft.chance(0.5):
                rows = [S((c,)) for _ in range(r)]
                fn = rng.choice(["stack", "vstack"])
                return f"{self.draft.f(fn)}([{', '.join(s for s, _ in rows)}])", max(b for _, b in rows)
            if c <= 3:
                cols = [S((r,)) for _ in range(c)]
                return f"{self.draft.f('stack')}([{', '.join(s for s, _ in cols)}], axis=1)", max(b for _, b in cols)
            return outer()

        def splice():
            (X, bx), (Y, by) = S(shape), S(shape)
            if self.draft.chance(0.5):
                j = rng.randint(1, r - 1)
                fn = rng.choice(["concatenate", "vstack"])
                return f"{self.draft.f(fn)}([{wrap(X)}[:{j}], {wrap(Y)}[{j}:]])", max(bx, by)
            j = rng.randint(1, c - 1)
            if self.draft.chance(0.5):
                return f"{self.draft.f('hstack')}([{wrap(X)}[:, :{j}], {wrap(Y)}[:, {j}:]])", max(bx, by)
            return f"{self.draft.f('concatenate')}([{wrap(X)}[:, :{j}], {wrap(Y)}[:, {j}:]], axis=1)", max(bx, by)

        def diag():
            w, b = S((r,))
            return f"{self.draft.f('diag')}({w})", b

        def cumsum():
            X, b = S(shape)
            axis = rng.choice([0, 1])
            return f"{self.draft.f('cumsum')}({X}, axis={axis})", b * shape[axis]

        def flip():
            X, b = S(shape)
            return f"{wrap(X)}{rng.choice(['[::-1]', '[:, ::-1]', '[::-1, ::-1]', '[::-1, :]'])}", b

        def take_rows():
            L = rng.choice(dims)
            X, b = S((L, c))
            idx = [rng.randint(0, L - 1) for _ in range(r)]
            return f"{wrap(X)}[{self.draft.f('array')}({idx})]", b

        opts = [outer, outer, transpose, transpose, matmul, matmul, inner, reshape, broadcast_to, stack, cumsum, flip]
        opts.append(take_rows)
        if r >= 2 and c >= 2:
            opts.append(splice)
        if r == c:
            opts.append(diag)
        return rng.choice(opts)()

    # ---------------------------------------------------------------- floats from arrays

    def array_scalar(self, env: NpEnv, depth: int) -> tuple[str, float]:
        """A float read from arrays: a reduction, a dot product, an element."""
        rng = self.rng
        shapes = sorted({a.shape for a in env.arrays.values()}) or self.draft.shapes
        shape = rng.choice(shapes)
        X, b = (
            self.arrays.aexpr(env, shape, depth)
            if depth > 0 and self.draft.chance(0.5)
            else self.arrays.aleaf(env, shape)
        )
        size = math.prod(shape)
        k = rng.random()
        if k < 0.35:
            fn = rng.choice(["sum", "sum", "mean", "max", "min"])
            mult = size if fn == "sum" else 1
            if self.draft.chance(0.3):
                return f"{wrap(X)}.{fn}()", b * mult
            return f"{self.draft.f(fn)}({X})", b * mult
        if k < 0.55:  # an element
            if len(shape) == 1:
                return f"{wrap(X)}[{self.arrays.index_dim(env, shape[0])}]", b
            i, j = self.arrays.index_dim(env, shape[0]), self.arrays.index_dim(env, shape[1])
            return (f"{wrap(X)}[{i}, {j}]" if self.draft.chance(0.7) else f"{wrap(X)}[{i}][{j}]"), b
        if k < 0.75:  # a dot product
            Y, by = self.arrays.aleaf(env, shape)
            if len(shape) == 1:
                form = rng.choice(
                    [f"{wrap(X)} @ {wrap(Y)}", f"{self.draft.f('dot')}({X}, {Y})", f"{self.draft.f('inner')}({X}, {Y})"]
                    + [f"{wrap(X)}.dot({Y})"]
                )
                return form, b * by * size
            return f"{self.draft.f('sum')}(({X}) * ({Y}))", b * by * size
        if k < 0.83 and len(shape) == 1:
            return f"{self.draft.f('linalg')}.norm({X})", b * math.sqrt(size)
        if k < 0.88 and len(shape) == 2 and shape[0] == shape[1]:
            return (f"{self.draft.f('trace')}({X})" if self.draft.chance(0.7) else f"{wrap(X)}.trace()"), b * shape[0]
        if k < 0.94 and len(X) < 30:  # a boolean mask
            return f"{self.draft.f('sum')}({wrap(X)}[{wrap(X)} > {lit(draw_const(rng, -0.5, 0.5))}])", b * size
        hs = [h for h in self.draft.ahelpers if h.outs == [None]]
        if hs:
            h = rng.choice(hs)
            return f"{h.name}({self.ahelper_args(env, h)})", h.bound
        return f"{self.draft.f('sum')}({X})", b * size

    def live_mix(self, env: NpEnv, src: str, b: float) -> tuple[str, float]:
        """src plus small multiples of a few array reductions (so array code is live): Exprs.live_mix's
        array terms."""
        arrays = list(env.arrays)
        if arrays and self.draft.chance(0.7):
            for name in self.rng.sample(arrays, min(len(arrays), self.rng.randint(1, 2))):
                info = env.arrays[name]
                fn = self.rng.choice(["sum", "mean", "max"])
                t, tb = self.exprs.fit(
                    f"{self.draft.f(fn)}({name})", info.bound * (math.prod(info.shape) if fn == "sum" else 1), 3.0
                )
                src, b = f"{src} + {lit(draw_const(self.rng, -0.7, 0.7))} * {t}", b + 0.7 * tb
        return src, b

    # ---------------------------------------------------------------- arguments of array helpers

    def ahelper_args(self, env: NpEnv, h: ArrayHelper) -> str:
        args = []
        for p in h.params:
            if p[0] == "array" and p[2] not in self.draft.shapes:
                args.append(self.small_arg(env, p[2]))
            elif p[0] == "array":
                a, b = self.arrays.aexpr(env, p[2], 1)
                args.append(self.arrays.afit(a, b, HELPER_BOUND)[0])
            elif not (h.default and self.draft.chance(0.4)):
                a, b = self.exprs.expr(env, 1)
                a = self.exprs.fit(a, b, HELPER_BOUND)[0]
                args.append(f"{p[1]}={a}" if h.default and self.draft.chance(0.5) else a)
        return ", ".join(args)

    def small_arg(self, env: NpEnv, shape: tuple) -> str:
        """An argument of a small shape (for a helper's small parameter): a float or a reduction for (), a
        slice or keepdims reduction of length 1, a vector made a row or a column."""
        rng = self.rng
        if shape == ():
            src, b = self.exprs.expr(env, 1) if self.draft.chance(0.5) else self.array_scalar(env, 0)
            return self.exprs.fit(src, b, HELPER_BOUND)[0]
        if len(shape) == 1:
            (k,) = rng.choice([s for s in self.draft.shapes if len(s) == 1])
            u, b = self.arrays.aexpr(env, (k,), 1)
            forms = [
                (f"{wrap(u)}[:1]", b),
                (f"{wrap(u)}[-1:]", b),
                (f"{self.draft.f('sum')}({u}, keepdims=True)", b * k),
            ]
            s, sb = self.exprs.expr(env, 1)
            forms.append((f"{self.draft.f('array')}([{s}])", sb))
        else:
            r, c = shape
            R, C = (r, rng.choice(self.draft.dims)) if c == 1 else (rng.choice(self.draft.dims), c)
            X, b = self.arrays.aexpr(env, (R, C), 1)
            if shape == (1, 1):
                forms = [(f"{self.draft.f('sum')}({X}, keepdims=True)", b * R * C), (f"{wrap(X)}[:1, :1]", b)]
            elif c == 1:
                u, bu = self.arrays.aexpr(env, (r,), 1)
                forms = [(f"{wrap(u)}[:, None]", bu), (f"{self.draft.f('expand_dims')}({u}, 1)", bu)]
                forms += [(f"{wrap(X)}[:, :1]", b), (f"{self.draft.f('mean')}({X}, axis=1, keepdims=True)", b)]
            else:
                w, bw = self.arrays.aexpr(env, (c,), 1)
                forms = [(f"{wrap(w)}[None, :]", bw), (f"{wrap(w)}.reshape(1, {c})", bw)]
                forms += [(f"{wrap(X)}[-1:]", b), (f"{self.draft.f('sum')}({X}, axis=0, keepdims=True)", b * R)]
        return self.arrays.afit(*rng.choice(forms), HELPER_BOUND)[0]
