"""The cases of test_systematic.py: every primitive of the rule tables, applied to a grid of kinds of
arguments (Python floats, NumPy arrays of 0 to 3 dimensions, broadcasting pairs, float32 mixed with
float64) and every keyword combination the rule takes.

A case is an expression of the parameters; ``module_for`` writes it into a function
``f(<params>) = sum(W * <expr>)`` (W fixed random weights of the expression's shape, so the output
is a scalar that depends on every entry), in a real file, since adcompiler reads source.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import tempfile
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Case:
    prims: tuple  # the rule-table keys the case exercises
    expr: str  # an expression of the parameters
    args: dict  # parameter -> value
    slow: bool = False  # in the full cross product only
    hessian: bool = False  # also check second order
    autograd: bool = True  # autograd differentiates it as NumPy defines it (not full_like's fill value)
    id: str = field(default="")
    setup: str = ""  # statements run before the expression (np.add.at, which is one), on copies of the args


def _rng(seed):
    return np.random.default_rng(seed)


def value(shape, lo=-1.0, hi=1.0, dtype=np.float64, seed=0):
    """A value of this kind: a Python float for None, else an array of ``shape`` in [lo, hi]."""
    rng = _rng(seed)
    if shape is None:
        return float(rng.uniform(lo, hi))
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def _name(shape, dtype=np.float64):
    text = "float" if shape is None else f"{shape}".replace(" ", "")
    return text + ("-f32" if dtype == np.float32 else "")


MATH_UNARY = {  # primitive -> domain
    "math.sin": (-2, 2),
    "math.cos": (-2, 2),
    "math.tan": (-1, 1),
    "math.asin": (-0.9, 0.9),
    "math.acos": (-0.9, 0.9),
    "math.atan": (-2, 2),
    "math.sinh": (-2, 2),
    "math.cosh": (-2, 2),
    "math.tanh": (-2, 2),
    "math.asinh": (-2, 2),
    "math.acosh": (1.2, 3),
    "math.atanh": (-0.9, 0.9),
    "math.exp": (-2, 2),
    "math.expm1": (-2, 2),
    "math.log": (0.2, 3),
    "math.log1p": (-0.5, 3),
    "math.log2": (0.2, 3),
    "math.log10": (0.2, 3),
    "math.sqrt": (0.2, 3),
    "math.erf": (-2, 2),
    "math.erfc": (-2, 2),
    "math.fabs": (0.2, 2),
    "math.floor": (0.1, 0.9),
    "math.ceil": (0.1, 0.9),
    "math.trunc": (0.1, 0.9),
    "math.lgamma": (0.2, 4),
    "math.gamma": (0.2, 4),
    "math.degrees": (-2, 2),
    "math.radians": (-2, 2),
    "math.exp2": (-2, 2),
}
NUMPY_UNARY = {
    "sin": (-2, 2),
    "cos": (-2, 2),
    "tan": (-1, 1),
    "arcsin": (-0.9, 0.9),
    "arccos": (-0.9, 0.9),
    "arctan": (-2, 2),
    "sinh": (-2, 2),
    "cosh": (-2, 2),
    "tanh": (-2, 2),
    "exp": (-2, 2),
    "expm1": (-2, 2),
    "log": (0.2, 3),
    "log1p": (-0.5, 3),
    "log2": (0.2, 3),
    "log10": (0.2, 3),
    "sqrt": (0.2, 3),
    "square": (-2, 2),
    "abs": (0.2, 2),
    "absolute": (0.2, 2),
    "negative": (-2, 2),
    "positive": (-2, 2),
    "sign": (0.2, 2),
    "floor": (0.1, 0.9),
    "ceil": (0.1, 0.9),
    "round": (0.1, 0.4),
    "rint": (0.1, 0.4),
    "trunc": (0.1, 0.9),
    "copy": (-2, 2),
    "array": (-2, 2),
    "asarray": (-2, 2),
    "arcsinh": (-2, 2),
    "arccosh": (1.2, 3),
    "arctanh": (-0.9, 0.9),
    "exp2": (-2, 2),
    "cbrt": (0.2, 3),
    "reciprocal": (0.5, 2),
    "fabs": (0.2, 2),
    "deg2rad": (-2, 2),
    "radians": (-2, 2),
    "rad2deg": (-2, 2),
    "degrees": (-2, 2),
}
SHAPES = [None, (), (1,), (3,), (2, 3), (2, 3, 4)]
PAIRS = [((3, 1), (1, 4)), ((2, 3), (3,)), ((1,), (3,)), ((), (2, 3)), (None, (2, 3)), ((2, 3), None), ((3,), (3,))]


def cases() -> list:
    out: list = []
    # scalar math and builtins
    for prim, (lo, hi) in MATH_UNARY.items():
        out.append(Case((prim,), f"{prim}(x)", {"x": value(None, lo, hi, seed=1)}, hessian=True))
    out += [
        Case(("math.atan2",), "math.atan2(x, y)", {"x": 0.7, "y": -1.3}, hessian=True),
        Case(("math.hypot",), "math.hypot(x, y)", {"x": 0.7, "y": -1.3}, hessian=True),
        Case(("math.hypot",), "math.hypot(x, y, x * y)", {"x": 0.7, "y": -1.3}),
        Case(("math.log/2",), "math.log(x, y)", {"x": 2.5, "y": 1.7}, hessian=True),
        Case(("math.pow",), "math.pow(x, y)", {"x": 1.5, "y": 0.7}, hessian=True),
        Case(("pow",), "x ** y + pow(x, 3) + x ** 2", {"x": 1.5, "y": 0.7}, hessian=True),
        Case(("abs", "neg", "pos"), "abs(-x) + (+y)", {"x": 0.7, "y": -1.3}),
        Case(("add", "sub", "mul", "truediv"), "(x + y) * (x - y) / (x * y)", {"x": 0.7, "y": -1.3}, hessian=True),
        Case(("mod", "floordiv"), "x % y + (x // y) * x", {"x": 5.3, "y": 1.7}),
        Case(
            ("round", "round/2", "int", "float"), "round(x) + round(x, 1) + int(x) + float(x) * y", {"x": 2.3, "y": 0.4}
        ),
        Case(("max", "min"), "max(x, y) * min(x, y)", {"x": 0.7, "y": -1.3}),
        Case(
            ("lt", "le", "gt", "ge", "eq", "ne", "not"),
            "x * (x < y) + y * (x <= y) + x * (x > y) + (x >= y) + (x == y) + (x != y) + (not x > y)",
            {"x": 0.7, "y": -1.3},
        ),
        Case(("range", "slice"), "sum([x, y, x * y][1:3]) * len(range(3))", {"x": 0.7, "y": -1.3}),
        Case(("slice/2",), "sum([x, y, x * y][slice(1, 3)]) * x", {"x": 0.7, "y": -1.3}),
        Case(
            ("bitand", "bitor", "bitxor", "invert"),
            "x * ((x > 0.5) & (y < 0.0)) + y * ((x > 0.0) | (y > 0.0)) + x * y * ((x > 0.5) ^ (y > 0.0)) + x * (~3)",
            {"x": 0.7, "y": -1.3},
        ),
        Case(("is_", "is_not"), "x * (x is None) + y * (y is not None) + x * y", {"x": 0.7, "y": -1.3}),
        # lgamma of a negative x (log |gamma|), and the digamma helper's own rule at second order
        Case(("math.lgamma", "polygamma"), "math.lgamma(x) * math.gamma(y)", {"x": -2.4, "y": 1.7}, hessian=True),
        Case(("math.cbrt",), "math.cbrt(x) * y", {"x": 1.7, "y": -1.3}, autograd=False),  # autograd: no cbrt vjp
        Case(("math.copysign", "math.fmod"), "math.copysign(x, y) * math.fmod(x, y)", {"x": 2.3, "y": -0.7}),
        Case(
            ("math.isfinite", "math.isnan", "math.isinf"),
            "x * math.isfinite(x) + y * (not math.isnan(y)) + math.isinf(x * 1e308 * 10.0) * x",
            {"x": 0.7, "y": -1.3},
        ),
        Case(("math.fsum", "with_value"), "math.fsum([x, y, x * y])", {"x": 0.7, "y": -1.3}, hessian=True),
        Case(("math.dist",), "math.dist([x, y], [y, 2.0])", {"x": 0.7, "y": -1.3}, hessian=True),
        Case(("sum_start",), "sum([x, y * x], y) * sum([x], start=2.0)", {"x": 0.7, "y": -1.3}, hessian=True),
        Case(("argsort",), "sorted([x, y, x * y])[1] * x", {"x": 0.7, "y": -1.3}, hessian=True),
    ]
    # NumPy elementwise, one argument, every kind
    for name, (lo, hi) in NUMPY_UNARY.items():
        for k, shape in enumerate(SHAPES + [(2, 3, "f32")]):
            dtype = np.float32 if shape and shape[-1] == "f32" else np.float64
            shape = shape[:-1] if dtype == np.float32 else shape
            slow = k not in (0, 4, 6)
            out.append(Case((f"numpy.{name}",), f"np.{name}(x)", {"x": value(shape, lo, hi, dtype, seed=k)}, slow=slow))
    # NumPy elementwise, two arguments, broadcasting pairs and mixed precision
    binary = {
        "numpy.arctan2": ("np.arctan2(x, y)", (-1, 1), (0.5, 1.5)),
        "numpy.hypot": ("np.hypot(x, y)", (0.2, 1), (-1, 1)),
        "numpy.power": ("np.power(x, y)", (0.5, 1.5), (-1, 1)),
        "numpy.logaddexp": ("np.logaddexp(x, y)", (-1, 1), (-1, 1)),
        "numpy.maximum": ("np.maximum(x, y)", (-1, 1), (-1, 1)),
        "numpy.minimum": ("np.minimum(x, y)", (-1, 1), (-1, 1)),
        "numpy.logaddexp2": ("np.logaddexp2(x, y)", (-1, 1), (-1, 1)),
        "numpy.fmax": ("np.fmax(x, y)", (-1, 1), (-1, 1)),
        "numpy.fmin": ("np.fmin(x, y)", (-1, 1), (-1, 1)),
        "add": ("x + y", (-1, 1), (-1, 1)),
        "sub": ("x - y", (-1, 1), (-1, 1)),
        "mul": ("x * y", (-1, 1), (-1, 1)),
        "truediv": ("x / y", (-1, 1), (0.5, 1.5)),
        "pow": ("x ** y", (0.5, 1.5), (-1, 1)),
        "mod": ("x % y", (2.1, 2.9), (0.7, 0.9)),
        "numpy.add": ("np.add(x, y)", (-1, 1), (-1, 1)),
        "numpy.subtract": ("np.subtract(x, y)", (-1, 1), (-1, 1)),
        "numpy.multiply": ("np.multiply(x, y)", (-1, 1), (-1, 1)),
        "numpy.divide": ("np.divide(x, y)", (-1, 1), (0.5, 1.5)),
        "numpy.true_divide": ("np.true_divide(x, y)", (-1, 1), (0.5, 1.5)),
    }
    for prim, (expr, dx, dy) in binary.items():
        for k, (sx, sy) in enumerate(PAIRS):
            slow = k not in (0, 4)
            args = {"x": value(sx, *dx, seed=10 + k), "y": value(sy, *dy, seed=20 + k)}
            out.append(Case((prim,), expr, args, slow=slow, hessian=k == 0))
        args = {"x": value((2, 3), *dx, np.float32, seed=30), "y": value((3,), *dy, seed=31)}
        out.append(Case((prim,), expr, args, slow=prim not in ("mul", "numpy.power")))
    out += [
        Case(("numpy.where",), "np.where(x > 0, x, y * y)", {"x": value((2, 3), seed=40), "y": value((3,), seed=41)}),
        Case(  # of numbers: the tangent and cotangents numbers, not 0-d arrays
            ("numpy.where/numbers",),
            "np.where(x > y, x * y, y * y) + np.where(x < 0.0, 2.0, x)",
            {"x": value(None, seed=42), "y": value(None, seed=43)},
            hessian=True,
        ),
        Case(("numpy.clip",), "np.clip(x, lo, hi)", {"x": value((6,), -2, 2, seed=42), "lo": -0.5, "hi": 0.6}),
        Case(("numpy.clip",), "np.clip(x, None, 0.5)", {"x": value((6,), -2, 2, seed=43)}),
        Case(("numpy.clip",), "np.clip(x, -0.5, None) + x.clip(0.1, 0.9)", {"x": value((6,), -2, 2, seed=44)}),
        Case(("numpy.linalg.norm",), "np.linalg.norm(x)", {"x": value((4,), seed=45)}, hessian=True),
        Case(("numpy.linalg.norm",), "np.linalg.norm(x)", {"x": value((2, 3), seed=46)}),
    ]
    # reductions and linear maps, every axis and keepdims
    for name, prims in (
        ("sum", ("numpy.sum",)),
        ("mean", ("numpy.mean",)),
        ("max", ("numpy.max",)),
        ("min", ("numpy.min",)),
    ):
        for k, (axis, keep) in enumerate(itertools.product([None, 0, 1, -1, (0, 2)], [False, True])):
            out.append(
                Case(
                    prims,
                    f"np.{name}(x, axis={axis!r}, keepdims={keep})",
                    {"x": value((2, 3, 4), seed=50 + k)},
                    slow=k > 3,
                )
            )
        out.append(Case(prims, f"np.{name}(x)", {"x": value((5,), seed=60)}))
        out.append(Case(prims, f"x.{name}(axis=0)", {"x": value((3, 2), seed=61)}))
    for name in ("var", "std"):  # every axis, keepdims and ddof
        prims = (f"numpy.{name}",)
        grid = itertools.product([None, 0, -1, (0, 2)], [False, True], [0, 1])
        for k, (axis, keep, ddof) in enumerate(grid):
            expr = f"np.{name}(x, axis={axis!r}, keepdims={keep}, ddof={ddof})"
            out.append(Case(prims, expr, {"x": value((2, 3, 4), seed=90 + k)}, slow=k > 3))
        out.append(Case(prims, f"np.{name}(x)", {"x": value((5,), seed=110)}, hessian=True))
        out.append(Case(prims, f"x.{name}(axis=1, ddof=1)", {"x": value((3, 4), seed=111)}, hessian=True))
        out.append(Case(prims, f"np.{name}(x, 0)", {"x": value((3, 2), dtype=np.float32, seed=112)}))
    out += [
        Case(("numpy.amax", "numpy.amin"), "np.amax(x, axis=1) * np.amin(x, axis=0)[0]", {"x": value((3, 4), seed=62)}),
        Case(("numpy.prod",), "np.prod(x)", {"x": value((4,), 0.5, 1.5, seed=63)}, hessian=True),
        Case(("numpy.prod",), "np.prod(x, axis=1, keepdims=True)", {"x": value((2, 3), 0.5, 1.5, seed=64)}),
        Case(("numpy.prod",), "np.prod(x, axis=0)", {"x": value((2, 3), 0.5, 1.5, seed=65)}),
        Case(("numpy.cumsum",), "np.cumsum(x)", {"x": value((2, 3), seed=66)}),
        Case(("numpy.cumsum",), "np.cumsum(x, axis=1)", {"x": value((2, 3), seed=67)}),
        Case(("numpy.cumsum",), "np.cumsum(x, axis=0)", {"x": value((3,), seed=68)}),
        Case(("array_sum",), "sum(x)", {"x": value((3,), seed=69)}),
        Case(("array_sum",), "sum(x)", {"x": value((2, 3), seed=70)}),
        Case(("numpy.transpose",), "np.transpose(x) + x.T", {"x": value((3, 3), seed=71)}),
        Case(("numpy.transpose",), "np.transpose(x, (2, 0, 1))", {"x": value((2, 3, 4), seed=72)}),
        Case(("numpy.reshape",), "np.reshape(x, (3, 2)) + x.reshape(3, 2)", {"x": value((2, 3), seed=73)}),
        Case(("numpy.reshape",), "x.reshape(-1)", {"x": value((2, 3, 2), seed=74)}),
        Case(("numpy.ravel",), "np.ravel(x) + x.flatten()", {"x": value((2, 3), seed=75)}),
        Case(("numpy.expand_dims",), "np.expand_dims(x, 1)", {"x": value((3,), seed=76)}),
        Case(("numpy.squeeze",), "np.squeeze(x) + np.squeeze(x, axis=0)", {"x": value((1, 3), seed=77)}),
        Case(("numpy.swapaxes",), "np.swapaxes(x, 0, 2)", {"x": value((2, 3, 4), seed=78)}),
        Case(("numpy.broadcast_to",), "np.broadcast_to(x, (2, 3))", {"x": value((3,), seed=79)}),
        Case(("numpy.moveaxis",), "np.moveaxis(x, 0, -1)", {"x": value((2, 3, 4), seed=120)}),
        Case(("numpy.moveaxis",), "np.moveaxis(x, (0, 1), (2, 0))", {"x": value((2, 3, 4), seed=121)}),
        Case(("numpy.tril", "numpy.triu"), "np.tril(x) + np.triu(x, 1) * x", {"x": value((3, 4), seed=122)}),
        Case(("numpy.tril", "numpy.triu"), "np.tril(x, -1) + np.triu(x, k=-1)", {"x": value((2, 3, 3), seed=123)}),
        Case(("numpy.flip",), "np.flip(x) + np.flip(x, 1) * x", {"x": value((2, 3), seed=124)}, autograd=False),
        Case(("numpy.roll",), "np.roll(x, 2) + np.roll(x, -1, axis=0) * x", {"x": value((3, 4), seed=125)}),
        Case(("numpy.roll",), "np.roll(x, (1, 2), axis=(0, 2))", {"x": value((2, 3, 4), seed=126)}),
        Case(("numpy.atleast_1d",), "np.atleast_1d(x) * x", {"x": value(None, seed=127)}),
        Case(
            ("numpy.atleast_1d", "numpy.atleast_2d"),
            "np.atleast_2d(x) * np.atleast_1d(x)",
            {"x": value((3,), seed=128)},
        ),
        Case(("numpy.atleast_3d",), "np.atleast_3d(x)", {"x": value((2, 3), seed=129)}),
        Case(("numpy.repeat",), "np.repeat(x, 2)", {"x": value((2, 3), seed=130)}, hessian=True),
        Case(("numpy.repeat",), "np.repeat(x, 3, axis=1) + x.repeat(3, axis=1)", {"x": value((2, 3), seed=131)}),
        # autograd's vjp of repeat with a negative axis is wrong (it sums the wrong entries): differences only
        Case(("numpy.repeat",), "x.repeat(3, axis=-1)", {"x": value((2, 3), seed=131)}, autograd=False),
        Case(("numpy.repeat",), "np.repeat(x, [1, 0, 2], axis=0)", {"x": value((3, 2), seed=132)}),
        Case(("numpy.repeat",), "np.repeat(x, 3)", {"x": value(None, seed=133)}),
        Case(("numpy.tile",), "np.tile(x, 2)", {"x": value((3,), seed=134)}, hessian=True),
        Case(("numpy.tile",), "np.tile(x, (2, 1, 2))", {"x": value((2, 3), seed=135)}),
        Case(("numpy.diff",), "np.diff(x)", {"x": value((2, 4), seed=136)}, hessian=True),
        Case(("numpy.diff",), "np.diff(x, n=2, axis=0)", {"x": value((4, 3), seed=137)}),
        Case(("numpy.trace",), "np.trace(x)", {"x": value((3, 3), seed=80)}),
        Case(("numpy.trace",), "np.trace(x)", {"x": value((3, 3, 4), seed=140)}),
        Case(("numpy.trace",), "np.trace(x, 1, 2, 0)", {"x": value((3, 3, 4), seed=144)}),
        Case(("numpy.trace",), "x.trace(offset=-1) * np.trace(x)", {"x": value((3, 4), seed=141)}, hessian=True),
        Case(("numpy.diag",), "np.diag(x)", {"x": value((3,), seed=81)}),
        Case(("numpy.diag",), "np.diag(x)", {"x": value((3, 3), seed=82)}),
        Case(("numpy.diag",), "np.diag(x, -2)", {"x": value((3,), seed=142)}),
        # autograd's diag vjp fails on a matrix that is not square: differences only
        Case(("numpy.diag",), "np.diag(x, 1) * np.diag(x, -1)[0]", {"x": value((3, 4), seed=143)}, autograd=False),
        Case(("numpy.linalg.inv",), "np.linalg.inv(x)", {"x": value((3, 3), seed=83) + 3 * np.eye(3)}, hessian=True),
        Case(("numpy.linalg.inv",), "np.linalg.inv(x)", {"x": value((2, 3, 3), seed=84) + 3 * np.eye(3)}),
        Case(("numpy.linalg.det",), "np.linalg.det(x)", {"x": value((3, 3), seed=85) + 3 * np.eye(3)}, hessian=True),
        Case(("numpy.linalg.det",), "np.linalg.det(x)", {"x": value((2, 3, 3), seed=86) + 3 * np.eye(3)}),
        Case(
            ("numpy.linalg.solve/vector",),
            "np.linalg.solve(x, y)",
            {"x": value((3, 3), seed=88) + 3 * np.eye(3), "y": value((3,), seed=89)},
            hessian=True,
        ),
        Case(
            ("numpy.linalg.solve",),
            "np.linalg.solve(x, y)",
            {"x": value((3, 3), seed=90) + 3 * np.eye(3), "y": value((3, 2), seed=91)},
            hessian=True,
        ),
        Case(
            ("numpy.linalg.solve",),
            "np.linalg.solve(x, y)",
            {"x": value((2, 3, 3), seed=92) + 3 * np.eye(3), "y": value((2, 3, 2), seed=93)},
        ),
        Case(  # a stack of matrices and one vector: NumPy 2 solves each against it
            ("numpy.linalg.solve/stacked",),
            "np.linalg.solve(x, y)",
            {"x": value((2, 3, 3), seed=94) + 3 * np.eye(3), "y": value((3,), seed=95)},
            hessian=True,
        ),
        Case(
            ("numpy.linalg.inv", "numpy.linalg.det"),
            "np.linalg.inv(x) * np.linalg.det(x)",
            {"x": value((2, 2), dtype=np.float32, seed=87) + 3 * np.eye(2, dtype=np.float32)},
        ),
    ]
    # products of every ndim
    for prim, fn in (
        ("numpy.dot", "np.dot"),
        ("numpy.matmul", "np.matmul"),
        ("matmul", None),
        ("numpy.inner", "np.inner"),
    ):
        for na, nb in itertools.product(range(4), range(4)):
            if prim in ("numpy.matmul", "matmul") and (na == 0 or nb == 0):
                continue
            a_shape = {0: None, 1: (3,), 2: (2, 3), 3: (2, 2, 3)}[na]
            b_shape = {
                "numpy.inner": {0: None, 1: (3,), 2: (4, 3), 3: (2, 4, 3)},
            }.get(
                prim, {0: None, 1: (3,), 2: (3, 4), 3: (2, 3, 4)}
            )[nb]
            expr = "x @ y" if fn is None else f"{fn}(x, y)"
            slow = (na, nb) not in ((1, 1), (2, 2), (2, 1), (1, 2), (3, 2), (0, 2))
            args = {"x": value(a_shape, seed=90 + na), "y": value(b_shape, seed=95 + nb)}
            kind = {(2, 1): "/matvec", (1, 2): "/vecmat"}.get((na, nb), "") if prim != "numpy.inner" else ""
            prims = ("numpy.dot/vectors",) if prim == "numpy.dot" and (na, nb) == (1, 1) else (prim + kind,)
            out.append(Case(prims, expr, args, slow=slow, hessian=(na, nb) in ((2, 1), (1, 1))))
    out.append(Case(("numpy.outer",), "np.outer(x, y)", {"x": value((3,), seed=99), "y": value((2,), seed=100)}))
    for a_shape, b_shape in (((2, 3), (2,)), (None, (2, 2)), ((2, 2, 1), (3,))):  # NumPy ravels each operand
        args = {"x": value(a_shape, seed=107), "y": value(b_shape, seed=108)}
        out.append(Case(("numpy.outer/flat",), "np.outer(x, y)", args, hessian=a_shape == (2, 3)))
    vectors32 = {"x": value((3,), dtype=np.float32, seed=103), "y": value((3,), dtype=np.float32, seed=104)}
    out.append(Case(("numpy.dot/vectors",), "np.dot(x, y) * x + np.dot(y, y)", vectors32))
    mixed32 = {"x": value((2, 3), dtype=np.float32, seed=105), "y": value((3,), dtype=np.float32, seed=106)}
    out.append(Case(("numpy.dot/matvec", "matmul/vecmat"), "np.dot(x, y) @ x", mixed32, hessian=True))
    out.append(
        Case(
            ("numpy.dot",), "np.dot(x, y)", {"x": value((2, 3), dtype=np.float32, seed=101), "y": value((3,), seed=102)}
        )
    )
    # sequences of arrays
    for prim, expr in (
        ("numpy.concatenate", "np.concatenate([x, y])"),
        ("numpy.concatenate", "np.concatenate([x, y], axis=1)"),
        ("numpy.stack", "np.stack([x, y])"),
        ("numpy.stack", "np.stack([x, y], axis=2)"),
        ("numpy.hstack", "np.hstack([x, y])"),
        ("numpy.vstack", "np.vstack([x, y])"),
        ("numpy.row_stack", "np.vstack([x[0], y[0]]) * 2.0"),
    ):
        out.append(Case((prim,), expr, {"x": value((2, 3), seed=110), "y": value((2, 3), seed=111)}))
    # einsum
    for spec, shapes in (
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 2)]),
        ("ii->", [(3, 3)]),
        ("ii->i", [(3, 3)]),
        ("ij,jk", [(2, 3), (3, 2)]),
        ("i,i->", [(3,), (3,)]),
    ):
        names = ["x", "y"][: len(shapes)]
        args = {n: value(s, seed=120 + k) for k, (n, s) in enumerate(zip(names, shapes))}
        out.append(
            Case(("numpy.einsum",), f"np.einsum({spec!r}, {', '.join(names)})", args, hessian=spec == "ij,jk->ik")
        )
    # constructors linear in their values, indexing and writes
    out += [
        Case(("numpy.linspace",), "np.linspace(x, y, 5)", {"x": 0.3, "y": 1.7}),
        Case(("numpy.linspace",), "np.linspace(x, y, 4, endpoint=False)", {"x": value((2,), seed=130), "y": 0.5}),
        Case(("numpy.full",), "np.full((2, 3), x)", {"x": 0.7}),
        Case(("numpy.vander",), "np.vander(x, 3)", {"x": value((4,), seed=136)}, autograd=False),
        Case(("numpy.vander",), "np.vander(x, increasing=True)", {"x": value((3,), seed=137)}, autograd=False),
        Case(("numpy.full_like",), "np.full_like(y, x) * y", {"x": 0.7, "y": value((3,), seed=131)}, autograd=False),
        Case(("getitem",), "x[1] + x[-1] + x[0:3:2].sum() + x[::-1][0]", {"x": value((5,), seed=132)}),
        Case(("getitem",), "x[:, 0] + x[1, :2].sum() + x[None, 1, :].sum()", {"x": value((2, 3), seed=133)}),
        Case(("getitem",), "x[x > 0]", {"x": value((6,), seed=134)}),
        Case(("getitem",), "x[np.array([0, 2, 2, 1])]", {"x": value((3,), seed=135)}),
        Case(("getitem",), "x[1][2] + x[:, 1:][0][0]", {"x": value((2, 3, 2), seed=136)}),
    ]
    from systematic_linalg import linalg_cases
    from systematic_more import more_cases
    from systematic_movement import movement_and_parts

    out += linalg_cases(Case, value) + more_cases(Case, value) + movement_and_parts(Case, value)
    out += [  # np.cov: rows or columns as variables, a second argument, bias and ddof, float32 (its rule: rules/reductions.py)
        Case(("numpy.cov",), "np.cov(x)", {"x": value((3, 5), seed=140)}),
        Case(("numpy.cov",), "np.cov(x)", {"x": value((6,), seed=141)}),
        Case(("numpy.cov",), "np.cov(x, rowvar=False, ddof=0)", {"x": value((5, 2), seed=142)}),
        Case(("numpy.cov",), "np.cov(x, y, bias=True)", {"x": value((2, 4), seed=143), "y": value((4,), seed=144)}),
        Case(("numpy.cov",), "x @ np.cov(x, None, False, False, 2)", {"x": value((6, 3), seed=145)}, slow=True),
        Case(("numpy.cov",), "np.cov(x)", {"x": value((2, 4), dtype=np.float32, seed=146)}),
    ]
    for k, case in enumerate(out):
        case.id = (
            f"{'+'.join(case.prims)}:{case.expr}:"
            + ",".join(
                _name(np.shape(v) if isinstance(v, np.ndarray) else None, getattr(v, "dtype", None))
                for v in case.args.values()
            )
            + f"#{k}"
        )
    return out


SETITEM_SOURCES = {  # writes into local arrays, NumPy's semantics (repeated indices keep the last write)
    "setitem": """
def f(x, v):
    y = np.zeros(4)
    y[1:3] = x[:2] * v
    y[np.array([0, 0])] = x[2:4]
    y[np.array([3, 3])] += v
    return np.sum(W * (y * y))
""",
}


def module_for(case: Case, directory: str):
    """Import the function of a case from a file written for it (with W fixed random weights)."""
    params = list(case.args)
    env, local = {"np": np, "math": __import__("math")}, dict(case.args)
    exec(case.setup, env, local)  # noqa: S102 - a test's own statements
    out = eval(case.expr, env, local)  # noqa: S307 - a test's own expression
    weights = np.random.default_rng(7).uniform(0.5, 1.5, size=np.shape(out)) if np.ndim(out) else 1.3
    setup = "".join(f"    {line}\n" for line in case.setup.splitlines())
    source = f"import math\n\nimport numpy as np\n\nW = None\n\n\ndef f({', '.join(params)}):\n{setup}    return np.sum(W * ({case.expr}))\n"
    return _load(source, directory, weights)


def _load(source: str, directory: str, weights):
    fd, path = tempfile.mkstemp(suffix=".py", prefix="adc_systematic_", dir=directory)
    with os.fdopen(fd, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.W = weights
    return module
