"""The cases of test_systematic.py for np.linalg (systematic_cases.py adds them): decompositions, one
array of each at a time (eigenvectors and singular vectors squared, which their sign does not
change), of single matrices and stacks, every keyword the rules take, and norm over every ord, axis
and keepdims.

eigh and cholesky read one triangle of their matrix, as NumPy does; autograd differentiates them as
functions of a symmetric matrix, so the cases autograd checks pass ``x + x^T``-like matrices, and the
ones that pass ``x`` itself are checked against differences only.  autograd's norm gradient with
keepdims=True has the wrong shape, and for ord=inf is wrong: those cases too.  The Hessians autograd does
not have are checked in test_linalg.py.
"""

from __future__ import annotations

import itertools

import numpy as np


def linalg_cases(Case, value) -> list:
    """Cases for the rules of rules/linalg.py (``Case`` and ``value`` from systematic_cases)."""
    sq = lambda shape, seed: value(shape, seed=seed) + 3 * np.eye(shape[-1])  # noqa: E731
    sym = "x + np.swapaxes(x, -1, -2)"
    spd = "x @ np.swapaxes(x, -1, -2) + np.eye(3)"
    out = [
        Case(("numpy.linalg.slogdet[1]",), "np.linalg.slogdet(x)[1]", {"x": sq((3, 3), 200)}, hessian=True),
        Case(("numpy.linalg.slogdet[1]",), "np.linalg.slogdet(x)[1]", {"x": sq((2, 3, 3), 201)}),
        Case(
            ("numpy.linalg.slogdet[1]",),
            "np.linalg.slogdet(x)[0] * np.linalg.slogdet(x)[1]",
            {"x": -sq((3, 3), 202)},
            autograd=False,
        ),
        Case(("numpy.linalg.cholesky",), f"np.linalg.cholesky({spd})", {"x": sq((3, 3), 203)}, hessian=True),
        Case(("numpy.linalg.cholesky",), f"np.linalg.cholesky({spd})", {"x": sq((2, 3, 3), 204)}),
        Case(("numpy.linalg.cholesky",), "np.linalg.cholesky(x)", {"x": sq((3, 3), 205) + 2.0}, autograd=False),
        Case(("numpy.linalg.eigh[0]",), f"np.linalg.eigh({sym})[0]", {"x": value((3, 3), seed=206)}, hessian=True),
        Case(("numpy.linalg.eigh[1]",), f"np.linalg.eigh({sym})[1] ** 2", {"x": value((3, 3), seed=207)}, hessian=True),
        Case(
            ("numpy.linalg.eigh[0]", "numpy.linalg.eigh[1]"),
            f"np.linalg.eigh({sym})[1] ** 2 * np.linalg.eigh({sym})[0][..., None, :]",
            {"x": value((2, 3, 3), seed=208)},
        ),
        Case(
            ("numpy.linalg.eigh[0]", "numpy.linalg.eigh[1]"),
            "np.linalg.eigh(x)[1] ** 2 + np.linalg.eigh(x, 'U')[0]",
            {"x": value((3, 3), seed=209)},
            autograd=False,
        ),
        Case(
            ("numpy.linalg.eigh[1]",),
            "np.linalg.eigh(x, UPLO='U')[1] ** 2",
            {"x": value((2, 3, 3), seed=210)},
            autograd=False,
        ),
        Case(
            ("numpy.linalg.svd[1]",),
            "np.linalg.svd(x, full_matrices=False)[1]",
            {"x": value((4, 3), seed=211)},
            hessian=True,
        ),
        Case(("numpy.linalg.svd[1]",), "np.linalg.svd(x, compute_uv=False)", {"x": value((3, 4), seed=212)}),
        Case(("numpy.linalg.svd[0]",), "np.linalg.svd(x, full_matrices=False)[0] ** 2", {"x": value((4, 3), seed=213)}),
        Case(("numpy.linalg.svd[0]",), "np.linalg.svd(x, full_matrices=False)[0] ** 2", {"x": value((3, 4), seed=214)}),
        Case(("numpy.linalg.svd[2]",), "np.linalg.svd(x, False)[2] ** 2", {"x": value((3, 4), seed=215)}),
        Case(("numpy.linalg.svd[2]",), "np.linalg.svd(x, False)[2] ** 2", {"x": value((4, 3), seed=216)}),
        Case(
            ("numpy.linalg.svd[0]", "numpy.linalg.svd[2]"),
            "np.linalg.svd(x)[0] ** 2 + np.linalg.svd(x)[2] ** 2",
            {"x": value((3, 3), seed=217)},
        ),
        Case(
            ("numpy.linalg.svd[0]", "numpy.linalg.svd[1]"),
            "np.linalg.svd(x, full_matrices=False)[0] ** 2 * np.linalg.svd(x, full_matrices=False)[1][..., None, :]",
            {"x": value((2, 4, 3), seed=218)},
        ),
        Case(("numpy.linalg.qr[0]",), "np.linalg.qr(x)[0]", {"x": value((4, 3), seed=219)}),
        Case(("numpy.linalg.qr[1]",), "np.linalg.qr(x)[1]", {"x": value((3, 3), seed=220)}),
        Case(("numpy.linalg.qr[1]",), "np.linalg.qr(x, mode='r')", {"x": value((4, 3), seed=221)}),
        Case(
            ("numpy.linalg.qr[0]", "numpy.linalg.qr[1]"),
            "np.linalg.qr(x)[0] @ np.linalg.qr(x)[1] ** 2",
            {"x": value((2, 4, 3), seed=222)},
        ),
        Case(("numpy.linalg.pinv",), "np.linalg.pinv(x)", {"x": value((3, 4), seed=223)}, hessian=True),
        Case(("numpy.linalg.pinv",), "np.linalg.pinv(x)", {"x": value((4, 3), seed=224)}),
        Case(("numpy.linalg.pinv",), "np.linalg.pinv(x)", {"x": value((2, 4, 3), seed=225)}),
        Case(("numpy.linalg.matrix_power",), "np.linalg.matrix_power(x, 3)", {"x": value((3, 3), seed=226)}),
        Case(("numpy.linalg.matrix_power",), "np.linalg.matrix_power(x, -2)", {"x": sq((2, 3, 3), 227)}),
        Case(
            ("numpy.linalg.matrix_power",),
            "np.linalg.matrix_power(x, 0) + np.linalg.matrix_power(x, 1) * np.linalg.matrix_power(x, n=-1)",
            {"x": sq((3, 3), 228)},
        ),
        Case(
            ("numpy.dot",),
            "np.linalg.multi_dot([x, y, x.T])",
            {"x": value((2, 3), seed=229), "y": value((3, 3), seed=230)},
        ),
        Case(
            ("numpy.dot",),
            "np.linalg.multi_dot([x[0], y, x.T, x[:, 1]])",
            {"x": value((3, 3), seed=231), "y": value((3, 3), seed=232)},
        ),
    ]
    # reductions and elementwise functions of issue 18's second list
    out += [
        Case(
            ("numpy.mod",),
            "np.mod(x, y)",
            {"x": value((2, 3), 2.1, 2.9, seed=240), "y": value((3,), 0.7, 0.9, seed=241)},
            hessian=True,
        ),
        Case(("numpy.remainder",), "np.remainder(x, y)", {"x": value((3,), -2.9, -2.1, seed=242), "y": 0.8}),
        Case(
            ("numpy.fmod",),
            "np.fmod(x, y)",
            {"x": value((2, 3), -2.9, 2.9, seed=243), "y": value((2, 3), 0.7, 0.9, seed=244)},
        ),
        Case(
            ("numpy.heaviside",),
            "np.heaviside(np.array([-0.5, 0.0, 0.7]), y) + np.heaviside(x, 0.5) * x",  # x2 is taken where x1 is 0
            {"x": np.array([-0.5, 0.3, 0.7]), "y": value((3,), seed=245)},
        ),
        Case(("numpy.nan_to_num",), "np.nan_to_num(x * y)", {"x": value((4,), seed=246), "y": value((4,), seed=247)}),
        Case(
            ("numpy.nan_to_num",),
            "np.nan_to_num(x + np.sqrt(np.array([1.0, -1.0, 1.0]))) * x",
            {"x": value((3,), seed=257)},
        ),
        Case(("numpy.ptp",), "np.ptp(x)", {"x": value((5,), seed=248)}),
        Case(("numpy.ptp",), "np.ptp(x, axis=1, keepdims=True)", {"x": value((2, 3, 4), seed=249)}),
        Case(("numpy.ptp",), "np.ptp(x, 0) + np.ptp(x, axis=None, keepdims=True)", {"x": value((3, 2), seed=250)}),
        Case(("numpy.rot90",), "np.rot90(x) + np.rot90(x, 2) * x", {"x": value((3, 3), seed=251)}, hessian=True),
        Case(("numpy.rot90",), "np.rot90(x, -1, axes=(1, 2))", {"x": value((2, 3, 4), seed=252)}),
        Case(
            ("numpy.cross",), "np.cross(x, y)", {"x": value((3,), seed=253), "y": value((3,), seed=254)}, hessian=True
        ),
        # autograd's cross vjp does not sum a broadcast argument's cotangent: differences only
        Case(
            ("numpy.cross",),
            "np.cross(x, y)",
            {"x": value((2, 3), seed=255), "y": value((3,), seed=256)},
            autograd=False,
        ),
    ]
    # norm: vector norms over every ord, axis and keepdims; matrix norms over every ord and pair of axes
    vector = ["None", "1", "2", "np.inf", "-np.inf", "3", "0.5", "0"]
    for k, (p, (axis, shape), keep) in enumerate(
        itertools.product(vector, [("None", (4,)), ("1", (3, 4)), ("-1", (2, 3, 4))], [False, True])
    ):
        expr = (
            f"np.linalg.norm(x, {p}, {axis}, {keep})"
            if k % 2
            else f"np.linalg.norm(x, ord={p}, axis={axis}, keepdims={keep})"
        )
        args = {"x": value(shape, seed=300 + k)}
        checked = not keep and "inf" not in p  # autograd's gradient for ord=inf is its p-norm formula's
        hessian = p in ("None", "2", "3") and not keep and k % 3 == 0  # autograd has no other Hessian
        out.append(Case(("numpy.linalg.norm",), expr, args, slow=k % 5 != 0, autograd=checked, hessian=hessian))
    matrix = ["None", "'fro'", "'nuc'", "1", "-1", "2", "-2", "np.inf", "-np.inf"]
    for k, (p, (axis, shape), keep) in enumerate(
        itertools.product(
            matrix,
            [("None", (3, 4)), ("(0, 1)", (4, 3)), ("(2, 0)", (3, 2, 4)), ("(-2, -1)", (2, 3, 4))],
            [False, True],
        )
    ):
        expr = f"np.linalg.norm(x, ord={p}, axis={axis}, keepdims={keep})"
        prims = ("numpy.linalg.norm",) if p in ("None", "'fro'") else ("numpy.linalg.norm/matrix",)
        args = {"x": value(shape, seed=400 + k)}
        hessian = p in ("'fro'", "'nuc'") and not keep and axis in ("None", "(0, 1)")  # autograd's others fail
        out.append(Case(prims, expr, args, slow=k % 7 != 0, autograd=not keep, hessian=hessian))
    return out
