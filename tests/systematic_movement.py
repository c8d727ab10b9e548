"""More cases of test_systematic.py (systematic_cases.py adds them): the complex-part functions on real
values (np.real, imag, conj, conjugate, angle, real_if_close and the .real / .imag / .conj() spellings),
sinc (through 0), the flips, rollaxis, diagonal and partition, over the shapes (a Python float, (),
(1,), 3-D, float32) and keyword forms NumPy accepts.  A case autograd gets wrong or lacks is checked
against differences only (``autograd=False``), with the reason beside it."""

from __future__ import annotations

import itertools

import numpy as np

PARTS = ("numpy.real", "numpy.conj", "numpy.conjugate", "numpy.imag", "numpy.angle")


def part_cases(Case, value) -> list:
    """np.real and friends on real values: the identity or zero, whatever the kind of value."""
    out = []
    kinds = [None, (), (1,), (3,), (2, 3, 4)]
    for k, shape in enumerate(kinds):
        x = value(shape, 0.2, 1.5, seed=600 + k)
        out.append(Case(PARTS, "np.real(x) * np.conj(x) + np.conjugate(x) + np.imag(x) + np.angle(x) * x", {"x": x}))
    f32 = value((2, 3), 0.2, 1.5, dtype=np.float32, seed=606)
    out += [
        Case(PARTS, "np.real(x) * np.conj(x) + np.imag(x) + np.angle(x)", {"x": f32}),
        Case(("numpy.angle",), "np.angle(x) * x", {"x": value((4,), -1.5, -0.2, seed=607)}),  # pi: constant
        # autograd has no .real or .imag of a traced array: differences only
        Case(
            ("numpy.real", "numpy.imag"),
            "x.real ** 2 + x.imag",
            {"x": value((3, 2), seed=608)},
            hessian=True,
            autograd=False,
        ),
        Case(("numpy.conj", "numpy.conjugate"), "x.conj() * x.conjugate()", {"x": value((3,), seed=609)}),
        Case(("numpy.real",), "x.real * x", {"x": 0.7}, hessian=True, autograd=False),
        Case(("numpy.real_if_close",), "np.real_if_close(x) * x", {"x": value((3,), seed=610)}, hessian=True),
        Case(("numpy.real_if_close",), "np.real_if_close(x, tol=1000) ** 2", {"x": value((2, 2), seed=611)}),
        Case(("numpy.real_if_close",), "np.real_if_close(x, 10)", {"x": value((), seed=612)}),
    ]
    return out


def sinc_cases(Case, value) -> list:
    with_zero = value((5,), -2, 2, seed=620)
    with_zero[2] = 0.0
    return [
        Case(("numpy.sinc",), "np.sinc(x)", {"x": value(None, -2, 2, seed=621)}, hessian=True),
        # at 0 autograd's derivative is 0 / 0 (NaN): differences only (adcompiler: the series there)
        Case(("numpy.sinc",), "np.sinc(x)", {"x": 0.0}, hessian=True, autograd=False),
        Case(("numpy.sinc",), "np.sinc(x) * x", {"x": with_zero}, hessian=True, autograd=False),
        Case(("numpy.sinc",), "np.sinc(x)", {"x": value((), seed=622)}),
        Case(("numpy.sinc",), "np.sinc(x)", {"x": value((2, 3, 4), seed=623)}),
        Case(("numpy.sinc",), "np.sinc(x)", {"x": value((1,), dtype=np.float32, seed=624)}),
    ]


def movement_cases(Case, value) -> list:
    """Flips, rollaxis, diagonal, partition."""
    x3 = value((2, 3, 4), seed=630)
    out = [
        Case(("numpy.fliplr", "numpy.flipud"), "np.fliplr(x) * np.flipud(x)", {"x": value((3, 3), seed=631)}),
        Case(("numpy.fliplr", "numpy.flipud"), "np.fliplr(x) + np.flipud(x)", {"x": x3}, hessian=True),
        Case(("numpy.flipud",), "np.flipud(x) * x", {"x": value((4,), seed=632)}),
        Case(("numpy.fliplr",), "np.fliplr(x)", {"x": value((2, 3), dtype=np.float32, seed=633)}),
    ]
    for axis, start in itertools.product((0, 1, 2, -1, -3), (0, 1, 2, 3, -1)):
        if start == -1 and axis in (0, -3):  # (NumPy reads start -1 as 2, already covered)
            continue
        out.append(Case(("numpy.rollaxis",), f"np.rollaxis(x, {axis}, {start})", {"x": x3}))
    out += [
        Case(("numpy.rollaxis",), "np.rollaxis(x, axis=2, start=0) * 2.0", {"x": x3}, hessian=True),
        Case(("numpy.rollaxis",), "np.rollaxis(x, 1)", {"x": value((2, 3), dtype=np.float32, seed=634)}),
    ]
    for expr, x in (
        ("np.diagonal(x)", value((3, 3), seed=640)),
        ("np.diagonal(x, 1)", value((3, 4), seed=641)),
        ("np.diagonal(x, -1)", value((4, 3), seed=642)),
        ("np.diagonal(x, offset=2, axis1=1, axis2=0)", value((4, 3), seed=643)),
        ("np.diagonal(x, axis1=-1, axis2=-2)", value((3, 4, 4), seed=644)),
        ("np.diagonal(x, 1, 0, 2)", value((3, 2, 4), seed=645)),
        ("np.diagonal(x, -1, axis1=2, axis2=1)", value((2, 3, 4, 3), seed=646)),
        ("x.diagonal() * x.diagonal(offset=-1, axis1=1, axis2=0)[0]", value((3, 3), seed=647)),
        ("np.diagonal(x)", value((2, 2), dtype=np.float32, seed=648)),
    ):
        out.append(Case(("numpy.diagonal",), expr, {"x": x}))
    out.append(Case(("numpy.diagonal",), "np.diagonal(x) ** 2", {"x": value((3, 3), seed=649)}, hessian=True))
    for expr, x in (
        ("np.partition(x, 2)", value((5,), seed=650)),
        ("np.partition(x, kth=0)", value((7,), seed=651)),
        ("np.partition(x, (1, 3))", value((6,), seed=652)),
        ("np.partition(x, 1, axis=0)", value((4, 3), seed=653)),
        ("np.partition(x, 2, axis=None)", value((3, 4), seed=654)),
        ("np.partition(x, -1, 1)", value((2, 3, 4), seed=655)),
        ("np.partition(x, 1)", value((2, 3), dtype=np.float32, seed=656)),
    ):
        out.append(Case(("numpy.partition",), expr, {"x": x}))
    out.append(Case(("numpy.partition",), "np.partition(x, 3) ** 2", {"x": value((6,), seed=657)}, hessian=True))
    return out


def spelling_cases(Case, value) -> list:
    """np.einsum in NumPy's sublist form; np.r_ and np.c_; np.cross with axisa, axisb, axisc and axis
    (vectors along any axis)."""
    ein, cross = ("numpy.einsum",), ("numpy.cross", "numpy.moveaxis")
    out = [
        Case(ein, "np.einsum(x, (0, 1), (1, 0))", {"x": value((3, 4), seed=660)}),
        Case(ein, "np.einsum(x, [0, 1], y, [1, 2])", {"x": value((3, 4), seed=661), "y": value((4, 2), seed=662)}),
        Case(
            ein,
            "np.einsum(x, (Ellipsis, 0, 1), y, (Ellipsis, 1, 2), (Ellipsis, 0, 2))",
            {"x": value((2, 3, 4), seed=663), "y": value((2, 4, 5), seed=664)},
            hessian=True,
        ),
        Case(
            ein,
            "np.einsum(x, (0, 1, 2), y, (3, 1, 0), z, (3, 3, 0), (3, 2, 0))",
            {"x": value((2, 3, 4), seed=665), "y": value((5, 3, 2), seed=666), "z": value((5, 5, 2), seed=667)},
        ),
        Case(ein, "np.einsum(x, [0, 0])", {"x": value((3, 3), seed=668)}),  # a trace
        Case(
            ein,
            "np.einsum(x, [Ellipsis, 0], x, [Ellipsis, 0], [Ellipsis])",
            {"x": value((2, 3), dtype=np.float32, seed=669)},
        ),
    ]
    r_, c_ = ("numpy.concatenate", "numpy.atleast_1d"), ("numpy.concatenate", "numpy.column_stack")
    out += [
        Case(r_, "np.r_[x, np.ones((1, 2)), x]", {"x": value((3, 2), seed=678)}),
        Case(r_, "np.r_[x, 2.0, y, 1:4] * 2.0", {"x": value((2,), seed=679), "y": 0.4}, hessian=True),
        Case(r_, "np.r_[x]", {"x": value((), seed=720)}),
        Case(c_, "np.c_[x, np.ones((3, 2)), x]", {"x": value((3, 2), seed=721)}),
        Case(c_, "np.c_[x, y * x, x]", {"x": value((3,), seed=722), "y": value((3, 1), seed=723)}, hessian=True),
        Case(c_, "np.c_[x, x]", {"x": value((2, 2, 2), dtype=np.float32, seed=724)}),
    ]
    x33, y33 = value((3, 3), seed=670), value((3, 3), seed=671)
    for keywords in ("axisa=0", "axisb=0", "axisc=0", "axisa=0, axisb=1, axisc=1", "axis=0", "axis=-1", "axis=None"):
        out.append(Case(cross, f"np.cross(x, y, {keywords})", {"x": x33, "y": y33}))
    out += [
        Case(cross, "np.cross(x, y, axisa=-1, axisb=0, axisc=1, axis=None)", {"x": x33, "y": y33}, hessian=True),
        Case(cross, "np.cross(x, y, 0, -1, 1)", {"x": value((3, 2), seed=672), "y": value((2, 3), seed=673)}),
        # autograd's cotangent of a broadcast operand of cross keeps the broadcast shape: differences only
        Case(
            cross,
            "np.cross(x, y, axis=1)",
            {"x": value((2, 3, 4), seed=674), "y": value((2, 3, 1), seed=675)},
            autograd=False,
        ),
        Case(
            cross,
            "np.cross(x, y, axisb=0)",
            {"x": value((3,), seed=676), "y": value((3, 2), seed=677)},
            autograd=False,
        ),
    ]
    return out


def join_cases(Case, value) -> list:
    """np.concatenate and the stacks of a sequence known only at run time: a list or tuple parameter, a
    list built in the function, the rows of an array."""
    v = value
    return [
        Case(("numpy.concatenate/list",), "np.concatenate(x)", {"x": (v((1,), seed=680), v((3,), seed=681))}),
        Case(
            ("numpy.concatenate/list",),
            "np.concatenate(x, axis=1)",
            {"x": [v((2, 2), seed=682), v((2, 3), dtype=np.float32, seed=683)]},
        ),
        Case(
            ("numpy.concatenate/list",),
            "np.concatenate(x, -1)",
            {"x": [v((2, 3, 1), seed=684), v((2, 3, 2), seed=685)]},
        ),
        Case(
            ("numpy.concatenate/list",), "np.concatenate(x, axis=None)", {"x": [v((2, 2), seed=686), v((3,), seed=687)]}
        ),
        Case(
            ("numpy.concatenate/list",),
            "np.concatenate([x * y, y] + [x]) * x.sum()",
            {"x": v((3,), seed=688), "y": v((3,), seed=689)},
        ),
        Case(("numpy.concatenate/list",), "np.concatenate(x, 0)", {"x": v((3, 2), seed=690)}),  # the rows of an array
        Case(("numpy.stack/list",), "np.stack(x)", {"x": [v((2, 3), seed=691), v((2, 3), seed=692)]}),
        Case(("numpy.stack/list",), "np.stack(x, axis=-1)", {"x": (v((), seed=693), v((), seed=694))}),
        Case(("numpy.stack/list",), "np.stack(x, 2)", {"x": [v((2, 3), seed=695), v((2, 3), seed=696)]}),
        Case(("numpy.hstack/list",), "np.hstack(x)", {"x": [v((2,), seed=697), v((3,), seed=698)]}),
        Case(("numpy.hstack/list",), "np.hstack(x)", {"x": (v((2, 3, 2), seed=699), v((2, 1, 2), seed=700))}),
        Case(
            ("numpy.hstack/list",), "np.hstack(x)", {"x": [0.5, v((2,), seed=701), v((1,), dtype=np.float32, seed=702)]}
        ),
        Case(("numpy.vstack/list",), "np.vstack(x)", {"x": [v((3,), seed=703), v((3,), seed=704)]}),
        Case(("numpy.vstack/list",), "np.vstack(x)", {"x": (v((2, 3, 2), seed=705), v((1, 3, 2), seed=706))}),
        Case(
            ("numpy.row_stack/list",),
            "np.vstack(x[:1]) + np.row_stack(x)[:1]",
            {"x": [v((2, 2), seed=707), v((1, 2), seed=708)]},
        ),
        Case(("numpy.column_stack/list",), "np.column_stack(x)", {"x": (v((2,), seed=709), v((2, 3), seed=710))}),
        Case(("numpy.column_stack/list",), "np.column_stack(x)", {"x": v((2,), seed=711)}),  # entries: one row
        Case(("numpy.dstack/list",), "np.dstack(x)", {"x": [v((2,), seed=712), v((2,), seed=713)]}),
        Case(("numpy.dstack/list",), "np.dstack(x)", {"x": (v((2, 3), seed=714), v((2, 3, 2), seed=715))}),
    ]


def add_at_cases(Case, value) -> list:
    """np.add.at(y, index, v) on a copy of x: repeated indices adding up, v an array, a number or a
    broadcast row, index a list, an integer array or a tuple of them (autograd has no np.add.at)."""
    return [
        Case(
            ("add_at",),
            "y * y + x",
            {"x": value((4,), seed=720), "v": value((4,), seed=721)},
            hessian=True,
            autograd=False,
            setup="y = x * 1.0\nnp.add.at(y, [0, 2, 0, 3], v)",
        ),
        Case(
            ("add_at",),
            "np.sin(y) * x",
            {"x": value((2, 3), seed=722), "v": value(None, seed=723)},
            hessian=True,
            autograd=False,
            setup="y = x.copy()\nnp.add.at(y, (np.array([0, 1, 0]), np.array([2, 2, 2])), v * x[0, 0])",
        ),
        Case(
            ("add_at",),
            "y ** 2",
            {"x": value((3, 2), seed=724), "v": value((2,), seed=725)},
            autograd=False,
            setup="y = np.zeros((3, 2))\nnp.add.at(y, np.array([1, 1, 2]), v * x[0])",
        ),
    ]


def movement_and_parts(Case, value) -> list:
    """Every case of this module."""
    return (
        add_at_cases(Case, value)
        + part_cases(Case, value)
        + sinc_cases(Case, value)
        + movement_cases(Case, value)
        + spelling_cases(Case, value)
        + join_cases(Case, value)
    )
