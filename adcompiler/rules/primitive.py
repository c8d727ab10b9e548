"""A primitive as one record: everything the compiler knows about one NumPy function, in one place.

A ``Primitive`` says what a function is called in the IR and in NumPy, how calls of it are bound
(its signature), what it returns (its abstract value), its two derivative rules, and the runtime
helpers those rules call, with each helper's form for every target side by side.  A family module
(``rules/reductions.py``, ...) writes one paragraph per primitive and ``register``s it; the tables
the passes read (``rules.arrays.FORWARD``, ``SIGNATURES``, ``METHODS``, ``analysis.infer_numpy``'s
abstract values, the targets' helper tables) are views: each fills its entries from ``REGISTRY``
when it is built, beside the entries of primitives not yet written as records.  See "Adding a
primitive" in docs/architecture.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Protocol


@dataclass(frozen=True)
class Helper:
    """A runtime helper generated code calls, in each target's form.

    ``python``: its source text for the python target (a function of that name; ``import numpy``
    inside, as generated modules bind NumPy under the user's name; None for a helper of another
    target's forms only).  ``array_api``: its source for
    ``arrays="any"``, written with ``xp = namespace(...)`` (None: refused there, at the user's line).
    ``numba``: the Numba target's text (a stub and its ``numba.extending.overload``, or a plain
    function); None: the python form, compiled by ``numba.njit`` as it is.  ``linear``: how a call
    of the helper is differentiated when generated code is differentiated again, as
    ``rules.helpers.HELPER_RULES`` says it (``("bilinear", (0, 1))``: the product rule over those
    arguments).  ``like``: its result's abstract value: shaped like argument ``like`` (an int), or
    ``"numeric"`` (a number or an array, its shape not known).  ``reverse``: for a helper linear in some
    arguments, its adjoint where generated code is differentiated in reverse mode (a gradient inside a function
    differentiated): ``reverse(u, *arguments)``, u the cotangent of its result, gives one cotangent per
    argument (None: none), as ``rules.helpers.HELPER_REVERSE`` holds them.
    """

    python: str | None = None
    array_api: str | None = None
    numba: str | None = None
    linear: tuple | None = None
    like: int | str | None = None
    reverse: Callable | None = None


@dataclass(frozen=True)
class Part:
    """One array a decomposition returns (``w`` of ``w, v = np.linalg.eigh(a)``).

    Lowering computes the decomposition once (the record's own primitive, no derivative) and then each
    array it returns as a primitive of its own, ``<name>[i]`` of the decomposition's arguments and that raw
    value (printed ``raw[i]``; ``lower.arrays``), so each array has a rule of its own.  ``value(ins, static,
    kit)``: its abstract value; ``jvp``, ``vjp``, ``slots``: its rules, as a primitive's, over the arguments
    and the raw value (None: no derivative, as a determinant's sign or a rank); ``refused``: not
    differentiated, refused where a derivative needs it (lstsq's residuals, ``analysis.facts``).
    """

    value: Callable
    jvp: Callable | None = None
    vjp: Callable | None = None
    slots: tuple | None = None
    refused: bool = False


@dataclass(frozen=True)
class Refusal:
    """What a record's ``variant`` says where no rule of its fits the operands as far as they are known
    (``np.linalg.norm(x, ord=2)`` of an ndim not known: a vector's norm or a matrix's): the construct and
    what to write instead, told at the user's line (``analysis.specialise``)."""

    construct: str
    remedy: str


@dataclass(frozen=True)
class Variant:
    """A primitive's rules for operands of one kind (``np.dot`` of two vectors: a number, each cotangent g
    times the other vector, no helper choosing by ndim when the code runs).

    ``analysis.specialise`` names a call ``<name>/<kind>`` where the record's ``variant(ins, static, kit)``
    says ``kind`` (or lowering, where it has no ``variant``: a join of a sequence made at run time, ``/list``);
    it is printed as the primitive's own call.  ``jvp``, ``vjp``, ``slots``: as a primitive's.  ``array_g``: the
    cotangents where g is surely an array, not the number 0.0 of a result none of whose uses ran
    (``modes.adjoints`` picks it), or None.  ``value``: its abstract value (None: the primitive's).
    """

    jvp: Callable
    vjp: Callable
    slots: tuple
    array_g: Callable | None = None
    value: Callable | None = None


class Build(Protocol):
    """What a record's ``expand`` writes a call with: lowering's (``lower.arrays``).  Each argument it is
    handed, and each value it makes, is an atom of the IR (a name or a constant)."""

    def apply(self, prim: str, args: list, named: bool = False, param=None):
        """The value of ``prim`` of ``args`` (``named``: the one the call's own value is, named for the
        variable it is assigned to; ``param``: the primitive's parameter, a join's ``("seq", n)``)."""

    def part(self, prim: str, args: list, i: int):
        """The ``i``-th array the decomposition ``prim`` of ``args`` returns (the call's own value)."""

    def constant(self, value):
        """The constant ``value``."""

    def value_of(self, atom, otherwise=None):
        """The value of ``atom`` where it is a constant, else ``otherwise``."""


@dataclass(frozen=True)
class Primitive:
    """One NumPy function: its names, its signature, its value, its derivatives and their helpers.

    ``name``: the IR name (``"numpy.var"``); the NumPy function it stands for is the same dotted name
    (``np.var``).  ``family``: the rules module it is written in.  ``signature``: its parameters in
    one positional order, each ``(name, default)``, the default an ``ir.expr`` constant (``Num``) or
    None where the argument is required; calls by keyword, positionally and as methods are bound to
    it.  ``positional``: at most this many arguments positionally (None: all).  ``methods``: the
    ndarray methods that are this primitive (``x.var(...)``).  ``value(ins, static, kit)``: the
    abstract value of its result from its arguments' (``static``: the constant ones' values), with
    ``kit`` the analysis's vocabulary (``analysis.infer_numpy.KIT``).  ``jvp(*args, out, *tangents)``:
    the output's tangent (``None`` tangents are zero); ``vjp(*args, out, g)``: one cotangent per
    argument (None where it has none); both are ``ir.expr`` expressions, a helper spelt ``@name``.
    ``slots``: for each argument, whether the output depends on it differentiably (or, for a primitive of
    any number of arguments, a function of their number giving that: a join's, einsum's).  ``partials``: in
    place of those three, an elementwise function's partial derivatives, one per argument, each
    ``partial(*args, out)`` (None: zero in that argument): the tangent is the sum of partial times
    tangent, each cotangent g times its partial (``rules.PARTIALS``, as ``math``'s functions have).
    ``linear``: in place of those three, for a function linear in its first argument (the others static:
    axes, shapes): the tangent is the same call of the tangent, and ``linear(g, x, out, *static)`` is the
    cotangent of x (``rules.arrays.LINEAR``).  ``bilinear``: in place of those, for a product bilinear in its
    two arguments: the tangent is ``op(da, b) + op(a, db)``, and ``bilinear[i](g, a, b)`` is the cotangent of
    argument i (``rules.arrays.BILINEAR``).  ``static``: the parameters that must be constants where it is
    called (they decide the result's shape or which rule applies), each with the values differentiated (None:
    any).  ``attributes``: the ndarray attributes that are this
    primitive (``x.T``).  ``helpers``: the
    runtime helpers its rules (and its array-API form) call, by name.  ``array_api``: its spelling
    under ``arrays="any"``: ``"xp.<name>"`` for the standard's function of that name, or the name of
    one of its helpers (whose ``array_api`` form computes it); None: refused there.
    ``array_api_keywords``: NumPy's keyword -> the standard's (``ddof`` -> ``correction``).
    ``parts``: for a decomposition returning several arrays, one ``Part`` each (the record's own primitive
    is then the decomposition computed once, with no derivative).  ``variants``: kind -> ``Variant``, the
    rules for operands of that kind, chosen by ``variant(ins, static, kit)`` (None: the record's own).
    ``operator``: the Python operator that is this primitive too (``"matmul"``: ``a @ b``).  ``joined``: its
    first parameter is a sequence of arrays, which lowering passes as the call's first arguments (a join).
    ``split``: a split (``np.split(x, sections, axis)``, ...): computed once, with no derivative, and each piece
    read by the primitive ``numpy.split/part`` (the ``"part"`` variant of ``np.split``'s record).
    ``inactive``: no derivative at all, its result constant in its arguments (a constructor of a shape, a
    comparison, an index of an array's entries): no rules, and ``signature`` may be None (its calls kept as
    written, the static arguments its value reads by keyword in ``static.keywords``: ``np.zeros(n,
    dtype=...)``).
    ``expand``: the call written as other primitives where lowering binds it (``np.linalg.multi_dot([a, b,
    c])``: ``np.dot(np.dot(a, b), c)``): ``expand(build, *arguments)`` gives the value (``build``: lowering's
    ``Build``, which applies primitives), a ``Refusal`` where the arguments are not of a form it takes, or None
    where the record's own rules apply (``np.average`` with weights; without, ``np.mean``).  A record that
    has no rules is only an expansion: no abstract value, never in the IR.  ``sequences``: its parameters
    written out as a list or tuple of arrays (np.select's ``condlist``), each handed to ``expand`` as a
    tuple of them (None where the call computes it).
    ``refusals``: per target, why it is refused there (``{"array_api": "..."}``: the array-API target
    says it at the user's line; the Numba target refuses through its helpers' forms, an overload that
    raises Numba's ``TypingError`` with the reason, which it reports at the user's line).
    """

    name: str
    family: str
    signature: tuple | None
    value: Callable | None
    jvp: Callable | None = None
    vjp: Callable | None = None
    slots: tuple | None = None
    partials: tuple | None = None
    linear: Callable | None = None
    bilinear: tuple | None = None
    positional: int | None = None
    methods: tuple = ()
    attributes: tuple = ()
    static: MappingProxyType = field(default_factory=dict)  # (made read-only in __post_init__)
    helpers: MappingProxyType = field(default_factory=dict)  # (made read-only in __post_init__)
    parts: tuple = ()
    variants: MappingProxyType = field(default_factory=dict)  # (made read-only in __post_init__)
    variant: Callable | None = None
    operator: str | None = None
    joined: bool = False
    split: bool = False
    inactive: bool = False
    array_api: str | None = None
    array_api_keywords: MappingProxyType = field(default_factory=dict)
    refusals: MappingProxyType = field(default_factory=dict)
    expand: Callable | None = None
    sequences: tuple = ()

    def __post_init__(self):
        rules = (self.jvp, self.vjp, self.slots)
        ways = (self.partials is not None, self.linear is not None, self.bilinear is not None, rules != (None,) * 3)
        computed_once = bool(self.parts) or self.split  # (no derivative: primitives of their own read its value)
        assert sum(ways) == (
            not (computed_once or self.inactive or self.expanded)
        ), f"{self.name}: partials, linear, bilinear or two rules"
        assert (self.value is None) == self.expanded, f"{self.name}: an abstract value, unless only an expansion"
        assert set(self.sequences) <= {n for n, _ in self.signature or ()} and (
            self.expand or not self.sequences
        ), f"{self.name}: sequences are parameters an expansion reads"
        assert self.signature is not None or self.inactive, f"{self.name}: a signature binds a differentiated call"
        assert self.variant is None or self.variants, f"{self.name}: a choice among no variants"
        if ways[3]:
            variadic = callable(self.slots)  # (a join's, einsum's: of any number of arguments)
            assert None not in rules and (variadic or len(self.slots) == len(self.signature)), f"{self.name}: slots"
        elif ways[0]:
            assert len(self.partials) == len(self.signature), f"{self.name}: one partial per parameter"
        assert set(self.refusals) <= {"array_api"}, f"{self.name}: a refusal of a target that reads none"
        for name in ("helpers", "array_api_keywords", "refusals", "static", "variants"):  # frozen all the way down
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    @property
    def expanded(self) -> bool:
        """Whether it is only an expansion (``expand`` and no rules): lowered to other primitives, always."""
        rules = (self.jvp, self.vjp, self.slots, self.partials, self.linear, self.bilinear)
        return self.expand is not None and rules == (None,) * 6 and not (self.parts or self.split or self.inactive)

    @property
    def numpy_name(self) -> str:
        """Its name in NumPy's namespace (``"var"`` for ``numpy.var``)."""
        return self.name[len("numpy.") :]


REGISTRY: dict = {}  # IR name -> Primitive, in the order registered


def register(prim: Primitive) -> Primitive:
    """Add ``prim`` to the registry (once: a second record of one name is a mistake)."""
    assert prim.name not in REGISTRY, f"{prim.name} is registered twice"
    REGISTRY[prim.name] = prim
    return prim


def inactive(name: str, family: str, value: Callable, array_api: str | None = None, **more) -> Primitive:
    """Register a primitive with no derivative called as written (``np.zeros``, ``np.argmax``, ``np.shape``):
    ``value`` its abstract value, ``array_api`` its spelling under ``arrays="any"``."""
    return register(
        Primitive(name=name, family=family, signature=None, value=value, inactive=True, array_api=array_api, **more)
    )


def family(name: str) -> list:
    """The primitives of one family, in the order registered."""
    return [p for p in REGISTRY.values() if p.family == name]


def helpers() -> dict:
    """Every registered primitive's runtime helpers: name -> ``Helper``."""
    return {name: h for p in REGISTRY.values() for name, h in p.helpers.items()}


def helper_forms(target: str) -> dict:
    """The source of each registered helper in ``target``'s form (``"python"``, ``"array_api"``,
    ``"numba"``): name -> text, the helpers with no form there left out."""
    return {name: getattr(h, target) for name, h in helpers().items() if getattr(h, target) is not None}
