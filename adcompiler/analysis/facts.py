"""What the analysis knows of one function for one signature, in the form the derivative passes ask.

``infer`` computes an abstract value per variable; ``Facts`` answers the questions the passes put
to it (which names hold lists, which may hold arrays, which calls have which signature, which
parameters may share a list), and ``check_values`` refuses, with its location, a value whose kind
the derivative code would have to guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from . import values as V
from .show import show
from .unbound import unbound_reads
from ..errors import UnknownKindError, at_line
from ..ir.nodes import Eq, Function, Return, Var, flatten, walk
from ..ir.supplied import known
from ..front.names import root
from ..lower.arrays import own_attribute, own_method
from ..lower.library import library_changes
from ..rules.arrays import ATTRIBUTES, METHODS, NOT_DIFFERENTIATED
from ..rules.movement import COMPLEX_PARTS


@dataclass
class Facts:
    """The abstract value of every variable of one function (dup form) for one signature."""

    fn: Function
    sig: V.Sig
    avals: dict
    summary: object  # infer.Summary
    calls: dict = field(default_factory=dict)  # a call's outputs -> the callee's signature there
    listed: dict = field(default_factory=dict)  # a call's outputs -> which arguments the callee uses as lists
    anf: Function | None = None  # the function in ANF, primitives named for their values (``specialise``)
    origin: object = None  # the user's function these are the facts of
    writes: dict = field(default_factory=dict)  # parameter -> the equation that writes into its array (inplace)

    def of(self, a) -> V.Aval:
        """The abstract value of an atom (a constant's from its value)."""
        if isinstance(a, Var):
            return self.avals.get(a.name, V.BOTTOM)
        return V.describe(known(a))

    def call_sig(self, eq: Eq) -> V.Sig:
        """The signature a call's callee is specialised on."""
        return self.calls[call_key(eq)]

    def may_raise(self, eq: Eq) -> bool:
        """Whether evaluating ``eq`` may raise for arguments of these values (a domain error, a
        division by zero, an index out of range, arrays of shapes that do not broadcast): such a
        primal line runs in derivative code even where its value is not needed, so a derivative
        never succeeds where its primal fails."""
        if any(isinstance(a, Var) and a.name in self.unbound for a in eq.ins + eq.outs):
            return True  # a variable that may be unbound (analysis.unbound): Python's UnboundLocalError
        ins = [self.of(a) for a in eq.ins]
        if eq.prim in NEVER_RAISE:
            return False
        if all(isinstance(a, (V.Num, V.Static)) for a in ins):
            return eq.prim not in SAFE_ON_NUMBERS
        if eq.prim in SAFE_ON_ARRAYS or eq.prim in SAFE_ON_NUMBERS and eq.prim not in BROADCAST_PAIRS:
            return False
        if eq.prim in BROADCAST_PAIRS or eq.prim.startswith("numpy."):
            return sum(1 for a in ins if isinstance(a, (V.Arr, V.Numeric, V.Seq)) and getattr(a, "ndim", 1) != 0) > 1
        return True

    @cached_property
    def unbound(self) -> frozenset:
        """What reads of variables that may be unbound there give (``analysis.unbound``)."""
        return unbound_reads(self.fn)

    @cached_property
    def containers(self) -> frozenset:
        """Names that may hold lists or tuples (objects whose derivative is a shadow list, whose tangent
        is a list): every ``TOP`` too (the residuals of a recursive function, in derivative code
        differentiated again: forward mode handles them generically, reverse mode refuses them)."""
        return frozenset(n for n, a in self.avals.items() if isinstance(a, (V.Seq, V.Top)))

    @cached_property
    def arrays(self) -> frozenset:
        """Names that may hold NumPy arrays: their derivative code is shape-generic (right for a number too)."""
        return frozenset(n for n, a in self.avals.items() if isinstance(a, (V.Arr, V.Numeric, V.Top)))

    @cached_property
    def numeric_arrays(self) -> frozenset:
        """Names that may hold NumPy arrays and surely no list (what in-place writes are checked on)."""
        return frozenset(n for n, a in self.avals.items() if isinstance(a, (V.Arr, V.Numeric)))

    @cached_property
    def vectors(self) -> frozenset:
        """Names surely holding 1-D arrays (``np.diag`` of one makes a new matrix, of a matrix a view)."""
        return frozenset(n for n, a in self.avals.items() if isinstance(a, V.Arr) and a.ndim == 1)

    @cached_property
    def array_params(self) -> frozenset:
        return frozenset(p for p, a in zip(self.fn.params, self.sig.avals) if V.maybe_array(a))

    @cached_property
    def index_params(self) -> frozenset:
        """The parameters that arrive as integer or boolean arrays: no derivative flows through them, so a write
        into one (a helper's index links, counters) runs as the primal's does (``inplace.check_in_place``)."""
        return frozenset(
            p
            for p, a in zip(self.fn.params, self.sig.avals)
            if isinstance(a, V.Arr) and a.dtype is not None and a.dtype[:1] in "iub"
        )

    @cached_property
    def holders(self) -> frozenset:
        """Lists and tuples that may hold arrays (at any depth)."""
        return frozenset(n for n in self.containers if V.leaves_may_be_arrays(self.avals[n]))

    @cached_property
    def shared(self) -> tuple:
        """Pairs of parameters that may reach the same list (the same object passed twice)."""
        params, alias = self.fn.params, self.sig.alias
        return tuple((params[i], params[alias[i]]) for i in range(len(params)) if alias[i] != i)

    def linked(self, fn: Function) -> tuple:
        """Pairs of names of ``fn`` (this function in any of its forms) that may reach the same list: ``shared``,
        and a copy of a list that holds lists and its source (``list(rows)``, ``rows.copy()``: a shallow copy
        holds the same rows, so a write into ``ys[0]`` is one into ``rows[0]``)."""
        copies = tuple(
            (eq.ins[0].name, eq.outs[0].name)
            for eq in walk(fn.body)
            if isinstance(eq, Eq) and eq.prim == "list_copy" and isinstance(eq.ins[0], Var)
            if _holds_lists(self.avals.get(eq.ins[0].name, V.TOP))
        )
        return self.shared + copies


def call_key(eq: Eq) -> tuple:
    """What the facts know a call by: its outputs, or, for a call that keeps no value (a reverse sweep run for
    what it adds into the shadows it is handed, ``()``), its callee and line (two such calls were one key: the
    second's callee was specialised on the first's arguments, its tuple of residuals read as an array).  (Not
    its arguments: the passes after the analysis rename them.)"""
    return eq.outs if eq.outs else (eq.param, eq.line)


def _holds_lists(a) -> bool:
    """Whether a list or tuple may hold a list, a tuple or a value of unknown kind (at any position)."""
    if isinstance(a, V.Top):
        return True
    return isinstance(a, V.Seq) and any(isinstance(i, (V.Seq, V.Top)) for i in (a.items or ()) + (a.elem,))


# What writes into its first argument in place: a store, and the runtime helpers of derivative code that clear
# or add into the adjoint they are handed (derivative code differentiated again: its tangent must be its own).
WRITES_INTO = ("setitem", "take_and_clear", "scatter_add", "add_at")


def mutable_arrays(fn: Function, arrays) -> dict:
    """Arrays written in place, with every name for the same object (slot reads, dup copies),
    each mapped to one representative (the slot, if there is one): they share one adjoint."""
    parent: dict = {}

    def find(n):
        while parent.get(n, n) != n:
            n = parent[n]
        return n

    written = set()
    for eq in walk(fn.body):
        if not isinstance(eq, Eq):
            continue
        if eq.prim in WRITES_INTO and isinstance(eq.ins[0], Var) and eq.ins[0].name in arrays:
            written.add(eq.ins[0].name)
        for k in library_changes(eq):  # np.put(c, ...), np.copyto(c, ...): c changed in place
            if isinstance(eq.ins[k], Var) and eq.ins[k].name in arrays:
                written.add(eq.ins[k].name)
        if eq.prim in ("dup", "read") and isinstance(eq.ins[0], Var) and eq.ins[0].name in arrays:
            for v in eq.outs:
                a, b = find(v.name), find(eq.ins[0].name)
                if a != b:
                    parent[a] = b  # towards the original (the slot for reads)
    roots = {find(w) for w in written}
    names = {
        n
        for eq in walk(fn.body)
        if isinstance(eq, Eq)
        for n in [v.name for v in eq.outs] + [a.name for a in eq.ins if isinstance(a, Var)]
    }
    return {n: find(n) for n in names | set(fn.params) if n in arrays and find(n) in roots}


# What cannot raise: moving values, building lists and tuples, measuring them.
NEVER_RAISE = (
    "dup",
    "read",
    "write",
    "list",
    "tuple",
    "list_copy",
    "list_concat",
    "len",
    "range",
    "slice",
    "not",
    "global",
)
NEVER_RAISE += ("numpy.shape", "numpy.ndim", "numpy.size", "lt", "le", "gt", "ge", "eq", "ne", "is_", "is_not")
# On Python numbers: arithmetic and the functions defined (and finite) everywhere.
SAFE_ON_NUMBERS = ("add", "sub", "mul", "neg", "pos", "abs", "max", "min", "float", "math.fabs", "math.sin")
SAFE_ON_NUMBERS += ("math.cos", "math.tan", "math.atan", "math.atan2", "math.tanh", "math.erf", "math.erfc")
SAFE_ON_NUMBERS += ("math.hypot", "math.asinh", "sum", "array_sum")
# On arrays: NumPy's elementwise functions (a domain error is a NaN and a warning), reductions, shape queries.
SAFE_ON_ARRAYS = tuple(f"numpy.{n}" for n in ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh"))
SAFE_ON_ARRAYS += tuple(f"numpy.{n}" for n in ("tanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt"))
SAFE_ON_ARRAYS += tuple(f"numpy.{n}" for n in ("square", "abs", "absolute", "negative", "positive", "sign"))
SAFE_ON_ARRAYS += tuple(f"numpy.{n}" for n in ("sum", "mean", "prod", "copy", "transpose", "ravel", "cumsum"))
SAFE_ON_ARRAYS += ("numpy.linalg.norm", "neg", "pos", "numpy.array", "numpy.asarray", "numpy.zeros_like")
SAFE_ON_ARRAYS += ("numpy.ones_like", "array_sum")
# Elementwise with two operands: safe unless two of them are arrays (whose shapes may not broadcast).
BROADCAST_PAIRS = ("add", "sub", "mul", "truediv", "pow", "mod", "floordiv", "matmul", "max", "min")

# Primitives that only move a value (copies, list building): a value of unknown kind may pass through them.
MOVES = ("dup", "read", "write", "list", "tuple", "append", "setitem", "list_copy", "call")
LIST_OPERAND = ("getitem", "setitem", "append", "pop", "len", "sum", "argmax", "argmin", "list_copy")


def _computed_float(facts: Facts, a) -> bool:
    """Whether ``a`` is a variable that may hold a float or a float array (what may have a derivative)."""
    aval = facts.of(a) if isinstance(a, Var) else None
    return isinstance(aval, (V.Arr, V.Numeric)) or isinstance(aval, V.Num) and aval.dtype not in ("int", "bool")


def check_constructs(facts: Facts) -> None:
    """Refuse, with its location, what the abstract values show the derivative cannot follow: an
    assignment to a slice of a list (it changes the list's length)."""
    unsupported = {e.outs[0].name: e for e in walk(facts.fn.body) if isinstance(e, Eq) and e.prim in NOT_DIFFERENTIATED}
    for s in walk(facts.fn.body):
        for a in flatten(s.value) if isinstance(s, Return) else s.ins if isinstance(s, Eq) else ():
            if isinstance(a, Var) and a.name in unsupported:
                _refuse(
                    facts,
                    unsupported[a.name].line,
                    "the residuals or singular values of np.linalg.lstsq (only its solution is differentiated)",
                    "compute them from the solution x = np.linalg.lstsq(a, b)[0]: np.sum((b - a @ x) ** 2, axis=0)",
                )
    for eq in walk(facts.fn.body):
        _own_member_taken_for_numpys(facts, eq)
        _own_dunder_skipped(facts, eq)
        if isinstance(eq, Eq) and eq.prim == "draw" and any(_computed_float(facts, a) for a in eq.ins):
            _refuse(
                facts,
                eq.line,
                f"{eq.param[1].replace('numpy.', 'np.')} of computed numbers (a draw has no derivative)",
                "draw with constant parameters and scale the draw: mu + sigma * np.random.randn(...)",
            )
        if isinstance(eq, Eq) and eq.prim.startswith("numpy.linalg.solve"):
            a, b = (facts.of(x) for x in eq.ins)
            nd = [x.ndim if isinstance(x, V.Arr) else None for x in (a, b)]
            if None in nd:
                _refuse(
                    facts,
                    eq.line,
                    "np.linalg.solve of arrays whose ndim is not known here (its adjoint differs for a vector b)",
                    "differentiate it through differentiate(f) called with the arrays, where their ndim is known",
                )
            if not (nd[0] == 2 and nd[1] in (1, 2) or nd[0] > 2 and nd[1] in (1, nd[0])):
                _refuse(
                    facts,
                    eq.line,
                    f"np.linalg.solve of {show(a)} and {show(b)}",
                    "solve with one matrix and a vector or matrix b, a stack of matrices and one vector b, or "
                    "stacks of matrices of the same ndim (b[..., None] for stacked vectors, then take [..., 0])",
                )
        if (
            isinstance(eq, Eq)
            and eq.prim in COMPLEX_PARTS
            and "complex" in str(getattr(facts.of(eq.ins[0]), "dtype", ""))
        ):
            _refuse(
                facts,
                eq.line,
                f"{eq.prim.replace('numpy.', 'np.')} of a complex value (adcompiler differentiates real values only)",
                "keep the real and imaginary parts as separate float arrays",
            )
        if isinstance(eq, Eq) and eq.prim == "list_copy" and isinstance(facts.of(eq.ins[0]), (V.Arr, V.Numeric)):
            _refuse(
                facts,
                eq.line,
                "list(A) of a NumPy array, or a, *rest = A (a list of its rows)",
                "read the rows where you need them, A[i], or loop over the array itself: for row in A",
            )
        if isinstance(eq, Eq) and eq.prim == "setitem" and isinstance(facts.of(eq.ins[0]), V.Seq):
            if V.is_slice(facts.of(eq.ins[1])):
                _refuse(
                    facts,
                    eq.line,
                    "assigning to a slice of a list (xs[a:b] = ...)",
                    "build the new list: xs = xs[:a] + ys + xs[b:]",
                )


def check_values(facts: Facts, active) -> None:
    """Refuse an operation on an active value whose kind the code cannot know (read from a list
    holding both lists and numbers at a position known only at run time): its adjoint would be a
    guess.  (Forward mode needs no such knowledge: a tangent mirrors its value whatever it is.)"""
    for ret in (s for s in walk(facts.fn.body) if isinstance(s, Return)):  # a returned value of unknown kind
        leaves = [a for a in flatten(ret.value) if isinstance(a, Var) and a.name in active]
        if any(isinstance(facts.avals.get(a.name), V.Top) for a in leaves):
            _refuse(
                facts,
                ret.line,
                "returning a value whose kind the arguments do not decide (a list or a number read from a list "
                "holding both, or a name holding None on one path and a number on another)",
                UNKNOWN_KIND + "; for an optional argument, use another name: s = 2.0 if scale is None else scale",
                UnknownKindError,
            )
    for eq in walk(facts.fn.body):
        if not isinstance(eq, Eq) or eq.prim in MOVES:
            continue
        for k, a in enumerate(eq.ins):
            if isinstance(a, Var) and a.name in active and isinstance(facts.avals.get(a.name), V.Top):
                if eq.prim in LIST_OPERAND and k == 0:
                    continue  # indexing it is checked where the element is used
                _refuse(
                    facts,
                    eq.line,
                    f"a value that may be a list or a number ({root(a.name)}), read from a list holding both",
                    UNKNOWN_KIND,
                    UnknownKindError,
                )


UNKNOWN_KIND = "keep numbers and lists in separate lists, or read it at a constant index"


def _own_member_taken_for_numpys(facts: Facts, eq) -> None:
    """Refuse ``v.sum()`` or ``v.size`` of an object handed in (lowering could not know its class) whose class has
    a method or field of that name of its own: the code would compute NumPy's ``np.sum(v)`` of its items."""
    if not (isinstance(eq, Eq) and eq.ins and (eq.prim in METHODS.values() or eq.prim in ATTRIBUTES.values())):
        return
    receiver = facts.of(eq.ins[0])
    if not V.is_record(receiver) or receiver.cls is dict:
        return
    names = [m for m, p in METHODS.items() if p == eq.prim and own_method(receiver.cls, m)]
    names += [a for a, p in ATTRIBUTES.items() if p == eq.prim and own_attribute(receiver.cls, a, receiver)]
    if names:
        cls, name = receiver.cls.__name__, names[0]
        _refuse(
            facts,
            eq.line,
            f"the member {name} of a {cls} handed in, which its class defines itself (taken for NumPy's"
            f" {eq.prim.replace('numpy.', 'np.')})",
            f"give it another name, or call a method as {cls}.{name}(v)",
        )


_ORDER = ("__lt__", "__gt__", "__le__", "__ge__")
_DUNDERS = {"len": ("__len__",), "argmin": _ORDER, "argmax": _ORDER, "argsort": _ORDER}  # len(o), min, max, sorted
_SPELT = {"len": "len", "argmin": "min", "argmax": "max", "argsort": "sorted"}


def _own_dunder_skipped(facts: Facts, eq) -> None:
    """Refuse ``len(o)``, ``min(os)``, ``max(os)``, ``sorted(os)`` of objects whose class writes its own
    ``__len__`` or ordering: the code would measure or order their fields as a tuple's."""
    if not (isinstance(eq, Eq) and eq.prim in _DUNDERS and eq.ins):
        return
    value = facts.of(eq.ins[0])
    for cls in _classes(value) if eq.prim == "len" else [c for a in _items(value) for c in _classes(a)]:
        dunder = next((d for d in _DUNDERS[eq.prim] if _written_dunder(cls, d)), None)
        if dunder is not None:
            _refuse(
                facts,
                eq.line,
                f"{_SPELT[eq.prim]}() of a {cls.__name__}, whose class defines {dunder} (objects are read by their"
                " fields here, not through their methods)",
                (
                    f"call {cls.__name__}.__len__(o) yourself"
                    if dunder == "__len__"
                    else f"order them by a field (key=lambda o: o.y), or compare with {cls.__name__}.{dunder}(a, b)"
                ),
            )


def _classes(a) -> list:
    """The class of the record a value is: ``[cls]``, or ``[]``."""
    return [a.cls] if V.is_record(a) and a.cls not in (None, dict) else []


def _items(a) -> tuple:
    """What a list or tuple holds (each position where it is known, else the join of its elements)."""
    return (a.items or ()) + (a.elem,) if isinstance(a, V.Seq) else ()


def _written_dunder(cls, name: str) -> bool:
    """Whether a class (or a base of its own) has a method ``name`` written in a source file: not Python's, not one
    ``dataclass`` or ``NamedTuple`` generates (those compare the fields, as the code here does)."""
    for k in cls.__mro__:
        f = vars(k).get(name)
        if f is not None and k.__module__ not in ("builtins", "typing"):
            code = getattr(f, "__code__", None)
            return code is not None and not code.co_filename.startswith("<")
    return False


def _refuse(facts: Facts, line: int, construct: str, remedy: str, cls=None):
    """Raise the located error for a construct on ``line`` of the function's file."""
    raise at_line(facts.fn.source, line, construct, remedy, cls)
