"""The package's layout, checked from its imports: the pipeline's rooms import only rooms below them,
no import cycle, no private name imported across modules, no module much above 600 lines (a smell,
not a cut line), nothing at the top level but the package's own files.

See docs/architecture.md for the picture this test holds the code to."""

from __future__ import annotations

import ast
import functools
import pathlib

from adcompiler.rules.families import REGISTRY

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "adcompiler"

# Bottom to top: a unit may import only units listed before it (and itself).  A unit is a subpackage
# (targets' are each their own: the python target's runtime helpers are what the driver starts from;
# the Numba and array-API targets build on the driver).
LAYERS = [
    ("errors", "options"),
    ("ir",),
    ("front",),
    ("rules",),
    ("lower",),
    ("analysis",),
    ("modes",),
    ("optimize",),
    ("targets.python",),
    ("compile",),
    ("targets.numba", "targets.array_api"),
    ("targets.registry", "targets"),  # the registry of the targets above
    ("api",),
    ("__init__", "cli"),
    ("__main__", "testing"),
]
TOP_LEVEL = {"__init__.py", "__main__.py", "errors.py", "options.py", "py.typed"}  # the rest is in rooms
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}
MAX_LINES = 600  # a smell detector, not a cut line (issue 34): a module past it probably holds two concepts
# ... but for the families of primitive records (rules/linalg.py: every np.linalg function's paragraph), which are
# data: "tables of rules and runtime helpers are data and may be long" (issue 34)
FAMILIES = {f"rules.{p.family}" for p in REGISTRY.values()}
MAX_METHODS = 30  # issue 34: a class with more (its bases in the package counted with it) is several concepts


def _modules() -> dict:
    """Dotted module name (relative to the package, '' for its __init__) -> path."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


@functools.cache
def _tree(path: pathlib.Path) -> ast.Module:
    """The module at ``path`` parsed, once for every test of this file."""
    return ast.parse(path.read_text())


@functools.cache
def _nodes(path: pathlib.Path) -> tuple:
    """Every node of the module at ``path`` (``ast.walk``), once for every test of this file."""
    return tuple(ast.walk(_tree(path)))


def _resolve(name: str, path: pathlib.Path, node: ast.ImportFrom) -> list:
    """The package modules an import names (the module itself, or the submodules it imports by name)."""
    here = list(path.relative_to(PACKAGE).parent.parts)
    base = here[: len(here) - (node.level - 1)] if node.level else []
    if not node.level:
        if not (node.module or "").startswith("adcompiler"):
            return []
        base, module = [], node.module.split(".", 1)[1] if "." in node.module else ""
    else:
        module = node.module or ""
    target = ".".join(base + ([module] if module else []))
    found = []
    for alias in node.names:
        sub = f"{target}.{alias.name}" if target else alias.name
        found.append((sub if sub in MODULES else target, alias.name))
    return found


@functools.cache
def _edges() -> tuple:
    """(importer, imported module, imported name) for every import of a package module, lazy ones too."""
    out = []
    for name, path in MODULES.items():
        for node in _nodes(path):
            if isinstance(node, ast.ImportFrom):
                out += [(name, target, imported) for target, imported in _resolve(name, path, node)]
            elif isinstance(node, ast.Import):
                out += [
                    (name, a.name.split(".", 1)[1] if "." in a.name else "", a.name)
                    for a in node.names
                    if a.name.startswith("adcompiler")
                ]
    return tuple(out)


def _unit(module: str) -> str:
    parts = module.split(".") if module else ["__init__"]
    return ".".join(parts[:2]) if parts[0] == "targets" and len(parts) > 1 else parts[0]


def test_the_top_level_holds_only_the_package_itself():
    files = {p.name for p in PACKAGE.iterdir() if p.is_file()}
    assert files <= TOP_LEVEL, files - TOP_LEVEL


def test_every_unit_has_a_layer():
    assert {_unit(m) for m in MODULES} <= set(RANK), {_unit(m) for m in MODULES} - set(RANK)


def test_layers_import_only_layers_below():
    upward = [
        (a, b)
        for a, b, _ in _edges()
        if _unit(a) != _unit(b) and RANK[_unit(b)] >= RANK[_unit(a)] and b in MODULES and b != ""
    ]
    assert not upward, upward


def test_no_import_cycle():
    graph: dict = {}
    for a, b, _ in _edges():
        if a != b and b in MODULES and not (b and a.startswith(b + ".")):  # a package's own __init__ is its facade
            graph.setdefault(a, set()).add(b)
    state: dict = {}

    def visit(m, stack):
        state[m] = 1
        for n in graph.get(m, ()):
            if state.get(n) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(n) :] + [n]))
            if n not in state:
                visit(n, stack + [n])
        state[m] = 2

    for m in list(graph):
        if m not in state:
            visit(m, [m])
    assert all(done == 2 for done in state.values()) and len(state) >= len(graph)


def test_no_private_name_imported_across_modules():
    crossing = [(a, b, n) for a, b, n in _edges() if n.startswith("_") and not n.startswith("__") and a != b]
    assert not crossing, crossing


def test_modules_stay_small():
    big = {
        name: n
        for name, path in MODULES.items()
        if (n := len(path.read_text().splitlines())) > MAX_LINES and name not in FAMILIES
    }
    assert not big, big


def _class_methods() -> dict:
    """Class name -> the names of its methods, those of its bases defined in the package with them."""
    own: dict = {}
    for path in MODULES.values():
        for node in _nodes(path):
            if isinstance(node, ast.ClassDef):
                methods = {m.name for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
                bases = [ast.unparse(b).rpartition(".")[2] for b in node.bases]
                entry = own.setdefault(node.name, (set(), []))
                entry[0].update(methods)
                entry[1].extend(bases)

    def every(name, seen):
        if name in seen or name not in own:
            return set()
        seen.add(name)
        methods, bases = own[name]
        return methods.union(*(every(b, seen) for b in bases))

    return {name: every(name, set()) for name in own}


def test_no_class_is_several_concepts():
    """Lowering was one class of 103 methods (``anf._Lowering`` and its six mixins), the fuzzers' NumPy
    generator 87, ``Differentiable`` 36 (issue 34): a class is one concept, its bases in the package
    counted with it."""
    counts = _class_methods()
    big = {}
    for name, path in MODULES.items():
        for node in _nodes(path):
            if isinstance(node, ast.ClassDef) and len(counts[node.name]) > MAX_METHODS:
                big[f"{name}.{node.name}"] = len(counts[node.name])
    assert not big, big


def test_every_module_says_its_job():
    missing = [name for name, path in MODULES.items() if not ast.get_docstring(_tree(path))]
    assert not missing, missing


def test_no_pass_reads_a_flag_off_the_driver():
    """Passes are handed ``adcompiler.options.Options`` (the driver's ``program.options``): a switch of
    code generation read with ``getattr(program, ...)`` (a flag a subclass of the driver may set) is
    what the Target's options replaced (issue 34)."""
    found = []
    for name, path in MODULES.items():
        for node in _nodes(path):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
                owner = node.args[0] if node.args else None
                text = ast.unparse(owner) if owner is not None else ""
                if text in ("program", "self.program", "self.owner.program", "p.program"):
                    found.append((name, node.lineno, ast.unparse(node)))
    assert not found, found


def test_numba_is_imported_in_its_target_only():
    """Only ``targets/numba`` (and the fuzzers) import numba; the rest of the compiler names no such library."""
    found = []
    for name, path in MODULES.items():
        if name.startswith(("targets.numba", "testing")):
            continue
        for node in _nodes(path):
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "numba" for a in node.names):
                found.append((name, node.lineno))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba" and not node.level:
                found.append((name, node.lineno))
    assert not found, found


def test_no_module_reads_a_line_back_out_of_generated_comments():
    """Where a line of generated code comes from is a fact of the IR (``compile.origins``: ``Told``, ``LOADED``):
    no module parses the ``# line N: text`` comments emit writes for people back into a line number."""
    found = [name for name, path in MODULES.items() if "# line (" in path.read_text()]
    assert not found, found


def test_only_the_targets_compare_a_target_name():
    """Outside ``targets/`` a target is an object of ``targets.registry`` (its program, loading, Hessian
    rows, the module adc compile writes): no module compares ``backend`` or ``arrays`` with a target's name."""
    import re

    names = r"\"(python|numba|any|numpy)\""
    pattern = re.compile(rf"\b(backend|arrays|target)\s*[!=]=\s*{names}|{names}\s*[!=]=\s*\w*(backend|arrays|target)\b")
    found = [
        (name, n + 1, line.strip())
        for name, path in MODULES.items()
        if not name.startswith(("targets", "testing"))
        for n, line in enumerate(path.read_text().splitlines())
        if pattern.search(line)
    ]
    assert not found, found


def test_no_target_subclasses_the_driver():
    """A target adds to the driver through its ``TargetPasses`` record (``compile.pipeline``), handed to
    ``Program``: no class in the package derives from ``Program`` (the Numba target's subclass was
    replaced, issue 34), so the driver's behaviour is read in one class."""
    found = [
        (name, node.lineno, node.name)
        for name, path in MODULES.items()
        for node in _nodes(path)
        if isinstance(node, ast.ClassDef) and any(ast.unparse(b).split(".")[-1] == "Program" for b in node.bases)
    ]
    assert not found, found
