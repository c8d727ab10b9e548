"""More cases of test_systematic.py (systematic_cases.py adds them): tensordot, kron, cumprod (zeros
among the entries), average with weights, the split family, gathers, pads and sorts, each over the
keyword forms NumPy accepts.  A case autograd gets wrong or lacks is checked against differences only
(``autograd=False``), with the reason beside it."""

from __future__ import annotations

import numpy as np


def _with_zeros(x, *where):
    x = np.array(x)
    for i in where:
        x[i] = 0.0
    return x


def product_cases(Case, value) -> list:
    """tensordot, kron, cumprod and average."""
    f32 = np.float32
    return [
        Case(
            ("numpy.tensordot",),
            "np.tensordot(x, y)",
            {"x": value((2, 3, 4), seed=300), "y": value((3, 4, 2), seed=301)},
            hessian=True,
        ),
        Case(
            ("numpy.tensordot",), "np.tensordot(x, y, 1)", {"x": value((2, 3), seed=302), "y": value((3, 4), seed=303)}
        ),
        Case(
            ("numpy.tensordot",), "np.tensordot(x, y, axes=0)", {"x": value((2,), seed=304), "y": value((3,), seed=305)}
        ),
        Case(
            ("numpy.tensordot",),
            "np.tensordot(x, y, axes=([1, 0], [0, 2]))",
            {"x": value((3, 2, 4), seed=306), "y": value((2, 5, 3), seed=307)},
        ),
        Case(
            ("numpy.tensordot",),
            "np.tensordot(x, y, axes=[[-1], [0]])",
            {"x": value((2, 3), dtype=f32, seed=308), "y": value((3, 2), seed=309)},
        ),
        Case(
            ("numpy.tensordot",),
            "np.tensordot(x, y, axes=2)",
            {"x": value((2, 3), seed=310), "y": value((2, 3), seed=311)},
        ),
        Case(
            ("numpy.kron",), "np.kron(x, y)", {"x": value((2, 3), seed=312), "y": value((2, 2), seed=313)}, hessian=True
        ),
        Case(("numpy.kron",), "np.kron(x, y)", {"x": value((3,), seed=314), "y": value((2, 3), seed=315)}),
        Case(
            ("numpy.kron",), "np.kron(x, y)", {"x": value((2, 1, 2), dtype=f32, seed=316), "y": value((3,), seed=317)}
        ),
        Case(("numpy.kron",), "np.kron(x, y)", {"x": 0.7, "y": value((3,), seed=318)}),
        Case(("numpy.cumprod",), "np.cumprod(x)", {"x": value((2, 3), seed=320)}, hessian=True),
        Case(("numpy.cumprod",), "np.cumprod(x, axis=1) + x.cumprod(0)", {"x": value((3, 4), seed=321)}),
        Case(("numpy.cumprod",), "np.cumprod(x, -1)", {"x": value((2, 3, 4), dtype=f32, seed=322)}),
        Case(("numpy.cumprod",), "np.cumprod(x)", {"x": 0.6}),
        # a zero entry (two in one row): the product rule, not division by x (autograd divides: NaN)
        Case(
            ("numpy.cumprod",),
            "np.cumprod(x)",
            {"x": _with_zeros(value((5,), seed=323), 2)},
            hessian=True,
            autograd=False,
        ),
        Case(
            ("numpy.cumprod",),
            "np.cumprod(x, axis=1)",
            {"x": _with_zeros(value((2, 5), seed=324), (0, 1), (0, 3), (1, 4))},
            autograd=False,
        ),
        Case(
            ("numpy.average",),
            "np.average(x, weights=y)",
            {"x": value((2, 3), seed=330), "y": value((2, 3), 0.5, 1.5, seed=331)},
            hessian=True,
        ),
        Case(
            ("numpy.average",),
            "np.average(x, axis=1, weights=y)",
            {"x": value((2, 3), seed=332), "y": value((3,), 0.5, 1.5, seed=333)},
            hessian=True,
        ),
        Case(
            ("numpy.average",),
            "np.average(x, 0, y, keepdims=True)",
            {"x": value((3, 2, 2), seed=334), "y": value((3,), 0.5, 1.5, seed=335)},
        ),
        Case(
            ("numpy.average",),
            "np.average(x, axis=(2, 0), weights=y)",
            {"x": value((3, 2, 4), seed=336), "y": value((4, 3), 0.5, 1.5, seed=337)},
            autograd=False,  # autograd's average does not take a tuple of axes
        ),
        Case(
            ("numpy.average",),
            "np.average(x, axis=-1, weights=y)",
            {"x": value((2, 3), dtype=f32, seed=338), "y": value((3,), 0.5, 1.5, dtype=f32, seed=339)},
        ),
        Case(("numpy.average",), "np.average(x) + np.average(x, axis=0)", {"x": value((2, 3), seed=340)}),
        # lstsq of full-rank matrices, tall (least squares) and wide (the least-norm solution)
        Case(
            ("numpy.linalg.lstsq[0]",),
            "np.linalg.lstsq(x, y)[0]",
            {"x": value((5, 3), seed=341), "y": value((5,), seed=342)},
            hessian=True,
        ),
        Case(
            ("numpy.linalg.lstsq[0]",),
            "np.linalg.lstsq(x, y, rcond=None)[0]",
            {"x": value((5, 3), seed=343), "y": value((5, 2), seed=344)},
        ),
        Case(
            ("numpy.linalg.lstsq[0]",),
            "np.linalg.lstsq(x, y)[0]",
            {"x": value((3, 5), seed=345), "y": value((3,), seed=346)},
            hessian=True,
        ),
        Case(
            ("numpy.linalg.lstsq[0]",),
            "np.linalg.lstsq(x, y, None)[0] * np.linalg.lstsq(x, y)[2]",
            {"x": value((4, 4), seed=347) + 2 * np.eye(4), "y": value((4, 2), seed=348)},
        ),
    ]


def piece_cases(Case, value) -> list:
    """The split family (a list of pieces, indexed or unpacked), column_stack, dstack and append."""
    part, x23, x46 = "numpy.split/part", value((2, 3), seed=350), value((4, 6), seed=351)
    return [
        Case((part,), "np.split(x, 2, axis=1)[0] * np.split(x, 2, axis=1)[1]", {"x": x46}, hessian=True),
        Case((part,), "np.split(x, [1, 3])[2] + np.split(x, [1, 3])[0]", {"x": x46}),
        Case((part,), "np.split(x, (1, 3))[1] ** 2", {"x": value((5,), seed=352)}),
        Case((part,), "np.array_split(x, 3, axis=-1)[2] * np.array_split(x, 3, -1)[1]", {"x": value((2, 7), seed=353)}),
        Case((part,), "np.array_split(x, [2, 5])[1]", {"x": value((6,), seed=354)}),
        Case((part,), "np.hsplit(x, 3)[1] * np.hsplit(x, [1])[0]", {"x": x46}),
        Case((part,), "np.hsplit(x, 2)[1] ** 2", {"x": value((4,), seed=355)}),
        Case((part,), "np.vsplit(x, [1])[1] * np.vsplit(x, 2)[0][0]", {"x": x46}),
        Case((part,), "np.dsplit(x, 2)[1] * np.dsplit(x, [1])[0]", {"x": value((2, 3, 2), dtype=np.float32, seed=356)}),
        Case(("numpy.column_stack",), "np.column_stack((x, y))", {"x": x23, "y": value((2,), seed=357)}, hessian=True),
        Case(("numpy.column_stack",), "np.column_stack([x, y * x])", {"x": value((3,), seed=358), "y": 0.4}),
        Case(("numpy.dstack",), "np.dstack([x, y])", {"x": x23, "y": value((2, 3), seed=359)}),
        Case(("numpy.dstack",), "np.dstack((x, y))", {"x": value((3,), seed=360), "y": value((3,), seed=361)}),
        Case(("numpy.concatenate",), "np.append(x, y) + np.append(y, x)", {"x": x23, "y": value((3, 2), seed=362)}),
        Case(("numpy.concatenate",), "np.append(x, y, axis=0) ** 2", {"x": x23, "y": value((1, 3), seed=363)}),
        Case(("numpy.concatenate",), "np.append(x, y, 1)", {"x": x23, "y": value((2, 2), dtype=np.float32, seed=364)}),
        Case(("numpy.concatenate",), "np.append(x, y)", {"x": value((3,), seed=365), "y": 0.3}),
    ]


def gather_cases(Case, value) -> list:
    """np.take, np.take_along_axis, np.sort and argsort-based gathers (distinct entries: no ties)."""
    x34, idx = value((3, 4), seed=370), "np.argsort(x, axis=0)"
    return [
        Case(("numpy.take",), "np.take(x, [0, 2, 2, 5])", {"x": x34}, hessian=True),
        Case(("numpy.take",), "np.take(x, [[0, 1], [3, 3]], axis=1)", {"x": x34}),
        Case(("numpy.take",), "np.take(x, 1, axis=-2) * np.take(x, np.array([2, 0]), 0)[0]", {"x": x34}),
        Case(("numpy.take",), "np.take(x, [1, 1, 0])", {"x": value((2,), dtype=np.float32, seed=371)}),
        Case(("numpy.take_along_axis",), f"np.take_along_axis(x, {idx}, axis=0)", {"x": x34}, hessian=True),
        Case(("numpy.take_along_axis",), "np.take_along_axis(x, np.array([[0], [3], [3]]), 1)", {"x": x34}),
        Case(("numpy.take_along_axis",), "np.take_along_axis(x, np.array([2, 0, 2]), None)", {"x": x34}),
        Case(("numpy.sort",), "np.sort(x) ** 2", {"x": x34}, hessian=True),
        Case(("numpy.sort",), "np.sort(x, axis=0) + np.sort(x, 1)", {"x": value((3, 4, 2), seed=372)}),
        Case(("numpy.sort",), "np.sort(x, axis=None)", {"x": value((3, 4), dtype=np.float32, seed=373)}),
        Case(("getitem",), "x[np.argsort(x)] * x", {"x": value((5,), seed=374)}, hessian=True),
        # order statistics interpolated linearly (method 'linear'), odd and even counts
        Case(("numpy.median",), "np.median(x) * x", {"x": value((2, 3), seed=375)}, hessian=True),
        Case(
            ("numpy.median",), "np.median(x, axis=1) + np.median(x, 1, keepdims=True)", {"x": value((4, 5), seed=376)}
        ),
        Case(("numpy.median",), "np.median(x, axis=(0, 2))", {"x": value((2, 3, 2), dtype=np.float32, seed=377)}),
        Case(("numpy.percentile",), "np.percentile(x, 30) * x", {"x": value((7,), seed=378)}, hessian=True),
        Case(("numpy.percentile",), "np.percentile(x, [10, 75], axis=1)", {"x": value((3, 5), seed=379)}),
        Case(("numpy.percentile",), "np.percentile(x, 40, axis=0, keepdims=True)", {"x": value((4, 2), seed=380)}),
        Case(("numpy.quantile",), "np.quantile(x, [0.2, 0.9], axis=-1, keepdims=True)", {"x": value((2, 6), seed=381)}),
        Case(("numpy.quantile",), "np.quantile(x, 0.5)", {"x": value((6,), seed=382)}),
    ]


def pad_cases(Case, value) -> list:
    """np.pad (constant, edge, reflect; pad_width an int, a pair, per-axis pairs), casts to float dtypes,
    np.select (a chain of np.where).  autograd has no rule for np.pad and no astype on its boxes."""
    x34, f32 = value((3, 4), seed=390), np.float32
    pad = ("numpy.pad",)
    return [
        Case(pad, "np.pad(x, 1) ** 2", {"x": x34}, hessian=True, autograd=False),
        Case(pad, "np.pad(x, (1, 2), mode='edge') ** 2", {"x": value((4,), seed=391)}, hessian=True, autograd=False),
        Case(pad, "np.pad(x, ((1, 0), (2, 3)), mode='reflect') ** 2", {"x": x34}, hessian=True, autograd=False),
        Case(pad, "np.pad(x, ((0, 1), (3, 2)), 'edge')", {"x": value((3, 4), dtype=f32, seed=392)}, autograd=False),
        Case(pad, "np.pad(x, 5, 'reflect')", {"x": value((3,), seed=393)}, autograd=False),
        Case(pad, "np.pad(x, [(2, 1)], mode='reflect')", {"x": value((2, 3), seed=394)}, autograd=False),
        Case(pad, "np.pad(x, 2, constant_values=c) * c", {"x": x34, "c": 0.7}, hessian=True, autograd=False),
        Case(
            pad,
            "np.pad(x, ((1, 2), (0, 1)), 'constant', constant_values=c) ** 2",
            {"x": x34, "c": value((2, 2), seed=395)},
            autograd=False,
        ),
        Case(pad, "np.pad(x, 1, constant_values=((0.5, 1.5), (2.0, -1.0)))", {"x": x34}, autograd=False),
        Case(("numpy.array/dtype",), "x.astype(float) * x", {"x": x34}, hessian=True, autograd=False),
        Case(("numpy.array/dtype",), "x.astype(np.float64) ** 2", {"x": value((4,), dtype=f32, seed=396)}),
        Case(("numpy.array/dtype",), "np.array(x, dtype=np.float64) * x", {"x": x34}, hessian=True),
        Case(("numpy.array/dtype",), "np.array([x, y], dtype=float) ** 2", {"x": 0.3, "y": 0.8}, hessian=True),
        Case(("numpy.asarray/dtype",), "np.asarray(x, dtype='float64') ** 3", {"x": x34}, hessian=True),
        Case(("numpy.asarray/dtype",), "np.asarray(x, float) * 2.0", {"x": value((4,), dtype=f32, seed=397)}),
        Case(("numpy.asarray/dtype",), "np.asarray(x, dtype=float) * x", {"x": 0.6}, autograd=False),
        Case(
            ("numpy.where",),
            "np.select([x > 0, x < -0.5], [x ** 2, y * x], default=y)",
            {"x": x34, "y": value((4,), seed=398)},
            hessian=True,
        ),
        Case(("numpy.where",), "np.select([x > 0.2], [x * 3])", {"x": x34}),
        Case(("numpy.where",), "np.select((x > 0, x > -0.3), (x, 2 * x), 0.5) * x", {"x": x34}, hessian=True),
    ]


def more_cases(Case, value) -> list:
    """Every case of this module."""
    return product_cases(Case, value) + piece_cases(Case, value) + gather_cases(Case, value) + pad_cases(Case, value)
