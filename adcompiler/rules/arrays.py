"""The array half of the rule tables both modes read, as views of the primitives' records.

Each NumPy function is a record (``rules.primitive``: ``rules/ufuncs.py``, ``constructors.py``, ``movement.py``,
``reductions.py``, ``products.py``, ``orders.py``, ``joins.py``, ``linalg.py``) and fills these tables when they
are built, beside the few entries written here, of what is no NumPy function of its own (Python's ``sum`` of an
array, ``np.add.at``'s helper, ``np.append``, which lowering writes as ``np.concatenate``): ``PARTIALS`` (an
elementwise function's partial derivatives, applied as ``math``'s are), ``FORWARD``/``REVERSE``/``SLOTS`` (two
rules), ``LINEAR`` (linear in the first argument: the tangent is the same call of the tangent), ``BILINEAR``
(products), ``INACTIVE`` (no derivative: constructors of a shape, comparisons, indices), ``SIGNATURES`` (each
call bound to one positional form, so ``np.sum(x, axis=0)``, ``np.sum(x, 0)`` and ``x.sum(0)`` are one
primitive with the same arguments), ``METHODS``, ``ATTRIBUTES``, ``POSITIONAL``, ``STATIC``, and lowering's facts
(``SEQUENCE``, ``SPLITS``, ``PARTS``).  Reverse mode sums cotangents back over broadcast axes (``unbroadcast``)
wherever arrays of different shapes meet.
"""

from __future__ import annotations


from .families import REGISTRY, family
from ..ir.expr import Call, Num


def _h(name):
    """A runtime helper, spelt through the program that emits it (``@name``: the program gives it its module-level name, see ``Program.helper``)."""
    return lambda *args: Call("@" + name, tuple(args))


unreduce = _h("unreduce")

PARTIALS: dict = {}  # (NumPy's elementwise functions, its ufuncs, are records: rules/ufuncs.py)


FORWARD: dict = {}  # (every NumPy function with rules of its own is a record: its rules are below)
REVERSE: dict = {}
# Which arguments of a FORWARD/REVERSE rule the output depends on (all of them where not listed).
SLOTS: dict = {}
# At most this many positional arguments (the rest by keyword).
POSITIONAL: dict = {}

# Linear in their first argument (the rest are static: axes, shapes): tangent = same op on the tangent.
LINEAR = {  # (NumPy's moves and linear reductions are records: rules/movement.py, rules/reductions.py)
    "array_sum": lambda g, x, z: unreduce(g, x, Num(0), Num(False)),  # Python's sum(x): over the first axis
}
CALLED = {"array_sum": "sum"}  # how a primitive is called in generated code, where not by its name
# Bilinear: the tangent is op(da, b) + op(a, db).
BILINEAR: dict = {}  # (NumPy's products are records: rules/products.py; a @ b is np.matmul's)

# One positional form per primitive: parameter names, with defaults for the optional ones.
SIGNATURES: dict = {}  # (the records': below)
# Methods of arrays that are these primitives (x.sum(...) is numpy.sum(x, ...)).
METHODS = {}
ATTRIBUTES: dict = {}  # (x.T, x.shape: the records')
INACTIVE: tuple = ()  # no derivative: constructors of shapes, comparisons, indices (the records'), a decomposition

# np.add.at(y, index, v) is lowered to y[...] = add_at(y, y, index, v): v added at y[index] in a copy of
# y, repeated indices adding up (lower/arrays.py); linear in y and v together: its tangent is the same
# of the tangents, its adjoint g for y and g gathered at index (summed to v's shape) for v.
FORWARD["add_at"] = lambda d, x, index, v, z, dd, dx, di, dv: (
    None if dd is None and dv is None else _h("add_at")(dd or Num(0.0), x, index, dv or Num(0.0))
)
REVERSE["add_at"] = lambda d, x, index, v, z, g: (g, None, None, _h("add_at_vjp")(g, index, v))
SLOTS["add_at"] = (True, False, False, True)

STATIC: dict = {}  # the arguments that must be constants where a primitive is called (the records')
SPLIT_PART = "numpy.split/part"  # a piece of a split (the variant "part" of np.split's record)
EXPANDED: tuple = ()  # lowered to other primitives, always (the records' ``expand``: np.linalg.multi_dot, ...)

SPLITS: tuple = ()  # the splits, computed once: their pieces are primitives of their own (SPLIT_PART)
SEQUENCE: tuple = ()  # the joins: numpy.concatenate([a, b], axis) is one primitive of a, b and axis
SEQUENCE_AXIS: dict = {}  # a join -> its axis's default (None: it takes none)
PARTS: dict = {}  # a decomposition -> how many arrays it returns (one primitive each, "<name>[i]")
NOT_DIFFERENTIATED: tuple = ()  # parts refused where a derivative needs them (analysis.facts)
ARRAY_G: dict = {}  # a product's variant -> its rule's name for an array g (modes.adjoints picks it)
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
        if _prim.operator is not None:
            BILINEAR[_prim.operator] = _prim.bilinear
    elif _prim.inactive:
        INACTIVE += (_prim.name,)
    elif _prim.expanded:  # (written as other primitives: never in the IR)
        EXPANDED += (_prim.name,)
    elif not (_prim.parts or _prim.split):  # (computed once: no rule of its own)
        FORWARD[_prim.name], REVERSE[_prim.name], SLOTS[_prim.name] = _prim.jvp, _prim.vjp, _prim.slots
    for _i, _part in enumerate(_prim.parts):  # a decomposition: computed once, then each array it returns
        if _part.jvp is not None:
            FORWARD[f"{_prim.name}[{_i}]"], REVERSE[f"{_prim.name}[{_i}]"] = _part.jvp, _part.vjp
            SLOTS[f"{_prim.name}[{_i}]"] = _part.slots
        else:
            INACTIVE += (f"{_prim.name}[{_i}]",)
        if _part.refused:
            NOT_DIFFERENTIATED += (f"{_prim.name}[{_i}]",)
    if _prim.parts:
        PARTS[_prim.name] = len(_prim.parts)
        INACTIVE += (_prim.name,)
    for _called in (_prim.name, _prim.operator) if _prim.operator else (_prim.name,):
        for _kind, _variant in _prim.variants.items():  # for operands of one kind (analysis.specialise)
            _name = f"{_called}/{_kind}"
            FORWARD[_name], REVERSE[_name], SLOTS[_name] = _variant.jvp, _variant.vjp, _variant.slots
            if _variant.array_g is not None:
                ARRAY_G[_name] = f"{_name}/array g"
                REVERSE[ARRAY_G[_name]] = _variant.array_g
    if _prim.split:
        SPLITS += (_prim.name,)
        INACTIVE += (_prim.name,)
    if _prim.joined:
        SEQUENCE += (_prim.name,)
        SEQUENCE_AXIS[_prim.name] = _prim.signature[1][1].value if len(_prim.signature) > 1 else None
    if _prim.signature is not None:  # (None: called as written)
        SIGNATURES[_prim.name] = _prim.signature
    METHODS.update({method: _prim.name for method in _prim.methods})
    ATTRIBUTES.update({attribute: _prim.name for attribute in _prim.attributes})
    if _prim.static:
        STATIC[_prim.name] = dict(_prim.static)
    if _prim.positional is not None:
        POSITIONAL[_prim.name] = _prim.positional
CONSTRUCTORS = tuple(p.numpy_name for p in family("constructors"))
COMPARISONS = tuple(p.numpy_name for p in family("ufuncs") if p.inactive)  # (bools: equal, ..., isnan)
# NumPy's elementwise functions of one array with a derivative (np.sin, ...; not np.floor): name -> partial
UNARY = {p.numpy_name: p.partials[0] for p in family("ufuncs") if p.partials and len(p.partials) == 1 and p.partials[0]}
