"""What a module written by ``adc compile`` holds besides the derivatives: the user's functions its code
calls (their source), and the module constants those and the derivatives read (numbers, and NumPy
arrays as exact literals)."""

from __future__ import annotations

import ast
import copy
import inspect
import re
import sys
import types
from pathlib import Path

from ..compile.pipeline import Program, primal_source
from ..errors import UnsupportedSyntaxError
from ..front.environment import same_values
from ..front.fields import record_fields
from ..lower.names import data_record


def primal_helpers(program: Program, module, constant=lambda value: value) -> dict:
    """Source of the user functions generated code calls, and the globals they read, each global's value as
    ``constant`` gives it (the target's: Numba's code takes a list as an array)."""
    functions, constants, seen = [], [], set()
    pending = [fn for fn in program.primal_names]
    read = constant_names(program)
    pending += [program.globals[n] for n in read if n in program.globals]
    while pending:
        item = pending.pop(0)
        if isinstance(item, types.FunctionType):
            if item in seen:
                continue
            if getattr(item, "__adc_runtime_only__", None):  # a rule adcompiler computes as it runs
                raise SystemExit(f"adc: {item.__adc_runtime_only__}")
            seen.add(item)
            imported = _library_import(item, program.primal_names.get(item) or item.__name__, module)
            if imported is not None:  # (a library's function: imported, as the user's module does)
                constants.append(imported)
                continue
            text = _primal_source(item, program.primal_names.get(item))
            text = _closure_written(program, item, text, pending, constants, read, constant)
            text = _unannotated(text)
            functions.append(_helpers_named(program, item, text))
            for name in sorted({n.id for n in ast.walk(ast.parse(functions[-1])) if isinstance(n, ast.Name)}):
                value = item.__globals__.get(name)
                if isinstance(value, types.FunctionType) and value not in seen:
                    pending.append(value)
                elif isinstance(value, types.ModuleType):
                    program.ns.used.setdefault(
                        name,
                        (
                            f"import {value.__name__}"
                            if name == value.__name__
                            else f"import {value.__name__} as {name}"
                        ),
                    )
                else:
                    line = constant_line(program, name, constant(value))
                    if line is not None and line not in constants:
                        constants.append(line)
    for name, value in read.items():
        if isinstance(value, types.ModuleType):  # weights.W, an array of another module: read through it
            imported = f"import {value.__name__}" if name == value.__name__ else f"import {value.__name__} as {name}"
            program.ns.used.setdefault(name, imported)
            continue
        line = constant_line(program, name, constant(value))
        if line is None:  # (read by the generated code: the module would fail with a NameError)
            raise SystemExit(
                f"adc: the global {name} ({type(value).__name__}) cannot be written into the "
                "module: give it numbers, NumPy arrays, lists of numbers, or dicts and objects of those; or pass it "
                "to the function as an argument"
            )
        if line not in constants:
            constants.append(line)
    for name, supplied in program.ns.constants.items():  # an array default of a parameter, a class read by getattr
        line = constant_line(program, name, constant(supplied.value))
        if line is None:
            raise SystemExit(f"adc: the default {supplied.value!r} of a parameter cannot be written into the module")
        constants.append(line)
    return {"functions": ["\n\n" + f for f in functions], "constants": constants}


MAX_CONSTANT_ARRAY = 10_000  # elements of a global array written into the module as a literal


def constant_line(program: Program, name: str, value) -> str | None:
    """The line that gives the written module the user's global ``name``: a number, a NumPy array of
    numbers or a list or tuple of numbers as an exact literal (floats round-trip through repr), a dict or
    an object of those (``params["W"]``, ``net.first.W``: generated code reads their items by key and
    attribute) as a dict and a ``types.SimpleNamespace``; None for anything else."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{name} = {_exact(value)}"
    if type(value) is str:
        return f"{name} = {value!r}"
    if isinstance(value, type) and value.__module__ == "builtins":  # isinstance(x, float): the type by its name
        return f"{name} = {value.__name__}"
    if isinstance(value, type) and getattr(sys.modules.get("numpy"), value.__name__, None) is value:  # np.ndarray
        return f"{name} = {program.ns.module_alias('numpy')}.{value.__name__}"
    if data_record(value):
        text = _record_literal(program, name, value)
        return None if text is None else f"{name} = {text}"
    if isinstance(value, type) and value.__module__ not in ("builtins", "numpy"):  # a class whose attributes the
        parts = []  # code reads (getattr(Osc, "omega") of self.omega): its numbers, arrays and strings
        for key in sorted(k for k in dir(value) if not k.startswith("__")):
            item = getattr(value, key)
            line = constant_line(program, name, item) if not isinstance(item, str) else f"{name} = {item!r}"
            if line is not None and not callable(item):
                parts.append(f"{key}={line.split(' = ', 1)[1]}")
        return f"{name} = {program.ns.module_alias('types')}.SimpleNamespace({', '.join(parts)})"
    if type(value).__name__ == "ndarray" and value.dtype.kind in "biuf":
        if value.size > MAX_CONSTANT_ARRAY:
            raise SystemExit(
                f"adc: the global array {name} ({value.size} elements) is too large to write into the module; "
                "pass it to the function as an argument"
            )
        np = program.ns.module_alias("numpy")
        return f"{name} = {np}.array({_exact(value.tolist())}, dtype={np}.{value.dtype.name})"
    if isinstance(value, tuple) and hasattr(value, "_fields") and _numbers(tuple(value)):  # ORIGIN = Point(1.0, 2.0)
        fields = " ".join(value._fields)  # (read as ORIGIN.x or ORIGIN[0]: a namedtuple of its fields)
        made = f"{program.ns.module_alias('collections')}.namedtuple({type(value).__name__!r}, {fields!r})"
        return f"{name} = {made}{_exact(tuple(value))}"
    if isinstance(value, (list, tuple)) and _numbers(value):  # WEIGHTS = [0.2, 0.3, 0.5]: as it is (repr)
        if len(repr(value)) > 20 * MAX_CONSTANT_ARRAY:
            raise SystemExit(
                f"adc: the global {type(value).__name__} {name} is too large to write into the module; "
                "pass it to the function as an argument"
            )
        return f"{name} = {_exact(value)}"
    return None


def _exact(value) -> str:
    """A number, or a list or tuple (nested) of numbers, as Python source giving it back exactly: ``repr``,
    but infinities and NaN as ``float("inf")``, ``-float("inf")``, ``float("nan")`` (repr's ``inf`` is no name)."""
    if isinstance(value, list):
        return "[" + ", ".join(map(_exact, value)) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_exact, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, float) and value != value:
        return 'float("nan")'
    if isinstance(value, float) and value in (float("inf"), -float("inf")):
        return 'float("inf")' if value > 0 else '-float("inf")'
    return repr(value)


def _record_literal(program: Program, name: str, value) -> str | None:
    """``value``, a dict or an object whose items are numbers, arrays, lists of numbers and such records, as
    an expression; None where an item is none of these."""
    parts = []
    for key, item in record_fields(value).items():
        if data_record(item):
            text = _record_literal(program, f"{name}.{key}", item)
        elif isinstance(item, (list, tuple)) and item and all(data_record(e) for e in item):  # net.layers
            texts = [_record_literal(program, f"{name}.{key}[{k}]", e) for k, e in enumerate(item)]
            text = None if None in texts else _exact_list(texts, type(item))
        else:
            line = constant_line(program, name, item)
            text = None if line is None else line.split(" = ", 1)[1]
        if text is None:
            return None
        parts.append(f"{key!r}: {text}" if type(value) is dict else f"{key}={text}")
    if type(value) is dict:
        return "{" + ", ".join(parts) + "}"
    return f"{program.ns.module_alias('types')}.SimpleNamespace({', '.join(parts)})"  # (its attributes read only)


def _exact_list(texts: list, kind: type) -> str:
    """Expressions as the source of a list (or a tuple) of them."""
    return (
        "[" + ", ".join(texts) + "]"
        if kind is list
        else "(" + ", ".join(texts) + ("," if len(texts) == 1 else "") + ")"
    )


def _numbers(value) -> bool:
    """Whether ``value`` is a list or tuple (nested) of Python numbers only, which ``repr`` writes exactly."""
    if type(value) in (list, tuple):
        return all(_numbers(v) for v in value)
    return type(value) in (int, float, bool)


def _helpers_named(program: Program, fn, text: str) -> str:
    """``text`` of generated code a nested derivative runs (no file of its own) with the runtime helpers it
    calls defined by the module too, under their names there; a user's function's text as it is."""
    filename = inspect.getsourcefile(fn) or ""
    if Path(filename).is_file():
        return text
    from ..targets.python.runtime import HELPERS

    for helper in sorted(HELPERS):
        if re.search(rf"(?<![.\w]){helper}\(", text):
            alias = program.helper(helper)
            text = re.sub(rf"(?<![.\w]){helper}\(", f"{alias}(", text) if alias != helper else text
    return text


def _library_import(fn, name: str, module) -> str | None:
    """The line importing ``fn`` under ``name`` where it is a library's function, None where its source is
    copied: the user's own (in the compiled file's folder, or its package's), generated code (a nested derivative's, a
    custom_vjp's adapter) and adcompiler's NumPy functions written in Python (``rules.numpy_written``).  A
    function none of these (a rule adcompiler makes as the code runs, a closure) stops ``adc compile``."""
    try:
        where = Path(inspect.getsourcefile(fn) or "").resolve()
    except TypeError:
        where = None
    ours = (getattr(fn, "__module__", None) or "").startswith("adcompiler.")
    if where is not None and not where.is_file():
        return None
    if ours and "<" not in fn.__qualname__:
        return None
    home = Path(getattr(module, "__file__", "") or ".").resolve().parent
    while (home / "__init__.py").is_file() and (home.parent / "__init__.py").is_file():
        home = home.parent  # (a file of a package: the user's own code is the whole package, from ..h import hh)
    if not ours and where is not None and home in where.parents:
        return None
    owner = sys.modules.get(getattr(fn, "__module__", None) or "")
    if not ours and owner is not None and "<" not in fn.__qualname__ and _attribute(owner, fn.__qualname__) is fn:
        head, _, rest = fn.__qualname__.partition(".")
        if not rest:
            return f"from {owner.__name__} import {head}" + (f" as {name}" if name != head else "")
    described = getattr(fn, "__qualname__", repr(fn))
    raise Unwritable(
        f"a derivative calling {described} (of {fn.__module__}), which adcompiler makes as the code runs (a"
        " derivative rule of a library function, such as scipy.special's), and so cannot write into a module",
        "differentiate it with adcompiler.differentiate(f) in Python",
        getattr(module, "__file__", "") or "",
        1,
        0,
    )


class Unwritable(UnsupportedSyntaxError):
    """Derivative code the written module cannot hold (a rule adcompiler makes as it runs): ``adc compile``
    leaves the function out, at its own line (``cli.main._refusals``), and writes the others."""


def _attribute(owner, dotted: str):
    for part in dotted.split("."):
        owner = getattr(owner, part, None)
    return owner


def _primal_source(fn, name) -> str:
    """A user function's source; a local function's as lifted out (front.closures), under its name here
    (without its decorators: the code calls the function itself)."""
    lifted = getattr(fn, "__adc_lifted__", None)
    if lifted is None:  # (generated code a nested derivative runs: under the name the code calls it by)
        text = primal_source(fn)
        if not name or name == fn.__name__:
            return text
        if _wrapping(fn.__globals__.get(fn.__name__), fn):  # its module's name is a wrapper of it (@functools.cache):
            tree = ast.parse(text)  # its calls of itself by that name call it under its name here
            for node in ast.walk(tree):
                if isinstance(node, ast.Name) and node.id == fn.__name__:
                    node.id = name
            text = ast.unparse(tree) + "\n"
        return text.replace(f"def {fn.__name__}(", f"def {name}(", 1)
    node = copy.deepcopy(lifted[0])
    node.name, node.decorator_list = name or node.name, []
    return ast.unparse(node) + "\n"


def _wrapping(value, fn) -> bool:
    """Whether ``value`` is a wrapper of ``fn`` (through ``__wrapped__``, as ``functools.wraps`` and the caches
    set it), not ``fn`` itself."""
    seen = 0
    while value is not None and value is not fn and seen < 16:
        value, seen = getattr(value, "__wrapped__", None), seen + 1
    return value is fn and seen > 0


def _unannotated(text: str) -> str:
    """A copied function's ``text`` without its annotations (``-> Stats``: a class of the file the module
    does not define, which would fail its import); the text as it is where it has none."""
    tree = ast.parse(text)
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    annotated = [a for f in functions for a in ast.walk(f.args) if isinstance(a, ast.arg) and a.annotation]
    returns = [f for f in functions if getattr(f, "returns", None) is not None]
    if not (annotated or returns):  # (a local's annotation, x: Stats = ..., is never evaluated: kept)
        return text
    for a in annotated:
        a.annotation = None
    for f in returns:
        f.returns = None
    return ast.unparse(tree) + "\n"


def _closure_written(program: Program, fn, text: str, pending: list, constants: list, read: dict, constant) -> str:
    """``text``, a closure's source (a decorator's wrapper calling ``fn`` of the decorator), with each
    variable of the enclosing function it reads written into the module: a function as one more function
    of the module (``pending``), a number or array as a constant line (``constants``; one the derivatives
    read by its name already, ``read``, is that line: not written twice), each read by the name it has
    there; anything else stops ``adc compile`` with the reason (the module would not run)."""
    if not Path(inspect.getsourcefile(fn) or "").is_file():  # generated code (a nested derivative's): its
        return text  # closure holds the helpers and builtins it was loaded with (_helpers_named names them)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells = {name: cell for name, cell in cells.items() if not name.startswith("__adc_")}
    if not cells:
        return text
    renamed = {}
    for name, cell in cells.items():
        try:
            value = cell.cell_contents
        except ValueError:  # (never assigned)
            value = None
        if isinstance(value, types.FunctionType):
            renamed[name] = program.primal_name(value)
            pending.append(value)
            continue
        if name in read and read[name] is value:  # (the same object the derivatives read by this name)
            continue
        fresh = program.module.fresh(name)
        line = constant_line(program, fresh, constant(value))
        if line is None:
            raise SystemExit(
                f"adc: {fn.__qualname__} reads {name} of the function that made it, a {type(value).__name__}, which "
                "cannot be written into the module: give it numbers, arrays or functions, or pass it as an argument"
            )
        constants.append(line)
        renamed[name] = fresh
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]
    return ast.unparse(tree) + "\n"


def _set(cell) -> bool:
    """Whether a closure's cell holds a value (its enclosing function has assigned it)."""
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def constant_names(program: Program) -> dict:
    """The names the lowered functions read numbers and arrays by -> their values: user globals (an array, a
    dict read by key: by its root) and the numbers an enclosing function's variables hold (``k`` of a
    decorator factory's closure, read by its name)."""
    from ..ir.nodes import Const, Eq, flatten, walk
    from ..ir.supplied import known

    # the variables of enclosing functions the code reads, by the names it reads them by (a list a factory's
    # closure holds; two factories' k, k and k_1: Program.cell_name)
    cells = {text: cell.cell_contents for text, cell in program.cells.values() if _set(cell)}
    names: dict = {}
    for function in program.anf_cache.values():
        for stmt in walk(function.body):
            if isinstance(stmt, Eq) and stmt.prim == "global":  # a global array, read by name (a dict's: by its)
                root = stmt.param if isinstance(stmt.param, str) else stmt.param[0]
                names.setdefault(root, program.globals[root] if root in program.globals else cells.get(root))
            fields = ("ins",) if isinstance(stmt, Eq) else ("value", "test", "start", "stop", "step")
            atoms = flatten(tuple(getattr(stmt, f, None) for f in fields))  # range(N), while x < TOL, return C
            for a in atoms:
                if isinstance(a, Const) and a.text and "." not in a.text:
                    value = known(a)  # (the number it was read as: a module's, or a closure's cell's)
                    if a.text in names and not same_values(names[a.text], value):
                        raise SystemExit(
                            f"adc: two functions written into the module read different values named {a.text} "
                            f"({names[a.text]!r} and {value!r}: of the module and of a function that made one, or of "
                            "two closures); rename one of them"
                        )
                    names.setdefault(a.text, value)
    return names
