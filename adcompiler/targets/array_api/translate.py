"""The array-API target (``arrays="any"``): generated code that calls the array namespace of its
arguments, so that it runs on Dask, CuPy, array-api-strict or NumPy arrays.

The rule, on the generated functions' IR (``functions``: the modes stay target-free, and a refusal
is told at the user's line its statement came from), and on the text of the user's functions
``adc compile`` copies into the module it writes (``copied``: their comments and layout kept):

* every call of a NumPy function, however the user's module spells it (``np.sin``, ``numpy.sin``,
  ``from numpy import sin``), becomes the array API standard's function of ``xp``, the namespace
  each generated function takes from its arguments first (``xp = namespace(x, y, ...)``), under the
  standard's name (``np.arcsin`` -> ``xp.asin``, ``np.concatenate`` -> ``xp.concat``,
  ``np.power`` -> ``xp.pow``); a few without a standard function of the same meaning
  (``np.shape``, ``np.transpose``, ``np.dot``, ``np.copy``, ...) become helpers written with it;
  NumPy's dtypes become ``xp``'s (``np.float32`` -> ``xp.float32``);
* the NumPy runtime helpers are replaced by their array-API versions (``runtime``: ``helper_texts``);
* anything else of NumPy (a function outside the standard, ``np.linalg``, ``np.random``, a helper
  with no array-API version) is refused: ``NotInStandard`` says what and at which line, which
  ``backend`` turns into an error located in the user's file.

NumPy numbers the code reads (``np.pi``, ``np.inf``) stay as they are: they are Python floats.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import importlib
import re

from ..python.runtime import HELPERS
from .runtime import XP_HELPERS
from ...compile.lines import named_arguments
from ...ir import expr as E
from ...ir.nodes import Assign, Comment, Def
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
    """A NumPy construct with no array-API formulation here: what it is, and its line (the user's, for
    the generated functions; the copied text's, for ``copied``)."""

    def __init__(self, construct: str, line: int):
        super().__init__(construct)
        self.construct, self.line = construct, line


def spelling(obj, line: int):
    """How code under arrays="any" spells the object ``obj`` a name of generated code reads: None
    where it is not NumPy's (left as it is), ``("xp", name, keywords)`` for the standard's function
    ``xp.name`` (``keywords``: NumPy's keywords the standard names otherwise), ``("xp", name, None)``
    for a dtype, ``("helper", h)`` for the runtime helper ``h`` that computes it; else NotInStandard."""
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] != "numpy" or not callable(obj):
        return None
    name = getattr(obj, "__name__", "")
    if isinstance(obj, type):
        if name not in DTYPES:
            raise NotInStandard(f"NumPy's {name}", line)
        return ("xp", name, None)
    if module != "numpy":
        raise NotInStandard(f"{module.replace('numpy', 'np')}.{name} (not in the array API standard here)", line)
    if name in BY_HELPER:
        return ("helper", BY_HELPER[name])
    if name in SAME or name in RENAMED:
        return ("xp", RENAMED.get(name, name), KEYWORDS.get(name, {}))
    if name in REFUSALS:
        raise NotInStandard(f"np.{name} ({REFUSALS[name]})", line)
    raise NotInStandard(f"np.{name} (not in the array API standard)", line)


def refused_helper(helper: str) -> bool:
    """Whether the runtime helper ``helper`` has no array-API version and needs NumPy."""
    return helper not in XP_HELPERS and "numpy" in HELPERS[helper] and helper != "reject_ints"


# ---- the generated functions, on the IR ----------------------------------------------------------


def functions(defs: list, helpers: dict, helper, xp: str) -> list:
    """The array-API form of the generated functions ``defs`` (``helpers``: each runtime helper's
    name in the module; ``helper(h)``: that name, made on first use; ``xp``: the name of the namespace
    in each function).  A runtime helper with no array-API version is refused after every NumPy
    construct of the user's (those first)."""
    aliases = {alias: name for name, alias in helpers.items()}
    translations = [_Functions(xp, aliases, helper) for _ in defs]
    out = [t.function(d) for t, d in zip(translations, defs)]
    for t in translations:
        if t.refused is not None:
            raise t.refused
    return out


class _Functions:
    """One generated function's translation (``function``): its expressions mapped innermost first,
    the line of the statement being mapped kept for a refusal."""

    def __init__(self, xp: str, aliases: dict, helper):
        self.xp, self.aliases, self.helper = xp, aliases, helper
        self.line, self.changed, self.refused = 0, False, None

    def function(self, d: Def) -> Def:
        self.line = min(d.source.lines, default=0) if d.source is not None else 0
        body = self.mapped(d.body)
        if not self.changed:
            return d
        params = [p for p in d.params if not p.startswith("*")]
        at, line = 0, 0  # after the docstring; else after the comments and with the line of the first statement
        if not d.doc:
            at = next((k for k, s in enumerate(body) if not isinstance(s, Comment)), len(body))
            line = getattr(body[at], "line", 0) if at < len(body) else 0
        first = Assign((self.xp,), E.Call("@namespace", tuple(E.Name(p) for p in params)), line)
        return dataclasses.replace(d, body=body[:at] + (first,) + body[at:])

    def mapped(self, obj):
        """``obj`` (statements, expressions, their tuples) with NumPy's constructs in ``xp``'s spelling."""
        if isinstance(obj, tuple):
            items = [self.mapped(x) for x in obj]
            return obj if all(m is x for m, x in zip(items, obj)) else tuple(items)
        if isinstance(obj, E.Num):
            return self.number(obj)
        if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
            return obj
        if getattr(obj, "line", 0):
            self.line = obj.line
        changed = {}
        for part in dataclasses.fields(obj):
            if part.compare:  # (a Def's source, a Source's globals: not code)
                value = getattr(obj, part.name)
                mapped = self.mapped(value)
                if mapped is not value:
                    changed[part.name] = mapped
        made = dataclasses.replace(obj, **changed) if changed else obj
        if isinstance(made, E.Call):
            return self.call(made)
        if isinstance(made, E.Method) and not made.args and not made.keywords:
            if made.name == "copy":  # x.copy() of an array (the seed 1.0 folded into np.multiply(1.0, x))
                self.changed = True
                return E.Call("@" + BY_HELPER["copy"], (made.obj,))
            if made.name in ("sum", "max", "min"):  # x.sum() of generated code (optimize.known_arrays)
                self.changed = True
                return E.Method(E.Name(self.xp), made.name, (made.obj,))
        return made

    def call(self, e: E.Call):
        helper = e.func[1:] if e.func.startswith("@") else self.aliases.get(e.func)
        if helper is not None:
            if self.refused is None and refused_helper(helper):
                self.refused = NotInStandard(f"the runtime helper {helper} (NumPy only)", self.line)
            return e
        spelt = spelling(_resolved(e.func), self.line)
        if spelt is None:
            return e
        self.changed = True
        e = named_arguments(e)  # (the keywords as the NumPy call is written)
        if spelt[0] == "helper":
            return E.Call("@" + spelt[1], e.args, e.keywords)
        renamed = spelt[2] or {}
        keywords = tuple((renamed.get(k, k), self.dtype(v) if k == "dtype" else v) for k, v in e.keywords)
        return E.Method(E.Name(self.xp), spelt[1], e.args, keywords)

    def dtype(self, e):
        """A dtype named by Python's type (``dtype=float``): the standard's (``xp.float64``)."""
        python = e.value if isinstance(e, E.Num) else getattr(builtins, e.id, None) if isinstance(e, E.Name) else None
        name = _PYTHON_DTYPES.get(python) if isinstance(python, type) else None  # (E.Name("float"): generated code's)
        return E.Attr(E.Name(self.xp), name) if name is not None else e

    def number(self, e: E.Num):
        """A NumPy object generated code reads as a value (a dtype): ``xp``'s; NumPy's numbers stay."""
        if e.text is None or not e.text.startswith("numpy."):
            return e
        spelt = spelling(_resolved(e.text), self.line)
        if spelt is None:
            return e
        self.changed = True
        return E.Name(self.helper(spelt[1])) if spelt[0] == "helper" else E.Attr(E.Name(self.xp), spelt[1])


_PYTHON_DTYPES = {float: "float64", int: "int64", bool: "bool", complex: "complex128"}


def _resolved(canonical: str):
    """The object a canonical dotted name (``numpy.sin``) names, or None."""
    module, dot, attr = canonical.rpartition(".")
    if not dot:
        return None
    try:
        return getattr(importlib.import_module(module), attr, None)
    except ImportError:
        return None


def helper_texts(wanted: list, helper, python_text) -> list:
    """The runtime helpers' source for a module whose functions call ``wanted`` (``(helper, its name)``
    pairs): the array-API version of each that has one (and of those they call), ``namespace``
    first, then those with none that need no NumPy (``python_text(helper, name)``: their source).
    ``helper(h)``: the module's name of helper ``h`` (made on first use)."""
    needed = {"namespace"} | {h for h, _ in wanted if h in XP_HELPERS}
    _close(needed)
    order = ["namespace"] + sorted(needed - {"namespace"})
    names = {h: helper(h) for h in order} | dict(wanted)
    added = [_renamed(XP_HELPERS[h], names) for h in order]
    return added + [python_text(h, alias) for h, alias in wanted if h not in XP_HELPERS and not refused_helper(h)]


# ---- the user's functions adc compile copies, on their text ---------------------------------------


def copied(source: str, helper, xp: str, globals_: dict) -> str:
    """The array-API form of the source of the user's functions ``source`` (copied into a written
    module: the generated code calls them), comments and layout kept; ``helper(h)``: the module's
    name of the runtime helper ``h``, ``globals_``: the module they read (where ``np`` is bound)."""
    tree = ast.parse(source)
    lines = source.encode().splitlines(keepends=True)
    imports = {a.asname or a.name: a.name for s in tree.body if isinstance(s, ast.Import) for a in s.names}
    edits: list = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        rewrite = _Rewrite(xp, imports, globals_, _bound(stmt), helper)
        rewrite.visit(stmt)
        edits += rewrite.edits
        if rewrite.edits:
            first = stmt.body[0]
            docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            at = first.end_lineno + 1 if docstring else first.lineno
            params = ", ".join(a.arg for a in stmt.args.posonlyargs + stmt.args.args + stmt.args.kwonlyargs)
            edits.append((at, 0, at, 0, f"{' ' * first.col_offset}{xp} = {helper('namespace')}({params})\n"))
    return _apply(lines, edits)


class _Rewrite(ast.NodeVisitor):
    """The edits that turn one copied function's NumPy references into ``xp``'s."""

    def __init__(self, xp: str, imports: dict, globals_: dict, bound: set, helper):
        self.xp, self.imports, self.globals, self.bound, self.helper = xp, imports, globals_, bound, helper
        self.edits: list = []
        self.keywords: dict = {}  # a NumPy function's reference -> its keywords' names in the standard

    def visit_Call(self, node):
        self.generic_visit(node)
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
        spelt = spelling(self._resolve(node), node.lineno)
        if spelt is None:
            return False
        if spelt[0] == "helper":
            text = self.helper(spelt[1])
        else:
            text = f"{self.xp}.{spelt[1]}"
            self.keywords[node] = spelt[2] or {}
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
    """The names a function binds itself (its parameters and variables)."""
    args = fdef.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


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
