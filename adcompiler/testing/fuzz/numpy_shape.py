"""Expressions across shapes: NpShapeGen makes arrays from arrays of other shapes, and floats from arrays.

Rows, columns, axis reductions, matrix products, reshapes, slices, joins and fancy indexing; sums,
dot products, elements, norms and masks.
"""

from __future__ import annotations

import math

from .numpy_expr import NpExprGen
from .scalar_expr import draw_const, lit
from .scope import Env, NpEnv


class NpShapeGen(NpExprGen):
    """The NumPy layer of expressions whose shape is not their operands' (arrays or floats from arrays)."""

    def reshape_expr(self, env: NpEnv, shape: tuple, depth: int) -> tuple[str, float]:
        """An expression of this shape made from arrays of other shapes (or an array of it, re-arranged)."""
        rng = self.rng
        S = lambda sh: self.sub(env, sh, depth)  # noqa: E731
        opts = []
        dims = self.dims
        if len(shape) == 1:
            (k,) = shape

            def row(r=None):
                r = r if r is not None else rng.choice(dims)
                X, b = S((r, k))
                i = self.index_dim(env, r)
                return rng.choice([f"{self.wrap(X)}[{i}]", f"{self.wrap(X)}[{i}, :]"]), b

            def col():
                c = rng.choice(dims)
                X, b = S((k, c))
                return f"{self.wrap(X)}[:, {self.index_dim(env, c)}]", b

            def reduce_axis():
                other = rng.choice(dims)
                axis = rng.choice([0, 1, -1])
                X, b = S((other, k) if axis == 0 else (k, other))
                fn = rng.choice(["sum", "mean", "max", "min"])
                mult = other if fn == "sum" else 1
                if self.chance(0.3):
                    return f"{self.wrap(X)}.{fn}(axis={axis})", b * mult
                return f"{self.f(fn)}({X}, axis={axis})" if self.chance(0.7) else f"{self.f(fn)}({X}, {axis})", b * mult

            def matvec():
                c = rng.choice(dims)
                X, bx = S((k, c))
                w, bw = S((c,))
                form = rng.choice(
                    [f"{self.wrap(X)} @ {self.wrap(w)}", f"{self.f('dot')}({X}, {w})", f"{self.f('matmul')}({X}, {w})"]
                    + [f"{self.f('inner')}({X}, {w})", f"{self.wrap(X)}.dot({w})"]
                )
                return form, bx * bw * c

            def vecmat():
                r = rng.choice(dims)
                w, bw = S((r,))
                X, bx = S((r, k))
                return rng.choice([f"{self.wrap(w)} @ {self.wrap(X)}", f"{self.f('dot')}({w}, {X})"]), bx * bw * r

            def rearrange():
                a, b = S(shape)
                return (
                    rng.choice(
                        [
                            f"{self.wrap(a)}[::-1]",
                            f"{self.f('squeeze')}({self.wrap(a)}[None, :])",
                            f"{self.f('squeeze')}({self.f('expand_dims')}({a}, 1), axis=1)",
                            f"{self.f('ravel')}({self.wrap(a)}[:, None])",
                            f"{self.wrap(a)}.reshape(1, {k}).ravel()",
                        ]
                    ),
                    b,
                )

            def cumsum():
                a, b = S(shape)
                return (f"{self.f('cumsum')}({a})" if self.chance(0.7) else f"{self.wrap(a)}.cumsum()"), b * k

            def splice():
                a, ba = S(shape)
                b, bb = S(shape)
                j = rng.randint(1, k - 1)
                fn = rng.choice(["concatenate", "concatenate", "hstack"])
                return f"{self.f(fn)}([{self.wrap(a)}[:{j}], {self.wrap(b)}[{j}:]])", max(ba, bb)

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
                return f"{self.wrap(a)}{rng.choice(forms)}", b

            def take():
                L = rng.choice(dims)
                a, b = S((L,))
                idx = [rng.randint(-L, L - 1) if self.chance(0.2) else rng.randint(0, L - 1) for _ in range(k)]
                return f"{self.wrap(a)}[{self.f('array')}({idx})]", b

            def ravel():
                pairs = [(r, c) for r in dims for c in dims if r * c == k]
                X, b = S(rng.choice(pairs))
                return (
                    rng.choice(
                        [f"{self.f('ravel')}({X})", f"{self.wrap(X)}.ravel()", f"{self.f('reshape')}({X}, ({k},))"]
                    ),
                    b,
                )

            def diag():
                X, b = S((k, k))
                return f"{self.f('diag')}({X})", b

            opts = [row, row, col, reduce_axis, reduce_axis, matvec, matvec, vecmat, rearrange, cumsum]
            if k >= 2:
                opts.append(splice)
            if any(d > k for d in dims):
                opts += [slice_longer, slice_longer]
            opts.append(take)
            if any(r * c == k for r in dims for c in dims):
                opts.append(ravel)
            opts.append(diag)
            if len(self.shapes) == 1:  # a 1-D program: no matrices
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
                        f"{self.f('outer')}({u}, {w})",
                        f"{self.wrap(u)}[:, None] * {self.wrap(w)}[None, :]",
                        f"{self.wrap(u)}[:, None] * {self.wrap(w)}",
                        f"{self.f('expand_dims')}({u}, 1) @ {self.f('expand_dims')}({w}, 0)",
                    ]
                ),
                bu * bw,
            )

        def transpose():
            X, b = S((c, r))
            forms = [f"{self.f('transpose')}({X})", f"{self.f('swapaxes')}({X}, 0, 1)", f"{self.wrap(X)}.transpose()"]
            return rng.choice(forms + [f"{self.wrap(X)}.T"]), b

        def matmul():
            k = rng.choice(dims)
            (X, bx), (Y, by) = S((r, k)), S((k, c))
            form = rng.choice(
                [f"{self.wrap(X)} @ {self.wrap(Y)}", f"{self.f('dot')}({X}, {Y})", f"{self.f('matmul')}({X}, {Y})"]
            )
            return form, bx * by * k

        def inner():
            k = rng.choice(dims)
            (X, bx), (Y, by) = S((r, k)), S((c, k))
            return f"{self.f('inner')}({X}, {Y})", bx * by * k

        def reshape():
            X, b = S((c, r))
            return (
                rng.choice(
                    [f"{self.f('reshape')}({X}, ({r}, {c}))", f"{self.wrap(X)}.reshape({r}, {c})"]
                    + [f"{self.wrap(X)}.reshape(({r}, {c}))", f"{self.wrap(X)}.ravel().reshape({r}, {c})"]
                ),
                b,
            )

        def broadcast_to():
            if self.chance(0.5):
                w, b = S((c,))
                return f"{self.f('broadcast_to')}({w}, ({r}, {c}))", b
            u, b = S((r,))
            return f"{self.f('broadcast_to')}({self.wrap(u)}[:, None], ({r}, {c}))", b

        def stack():
            if r <= 3 and self.chance(0.5):
                rows = [S((c,)) for _ in range(r)]
                fn = rng.choice(["stack", "vstack"])
                return f"{self.f(fn)}([{', '.join(s for s, _ in rows)}])", max(b for _, b in rows)
            if c <= 3:
                cols = [S((r,)) for _ in range(c)]
                return f"{self.f('stack')}([{', '.join(s for s, _ in cols)}], axis=1)", max(b for _, b in cols)
            return outer()

        def splice():
            (X, bx), (Y, by) = S(shape), S(shape)
            if self.chance(0.5):
                j = rng.randint(1, r - 1)
                fn = rng.choice(["concatenate", "vstack"])
                return f"{self.f(fn)}([{self.wrap(X)}[:{j}], {self.wrap(Y)}[{j}:]])", max(bx, by)
            j = rng.randint(1, c - 1)
            if self.chance(0.5):
                return f"{self.f('hstack')}([{self.wrap(X)}[:, :{j}], {self.wrap(Y)}[:, {j}:]])", max(bx, by)
            return f"{self.f('concatenate')}([{self.wrap(X)}[:, :{j}], {self.wrap(Y)}[:, {j}:]], axis=1)", max(bx, by)

        def diag():
            w, b = S((r,))
            return f"{self.f('diag')}({w})", b

        def cumsum():
            X, b = S(shape)
            axis = rng.choice([0, 1])
            return f"{self.f('cumsum')}({X}, axis={axis})", b * shape[axis]

        def flip():
            X, b = S(shape)
            return f"{self.wrap(X)}{rng.choice(['[::-1]', '[:, ::-1]', '[::-1, ::-1]', '[::-1, :]'])}", b

        def take_rows():
            L = rng.choice(dims)
            X, b = S((L, c))
            idx = [rng.randint(0, L - 1) for _ in range(r)]
            return f"{self.wrap(X)}[{self.f('array')}({idx})]", b

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
        shapes = sorted({a.shape for a in env.arrays.values()}) or self.shapes
        shape = rng.choice(shapes)
        X, b = self.aexpr(env, shape, depth) if depth > 0 and self.chance(0.5) else self.aleaf(env, shape)
        size = math.prod(shape)
        k = rng.random()
        if k < 0.35:
            fn = rng.choice(["sum", "sum", "mean", "max", "min"])
            mult = size if fn == "sum" else 1
            if self.chance(0.3):
                return f"{self.wrap(X)}.{fn}()", b * mult
            return f"{self.f(fn)}({X})", b * mult
        if k < 0.55:  # an element
            if len(shape) == 1:
                return f"{self.wrap(X)}[{self.index_dim(env, shape[0])}]", b
            i, j = self.index_dim(env, shape[0]), self.index_dim(env, shape[1])
            return (f"{self.wrap(X)}[{i}, {j}]" if self.chance(0.7) else f"{self.wrap(X)}[{i}][{j}]"), b
        if k < 0.75:  # a dot product
            Y, by = self.aleaf(env, shape)
            if len(shape) == 1:
                form = rng.choice(
                    [f"{self.wrap(X)} @ {self.wrap(Y)}", f"{self.f('dot')}({X}, {Y})", f"{self.f('inner')}({X}, {Y})"]
                    + [f"{self.wrap(X)}.dot({Y})"]
                )
                return form, b * by * size
            return f"{self.f('sum')}(({X}) * ({Y}))", b * by * size
        if k < 0.83 and len(shape) == 1:
            return f"{self.f('linalg')}.norm({X})", b * math.sqrt(size)
        if k < 0.88 and len(shape) == 2 and shape[0] == shape[1]:
            return (f"{self.f('trace')}({X})" if self.chance(0.7) else f"{self.wrap(X)}.trace()"), b * shape[0]
        if k < 0.94 and len(X) < 30:  # a boolean mask
            return f"{self.f('sum')}({self.wrap(X)}[{self.wrap(X)} > {lit(draw_const(rng, -0.5, 0.5))}])", b * size
        hs = [h for h in self.ahelpers if h.outs == [None]]
        if hs:
            h = rng.choice(hs)
            return f"{h.name}({self.ahelper_args(env, h)})", h.bound
        return f"{self.f('sum')}({X})", b * size

    def leaf(self, env: Env) -> tuple[str, float]:
        if getattr(env, "arrays", None) and self.chance(0.4):
            src, b = self.array_scalar(env, 0)  # depth 0: leaves never recurse
            return self.squash(src, b)
        return super().leaf(env)

    def live_mix(self, env: Env, src: str, b: float) -> tuple[str, float]:
        """The scalar live_mix, plus small multiples of a few array reductions (so array code is live)."""
        src, b = super().live_mix(env, src, b)
        arrays = list(getattr(env, "arrays", {}))
        if arrays and self.chance(0.7):
            for name in self.rng.sample(arrays, min(len(arrays), self.rng.randint(1, 2))):
                info = env.arrays[name]
                fn = self.rng.choice(["sum", "mean", "max"])
                t, tb = self.fit(
                    f"{self.f(fn)}({name})", info.bound * (math.prod(info.shape) if fn == "sum" else 1), 3.0
                )
                src, b = f"{src} + {lit(draw_const(self.rng, -0.7, 0.7))} * {t}", b + 0.7 * tb
        return src, b

    def alive_mix(self, env: NpEnv, shape: tuple, src: str, b: float) -> tuple[str, float]:
        """An array output plus small multiples of same-shaped arrays and floats."""
        names = self.arrays_of(env, shape) + list(env.floats)
        if not names or self.chance(0.25):
            return src, b
        for n in self.rng.sample(names, min(len(names), self.rng.randint(1, 2))):
            nb = env.arrays[n].bound if n in env.arrays else env.floats[n]
            t, tb = (self.afit if n in env.arrays else self.fit)(n, nb, 3.0)
            src, b = f"{src} + {lit(draw_const(self.rng, -0.7, 0.7))} * {t}", b + 0.7 * tb
        return src, b
