"""Independent derivative oracles for the end-to-end tests.

Nothing here uses adcompiler's own output as a reference: derivatives are
checked against central finite differences, the complex-step derivative and
algebraic identities between forward and reverse mode.
"""

import ast
import cmath
import inspect
import math
import random
import types

EPS = 2.0**-52
FD_REL_STEP = EPS ** (1.0 / 3.0)  # ~6e-6, optimal for central differences
COMPLEX_STEP = 1e-20


# ---------------------------------------------------------------- basics


def flatten(out):
    """A scalar or tuple output as a list of floats."""
    if isinstance(out, (tuple, list)):
        return [float(o) for o in out]
    return [float(out)]


def is_tuple_output(out):
    return isinstance(out, (tuple, list))


def fd_step(x):
    """Central-difference step near eps**(1/3), scaled by |x|."""
    return FD_REL_STEP * max(1.0, abs(x))


def central_diff(func, args, i):
    """d func / d args[i] by central differences: one entry per output."""
    h = fd_step(args[i])
    plus, minus = list(args), list(args)
    plus[i] = args[i] + h
    minus[i] = args[i] - h
    width = plus[i] - minus[i]  # the step actually taken after rounding
    fp, fm = flatten(func(*plus)), flatten(func(*minus))
    return [(a - b) / width for a, b in zip(fp, fm)]


def fd_jacobian(func, args, idx):
    """Columns of the Jacobian: cols[k][j] = d out_j / d args[idx[k]]."""
    return [central_diff(func, args, i) for i in idx]


# ---------------------------------------------------------- complex step


def _real(z):
    return z.real if isinstance(z, complex) else z


def _atan2(y, x):
    # atan(y/x) differs from atan2 by a locally constant multiple of pi,
    # which does not affect the imaginary part used by the complex step.
    if _real(x) == 0:
        return cmath.pi / 2 - cmath.atan(x / y)
    base = cmath.atan(y / x)
    if _real(x) < 0:
        base += cmath.pi if _real(y) >= 0 else -cmath.pi
    return base


def _fabs(z):
    return -z if _real(z) < 0 else z + 0j


def _pick(cmp, vals):
    best = vals[0]
    for v in vals[1:]:
        if cmp(_real(v), _real(best)):
            best = v
    return best


class _CMathShim:
    """Stands in for `math` so complex-step can go through math functions."""

    pi, e, tau, inf = math.pi, math.e, math.tau, math.inf
    sin, cos, tan = cmath.sin, cmath.cos, cmath.tan
    asin, acos, atan = cmath.asin, cmath.acos, cmath.atan
    sinh, cosh, tanh = cmath.sinh, cmath.cosh, cmath.tanh
    asinh, acosh, atanh = cmath.asinh, cmath.acosh, cmath.atanh
    exp, sqrt, log10 = cmath.exp, cmath.sqrt, cmath.log10
    atan2 = staticmethod(_atan2)
    fabs = staticmethod(_fabs)

    @staticmethod
    def log(z, base=None):
        return cmath.log(z) if base is None else cmath.log(z) / cmath.log(base)

    @staticmethod
    def log2(z):
        return cmath.log(z) / math.log(2.0)

    @staticmethod
    def log1p(z):
        return cmath.log(1 + z)

    @staticmethod
    def expm1(z):
        return cmath.exp(z) - 1

    @staticmethod
    def pow(a, b):
        return a**b

    @staticmethod
    def hypot(*zs):
        return cmath.sqrt(sum(z * z for z in zs))

    # cmath has no erf: extend to first order in the (tiny) imaginary part.
    @staticmethod
    def erf(z):
        x, h = _real(z), complex(z).imag
        return complex(math.erf(x), h * 2.0 / math.sqrt(math.pi) * math.exp(-x * x))

    @staticmethod
    def erfc(z):
        return 1.0 - _CMathShim.erf(z)

    @staticmethod
    def floor(z):
        return math.floor(_real(z))

    @staticmethod
    def ceil(z):
        return math.ceil(_real(z))

    @staticmethod
    def trunc(z):
        return math.trunc(_real(z))


_BUILTIN_SHIMS = {
    "abs": _fabs,
    "min": lambda *vs: _pick(lambda a, b: a < b, vs),
    "max": lambda *vs: _pick(lambda a, b: a > b, vs),
    "round": lambda z: round(_real(z)),
    "int": lambda z: int(_real(z)),
}


def complexify(func):
    """A copy of func (and of the same-module functions it calls) whose
    `math`, abs, min, max, round and int accept complex arguments."""
    old_globals = func.__globals__
    new_globals = dict(old_globals)
    new_globals["math"] = _CMathShim
    new_globals.update(_BUILTIN_SHIMS)
    for name, value in old_globals.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is old_globals:
            new_globals[name] = types.FunctionType(value.__code__, new_globals, value.__name__, value.__defaults__)
    return types.FunctionType(func.__code__, new_globals, func.__name__, func.__defaults__)


def complex_step(func, args, i, h=COMPLEX_STEP):
    """d func / d args[i] as Im f(x + ih) / h: exact to rounding, no cancellation."""
    cfunc = complexify(func)
    zargs = list(args)
    zargs[i] = complex(args[i], h)
    out = cfunc(*zargs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [complex(o).imag / h for o in outs]


# --------------------------------------------------------------- checks


def _close(got, expected, scale, rtol, atol):
    return abs(got - expected) <= atol + rtol * max(abs(expected), scale)


def wrt_indices(func, wrt, nargs):
    if wrt is None:
        return list(range(nargs))
    names = list(inspect.signature(func).parameters)
    return [names.index(w) for w in wrt]


def _as_ct(u, tuple_out):
    return tuple(u) if tuple_out else u[0]


def check_grads(df, args, wrt=None, *, original=None, rtol=1e-6, atol=1e-8, seed=0, n_random=2):
    """Check the derivatives of a differentiated function at `args`.

    df: the object returned by adcompiler.differentiate; args: every positional
    argument; wrt: the names df was built with (None: every parameter);
    original: the undecorated function (default inspect.unwrap(df)).

    (a) jvp along each unit direction and random directions vs central FD,
    (b) vjp with random cotangents vs FD,
    (c) <u, J v> == <J^T u, v> between jvp and vjp,
    (d) grad / value_and_grad agree with vjp for scalar outputs,
    (e) the value returned by jvp and vjp equals the original function's.
    """
    args = tuple(args)
    if original is None:
        original = inspect.unwrap(df)
    idx = wrt_indices(original, wrt, len(args))
    n = len(idx)
    rng = random.Random(seed)
    fails = []

    value = original(*args)
    tuple_out = is_tuple_output(value)
    flat_value = flatten(value)
    m = len(flat_value)
    cols = fd_jacobian(original, args, idx)  # cols[k][j]

    def check_value(where, got):
        if is_tuple_output(got) != tuple_out or len(flatten(got)) != m:
            fails.append(f"{where}: value {got!r} has not the structure of {value!r}")
            return
        for g, e in zip(flatten(got), flat_value):
            if not _close(g, e, 0.0, 1e-12, 1e-300):
                fails.append(f"{where}: value {got!r} != original {value!r}")
                return

    # (e) plain call is the original function
    if df(*args) != value:
        fails.append(f"df{args} = {df(*args)!r} but original gives {value!r}")

    # (a) forward mode
    directions = [[1.0 if k == j else 0.0 for k in range(n)] for j in range(n)]
    directions += [[rng.uniform(-1, 1) for _ in range(n)] for _ in range(n_random)]
    jvps = []
    for v in directions:
        val, tan = df.jvp(args, tuple(v))
        check_value(f"jvp(v={v})", val)
        if is_tuple_output(tan) != tuple_out or len(flatten(tan)) != m:
            fails.append(f"jvp(v={v}): tangent {tan!r} has not the output's structure")
            jvps.append(None)
            continue
        tan = flatten(tan)
        jvps.append(tan)
        for j in range(m):
            exp = sum(v[k] * cols[k][j] for k in range(n))
            scale = sum(abs(v[k] * cols[k][j]) for k in range(n))
            if not _close(tan[j], exp, scale, rtol, atol):
                fails.append(f"jvp(v={v}) output {j}: got {tan[j]!r}, finite differences {exp!r}")

    # (b) reverse mode
    cots = [[rng.uniform(-1, 1) for _ in range(m)] for _ in range(n_random)]
    if m == 1:
        cots.insert(0, [1.0])
    vjps = []
    for u in cots:
        val, ct = df.vjp(args, _as_ct(u, tuple_out))
        check_value(f"vjp(u={u})", val)
        if not isinstance(ct, tuple) or len(ct) != n:
            fails.append(f"vjp(u={u}): cotangents {ct!r} is not a tuple of {n}")
            vjps.append(None)
            continue
        vjps.append(list(ct))
        for k in range(n):
            exp = sum(u[j] * cols[k][j] for j in range(m))
            scale = sum(abs(u[j] * cols[k][j]) for j in range(m))
            if not _close(ct[k], exp, scale, rtol, atol):
                fails.append(f"vjp(u={u}) wrt arg {idx[k]}: got {ct[k]!r}, " f"finite differences {exp!r}")

    # (c) <u, J v> == <J^T u, v>
    for v, jv in zip(directions, jvps):
        for u, jtu in zip(cots, vjps):
            if jv is None or jtu is None:
                continue
            lhs = sum(a * b for a, b in zip(u, jv))
            rhs = sum(a * b for a, b in zip(jtu, v))
            scale = sum(abs(a * b) for a, b in zip(u, jv)) + sum(abs(a * b) for a, b in zip(jtu, v))
            if not _close(lhs, rhs, scale, 1e-10, 1e-300):
                fails.append(f"<u, Jv> = {lhs!r} but <J^T u, v> = {rhs!r} (u={u}, v={v})")

    # (d) grad and value_and_grad for scalar outputs
    if m == 1 and not tuple_out and vjps and vjps[0] is not None:
        ref = vjps[0]
        expected = ref[0] if n == 1 else tuple(ref)
        for name, got in (
            ("grad", df.grad(*args)),
            ("value_and_grad", df.value_and_grad(*args)),
        ):
            if name == "value_and_grad":
                check_value("value_and_grad", got[0])
                got = got[1]
            got_flat = [got] if n == 1 else got
            if n == 1 and isinstance(got, tuple):
                fails.append(f"{name}: one wrt parameter but got a tuple {got!r}")
                continue
            if n > 1 and (not isinstance(got, tuple) or len(got) != n):
                fails.append(f"{name}: expected a tuple of {n}, got {got!r}")
                continue
            for k in range(n):
                if not _close(got_flat[k], ref[k], 0.0, 1e-12, 1e-300):
                    fails.append(f"{name} = {got!r} but vjp(1.0) gives {expected!r}")
                    break

    assert not fails, f"{original.__name__}{args}:\n  " + "\n  ".join(fails)


def assert_allclose(got, expected, rtol=1e-12, atol=1e-15, what=""):
    got_l, exp_l = flatten(got), flatten(expected)
    assert len(got_l) == len(exp_l) and all(
        _close(g, e, 0.0, rtol, atol) for g, e in zip(got_l, exp_l)
    ), f"{what}: got {got!r}, expected {expected!r}"


# ------------------------------------------------------- source helpers

_ATOMS = (ast.Name, ast.Constant)


def _is_atom(node):
    if isinstance(node, _ATOMS):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return True  # a negative literal
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return True  # math.pi
    return False


def _is_anf_rhs(node):
    if _is_atom(node):
        return True
    if isinstance(node, ast.BinOp):
        return _is_atom(node.left) and _is_atom(node.right)
    if isinstance(node, ast.UnaryOp):
        return _is_atom(node.operand)
    if isinstance(node, ast.Call):
        return all(_is_atom(a) for a in node.args) and all(_is_atom(k.value) for k in node.keywords)
    if isinstance(node, ast.Tuple):
        return all(_is_atom(e) for e in node.elts)
    if isinstance(node, ast.Subscript):
        return _is_atom(node.value) and _is_atom(node.slice)
    return False


def anf_violations(source):
    """Statements of the function bodies in `source` that are not in A-normal
    form (an operation whose operands are themselves operations)."""
    bad = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for stmt in fn.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                ok = _is_anf_rhs(stmt.value)
            elif isinstance(stmt, ast.Return):
                ok = stmt.value is None or _is_anf_rhs(stmt.value)
                ok = ok and not isinstance(stmt.value, (ast.BinOp, ast.Call))
            else:
                ok = isinstance(stmt, (ast.Pass, ast.FunctionDef))
            if not ok:
                bad.append(ast.unparse(stmt))
    return bad


def wasteful_terms(source):
    """BinOps that multiply by 0 or 1 or add/subtract 0 (should be folded)."""

    def const(node, values):
        return (
            isinstance(node, ast.Constant)
            and not isinstance(node.value, bool)
            and isinstance(node.value, (int, float))
            and node.value in values
        )

    bad = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.BinOp):
            continue
        l, r = node.left, node.right
        if isinstance(node.op, ast.Mult) and (const(l, (0,)) or const(r, (0,)) or const(l, (1,)) or const(r, (1,))):
            bad.append(ast.unparse(node))
        elif isinstance(node.op, ast.Add) and (const(l, (0,)) or const(r, (0,))):
            bad.append(ast.unparse(node))
        elif isinstance(node.op, ast.Sub) and const(r, (0,)):
            bad.append(ast.unparse(node))
    return bad


def imported_modules(source):
    """Top-level module names imported by `source`."""
    mods = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            mods.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods.add(node.module.split(".")[0])
    return mods


def central_grad(f, args, i, h=1e-6):
    """Central differences of scalar f in every float of args[i] (a number, a list, nested lists or an
    array), as a NumPy array of args[i]'s shape; each point passed as args[i] was (a list as a list)."""
    import numpy as np

    base = np.array(args[i], dtype=float)
    grad = np.zeros_like(base)
    for k in np.ndindex(base.shape):

        def at(step):
            moved = base.copy()
            moved[k] += step
            value = moved if isinstance(args[i], np.ndarray) else moved.tolist()
            return f(*args[:i], value, *args[i + 1 :])

        grad[k] = (at(h) - at(-h)) / (2 * h)
    return grad
