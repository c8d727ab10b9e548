"""The array-API target (``arrays="any"``): generated NumPy source -> source that calls the array
namespace of its arguments, so that it runs on Dask, CuPy, array-api-strict or NumPy arrays.

The rule, on the emitted text (comments and layout kept; the modes stay target-free):

* every call of a NumPy function, however the user's module spells it (``np.sin``, ``numpy.sin``,
  ``from numpy import sin``), becomes the array API standard's function of ``xp``, the namespace
  each generated function takes from its arguments first (``xp = namespace(x, y, ...)``), under the
  standard's name (``np.arcsin`` -> ``xp.asin``, ``np.concatenate`` -> ``xp.concat``,
  ``np.power`` -> ``xp.pow``); a few without a standard function of the same meaning
  (``np.shape``, ``np.transpose``, ``np.dot``, ``np.copy``, ...) become helpers written with it;
  NumPy's dtypes become ``xp``'s (``np.float32`` -> ``xp.float32``);
* the NumPy runtime helpers are replaced by their array-API versions (``runtime_xp``);
* anything else of NumPy (a function outside the standard, ``np.linalg``, ``np.random``, a helper
  with no array-API version) is refused: ``NotInStandard`` says what and at which generated line,
  which ``arrays_backend`` turns into an error located in the user's file.

NumPy numbers the code reads (``np.pi``, ``np.inf``) stay as they are: they are Python floats.
"""

from __future__ import annotations

import ast
import importlib
import re

from ..python.runtime import HELPERS
from .runtime import XP_HELPERS
from ...rules.families import REGISTRY

SAME = frozenset(  # NumPy's functions generated code calls that are the standard's (the records: RENAMED below)
    "acos acosh all any asin asinh atan atan2 atanh broadcast_arrays concat cumulative_sum empty_like "
    "matrix_transpose meshgrid nonzero permute_dims pow vecdot".split()
)
RENAMED: dict = {}
BY_HELPER: dict = {}  # a NumPy function -> the helper that computes it under arrays="any" (the records')
KEYWORDS: dict = {}  # NumPy's keyword -> the standard's
# The primitives written as records (rules.families): the standard's function (its name there), or a
# helper of theirs, and NumPy's keywords the standard names otherwise
RENAMED.update(
    {p.numpy_name: p.array_api[len("xp.") :] for p in REGISTRY.values() if (p.array_api or "").startswith("xp.")}
)
BY_HELPER.update({p.numpy_name: p.array_api for p in REGISTRY.values() if p.array_api and p.array_api[:3] != "xp."})
KEYWORDS.update({p.numpy_name: dict(p.array_api_keywords) for p in REGISTRY.values() if p.array_api_keywords})
REFUSALS = {p.numpy_name: p.refusals["array_api"] for p in REGISTRY.values() if "array_api" in p.refusals}  # why not
DTYPES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128".split()
)
_CALLED = re.compile(r"(?<![.\w])(\w+)\(")


class NotInStandard(Exception):
    """A NumPy construct of generated code with no array-API formulation here: what it is, and the
    line of the generated source where it is (the source line commented above it is the user's)."""

    def __init__(self, construct: str, line: int):
        super().__init__(construct)
        self.construct, self.line = construct, line


def translate(source: str, helpers: dict, fresh, globals_: dict) -> str:
    """The array-API form of generated ``source``: ``helpers`` maps each runtime helper's name to its
    name in the source, ``fresh(name)`` gives a module-level name nothing clashes with, ``globals_``
    is the module the code runs in (where ``np`` is bound)."""
    tree = ast.parse(source)
    lines = source.encode().splitlines(keepends=True)
    imports = {a.asname or a.name: a.name for s in tree.body if isinstance(s, ast.Import) for a in s.names}
    aliases = {alias: name for name, alias in helpers.items()}
    names = dict(helpers)  # helper -> its name in the translated module
    xp, edits, needed = fresh("xp"), [], {"namespace"}

    def name_of(helper: str) -> str:
        if helper not in names:
            names[helper] = fresh(helper)
        needed.add(helper)
        return names[helper]

    defs = [s for s in tree.body if isinstance(s, ast.FunctionDef)]
    for stmt in sorted(defs, key=lambda s: s.name in aliases):  # the user's constructs reported first
        helper = aliases.get(stmt.name)
        if helper is not None:
            if helper in XP_HELPERS:
                edits.append((stmt.lineno, 0, stmt.end_lineno + 1, 0, ""))  # its array-API version is added
                needed.add(helper)
            elif "numpy" in HELPERS[helper] and helper != "reject_ints":
                raise NotInStandard(f"the runtime helper {helper} (NumPy only)", _first_call(tree, stmt.name))
            continue
        rewrite = _Rewrite(xp, imports, globals_, _bound(stmt), name_of)
        rewrite.visit(stmt)
        edits += rewrite.edits
        if rewrite.edits:
            first = stmt.body[0]
            docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            at = first.end_lineno + 1 if docstring else first.lineno
            params = ", ".join(a.arg for a in stmt.args.posonlyargs + stmt.args.args + stmt.args.kwonlyargs)
            text = f"{' ' * first.col_offset}{xp} = {name_of('namespace')}({params})\n"
            edits.append((at, 0, at, 0, text))
    _close(needed)
    for helper in needed:
        name_of(helper)
    order = ["namespace"] + sorted(needed - {"namespace"})
    added = "".join(_renamed(XP_HELPERS[h], names) + "\n\n" for h in order)
    first = next((s.lineno for s in tree.body if isinstance(s, ast.FunctionDef)), len(lines) + 1)
    edits.append((first, 0, first, 0, added))  # after the module's docstring and imports
    return _apply(lines, edits)


class _Rewrite(ast.NodeVisitor):
    """The edits that turn one generated function's NumPy references into ``xp``'s."""

    def __init__(self, xp: str, imports: dict, globals_: dict, bound: set, name_of):
        self.xp, self.imports, self.globals, self.bound, self.name_of = xp, imports, globals_, bound, name_of
        self.edits: list = []
        self.keywords: dict = {}  # a NumPy function's reference -> its keywords' names in the standard

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func  # x.copy() of an array (the seed 1.0 folded into np.multiply(1.0, x)): not a standard method
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr == "copy" and not node.args:
            text = f"{self.name_of(BY_HELPER['copy'])}({f.value.id})"
            self.edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text))
        elif isinstance(f, ast.Attribute) and f.attr in ("sum", "max", "min") and not node.args and not node.keywords:
            # x.sum() of generated code (optimize.known_arrays): xp.sum(x), around the edits inside x
            start, end = node.end_col_offset - len(f".{f.attr}()"), node.end_col_offset
            self.edits.append((node.lineno, node.col_offset, node.lineno, node.col_offset, f"{self.xp}.{f.attr}("))
            self.edits.append((node.end_lineno, start, node.end_lineno, end, ")"))
        for k in node.keywords:
            renamed = self.keywords.get(node.func, {}).get(k.arg)
            if renamed is not None:
                self.edits.append((k.lineno, k.col_offset, k.lineno, k.col_offset + len(k.arg), renamed))

    def visit_Attribute(self, node):
        if not self._numpy(node):
            self.generic_visit(node)

    def visit_Name(self, node):
        self._numpy(node)

    def _numpy(self, node) -> bool:
        """Rewrite ``node`` if it is a reference to NumPy (True), else leave it (False)."""
        obj = self._resolve(node)
        module = getattr(obj, "__module__", None) or ""
        if module.split(".")[0] != "numpy" or not callable(obj):
            return False
        name = getattr(obj, "__name__", "")
        if isinstance(obj, type):
            if name not in DTYPES:
                raise NotInStandard(f"NumPy's {name}", node.lineno)
            text = f"{self.xp}.{name}"
        elif module != "numpy":
            raise NotInStandard(
                f"{module.replace('numpy', 'np')}.{name} (not in the array API standard here)", node.lineno
            )
        elif name in BY_HELPER:
            text = self.name_of(BY_HELPER[name])
        elif name in SAME or name in RENAMED:
            text = f"{self.xp}.{RENAMED.get(name, name)}"
            self.keywords[node] = KEYWORDS.get(name, {})
        elif name in REFUSALS:
            raise NotInStandard(f"np.{name} ({REFUSALS[name]})", node.lineno)
        else:
            raise NotInStandard(f"np.{name} (not in the array API standard)", node.lineno)
        self.edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text))
        return True

    def _resolve(self, node):
        """The object a dotted name of the module reads (None: a local, or not a module's name)."""
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.bound:
            return None
        if node.id in self.imports:
            obj = importlib.import_module(self.imports[node.id])
        elif node.id in self.globals:
            obj = self.globals[node.id]
        else:
            return None
        for attr in reversed(chain):
            obj = getattr(obj, attr, None)
        return obj


def _bound(fdef: ast.FunctionDef) -> set:
    """The names a generated function binds itself (its parameters and variables)."""
    args = fdef.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def _first_call(tree: ast.Module, name: str) -> int:
    """The line of the first call of ``name`` outside its own definition."""
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name != name:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name:
                    return n.lineno
    return 0


def _close(needed: set) -> None:
    """Add to ``needed`` the helpers the helpers in it call."""
    todo = list(needed)
    while todo:
        for called in _CALLED.findall(XP_HELPERS[todo.pop()]):
            if called in XP_HELPERS and called not in needed:
                needed.add(called)
                todo.append(called)


def _renamed(text: str, names: dict) -> str:
    """A helper's source with every helper it defines or calls under its module name."""
    return _CALLED.sub(lambda m: f"{names.get(m.group(1), m.group(1))}(", text)


def _apply(lines: list, edits: list) -> str:
    """``lines`` (bytes, one per source line) with each ``(line, col, end_line, end_col, text)``
    span replaced, positions as ``ast`` gives them (UTF-8 columns), the last edit first."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    data = b"".join(lines)
    for line, col, end_line, end_col, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        a, b = starts[line - 1] + col, starts[end_line - 1] + end_col
        data = data[:a] + text.encode() + data[b:]
    return data.decode()
