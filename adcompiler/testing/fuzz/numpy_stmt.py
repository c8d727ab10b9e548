"""Array statements: NpStmtGen writes arrays, reassigns them and writes into them, in place and in loops.

Also the array side of scopes: bounds of arrays carried through branches and loops.
"""

from __future__ import annotations

from .config import LOOP_CAP, SQUASH_AT
from .numpy_shape import NpShapeGen
from .scalar_expr import draw_const, lit
from .scope import ArrInfo, Env, Idx, NpEnv


class NpStmtGen(NpShapeGen):
    """The NumPy layer of statements: array statements mixed into the scalar ones, array-aware scopes."""

    # ---------------------------------------------------------------- statements

    def stmt(self, env: Env, depth: int, budget: list) -> None:
        if getattr(env, "arrays", None) and self.chance(self.config.p_array_stmt):
            budget[0] -= 1
            self.array_stmt(env, depth, budget)
            return
        super().stmt(env, depth, budget)

    def assign_array(self, env: NpEnv, name: str, src: str, b: float, shape: tuple) -> None:
        """name = src (a new or an existing array variable), keeping loop caps and ownership."""
        info = env.arrays.get(name)
        if name in env.acaps:
            src, b = self.afit(src, b, env.acaps[name])
        src, writable = self.owned(env, src)
        if info is not None and info.writable and not writable:
            src, writable = f"{self.f('copy')}({src})", True
        self.emit(f"{name} = {src}")
        if info is not None:
            info.bound = b
        else:
            env.arrays[name] = ArrInfo(shape, b, writable)

    def pick_shape(self, env: NpEnv) -> tuple:
        have = [a.shape for a in env.arrays.values()]
        if have and self.chance(0.6):
            return self.rng.choice(have)
        return self.rng.choice(self.shapes)

    def array_stmt(self, env: NpEnv, depth: int, budget: list) -> None:
        rng = self.rng
        r = rng.random()
        compound_ok = depth < 3 and budget[0] > 0
        writable = [n for n, a in env.arrays.items() if a.writable]
        reassignable = [n for n in env.arrays if n not in env.readonly]
        if r < 0.26:
            self.new_array(env)
        elif r < 0.38 and reassignable:
            name = rng.choice(reassignable)
            shape = env.arrays[name].shape
            src, b = self.aexpr(env, shape, rng.randint(1, 3))
            if self.chance(0.3):  # an Euler-like update
                src, b = (
                    f"{name} + {lit(draw_const(rng, -0.3, 0.3))} * {self.wrap(src)}",
                    env.arrays[name].bound + 0.3 * b,
                )
            self.assign_array(env, name, src, b, shape)
        elif r < 0.50 and writable:
            self.array_aug(env, rng.choice(writable))
        elif r < 0.64 and writable:
            self.element_write(env, rng.choice(writable))
        elif r < 0.76 and compound_ok:
            self.fill_loop(env, depth, budget)
        elif r < 0.86 and compound_ok:
            self.array_for(env, depth, budget)
        elif r < 0.93:
            name = self.fresh("t")
            src, b = self.array_scalar(env, rng.randint(0, 2))
            self.emit(f"{name} = {src}")
            env.floats[name] = b
            if b > SQUASH_AT:
                self.assign_float(env, name, *self.squash(name, b))
        elif any(len(h.outs) == 2 for h in self.ahelpers):
            h = rng.choice([h for h in self.ahelpers if len(h.outs) == 2])
            names = [self.fresh("u" if o is not None else "t") for o in h.outs]
            self.emit(f"{', '.join(names)} = {h.name}({self.ahelper_args(env, h)})")
            for n, o in zip(names, h.outs):
                if o is None:
                    env.floats[n] = h.bound
                else:
                    env.arrays[n] = ArrInfo(o, h.bound, True)
        else:
            self.new_array(env)

    def new_array(self, env: NpEnv) -> None:
        rng = self.rng
        shape = self.pick_shape(env)
        name = self.fresh("u")
        same = self.arrays_of(env, shape)
        k = rng.random()
        if k < 0.12:
            dims = f"{shape[0]}" if len(shape) == 1 else f"({shape[0]}, {shape[1]})"
            c = draw_const(rng)
            likes = same
            src, b = rng.choice(
                [
                    (f"{self.f('zeros')}({dims})", 0.0),
                    (f"{self.f('ones')}({dims})", 1.0),
                    (f"{self.f('full')}({dims}, {lit(c)})", abs(c)),
                ]
                + [(f"{self.f(fn)}({n})", 1.0) for n in likes for fn in ("zeros_like", "ones_like")]
            )
            self.emit(f"{name} = {src}")
            env.arrays[name] = ArrInfo(shape, b, True)
            return
        elif k < 0.22 and same:
            n = rng.choice(same)
            src = rng.choice([f"{n}.copy()", f"{self.f('copy')}({n})", f"{self.f('array')}({n})"])
            b = env.arrays[n].bound
        else:
            src, b = self.aexpr(env, shape, rng.randint(1, 3))
        self.assign_array(env, name, src, b, shape)

    def array_aug(self, env: NpEnv, name: str) -> None:
        rng = self.rng
        info = env.arrays[name]
        shape = info.shape
        op = rng.choice(["+=", "-=", "*=", "/=", "+=", "**="])
        if op in ("+=", "-="):
            if self.chance(0.6):
                src, b = self.aexpr(env, shape, rng.randint(1, 2))
            else:
                src, b = self.broadcast_operand(env, shape, 1)
            self.emit(f"{name} {op} {src}")
            nb = info.bound + b
        elif op == "*=":
            src, b = self.aexpr(env, shape, 1) if self.chance(0.6) else self.broadcast_operand(env, shape, 1)
            s2, _ = self.afit(src, b, 1.0)
            self.emit(f"{name} *= 0.5 + 0.4 * {self.wrap(s2)}")
            nb = info.bound * 0.9
        elif op == "/=":
            src, _ = self.aexpr(env, shape, 1)
            self.emit(f"{name} /= 1.5 + {self.f('cos')}({src})")
            nb = info.bound * 2.0
        else:
            if info.bound > 3.0:
                self.emit(f"{name} = {self.f('tanh')}({name})")
                info.bound = 1.0
            self.emit(f"{name} **= 2")
            nb = info.bound**2
        info.bound = nb
        if name in env.acaps and nb > env.acaps[name]:
            self.emit(f"{name} = {lit(env.acaps[name])} * {self.f('tanh')}({name})")
            info.bound = env.acaps[name]
        elif nb > 50:
            self.emit(f"{name} = {self.f('tanh')}({name})")
            info.bound = 1.0

    def element_write(self, env: NpEnv, name: str) -> None:
        """name[i] = v, name[i] += v, name[i, j] *= v, name[:, j] = vector, name[i, :] += vector."""
        rng = self.rng
        info = env.arrays[name]
        shape = info.shape
        if len(shape) == 1:
            target = f"{name}[{self.index_dim(env, shape[0])}]"
            vshape = None
        else:
            r, c = shape
            i, j = self.index_dim(env, r), self.index_dim(env, c)
            target, vshape = rng.choice(
                [
                    (f"{name}[{i}, {j}]", None),
                    (f"{name}[{i}]", (c,)),
                    (f"{name}[{i}, :]", (c,)),
                    (f"{name}[:, {j}]", (r,)),
                ]
            )
        if vshape is None:
            src, b = self.expr(env, rng.randint(1, 2))
            fitf, tanh = self.fit, "math.tanh"
        else:
            src, b = self.aexpr(env, vshape, rng.randint(1, 2))
            fitf, tanh = self.afit, self.f("tanh")
        cap = max(info.bound, LOOP_CAP) if name in env.acaps else max(info.bound, b)
        op = rng.choice(["=", "=", "+=", "-=", "*="])
        if op == "*=":
            src, b = fitf(src, b, 1.0)
            self.emit(f"{target} *= {src}")
            return
        if op == "=":
            src, b = fitf(src, b, cap)
            self.emit(f"{target} = {src}")
            info.bound = max(info.bound, b)
            return
        src, b = fitf(src, b, 1.0)
        self.emit(f"{target} {op} {src}")
        nb = info.bound + b
        if name in env.acaps or nb > 50:
            self.emit(f"{target} = {lit(cap)} * {tanh}({target})")
            nb = cap
        info.bound = max(info.bound, nb)

    def fill_loop(self, env: NpEnv, depth: int, budget: list) -> None:
        """A new local array filled element by element (or row by row) in a loop, maybe a recurrence."""
        rng = self.rng
        shape = self.pick_shape(env)
        name = self.fresh("u")
        dims = f"{shape[0]}" if len(shape) == 1 else f"({shape[0]}, {shape[1]})"
        same = self.arrays_of(env, shape)
        init = rng.choice(
            [f"{self.f('zeros')}({dims})"] * 3
            + [f"{self.f('ones')}({dims})"]
            + [f"{self.f('zeros_like')}({n})" for n in same]
        )
        self.emit(f"{name} = {init}")
        env.arrays[name] = ArrInfo(shape, 1.0, True)
        body = self.loop_env(env)
        i = self.fresh("i")
        axis = 0 if len(shape) == 1 or self.chance(0.6) else 1
        k = shape[axis]
        start = 1 if self.chance(0.25) else 0
        bound_src = rng.choice([str(k), f"len({name})" if axis == 0 else str(k), f"{name}.shape[{axis}]"])
        if len(shape) == 1 and self.chance(0.2):
            bound_src = f"{name}.size"
        self.emit(f"for {i} in range({start}, {bound_src}):" if start else f"for {i} in range({bound_src}):")
        body.idx[i] = Idx(k, None)
        self.indent += 1
        cap = body.acaps[name]
        if len(shape) == 1:
            src, b = self.expr(body, rng.randint(1, 3))
            if start == 1 and self.chance(0.7):
                src, b = f"{lit(draw_const(rng, -0.9, 0.9))} * {name}[{i} - 1] + {src}", cap + b
            src, b = self.fit(src, b, cap)
            self.emit(f"{name}[{i}] = {src}")
        else:
            vshape = (shape[1],) if axis == 0 else (shape[0],)
            src, b = self.aexpr(body, vshape, rng.randint(1, 2))
            if start == 1 and self.chance(0.7):
                prev = f"{name}[{i} - 1]" if axis == 0 else f"{name}[:, {i} - 1]"
                src, b = f"{lit(draw_const(rng, -0.9, 0.9))} * {prev} + {self.wrap(src)}", cap + b
            src, b = self.afit(src, b, cap)
            target = rng.choice([f"{name}[{i}]", f"{name}[{i}, :]"]) if axis == 0 else f"{name}[:, {i}]"
            self.emit(f"{target} = {src}")
        body.arrays[name].bound = max(body.arrays[name].bound, b)
        self.indent -= 1
        if self.chance(0.3):
            self.block(body, depth + 1, budget, rng.randint(1, 2))
        self.after_loop(env, body)

    def array_for(self, env: NpEnv, depth: int, budget: list) -> None:
        """for i in range(len(a)) / range(A.shape[1]) / range(a.size): a body of any statements."""
        rng = self.rng
        name = rng.choice(sorted(env.arrays))
        shape = env.arrays[name].shape
        axis = rng.randrange(len(shape))
        k = shape[axis]
        forms = [f"{name}.shape[{axis}]", str(k)] + ([f"len({name})"] if axis == 0 else [])
        if len(shape) == 1:
            forms.append(f"{name}.size")
        cnt = self.make_counter(env)
        body = self.loop_env(env)
        i = self.fresh("i")
        self.emit(f"for {i} in range({rng.choice(forms)}):")
        body.idx[i] = Idx(k, None)
        if cnt:
            self.indent += 1
            self.emit(f"{cnt} += 1")
            self.indent -= 1
        self.block(body, depth + 1, budget, rng.randint(1, 3))
        self.after_loop(env, body)
        if cnt:
            env.ints[cnt] = 20

    # ---------------------------------------------------------------- scopes

    def loop_env(self, env: Env) -> Env:
        e = super().loop_env(env)
        for name, info in getattr(e, "arrays", {}).items():
            cap = e.acaps.get(name, max(info.bound, LOOP_CAP))
            e.acaps[name] = cap
            info.bound = cap
        return e

    def after_loop(self, env: Env, body: Env) -> None:
        super().after_loop(env, body)
        for name, info in getattr(env, "arrays", {}).items():
            if name in body.arrays:
                info.bound = max(info.bound, body.arrays[name].bound)

    def merge(self, env: Env, branches: list[Env], exhaustive: bool) -> None:
        super().merge(env, branches, exhaustive)
        for name, info in getattr(env, "arrays", {}).items():
            bs = [br.arrays[name].bound for br in branches if name in br.arrays]
            if not exhaustive:
                bs.append(info.bound)
            info.bound = max(bs + [0.0])
