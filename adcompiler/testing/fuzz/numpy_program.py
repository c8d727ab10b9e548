"""NumPy programs: NpGen writes helpers over arrays, array outputs, and the entry function with its arrays."""

from __future__ import annotations

import math
import random

from .config import HELPER_BOUND, NMAX, PARAM_BOUND, Spec
from .numpy_rebind import NpRebindGen
from .scalar_expr import draw_const, lit
from .scope import ArrayHelper, ArrInfo, Env, ListInfo, NpEnv


class NpGen(NpRebindGen):
    """Random NumPy programs in README's supported subset, on top of the scalar generator.

    Every array variable has one small fixed shape: a program picks dimensions n (2..4) and m (2..3) and
    uses shapes (n,), (m,) and (m, n) for its variables (any (r, c) with r, c in {n, m} inside
    expressions). Statements are the scalar generator's (floats, lists, branches, loops, helpers) mixed
    with array statements (see array_stmt); scalar expressions also read arrays (reductions, dot
    products, elements), so branch conditions and loop bounds depend on array values.
    """

    # ---------------------------------------------------------------- helpers with arrays

    def ahelper_args(self, env: NpEnv, h: ArrayHelper) -> str:
        args = []
        for p in h.params:
            if p[0] == "array" and p[2] not in self.shapes:
                args.append(self.small_arg(env, p[2]))
            elif p[0] == "array":
                a, b = self.aexpr(env, p[2], 1)
                args.append(self.afit(a, b, HELPER_BOUND)[0])
            elif not (h.default and self.chance(0.4)):
                a, b = self.expr(env, 1)
                a = self.fit(a, b, HELPER_BOUND)[0]
                args.append(f"{p[1]}={a}" if h.default and self.chance(0.5) else a)
        return ", ".join(args)

    def array_helper(self, idx: int) -> list[str]:
        rng = self.rng
        name = f"h{idx}"
        shape = rng.choice(self.shapes)
        small = self.small_param()  # a parameter the body broadcasts up, maybe in a loop
        params = [("array", "a", shape if small is None else small)]
        if self.chance(0.4):
            params.append(("array", "b", rng.choice(self.shapes)))
        default = False
        if self.chance(0.5):
            params.append(("float", "s"))
            default = self.chance(0.3)
        outs = rng.choice([[None], [None], [shape], [shape], [shape, None], [None, None]])
        env = self.new_env()
        saved, self.lines, self.indent = self.lines, [], 1
        for p in params:
            if p[0] == "array" and p[2] not in self.shapes:
                env.small[p[1]] = (p[2], HELPER_BOUND)
            elif p[0] == "array" and self.avoiding("helper_array_param_list"):
                local = self.fresh("u")  # the body never reads the parameter, only this copy
                self.emit(f"{local} = {self.f('copy')}({p[1]})")
                env.arrays[local] = ArrInfo(p[2], HELPER_BOUND, True)
            elif p[0] == "array":
                env.arrays[p[1]] = ArrInfo(p[2], HELPER_BOUND, False)
            else:
                env.floats[p[1]] = HELPER_BOUND
        sig = [p[1] for p in params]
        if default:
            sig[-1] = f"s={lit(draw_const(rng))}"
        self.vector_params = {p[1] for p in params if p[0] == "array" and len(p[2]) == 1 and p[2] in self.shapes}
        self.fresh_returns = True
        bound = self.function(name, env, rng.randint(2, max(2, self.config.helper_stmts)), outs)
        self.fresh_returns = False
        body, self.lines = self.lines, saved
        self.ahelpers.append(ArrayHelper(name, params, default, outs, bound))
        return [f"def {name}({', '.join(sig)}):"] + body

    # ---------------------------------------------------------------- functions

    def ret_value(self, env: Env) -> tuple[str, float]:
        parts = []
        for kind in self.out_kinds:
            if kind is None:
                parts.append(self.live_mix(env, *self.expr(env, self.rng.randint(1, 3))))
                continue
            src, b = self.alive_mix(env, kind, *self.aexpr(env, kind, self.rng.randint(1, 3)))
            if self.fresh_returns and not self.is_fresh(src):
                src = f"{self.f('copy')}({src})"
            parts.append((src, b))
        src = ", ".join(p for p, _ in parts)
        if len(parts) > 1 and self.chance(0.5):
            src = f"({src})"
        return src, max(b for _, b in parts)

    def function(self, name: str, env: Env, nstmts: int, outputs) -> float:
        """outputs: a number of float outputs, or a list of kinds (None: a float; a shape: an array)."""
        self.out_kinds = outputs if isinstance(outputs, list) else [None] * outputs
        return super().function(name, env, nstmts, len(self.out_kinds))

    def module_arrays(self, env: NpEnv) -> list[str]:
        """Arrays defined at module level, ``K0 = np.array([...])``, read by the entry function like
        parameters it never writes into (the derivative must read them as they are, in every loop).
        Drawn from a generator of their own, so a seed's other choices stay what they were."""
        rng = random.Random(repr(self.rng.getstate()[1][:8]))
        lines = []
        for k in range(rng.choice([0, 0, 1, 2])):
            shape = rng.choice(self.shapes)
            values = [round(rng.uniform(-1.0, 1.0), 2) for _ in range(math.prod(shape))]
            rows = values if len(shape) == 1 else [values[i : i + shape[1]] for i in range(0, len(values), shape[1])]
            lines.append(f"K{k} = {self.np}.array({rows!r})")
            env.arrays[f"K{k}"] = ArrInfo(shape, 1.0, False)
            env.readonly.add(f"K{k}")  # assigned in f, it would be a local of f
        return lines + ([""] if lines else [])

    def program(self, entry: str = "f") -> Spec:
        rng = self.rng
        cfg = self.config
        alias = rng.choice(["np"] * 8 + ["numpy", "onp"])
        self.np = alias
        out = ["import math", "import numpy" if alias == "numpy" else f"import numpy as {alias}", "", ""]
        n, m = rng.randint(2, 4), rng.randint(2, 3)
        if self.chance(0.35):
            self.dims, self.shapes = [n], [(n,)]
        else:
            self.dims = sorted({n, m})
            self.shapes = list(dict.fromkeys([(n,), (m,), (m, n)]))
        for h in range(min(cfg.max_helpers, rng.choice([0, 0, 1, 1, 2, 3]))):
            out += (self.array_helper(h) if self.chance(0.7) else self.helper(h)) + ["", ""]
        params = []
        vectors = [s for s in self.shapes if len(s) == 1]
        matrices = [s for s in self.shapes if len(s) == 2]
        narr = rng.randint(1, 3)
        for k in range(narr):
            shape = rng.choice(matrices) if matrices and self.chance(0.4) else rng.choice(vectors)
            params.append(("array", ("A", "B", "C")[k] if len(shape) == 2 else ("x", "y", "w")[k], shape))
        small = self.small_param()
        if small is not None:
            params.append(("array", "v", small))
        for name in ["p", "q"][: rng.choice([0, 0, 1, 1, 2])]:
            params.append(("float", name))
        if self.chance(cfg.p_list_param):
            params.append(("list", "xs", rng.randint(2, 4)))
        if self.chance(cfg.p_int_param):
            params.append(("int", "n"))
        env = self.new_env()
        out[4:4] = self.module_arrays(env)
        for p in params:
            if p[0] == "array" and p[2] not in self.shapes:
                env.small[p[1]] = (p[2], PARAM_BOUND)
            elif p[0] == "array":
                env.arrays[p[1]] = ArrInfo(p[2], PARAM_BOUND, False)
            elif p[0] == "float":
                env.floats[p[1]] = PARAM_BOUND
            elif p[0] == "list":
                env.lists[p[1]] = ListInfo(p[2], PARAM_BOUND)
            else:
                env.ints[p[1]] = NMAX
        k = rng.random()
        if k < 0.55:
            outs = [None]
        elif k < 0.75:
            outs = [rng.choice(self.shapes)]
        else:
            outs = [rng.choice([None, None] + self.shapes) for _ in range(rng.randint(2, 3))]
        self.lines = []
        self.vector_params = {p[1] for p in params if p[0] == "array" and len(p[2]) == 1 and p[2] in self.shapes}
        self.function(entry, env, rng.randint(3, max(3, cfg.max_stmts)), outs)
        out += [f"def {entry}({', '.join(p[1] for p in params)}):"] + self.lines + [""]
        return Spec("\n".join(out), entry, params, len(outs))
