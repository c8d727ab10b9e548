"""A user's file as a module built from its imports and definitions only: ``adc compile`` reads the
functions of a training script without training.

Top-level statements are taken one by one, in order: imports, ``def`` and ``class`` statements, and
assignments whose values call nothing the file defines (``SCALE = 2.0``, ``W = np.ones((3, 2))``) run;
``try`` and ``if`` blocks made only of those run too.  Everything else is skipped and reported: a
call of the file's own code (``train()``, ``data = load()``), a loop, ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import ast
import builtins
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

# Builtins an assignment may call and still be a definition: they compute, they do nothing else.
PURE_BUILTINS = frozenset(
    "abs bool complex dict divmod enumerate float frozenset int len list max min pow range reversed round set "
    "slice sorted str sum tuple zip".split()
)
BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass
class Definitions:
    """The module made of a file's definitions, and the top-level statements that were not run."""

    module: types.ModuleType
    skipped: list = field(default_factory=list)  # (line, what it is), in source order
    unset: dict = field(default_factory=dict)  # a name only skipped statements assign -> the line of the first


def read_definitions(path: str | Path) -> Definitions:
    """The file's module with its definitions run and the rest skipped (see the module docstring).

    Raises what running a definition raises (an import that fails, say): the caller reports it."""
    path = Path(path).resolve()
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    name = f"_adc_user_{path.stem}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    found = Definitions(module)
    local: set = set()  # names the file itself defines (its functions and classes)
    sys.path.insert(0, str(path.parent))
    try:
        for node in tree.body:
            local |= _defined_callables(node)
            why = _not_a_definition(node, local, module)
            if why is None:
                why = _run(node, path, module)
            if why is not None:
                if why != "the main block":
                    found.skipped.append((node.lineno, why))
                for target in _assigned(node):
                    found.unset.setdefault(target, node.lineno)
    finally:
        sys.path.remove(str(path.parent))
    for target in list(found.unset):
        if target in module.__dict__:
            del found.unset[target]
    return found


def _run(node: ast.stmt, path: Path, module: types.ModuleType) -> str | None:
    """Run one definition; None, or what went wrong where a value could not be computed (an assignment
    reading what skipped code would have set): the statement then counts as skipped.  An import or a
    ``def`` that fails raises: the file cannot be read without it."""
    code = compile(ast.Module([node], type_ignores=[]), str(path), "exec")
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        exec(code, module.__dict__)
        return None
    try:
        exec(code, module.__dict__)
    except Exception as exc:  # noqa: BLE001 - the value depends on code that did not run
        return f"a definition that raised {type(exc).__name__}"
    return None


def _not_a_definition(node: ast.stmt, local: set, module: types.ModuleType) -> str | None:
    """None for a statement that only defines something, else what it is (for the report)."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):  # a docstring
        return None
    if isinstance(node, ast.Expr) and _is_rule_call(node.value, module):  # adcompiler.defrule(f, ...) defines
        return None
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        value = node.value
        return None if value is None or _computes_only(value, local) else "an assignment that calls code"
    if isinstance(node, ast.If):
        if _is_main_test(node.test):
            return "the main block"
        parts = node.body + node.orelse
        ok = _computes_only(node.test, local) and all(_not_a_definition(s, local, module) is None for s in parts)
        return None if ok else "an if statement"
    if isinstance(node, ast.Try):
        parts = node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
        return None if all(_not_a_definition(s, local, module) is None for s in parts) else "a try statement"
    if isinstance(node, ast.Pass):
        return None
    return {ast.Expr: "an expression statement", ast.For: "a for loop", ast.While: "a while loop"}.get(
        type(node), f"a {type(node).__name__} statement"
    )


def _is_rule_call(expr: ast.expr, module: types.ModuleType) -> bool:
    """Whether ``expr`` calls adcompiler's ``defrule`` (by any import of it): giving a function derivative
    rules is part of defining it."""
    if not isinstance(expr, ast.Call):
        return False
    func, path = expr.func, []
    while isinstance(func, ast.Attribute):
        path.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in vars(module):
        return False
    target = vars(module)[func.id]
    for attr in reversed(path):
        target = getattr(target, attr, None)
    rule = getattr(target, "__name__", "") in ("defrule", "defjvp", "defvjp")  # defrule, or f.defvjp(fwd, bwd)
    return rule and getattr(target, "__module__", "").startswith("adcompiler")


def _computes_only(expr: ast.expr, local: set) -> bool:
    """Whether evaluating ``expr`` calls nothing the file defines, and no builtin that does more than compute
    (``open``, ``print``, ``input``, ``exec``): calls through imported modules (``np.ones``) are computing."""
    for node in ast.walk(expr):
        if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and (
                func.id in local or func.id in BUILTIN_NAMES and func.id not in PURE_BUILTINS
            ):
                return False
            root = func
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in local:
                return False
    return True


def _is_main_test(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}


def _defined_callables(node: ast.stmt) -> set:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    return set()


def _assigned(node: ast.stmt) -> set:
    """The module names a statement assigns (in any nested block)."""
    out = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            out.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(sub.name)
    return out
