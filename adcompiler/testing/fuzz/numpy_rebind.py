"""Array parameters of a shape that broadcasts up, rebound in loops and branches: NpRebindGen.

A parameter of shape (), (1,), (k, 1), (1, k) or (1, 1) is assigned, mostly inside a loop or a branch,
an expression of a larger shape it broadcasts into (``x = x * w``, ``x = x + A``, ``np.maximum(x, w)``):
the variable then ends with another shape than the argument, whose cotangent must keep the argument's
shape (adcompiler once took it from the last value). The scope never reads such a parameter before that
assignment, and records the larger shape only where every path has made it: after the first line of a
loop that surely runs, after an if/elif/else whose every branch assigns it, or in the scope of the
assignment itself (a path that skips it never reads the name again). The name stays read-only, as a
parameter is: adcompiler refuses writes into a name that may still hold the argument.
"""

from __future__ import annotations

from .config import HELPER_BOUND, LOOP_CAP
from .numpy_stmt import NpStmtGen
from .scalar_expr import draw_const, lit
from .scope import ArrInfo, Idx, NpEnv

P_PENDING = 0.5  # a statement where a small parameter waits: its assignment (soon: it is unread till then)
P_WIDEN = 0.06  # a statement of the function's own block: a vector parameter broadcast to a matrix


def broadcasts_to(small: tuple, shape: tuple) -> bool:
    """Does an array of shape small broadcast to shape (and to nothing larger)?"""
    if len(small) > len(shape):
        return False
    return all(a in (1, b) for a, b in zip(small[::-1], shape[::-1]))


class NpRebindGen(NpStmtGen):
    """The layer of small parameters: their shapes, the arguments helpers get for them, their assignment."""

    vector_params: set = set()  # the current function's (n,) parameters, which widen_param may make (m, n)

    def small_param(self) -> tuple | None:
        """Sometimes (Config.p_small_param) a small shape for a parameter, one the program's shapes broadcast."""
        rng = self.rebinds()
        if rng.random() >= self.config.p_small_param:
            return None
        small = [(), (1,), (1,)]
        for r, c in [s for s in self.shapes if len(s) == 2]:
            small += [(r, 1), (1, c), (1, 1)]
        return rng.choice(small)

    def small_arg(self, env: NpEnv, shape: tuple) -> str:
        """An argument of a small shape (for a helper's small parameter): a float or a reduction for (), a
        slice or keepdims reduction of length 1, a vector made a row or a column."""
        rng = self.rng
        if shape == ():
            src, b = self.expr(env, 1) if self.chance(0.5) else self.array_scalar(env, 0)
            return self.fit(src, b, HELPER_BOUND)[0]
        if len(shape) == 1:
            (k,) = rng.choice([s for s in self.shapes if len(s) == 1])
            u, b = self.aexpr(env, (k,), 1)
            forms = [
                (f"{self.wrap(u)}[:1]", b),
                (f"{self.wrap(u)}[-1:]", b),
                (f"{self.f('sum')}({u}, keepdims=True)", b * k),
            ]
            s, sb = self.expr(env, 1)
            forms.append((f"{self.f('array')}([{s}])", sb))
        else:
            r, c = shape
            R, C = (r, rng.choice(self.dims)) if c == 1 else (rng.choice(self.dims), c)
            X, b = self.aexpr(env, (R, C), 1)
            if shape == (1, 1):
                forms = [(f"{self.f('sum')}({X}, keepdims=True)", b * R * C), (f"{self.wrap(X)}[:1, :1]", b)]
            elif c == 1:
                u, bu = self.aexpr(env, (r,), 1)
                forms = [(f"{self.wrap(u)}[:, None]", bu), (f"{self.f('expand_dims')}({u}, 1)", bu)]
                forms += [(f"{self.wrap(X)}[:, :1]", b), (f"{self.f('mean')}({X}, axis=1, keepdims=True)", b)]
            else:
                w, bw = self.aexpr(env, (c,), 1)
                forms = [(f"{self.wrap(w)}[None, :]", bw), (f"{self.wrap(w)}.reshape(1, {c})", bw)]
                forms += [(f"{self.wrap(X)}[-1:]", b), (f"{self.f('sum')}({X}, axis=0, keepdims=True)", b * R)]
        return self.afit(*rng.choice(forms), HELPER_BOUND)[0]

    # ---------------------------------------------------------------- statements

    def stmt(self, env, depth: int, budget: list) -> None:
        if getattr(env, "small", None) and self.rebinds().random() < P_PENDING:
            budget[0] -= 1
            self.rebind_small(env, depth, budget)
            return
        if depth == 0 and budget[0] > 1 and getattr(env, "arrays", None) and self.rebinds().random() < P_WIDEN:
            if self.widen_param(env, budget):
                return
        super().stmt(env, depth, budget)

    def widen_param(self, env: NpEnv, budget: list) -> bool:
        """A vector parameter of shape (n,) made (m, n) in a loop or in every branch of an if, in the
        function's own block (no outer scope keeps the old shape); False if the program has none."""
        grown = [
            (n, s)
            for n in sorted(self.vector_params)
            if n in env.arrays and n not in env.readonly and len(env.arrays[n].shape) == 1
            for s in self.shapes
            if len(s) == 2 and broadcasts_to(env.arrays[n].shape, s)
        ]
        if not grown:
            return False
        budget[0] -= 1
        name, target = self.rng.choice(grown)
        bound = env.arrays[name].bound
        if self.chance(0.6):
            self.small_loop(env, name, bound, target, 0, budget)
        else:
            self.small_branches(env, name, bound, target, 0, budget)
        return True

    def rebind_small(self, env: NpEnv, depth: int, budget: list) -> None:
        """A small parameter (or a name for it) assigned a larger shape: in place if already in a loop or a
        branch, else in a loop (maybe broadcast once before it too) or in every branch of an if."""
        rng = self.rng
        name = rng.choice(sorted(env.small))
        shape, bound = env.small.pop(name)
        target = rng.choice([s for s in self.shapes if broadcasts_to(shape, s)])
        if self.chance(0.2):  # a variable aliasing the parameter is what gets rebound
            name, alias = self.fresh("u"), name
            self.emit(f"{name} = {alias}")
        compound_ok = depth < 3 and budget[0] > 0
        r = rng.random()
        if not compound_ok or r < 0.1 or (depth >= 1 and r < 0.45):
            self.small_line(env, name, bound, target)
        elif r < 0.75:
            self.small_loop(env, name, bound, target, depth, budget)
        else:
            self.small_branches(env, name, bound, target, depth, budget)

    def small_line(self, env: NpEnv, name: str, bound: float, target: tuple) -> None:
        """``name = <an expression of shape target>`` that name broadcasts into (name may be small, or of
        shape target already: a loop's later iterations)."""
        rng = self.rng
        info = env.arrays.get(name)
        cap = env.acaps.get(name, max(bound, LOOP_CAP))
        bx = info.bound if info else max(bound, cap) if env.in_loop else bound
        hidden = env.arrays.pop(name, None)  # W never reads name: its shape differs from one iteration to the next
        W, bw = self.aexpr(env, target, rng.randint(1, 2))
        if hidden is not None:
            env.arrays[name] = hidden
        W = self.wrap(W)
        c = draw_const(rng, -0.9, 0.9)
        dims = f"({', '.join(map(str, target))},)" if len(target) == 1 else f"({target[0]}, {target[1]})"
        src, b = rng.choice(
            [
                (f"{name} * {W}", bx * bw),
                (f"{name} * {W}", bx * bw),
                (f"{name} + {W}", bx + bw),
                (f"{W} - {name}", bx + bw),
                (f"{lit(c)} * {name} + {W}", abs(c) * bx + bw),
                (f"{self.f('maximum')}({name}, {W})", max(bx, bw)),
                (f"{self.f('where')}({W} > {lit(c)}, {name}, {lit(c)})", max(bx, abs(c))),
                (f"{lit(c)} * {self.f('broadcast_to')}({name}, {dims})", abs(c) * bx),
                (f"{name} * {self.f('ones')}({dims})", bx),
            ]
        )
        src, b = self.afit(src, b, cap) if env.in_loop else self.asquash(src, b)
        self.emit(f"{name} = {src}")
        if info is not None:
            info.shape, info.bound = target, b
        else:
            env.arrays[name] = ArrInfo(target, b, False)
            if env.in_loop:
                env.acaps[name] = cap

    def small_loop(self, env: NpEnv, name: str, bound: float, target: tuple, depth: int, budget: list) -> None:
        """A loop that surely runs (for i in range(k), while j < k), whose first line assigns name."""
        rng = self.rng
        if self.chance(0.3):  # broadcast once before the loop too: the loop keeps the larger shape
            self.small_line(env, name, bound, target)
        k = rng.randint(1, 3)
        counter = None
        if self.chance(0.7):
            i = self.fresh("i")
            self.emit(f"for {i} in range({k}):")
            body = self.loop_env(env)
            body.idx[i] = Idx(k, None)
            self.indent += 1
        else:
            counter = self.fresh("j")
            self.emit(f"{counter} = 0")
            self.emit(f"while {counter} < {k}:")
            body = self.loop_env(env)
            body.ints[counter] = k
            self.indent += 1
            self.emit(f"{counter} += 1")
        self.small_line(body, name, bound, target)
        self.indent -= 1
        if budget[0] > 0 and self.chance(0.6):
            self.block(body, depth + 1, budget, rng.randint(1, 2))
        self.after_loop(env, body)
        if counter:
            env.ints[counter] = k
        if name not in env.arrays or env.arrays[name].shape != target:
            env.arrays[name] = ArrInfo(target, body.arrays[name].bound, False)

    def small_branches(self, env: NpEnv, name: str, bound: float, target: tuple, depth: int, budget: list) -> None:
        """if/elif/else, every branch first assigning name (the same shape whichever runs)."""
        rng = self.rng
        heads = [f"if {self.cond(env)}:"] + [f"elif {self.cond(env)}:" for _ in range(rng.choice([0, 0, 1]))]
        branches = []
        for head in heads + ["else:"]:
            self.emit(head)
            e = env.copy()
            self.indent += 1
            self.small_line(e, name, bound, target)
            self.indent -= 1
            if budget[0] > 0 and self.chance(0.4):
                self.block(e, depth + 1, budget, 1)
            branches.append(e)
        self.merge(env, branches, True)
        env.arrays[name] = ArrInfo(target, max(e.arrays[name].bound for e in branches), False)
