"""The array half of the rule tables both modes read, as views of the primitives' records.

Each NumPy primitive written as a record (``rules.primitive``: ``rules/ufuncs.py``, ``movement.py``,
``reductions.py``, ``products.py``, ``linalg.py``) fills these tables when they are built, beside the
entries still written here and in the family modules' tables: ``PARTIALS`` (an elementwise function's
partial derivatives, applied as ``math``'s are), ``FORWARD``/``REVERSE``/``SLOTS`` (two rules),
``LINEAR`` (linear in the first argument: the tangent is the same call of the tangent), ``BILINEAR``
(products), ``SIGNATURES`` (each call bound to one positional form, so ``np.sum(x, axis=0)``,
``np.sum(x, 0)`` and ``x.sum(0)`` are one primitive with the same arguments), ``METHODS``,
``ATTRIBUTES``, ``POSITIONAL`` and ``STATIC``.  Reverse mode sums cotangents back over broadcast axes
(``unbroadcast``) wherever arrays of different shapes meet.  Constructors (``zeros``, ``arange``, ...) are
constants.
"""

from __future__ import annotations


from . import linalg as L
from . import movement as M
from . import products as P
from .families import REGISTRY, family
from ..ir.expr import Call, Num, Slice, Subscript, Tuple, fn

np_ = lambda name: fn("numpy." + name)  # noqa: E731
npwhere = np_("where")


def _h(name):
    """A runtime helper, spelt through the program that emits it (``@name``: the program gives it its module-level name, see ``Program.helper``)."""
    return lambda *args: Call("@" + name, tuple(args))


unreduce, matmul_vjp_a, matmul_vjp_b = _h("unreduce"), _h("matmul_vjp_a"), _h("matmul_vjp_b")

CONSTRUCTORS = (
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "full",
    "full_like",
    "arange",
    "eye",
    "identity",
    "linspace",
    "empty",
)

PARTIALS = {  # (NumPy's elementwise functions, its ufuncs, are records: rules/ufuncs.py)
    "numpy.nan_to_num": (lambda x, z: npwhere(np_("isfinite")(x), 1.0, 0.0),),  # replaced entries: constants
}


SOLVE_VECTOR = "numpy.linalg.solve/vector"  # solve with a vector b (``specialise`` names it by b's ndim)
SOLVE_STACKED = "numpy.linalg.solve/stacked"  # a stack of matrices and one vector b (NumPy 2: b for each)


def _solve_tangent(a, z, da, db):
    rhs = [t for t in (db, -(da @ z) if da is not None else None) if t is not None]
    return np_("linalg.solve")(a, rhs[0] if len(rhs) == 1 else rhs[0] + rhs[1])


def _solve_adjoint(a, z, g, outer):
    gb = np_("linalg.solve")(_mT(a), g)
    return (outer(gb), gb)


def _column(v):
    """``v[..., None]``: vectors as one-column matrices."""
    return Subscript(v, Tuple((Num(Ellipsis), Num(None))))


def _first_column(m):
    """``m[..., 0]``: one-column matrices as vectors."""
    return Subscript(m, Tuple((Num(Ellipsis), Num(0))))


def _stacked_solve_tangent(a, z, da, db):
    """A_k z_k = b for each matrix A_k of a stack: A_k dz_k = db - dA_k z_k, solved column by column."""
    minus = -_first_column(da @ _column(z)) if da is not None else None
    rhs = [t for t in (db, minus) if t is not None]
    return _first_column(np_("linalg.solve")(a, _column(rhs[0] if len(rhs) == 1 else rhs[0] + rhs[1])))


def _stacked_solve_adjoint(a, b, z, g):
    """gb_k = A_k^-T g_k, summed over the stack into b's shape; gA_k = -gb_k z_k^T."""
    gb = _first_column(np_("linalg.solve")(_mT(a), _column(g)))
    rows = Subscript(z, Tuple((Num(Ellipsis), Num(None), Slice(None, None))))
    return (-(_column(gb) * rows), _h("unbroadcast")(gb, b))


def _mT(a):
    """The matrices of a stack transposed (the last two axes swapped)."""
    return np_("swapaxes")(a, Num(-1), Num(-2))


_LAST_TWO = Tuple((Num(-2), Num(-1)))


# Selections: the derivative follows the value selected (the first argument on a tie).
FORWARD = {
    # constructors linear in their values: the same constructor of the tangents
    "numpy.linspace": lambda a, b, n, e, z, da, db, dn, de: np_("linspace")(da or 0.0, db or 0.0, n, e),
    "numpy.full": lambda shape, v, dtype, z, ds, dv, dd: Call("numpy.full", (shape, dv, dtype)),
    "numpy.full_like": lambda x, v, dtype, z, dx, dv, dd: Call("numpy.full_like", (x, dv, dtype)),
    # inverse and determinant of (stacks of) square matrices: d inv = -Z dA Z, d det = det tr(A^-1 dA)
    # A z = b: A dz = db - dA z, solved (not inverted); b a matrix (stack) or, for one matrix A, a vector
    "numpy.linalg.solve": lambda a, b, z, da, db: _solve_tangent(a, z, da, db),
    SOLVE_VECTOR: lambda a, b, z, da, db: _solve_tangent(a, z, da, db),
    SOLVE_STACKED: lambda a, b, z, da, db: _stacked_solve_tangent(a, z, da, db),
}


REVERSE = {
    "numpy.linspace": lambda a, b, n, e, z, g: (
        _h("linspace_vjp")(g, Num(0), a, b, n, e),
        _h("linspace_vjp")(g, Num(1), a, b, n, e),
        None,
        None,
    ),
    "numpy.full": lambda shape, v, dtype, z, g: (None, _h("unbroadcast")(g, v), None),
    "numpy.full_like": lambda x, v, dtype, z, g: (None, _h("unbroadcast")(g, v), None),
    # gb = A^-T g by a solve; gA = -gb z^T (an outer product for a vector b)
    "numpy.linalg.solve": lambda a, b, z, g: _solve_adjoint(a, z, g, lambda gb: -(gb @ _mT(z))),
    SOLVE_VECTOR: lambda a, b, z, g: _solve_adjoint(a, z, g, lambda gb: -np_("outer")(gb, z)),
    SOLVE_STACKED: lambda a, b, z, g: _stacked_solve_adjoint(a, b, z, g),
}
# Which arguments of a FORWARD/REVERSE rule the output depends on (all of them where not listed).
SLOTS = {
    "numpy.linspace": (True, True, False, False),
    "numpy.full": (False, True, False),
    "numpy.full_like": (False, True, False),
}
# At most this many positional arguments (the rest by keyword).
POSITIONAL: dict = {}

# Linear in their first argument (the rest are static: axes, shapes): tangent = same op on the tangent.
LINEAR = {  # (NumPy's moves and linear reductions are records: rules/movement.py, rules/reductions.py)
    "array_sum": lambda g, x, z: unreduce(g, x, Num(0), Num(False)),  # Python's sum(x): over the first axis
}
CALLED = {"array_sum": "sum"}  # how a primitive is called in generated code, where not by its name
# Bilinear: the tangent is op(da, b) + op(a, db).
BILINEAR = {
    "matmul": (lambda g, a, b: matmul_vjp_a(g, a, b), lambda g, a, b: matmul_vjp_b(g, a, b)),  # a @ b
}

# One positional form per primitive: parameter names, with defaults for the optional ones.
SIGNATURES = {
    "numpy.linalg.solve": (("a", None), ("b", None)),
    "numpy.nan_to_num": (("x", None),),
    "numpy.linspace": (("start", None), ("stop", None), ("num", Num(50)), ("endpoint", Num(True))),
    "numpy.full": (("shape", None), ("fill_value", None), ("dtype", Num(None))),
    "numpy.full_like": (("a", None), ("fill_value", None), ("dtype", Num(None))),
}
# Methods of arrays that are these primitives (x.sum(...) is numpy.sum(x, ...)).
METHODS = {}
ATTRIBUTES = {"shape": "numpy.shape", "ndim": "numpy.ndim", "size": "numpy.size"}
COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
COMPARISONS += ("logical_and", "logical_or", "logical_not", "isfinite", "isnan", "isinf")
INACTIVE = ("numpy.shape", "numpy.ndim", "numpy.size", "numpy.argsort", "numpy.argmax", "numpy.argmin") + tuple(
    f"numpy.{c}" for c in CONSTRUCTORS + COMPARISONS if f"numpy.{c}" not in FORWARD
)

# np.linalg's decompositions and matrix functions (rules/linalg.py), products (rules/products.py), more
# data movement and the parts of real values (rules/movement.py)
for _table in (L, P, M):
    FORWARD.update(_table.FORWARD)
    REVERSE.update(_table.REVERSE)
    SLOTS.update(_table.SLOTS)
    SIGNATURES.update(_table.SIGNATURES)
METHODS.update(P.METHODS)
LINEAR.update(P.LINEAR)
POSITIONAL.update(P.POSITIONAL)
INACTIVE += L.INACTIVE + P.SPLITS  # the split computed once: its pieces are primitives of their own
SPLITS, SPLIT_PART = P.SPLITS, P.SPLIT_PART
PARTS, STATIC = L.PARTS, {**L.STATIC, **P.STATIC}  # several results: one primitive each; constant arguments
# lowered to other primitives (numpy.dot, numpy.where, numpy.linalg.eigh's eigenvalues)
EXPANDED = ("numpy.linalg.multi_dot", "numpy.select", "numpy.linalg.eigvalsh")
EIGVALSH = (("a", None), ("UPLO", Num("L")))

# Functions of a sequence of arrays: numpy.concatenate([a, b], axis) is one primitive of a, b and axis.
SEQUENCE = ("numpy.concatenate", "numpy.stack", "numpy.hstack", "numpy.vstack", "numpy.row_stack")
SEQUENCE += ("numpy.column_stack", "numpy.dstack")
SEQUENCE_AXIS = {"numpy.concatenate": 0, "numpy.stack": 0, "numpy.hstack": None, "numpy.vstack": None}
SEQUENCE_AXIS.update({"numpy.row_stack": None, "numpy.column_stack": None, "numpy.dstack": None})
for _prim in SEQUENCE:  # of a sequence known only at run time, np.vstack(xs): one primitive of xs (rules/movement.py)
    FORWARD[_prim + "/list"], REVERSE[_prim + "/list"], SLOTS[_prim + "/list"] = M.joined_list(
        _prim, SEQUENCE_AXIS[_prim] is not None
    )

# The primitives written as one record each (rules/primitive.py, the family modules of rules/families.py):
# their entries of the tables above, which are views of the records beside the entries not yet moved.
for _prim in REGISTRY.values():
    assert _prim.name not in SIGNATURES, f"{_prim.name} is a record and a table entry"
    if _prim.partials is not None:  # elementwise
        PARTIALS[_prim.name] = _prim.partials
    elif _prim.linear is not None:
        LINEAR[_prim.name] = _prim.linear
    elif _prim.bilinear is not None:
        BILINEAR[_prim.name] = _prim.bilinear
    else:
        FORWARD[_prim.name], REVERSE[_prim.name], SLOTS[_prim.name] = _prim.jvp, _prim.vjp, _prim.slots
    SIGNATURES[_prim.name] = _prim.signature
    METHODS.update({method: _prim.name for method in _prim.methods})
    ATTRIBUTES.update({attribute: _prim.name for attribute in _prim.attributes})
    if _prim.static:
        STATIC[_prim.name] = dict(_prim.static)
    if _prim.positional is not None:
        POSITIONAL[_prim.name] = _prim.positional
# NumPy's elementwise functions of one array with a derivative (np.sin, ...; not np.floor): name -> partial
UNARY = {p.numpy_name: p.partials[0] for p in family("ufuncs") if p.partials and len(p.partials) == 1 and p.partials[0]}
