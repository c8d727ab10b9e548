"""Array statements: ArrayStmts writes arrays, reassigns them and writes into them, in place and in loops."""

from __future__ import annotations

from .config import LOOP_CAP, SQUASH_AT
from .scalar_expr import draw_const, lit, wrap
from .scope import ArrInfo, Idx, NpEnv


class ArrayStmts:
    """The array statements of ``stmts`` (a Stmts of a NumPy program, which holds this part), mixed into the
    scalar ones."""

    def __init__(self, stmts):
        self.stmts, self.exprs, self.draft = stmts, stmts.exprs, stmts.draft
        self.arrays = self.exprs.arrays
        self.rng = self.draft.rng

    def stmt(self, env: NpEnv, depth: int, budget: list) -> bool:
        """Sometimes (Config.p_array_stmt) an array statement in this statement's place."""
        if env.arrays and self.draft.chance(self.draft.config.p_array_stmt):
            budget[0] -= 1
            self.array_stmt(env, depth, budget)
            return True
        return False

    def assign_array(self, env: NpEnv, name: str, src: str, b: float, shape: tuple) -> None:
        """name = src (a new or an existing array variable), keeping loop caps and ownership."""
        info = env.arrays.get(name)
        if name in env.acaps:
            src, b = self.arrays.afit(src, b, env.acaps[name])
        src, writable = self.arrays.owned(env, src)
        if info is not None and info.writable and not writable:
            src, writable = f"{self.draft.f('copy')}({src})", True
        self.draft.emit(f"{name} = {src}")
        if info is not None:
            info.bound = b
        else:
            env.arrays[name] = ArrInfo(shape, b, writable)

    def pick_shape(self, env: NpEnv) -> tuple:
        have = [a.shape for a in env.arrays.values()]
        if have and self.draft.chance(0.6):
            return self.rng.choice(have)
        return self.rng.choice(self.draft.shapes)

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
            src, b = self.arrays.aexpr(env, shape, rng.randint(1, 3))
            if self.draft.chance(0.3):  # an Euler-like update
                src, b = (
                    f"{name} + {lit(draw_const(rng, -0.3, 0.3))} * {wrap(src)}",
                    env.arrays[name].bound + 0.3 * b,
                )
            self.assign_array(env, name, src, b, shape)
        elif r < 0.50 and writable:
            self.array_aug(env, rng.choice(writable))
        elif r < 0.64 and writable:
            name = rng.choice(writable)
            if compound_ok and len(env.arrays[name].shape) == 2 and self.draft.chance(0.3):
                self.line_updates(env, name)
            else:
                self.element_write(env, name)
        elif r < 0.76 and compound_ok:
            matrices = sorted(n for n, a in env.arrays.items() if len(a.shape) == 2)
            if matrices and self.draft.chance(0.4):
                self.rows_loop(env, rng.choice(matrices))
            else:
                self.fill_loop(env, depth, budget)
        elif r < 0.86 and compound_ok:
            self.array_for(env, depth, budget)
        elif r < 0.93 and self.draft.chance(0.25):
            if not (self.draft.chance(0.4) and self.join(env)):
                self.display(env)
        elif r < 0.93:
            name = self.draft.fresh("t")
            src, b = self.arrays.across.array_scalar(env, rng.randint(0, 2))
            self.draft.emit(f"{name} = {src}")
            env.floats[name] = b
            if b > SQUASH_AT:
                self.stmts.assign_float(env, name, *self.exprs.squash(name, b))
        elif any(len(h.outs) == 2 for h in self.draft.ahelpers):
            h = rng.choice([h for h in self.draft.ahelpers if len(h.outs) == 2])
            names = [self.draft.fresh("u" if o is not None else "t") for o in h.outs]
            self.draft.emit(f"{', '.join(names)} = {h.name}({self.arrays.across.ahelper_args(env, h)})")
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
        name = self.draft.fresh("u")
        same = env.arrays_of(shape)
        k = rng.random()
        if k < 0.12:
            dims = f"{shape[0]}" if len(shape) == 1 else f"({shape[0]}, {shape[1]})"
            c = draw_const(rng)
            likes = same
            src, b = rng.choice(
                [
                    (f"{self.draft.f('zeros')}({dims})", 0.0),
                    (f"{self.draft.f('ones')}({dims})", 1.0),
                    (f"{self.draft.f('full')}({dims}, {lit(c)})", abs(c)),
                ]
                + [(f"{self.draft.f(fn)}({n})", 1.0) for n in likes for fn in ("zeros_like", "ones_like")]
            )
            self.draft.emit(f"{name} = {src}")
            env.arrays[name] = ArrInfo(shape, b, True)
            return
        elif k < 0.22 and same:
            n = rng.choice(same)
            src = rng.choice([f"{n}.copy()", f"{self.draft.f('copy')}({n})", f"{self.draft.f('array')}({n})"])
            b = env.arrays[n].bound
        else:
            src, b = self.arrays.aexpr(env, shape, rng.randint(1, 3))
        self.assign_array(env, name, src, b, shape)

    def array_aug(self, env: NpEnv, name: str) -> None:
        rng = self.rng
        info = env.arrays[name]
        shape = info.shape
        op = rng.choice(["+=", "-=", "*=", "/=", "+=", "**="])
        if op in ("+=", "-="):
            if self.draft.chance(0.6):
                src, b = self.arrays.aexpr(env, shape, rng.randint(1, 2))
            else:
                src, b = self.arrays.broadcast_operand(env, shape, 1)
            self.draft.emit(f"{name} {op} {src}")
            nb = info.bound + b
        elif op == "*=":
            src, b = (
                self.arrays.aexpr(env, shape, 1)
                if self.draft.chance(0.6)
                else self.arrays.broadcast_operand(env, shape, 1)
            )
            s2, _ = self.arrays.afit(src, b, 1.0)
            self.draft.emit(f"{name} *= 0.5 + 0.4 * {wrap(s2)}")
            nb = info.bound * 0.9
        elif op == "/=":
            src, _ = self.arrays.aexpr(env, shape, 1)
            self.draft.emit(f"{name} /= 1.5 + {self.draft.f('cos')}({src})")
            nb = info.bound * 2.0
        else:
            if info.bound > 3.0:
                self.draft.emit(f"{name} = {self.draft.f('tanh')}({name})")
                info.bound = 1.0
            self.draft.emit(f"{name} **= 2")
            nb = info.bound**2
        info.bound = nb
        if name in env.acaps and nb > env.acaps[name]:
            self.draft.emit(f"{name} = {lit(env.acaps[name])} * {self.draft.f('tanh')}({name})")
            info.bound = env.acaps[name]
        elif nb > 50:
            self.draft.emit(f"{name} = {self.draft.f('tanh')}({name})")
            info.bound = 1.0

    def element_write(self, env: NpEnv, name: str) -> None:
        """name[i] = v, name[i] += v, name[i, j] *= v, name[:, j] = vector, name[i, :] += vector."""
        rng = self.rng
        info = env.arrays[name]
        shape = info.shape
        if len(shape) == 1:
            target = f"{name}[{self.arrays.index_dim(env, shape[0])}]"
            vshape = None
        else:
            r, c = shape
            i, j = self.arrays.index_dim(env, r), self.arrays.index_dim(env, c)
            target, vshape = rng.choice(
                [
                    (f"{name}[{i}, {j}]", None),
                    (f"{name}[{i}]", (c,)),
                    (f"{name}[{i}, :]", (c,)),
                    (f"{name}[:, {j}]", (r,)),
                ]
            )
        read = (
            self.read_of_view(env, target, vshape, info.bound)
            if vshape is not None and self.draft.chance(0.7)
            else None
        )
        if vshape is None:
            src, b = self.exprs.expr(env, rng.randint(1, 2))
            fitf, tanh = self.exprs.fit, "math.tanh"
        else:
            src, b = self.arrays.aexpr(env, vshape, rng.randint(1, 2))
            fitf, tanh = self.arrays.afit, self.draft.f("tanh")
        if read is not None:  # (used so that its adjoint needs its value: e * e)
            src, b = f"{wrap(src)} + {lit(0.5)} * {read} * {read}", b + 0.5 * info.bound * info.bound
        cap = max(info.bound, LOOP_CAP) if name in env.acaps else max(info.bound, b)
        op = rng.choice(["=", "=", "+=", "-=", "*="])
        if op == "*=":
            src, b = fitf(src, b, 1.0)
            self.draft.emit(f"{target} *= {src}")
            return
        if op == "=":
            src, b = fitf(src, b, cap)
            self.draft.emit(f"{target} = {src}")
            info.bound = max(info.bound, b)
            return
        src, b = fitf(src, b, 1.0)
        self.draft.emit(f"{target} {op} {src}")
        nb = info.bound + b
        if name in env.acaps or nb > 50:
            self.draft.emit(f"{target} = {lit(cap)} * {tanh}({target})")
            nb = cap
        info.bound = max(info.bound, nb)

    def read_of_view(self, env: NpEnv, line: str, vshape: tuple, bound: float) -> str:
        """``v = line`` (a row or column of an array, written next) and ``e = v[k]``: the name of the number read out
        of the view before the write (the adjoint sweep read it again after the write: wrong on both targets until
        2026-12-03, modes.rereadable)."""
        view, e = self.draft.fresh("v"), self.draft.fresh("e")
        self.draft.emit(f"{view} = {line}")
        self.draft.emit(f"{e} = {view}[{self.rng.randrange(vshape[0])}]")
        env.floats[e] = bound
        return e

    def line_updates(self, env: NpEnv, name: str) -> None:
        """for i in range(A.shape[0]): v = A[i]; e = v[k]; A[i] = tanh(c * v + e * e), by rows or by columns: each
        line of an array the function may differentiate through, read as a view and then written (the adjoint
        sweep read e again after the write, wrong until 2026-12-03: modes.rereadable)."""
        rng, info = self.rng, env.arrays[name]
        rows, cols = info.shape
        axis = rng.choice([0, 1])
        i = self.draft.fresh("i")
        self.draft.emit(f"for {i} in range({name}.shape[{axis}]):")
        body = env.loop_scope()
        body.idx[i] = Idx(rows if axis == 0 else cols, None)
        self.draft.indent += 1
        line = rng.choice([f"{name}[{i}]", f"{name}[{i}, :]"]) if axis == 0 else f"{name}[:, {i}]"
        e = self.read_of_view(body, line, (cols,) if axis == 0 else (rows,), body.acaps[name])
        tanh = self.draft.f("tanh")
        self.draft.emit(f"{line} = {tanh}({lit(draw_const(rng, 0.3, 0.9))} * {line} + {lit(0.5)} * {e} * {e})")
        body.arrays[name].bound = 1.0
        self.draft.indent -= 1
        env.after_loop(body)

    def fill_loop(self, env: NpEnv, depth: int, budget: list) -> None:
        """A new local array filled element by element (or row by row) in a loop, maybe a recurrence."""
        rng = self.rng
        shape = self.pick_shape(env)
        name = self.draft.fresh("u")
        dims = f"{shape[0]}" if len(shape) == 1 else f"({shape[0]}, {shape[1]})"
        same = env.arrays_of(shape)
        init = rng.choice(
            [f"{self.draft.f('zeros')}({dims})"] * 3
            + [f"{self.draft.f('ones')}({dims})"]
            + [f"{self.draft.f('zeros_like')}({n})" for n in same]
        )
        self.draft.emit(f"{name} = {init}")
        env.arrays[name] = ArrInfo(shape, 1.0, True)
        body = env.loop_scope()
        i = self.draft.fresh("i")
        axis = 0 if len(shape) == 1 or self.draft.chance(0.6) else 1
        k = shape[axis]
        start = 1 if self.draft.chance(0.25) else 0
        bound_src = rng.choice([str(k), f"len({name})" if axis == 0 else str(k), f"{name}.shape[{axis}]"])
        if len(shape) == 1 and self.draft.chance(0.2):
            bound_src = f"{name}.size"
        self.draft.emit(f"for {i} in range({start}, {bound_src}):" if start else f"for {i} in range({bound_src}):")
        body.idx[i] = Idx(k, None)
        self.draft.indent += 1
        cap = body.acaps[name]
        if len(shape) == 1:
            src, b = self.exprs.expr(body, rng.randint(1, 3))
            if start == 1 and self.draft.chance(0.7):
                src, b = f"{lit(draw_const(rng, -0.9, 0.9))} * {name}[{i} - 1] + {src}", cap + b
            src, b = self.exprs.fit(src, b, cap)
            self.draft.emit(f"{name}[{i}] = {src}")
        else:
            vshape = (shape[1],) if axis == 0 else (shape[0],)
            target = rng.choice([f"{name}[{i}]", f"{name}[{i}, :]"]) if axis == 0 else f"{name}[:, {i}]"
            read = self.read_of_view(body, target, vshape, cap) if self.draft.chance(0.4) else None
            src, b = self.arrays.aexpr(body, vshape, rng.randint(1, 2))
            if read is not None:  # (used so that its adjoint needs its value: e * e)
                src, b = f"{wrap(src)} + {lit(0.5)} * {read} * {read}", b + 0.5 * cap * cap
            if start == 1 and self.draft.chance(0.7):
                prev = f"{name}[{i} - 1]" if axis == 0 else f"{name}[:, {i} - 1]"
                src, b = f"{lit(draw_const(rng, -0.9, 0.9))} * {prev} + {wrap(src)}", cap + b
            src, b = self.arrays.afit(src, b, cap)
            self.draft.emit(f"{target} = {src}")
        body.arrays[name].bound = max(body.arrays[name].bound, b)
        self.draft.indent -= 1
        if self.draft.chance(0.3):
            self.stmts.block(body, depth + 1, budget, rng.randint(1, 2))
        env.after_loop(body)

    def rows_loop(self, env: NpEnv, matrix: str) -> None:
        """for i in range(M.shape[0]): r = M[i]; acc = c * acc + (vector arithmetic of r): a loop over a
        matrix's rows, each a vector of its row's length, summed into a new vector (the vectors the Numba
        target holds as numbers: lower.small_arrays)."""
        rng = self.rng
        rows, n = env.arrays[matrix].shape
        name, i, row = self.draft.fresh("acc"), self.draft.fresh("i"), self.draft.fresh("r")
        self.draft.emit(f"{name} = {self.draft.f('zeros')}({n})")
        env.arrays[name] = ArrInfo((n,), 1.0, True)
        body = env.loop_scope()
        self.draft.emit(f"for {i} in range({matrix}.shape[0]):")
        body.idx[i] = Idx(rows, None)
        self.draft.indent += 1
        self.draft.emit(f"{row} = {matrix}[{i}]")
        body.arrays[row] = ArrInfo((n,), env.arrays[matrix].bound, False)
        cap = body.acaps[name]
        src, b = self.arrays.aexpr(body, (n,), rng.randint(1, 3))
        src, b = self.arrays.afit(f"{lit(0.5)} * {name} + {wrap(src)}", 0.5 * cap + b, cap)
        self.draft.emit(f"{name} = {src}")
        body.arrays[name].bound = max(body.arrays[name].bound, b)
        self.draft.indent -= 1
        env.after_loop(body)

    def display(self, env: NpEnv) -> None:
        """v = np.array([s1, ..., sk]): a vector of two to four numbers of the function's (the Numba target
        holds it as numbers where its uses allow: lower.small_arrays)."""
        parts = [self.arrays.across.array_scalar(env, self.rng.randint(0, 1)) for _ in range(self.rng.randint(2, 4))]
        name = self.draft.fresh("v")
        self.draft.emit(f"{name} = {self.draft.f('array')}([{', '.join(src for src, _ in parts)}])")
        env.arrays[name] = ArrInfo((len(parts),), max(b for _, b in parts), True)

    def join(self, env: NpEnv) -> bool:
        """v = np.concatenate((a[:k], a[k:] * b[:n - k])): a join of two pieces of vectors of one length, each
        a slice or elementwise arithmetic of slices (GradBench ode's right-hand side; the Numba target writes
        such a join as loops storing into the joined array: targets/numba/joined_loops).  False: no vector."""
        rng = self.rng
        vectors = sorted(n for n, a in env.arrays.items() if len(a.shape) == 1 and a.shape[0] >= 2)
        if not vectors:
            return False
        a = rng.choice(vectors)
        n = env.arrays[a].shape[0]
        b = rng.choice(env.arrays_of((n,)))
        k, c = rng.randint(1, n - 1), draw_const(rng, -1.5, 1.5)
        ba, bb = env.arrays[a].bound, env.arrays[b].bound
        first = rng.choice([(f"{a}[:{k}]", ba), (f"{lit(c)} * {b}[:{k}]", abs(c) * bb), (f"-{a}[:{k}]", ba)])
        second = rng.choice(
            [
                (f"{a}[{k}:] * {b}[:{n - k}]", ba * bb),
                (f"{b}[{k}:] + {lit(c)} * {a}[{k}:]", bb + abs(c) * ba),
                (f"{a}[{k}:] / (2.0 + {b}[{k}:] * {b}[{k}:])", ba / 2),
            ]
        )
        pieces = [first, second] if self.draft.chance(0.7) else [second, first]
        listed = ", ".join(src for src, _ in pieces)
        kind = rng.choice(["concatenate", "concatenate", "hstack"])
        joined = f"[{listed}]" if self.draft.chance(0.3) else f"({listed})"
        name = self.draft.fresh("v")
        self.draft.emit(f"{name} = {self.draft.f(kind)}({joined})")
        env.arrays[name] = ArrInfo((n,), max(b for _, b in pieces), True)
        return True

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
        cnt = self.stmts.make_counter(env)
        body = env.loop_scope()
        i = self.draft.fresh("i")
        self.draft.emit(f"for {i} in range({rng.choice(forms)}):")
        body.idx[i] = Idx(k, None)
        if cnt:
            self.draft.indent += 1
            self.draft.emit(f"{cnt} += 1")
            self.draft.indent -= 1
        self.stmts.block(body, depth + 1, budget, rng.randint(1, 3))
        env.after_loop(body)
        if cnt:
            env.ints[cnt] = 20
