"""Names in expressions -> atoms: the function's own variables, and what the module gives it (numbers
and arrays read as constants, builtins, dotted module attributes), each read remembered so the code
is built again when the module changes it (``front.environment``)."""

from __future__ import annotations

import ast
import inspect
import builtins
import types

from .. import rules
from ..errors import MissingRuleError
from ..front.environment import ABSENT, Read, closure_of
from ..front.files import unset_refusal
from ..front.fields import record_fields
from ..ir.nodes import Const, Var
from ..ir.supplied import constant
from .records import Record


class NameLowering:
    """Names and globals -> atoms; see the module docstring."""

    def __init__(self, lower, foreign: bool, cell_name):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see anf.Lowering)
        self.foreign = foreign  # the function is of another module: its module's numbers are handed to the code
        self.cell_name = cell_name  # (name, cell) -> the name the code reads a closure's variable by

    def name(self, node: ast.Name):
        if node.id in self.emit.pinned:
            return self.emit.pinned[node.id]
        if node.id in self.emit.slots:
            return self.emit.read(Var(node.id))
        if node.id in self.emit.env:
            return self.emit.env[node.id]
        if node.id in self.parsed.local_functions:  # front.closures: called, or passed to a helper (expressions)
            raise self.parsed.error(
                node,
                f"the local function {node.id!r} used as a value (returned, stored or passed to other than a function of yours)",
                "call it, or pass it to one of your functions that calls it",
            )
        value = self.resolve(node)
        closure = closure_of(self.parsed.source.globals)  # (an enclosing function's variable: read by the name
        cell = closure.cells.get(node.id) if closure is not None else None  # its cell has in the code)
        read_as = node.id if cell is None else self.cell_name(node.id, cell, closure)
        if isinstance(value, (int, float)) and not isinstance(value, bool):  # (its name: what it is read by)
            if self.foreign:  # another module's: the number itself in the code (bound anew there: built again)
                self.parsed.reads.append(Read(self.parsed.source.globals, node.id, value, held=True))
                return Const(value)
            return Const(value, read_as)
        if type(value) is str:  # MODE = "square": a constant, as a string argument is (another value: built again)
            return Const(value)
        if isinstance(value, list) and _numbers(value) and not _read_only(node, self.parsed.node, self.resolve):
            raise self.parsed.error(
                node,
                f"the list {node.id!r} of the module or an enclosing function, used other than read",
                f"pass {node.id} as an argument, or make it a tuple if it never changes",
            )
        if data_record(value):  # params["W"] of a dict of arrays the module or a closure holds: each item read
            return self.global_record(value, (read_as,))
        if isinstance(value, (list, tuple)) and value and all(data_record(e) for e in value):  # LAYERS, a list of
            return self.global_records(value, (read_as,))  # layers the module holds, as NET.layers is read
        if type(value).__name__ == "ndarray" or _numbers(value):  # a constant array or list, read when the code runs
            # into a temporary, never a variable named like it: assigned in a function, the module's name
            # would become a local of the function (copy propagation gives the reads back their name)
            if self.foreign:  # another module's: handed to the code (the read recorded: rebound, built again)
                self.parsed.reads.append(Read(self.parsed.source.globals, node.id, value, held=True))
                return constant(value, node.id)
            return self.emit.apply("global", [], None, param=read_as)
        if isinstance(value, type) and value.__module__ in ("builtins", "numpy"):  # isinstance(x, float): a type,
            return constant(value, node.id)  # a constant the code is handed (no derivative)
        raise self.parsed.error(
            node,
            f"the global {node.id!r} ({type(value).__name__})",
            "use numbers, NumPy arrays, math functions and functions defined with def",
        )

    def global_records(self, value, path: tuple):
        """A list or tuple of records (a network's layers) the module or an enclosing function holds: each record
        read by its path (a layer added or replaced: the code built again)."""
        self.parsed.reads.extend(Read(value, k, e) for k, e in enumerate(value))
        elements = [
            self.emit.atom(self.emit.element(self.global_record(e, path + (("[]", k),)))) for k, e in enumerate(value)
        ]
        return self.emit.apply("list" if isinstance(value, list) else "tuple", elements, None)

    def global_record(self, value, path: tuple):
        """A dict (a NamedTuple, a dataclass, an object) of numbers and arrays that the module or an
        enclosing function holds, read as a record of constants: each item read by its path when the
        code runs (``params["W"]``), each remembered (an item replaced by one of another kind, or the
        dict by another, builds the code again)."""
        items: dict = {}
        fields = record_fields(value)
        namespace = value if type(value) is dict else vars(value)
        if type(value) is not dict:  # a class attribute the code reads through the object (``self.factor``), or
            # a method it calls, shadowed later by one the object sets of its own: the code built again
            self.parsed.reads += [Read(namespace, k, ABSENT) for k in _class_names(type(value)) if k not in fields]
        for key, item in fields.items():
            self.parsed.reads.append(Read(namespace, key, item))
            step = ("[]", key) if type(value) is dict else (".", key)
            if data_record(item):
                items[key] = self.global_record(item, path + (step,))
            elif isinstance(item, (list, tuple)) and item and all(data_record(e) for e in item):
                items[key] = self.global_records(item, path + (step,))
            elif self.foreign:  # of another module (a helper's D["W"]): the item itself, handed to the code (the
                self.parsed.reads.append(Read(namespace, key, item, held=True))  # caller's module may have its own D)
                items[key] = Const(item) if isinstance(item, (int, float)) else constant(item, str(key))
            else:
                items[key] = self.emit.apply("global", [], None, param=path + (step,))
        return Record(items.values(), items, self.emit.body, type(value))

    def function_list(self, node) -> tuple | None:
        """The functions of a list or tuple of them that a name of the module or of an enclosing function
        holds (``for f in fs``), each remembered; None for anything else."""
        if not isinstance(node, ast.Name) or node.id in self.emit.env or node.id in self.emit.slots:
            return None
        if node.id in self.parsed.local_functions or node.id in self.emit.called:
            return None
        glob = self.parsed.source.globals
        value = glob.get(node.id) if node.id in glob else None
        if not isinstance(value, (list, tuple)) or not value or not all(map(_function, value)):
            return None
        self.resolve(node)  # (the name remembered: another list, or one of another length, builds again)
        self.parsed.reads += [Read(value, k, f) for k, f in enumerate(value)]  # (each function: the same one)
        return tuple(value)

    def constant_keys(self, node) -> tuple | None:
        """The strings of a sequence of string constants the loop ``for k in node`` runs over (``["W", "b"]``,
        a tuple of them in a local name, or the module's ``LAYERS = ("l1", "l2")``; the keys of a dict built
        here, ``d`` or ``d.keys()``): what a loop over keys reads items by; None for anything else."""
        if isinstance(node, (ast.List, ast.Tuple)):
            keys = tuple(e.value for e in node.elts if isinstance(e, ast.Constant) and type(e.value) is str)
            return keys if len(keys) == len(node.elts) and keys else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys":
            if node.args or node.keywords:
                return None
            node = node.func.value
            if not isinstance(node, ast.Name) or not isinstance(self.emit.env.get(node.id), Record):
                return None
        if not isinstance(node, ast.Name) or node.id in self.emit.slots or node.id in self.emit.pinned:
            return None
        if node.id in self.emit.env:
            value = self.emit.env[node.id]
            if isinstance(value, Record):
                return value.keys if value.cls is dict and value.keys else None
            if isinstance(value, tuple) and value and all(isinstance(v, Const) and type(v.value) is str for v in value):
                return tuple(v.value for v in value)
            return None
        if node.id in self.parsed.local_functions or node.id in self.emit.called:
            return None
        value = self.parsed.source.globals.get(node.id)
        if not isinstance(value, (list, tuple)) or not value or not all(type(v) is str for v in value):
            return None
        self.resolve(node)  # (the name remembered: built again when the module binds it anew)
        self.parsed.reads += [Read(value, k, v) for k, v in enumerate(value)]  # (and each key: a list changed)
        return tuple(value)

    def is_builtin_name(self, node: ast.Name, value) -> bool:
        """Whether a name is the builtin ``value`` here (no local or global of that name hides it)."""
        if node.id in self.emit.slots or node.id in self.emit.env or node.id in self.emit.pinned:
            return False
        return self.resolve(node) is value

    def global_constant(self, node: ast.Attribute):
        value = self.resolve(node)
        text = ast.unparse(node)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        canonical = next(
            (c for c, v in rules.CONSTANTS.items() if number and (v == value or (v != v and value != value))),
            None,
        )
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if canonical is None:  # a number of another module (cfg.SCALE), read when the code runs, by the
                self.read_attribute(node, value)  # module's own name (hl.K of helpers_local: helpers_local.K,
                base = self.resolve(node.value)  # which the namespace spells hl.K, or imports where written)
                if isinstance(base, types.ModuleType):
                    text = f"{base.__name__}.{node.attr}"
            return Const(value, canonical or text)
        if value is None and node.attr == "newaxis":  # np.newaxis: None, a new axis in an index
            return Const(None)
        if isinstance(value, str) and node.attr in NAMES:  # a function's name, as a wrapper prints it
            return Const(value)
        if isinstance(value, type) and value.__module__.split(".")[0] in ("builtins", "numpy"):
            return constant(value, text.replace(".", "_"))  # isinstance(x, np.ndarray): a type, a constant
        base = self.resolve(node.value) if type(value).__name__ == "ndarray" else None
        if isinstance(base, types.ModuleType) and isinstance(node.value, ast.Name):  # weights.W, an array of another
            self.read_attribute(node, value)  # module: read when the code runs, by the module's own name (an array
            return self.emit.apply("global", [], None, param=(base.__name__, (".", node.attr)))  # of another kind
            # bound there builds the code again)
        raise self.parsed.error(node, f"the attribute {text}", "use numbers and math functions")

    def read_attribute(self, node: ast.Attribute, value) -> None:
        """Remember that the code depends on ``module.attr`` being ``value`` (a helper of another module
        it calls, a number of another module it reads; see ``front.environment``)."""
        base = self.resolve(node.value)
        if isinstance(base, types.ModuleType):
            self.parsed.reads.append(Read(vars(base), node.attr, value))

    def resolve(self, node):
        """The object a global name or dotted module attribute refers to."""
        if isinstance(node, ast.Name):  # the code depends on what the name holds now (front.environment)
            glob = self.parsed.source.globals
            if node.id in glob:
                value = glob[node.id]
                self.parsed.reads.append(Read(glob, node.id, value))
                return value
            if hasattr(builtins, node.id):
                self.parsed.reads.append(Read(glob, node.id, ABSENT))
                return getattr(builtins, node.id)
            if node.id in self.emit.loop_names:
                raise self.parsed.error(
                    node,
                    f"the loop variable {node.id!r} read after its loop",
                    f"keep the value you need in another name inside the loop (last = {node.id}) and read that",
                )
            code = getattr(self.parsed.obj, "__code__", None)
            if code is not None and node.id in code.co_freevars:  # others are read from their cells (Closure)
                raise self.parsed.error(
                    node,
                    f"the variable {node.id!r} of an enclosing function, not yet assigned there",
                    f"assign {node.id} in the enclosing function before differentiating this one",
                )
            unread = unset_refusal(glob, node.id, self.parsed.source.filename)  # adc compile's reading of a file
            if unread is not None:
                raise self.parsed.error(node, *unread)
            raise self.parsed.error(node, f"the undefined name {node.id!r}", "define it before use")
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if not isinstance(base, types.ModuleType) and type(base).__module__.split(".")[0] == "numpy":
                raise self.parsed.error(  # a method of a NumPy object (np.add.at, np.random.rand)
                    node,
                    f"{ast.unparse(node)}, which has no derivative rule",
                    "write it with the NumPy functions adcompiler knows (see README), or give it rules with adcompiler.defrule",
                    MissingRuleError,
                )
            method = _class_function(base, node.attr)
            if method is not None:  # Dense.square(h), Pairs.both(obj, h): the function a class defines
                owner = next(k for k in base.__mro__ if node.attr in vars(k))  # (redefined there: built again)
                self.parsed.reads.append(Read(vars(owner), node.attr, vars(owner)[node.attr]))
                return method
            if node.attr == "value" and hasattr(base, "__adc_runs__"):  # d.value(x) of a Differentiable: d(x)
                return base.__adc_runs__
            if isinstance(base, types.FunctionType) and node.attr in NAMES:  # a decorator's print(fn.__name__)
                return getattr(base, node.attr)
            if isinstance(base, type) and isinstance(inspect.getattr_static(base, node.attr, None), classmethod):
                raise self.parsed.error(
                    node,
                    f"the class method {ast.unparse(node)} called through its class",
                    "make it a @staticmethod, or a function of the module, handed the numbers of the class it reads",
                )
            if not isinstance(base, types.ModuleType):
                raise self.parsed.error(
                    node,
                    f"the attribute access {ast.unparse(node)}",
                    "only module attributes such as math.pi or math.sin are supported",
                )
            unread = unset_refusal(vars(base), node.attr, self.parsed.source.filename)
            if unread is not None:
                raise self.parsed.error(node, *unread)
            if not hasattr(base, node.attr):
                raise self.parsed.error(
                    node,
                    f"{ast.unparse(node)} (no such attribute)",
                    "check the spelling",
                )
            value = getattr(base, node.attr)  # the code depends on what it is now (math.sin = cube: built again)
            self.parsed.reads.append(Read(vars(base), node.attr, value))
            return value
        raise self.parsed.error(node, "calling the result of an expression", "call a named function")


def _class_names(cls) -> set:
    """The names a user class and its bases (but ``object``) define, dunders aside."""
    return {k for c in cls.__mro__[:-1] for k in vars(c) if not k.startswith("__")}


def _class_function(base, name: str):
    """The function of a user class's method or static method ``name`` (``Dense.square``), or None."""
    if not isinstance(base, type) or base.__module__ in ("builtins", "numpy") or name.startswith("__"):
        return None
    found = inspect.getattr_static(base, name, None)
    found = getattr(found, "__adc_runs__", found)  # decorated with @adcompiler.differentiate: its function
    if isinstance(found, staticmethod):
        found = found.__func__
    return found if isinstance(found, types.FunctionType) else None


def _function(value) -> bool:
    """A function a loop over a list of them may call: one of the user's, a NumPy ufunc, a builtin."""
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType)) or type(value).__name__ == "ufunc"


def data_record(value) -> bool:
    """A record (``fields.record_fields``) whose leaves are numbers, arrays and lists of numbers, or such
    records, or lists and tuples of such records (a network's ``self.layers``): what a closure or the module
    may hold as constant parameters."""
    fields = record_fields(value) if not isinstance(value, (type, types.ModuleType)) else None
    if fields == {} and type(value) is not dict and _own_methods(type(value)):
        return True  # an object of a class of the user's with no attributes, its methods called through it
    if not fields or hasattr(value, "_fields") or not (type(value) is dict or hasattr(value, "__dict__")):
        return False  # (a NamedTuple's items are read by position: an ordinary tuple of the module)
    return all(
        type(v).__name__ == "ndarray"
        or isinstance(v, (int, float, str))
        or _numbers(v)
        or data_record(v)
        or isinstance(v, (list, tuple))
        and len(v) > 0
        and all(data_record(e) for e in v)
        for v in fields.values()
    )  # (a string among them, CONFIG["mode"]: a constant, as a string of the module is)


def _own_methods(cls) -> bool:
    """Whether a class (not a library's) defines a method of its own in a source file."""
    if (getattr(cls, "__module__", None) or "builtins").split(".")[0] in ("builtins", "numpy", "scipy", "typing"):
        return False
    return any(isinstance(v, types.FunctionType) for k in cls.__mro__[:-1] for v in vars(k).values())


def _numbers(value) -> bool:
    """Whether ``value`` is a list or tuple of numbers (nested), which the code reads as a constant."""
    if isinstance(value, (list, tuple)):
        return len(value) > 0 and all(_numbers(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


NAMES = ("__name__", "__qualname__")  # the attributes of a function read (as strs): a logging wrapper's
READERS = ("len", "sum", "max", "min", "sorted", "list", "tuple", "enumerate", "zip", "reversed")


def _read_only(name: ast.Name, fdef, resolve) -> bool:
    """Whether a list constant is only read where ``name`` reads it (indexed, iterated over, copied,
    combined into a new value, or handed to a builtin or NumPy function that reads it): the code reads
    it as a constant, so a change of it (or of an alias of it) would be missed."""
    parent = next((p for p in ast.walk(fdef) for c in ast.iter_child_nodes(p) if c is name), None)
    if isinstance(parent, ast.Subscript):
        return parent.value is name and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is name
    if isinstance(parent, (ast.BinOp, ast.Compare)):
        return True
    if isinstance(parent, ast.Call) and name in parent.args:
        func = parent.func
        if isinstance(func, ast.Name) and func.id in READERS:
            return True
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        module = resolve(root) if isinstance(root, ast.Name) and root is not func else None
        return isinstance(module, types.ModuleType) and module.__name__.split(".")[0] == "numpy"
    return False


def local_root(node, emit) -> bool:
    """Whether an expression is rooted in a local variable (so ``.attr`` is a method of a value)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and (node.id in emit.env or node.id in emit.slots)


def module_path(node, emit) -> bool:
    """Whether ``node`` is a dotted path of global names (``np``, ``np.linalg``): a module, not a value
    (a module's array, ``W`` in ``W.T``, is a value, and so is an object of the module whose attributes are
    numbers, arrays and such objects, ``K`` in ``K.k(a, b)`` and ``net.l1.W``: its method called through it)."""
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not (isinstance(root, ast.Name) and root.id not in emit.env and root.id not in emit.slots):
        return False
    value = emit.parsed.source.globals.get(root.id)
    if type(value).__name__ != "dict" and data_record(value):  # (q.inner.W: of an object it holds too)
        return False
    if node is root and isinstance(value, tuple) and hasattr(value, "_fields"):  # ORIGIN.x of a NamedTuple: a value
        return False
    return not (node is root and type(value).__name__ == "ndarray")


def callable_object(value) -> bool:
    """Whether ``value`` is an object of numbers and arrays (``names.data_record``) whose class defines
    ``__call__``: a network the module holds, called as ``net(x)``."""
    call = inspect.getattr_static(type(value), "__call__", None)
    return isinstance(call, types.FunctionType) and type(value).__name__ != "dict" and data_record(value)
