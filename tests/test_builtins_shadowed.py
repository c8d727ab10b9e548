"""A name of the user's module that shadows a builtin (``slice``, ``any``, ``hasattr``, ``getattr``,
``enumerate``, ...) never reaches generated code or the runtime helpers: each builtin they name is
tested in a copy of ``shadow_funcs`` that binds it to something else, in forward and reverse mode,
against the derivatives of the module that does not."""

import ast
import builtins
import importlib.util
import inspect
import sys

import numpy as np
import pytest

import adcompiler
from shared import derivative
from adcompiler.targets.python.runtime import HELPERS
from adcompiler.targets.numba.runtime import NUMBA_HELPERS
from adcompiler.targets.array_api.runtime import XP_HELPERS
from adcompiler.front.names import GENERATED_BUILTINS
from tests import shadow_funcs as S

M = np.arange(6.0).reshape(2, 3)
CASES = {  # function: (arguments, wrt)
    "list_loop": (([0.3, -0.5, 0.7],), None),
    "nested_lists": (([[0.3, 0.5], [0.1, -0.2]],), None),
    "slices": ((np.array([0.1, 0.4, -0.3, 0.8]),), None),
    "fancy_index": ((np.array([0.1, 0.4, -0.3]),), None),
    "repeated_writes": ((np.array([0.1, 0.4, -0.3]),), None),
    "axis_sum": ((M / 7,), None),
    "unpacked": (([0.3, 0.6],), None),
    "fmod": ((2.5, 0.7), None),
    "split_halves": ((np.array([0.1, 0.4, -0.3, 0.8]),), None),
    "products": ((M / 5, M.T / 7), None),
    "einsum": ((M / 5, M.T / 7), None),
    "running_product": ((np.array([0.5, 1.2, 0.9]),), None),
    "largest": ((np.array([0.5, 1.2, 0.9]),), None),
    "traced": ((np.arange(4.0).reshape(2, 2) / 3,), None),
    "padded": ((np.array([0.5, 1.2, 0.9]),), None),
    "asserting": ((1.5,), None),
    "repeated_list": ((0.7,), None),
    "inserted": (([0.3, 0.5], 0.9), None),
    "with_constant_rows": ((0.5, [[0.3, 0.5], [0.1, -0.2]]), ("x",)),
    "rows_out": ((0.5, [[0.3, 0.5], [0.1, -0.2]]), ("x",)),
}
# Names generated code holds only where the user's code names them itself (print's effect, abs's
# rule), or only under another target (checked below with theirs).
ELSEWHERE = {"abs", "print", "complex", "exec", "IndexError", "KeyError"}
ELSEWHERE |= {"dir", "id", "setattr"}  # only the array API's with_numbers names them (arrays="any": test_api_boundary)


def _names(source: str) -> set:
    return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name) and hasattr(builtins, n.id)}


def _derivatives(fn, args, wrt):
    """The forward and reverse derivatives of ``fn`` at ``args`` (tangents and cotangent: the arguments,
    the output), and its gradient for a number output."""
    d = adcompiler.differentiate(fn, wrt=wrt)
    positions = range(len(args)) if wrt is None else [list(inspect.signature(fn).parameters).index(w) for w in wrt]
    value, tangent = d.jvp(args, tuple(args[i] for i in positions))
    _, cts = d.vjp(args, value)
    gradient = None if isinstance(value, tuple) or np.ndim(value) else d.grad(*args)
    return d, (value, tangent, cts, gradient)


def _clean(name):
    args, wrt = CASES[name]
    return _derivatives(getattr(S, name), args, wrt)


_CLEAN: dict = {}


def _covering(builtin: str) -> list:
    """The cases whose generated code (not the user's own) names ``builtin``."""
    found = []
    for name in CASES:
        if name not in _CLEAN:
            d, results = _clean(name)
            sources = d.source("forward") + d.source("reverse") + (d.source("grad") if results[3] is not None else "")
            _CLEAN[name] = (_names(sources) - _names(inspect.getsource(getattr(S, name))), results)
        if builtin in _CLEAN[name][0]:
            found.append(name)
    return found


def _hostile(name: str) -> str:
    """A definition of ``name`` that is not the builtin."""
    if name[0].isupper() and name != "Ellipsis":
        return f"class {name}(Exception):\n    pass\n"
    if name == "Ellipsis":
        return "Ellipsis = object()\n"
    return f"def {name}(*args, **kwargs):\n    return None\n"


def _shadowing(tmp_path, builtin: str):
    """A copy of shadow_funcs whose module binds ``builtin`` to something else."""
    path = tmp_path / f"shadowing_{builtin}.py"
    path.write_text(inspect.getsource(S) + "\n\n" + _hostile(builtin))
    spec = importlib.util.spec_from_file_location(f"shadowing_{builtin}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert type(a) is type(b) and np.array_equal(a, b), (a, b)


def test_every_builtin_the_helpers_name_is_listed():
    for table in (HELPERS, XP_HELPERS, NUMBA_HELPERS):
        for name, text in table.items():
            tree = ast.parse(text)
            bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
            bound |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
            assert _names(text) - bound <= GENERATED_BUILTINS, name
            assert not bound & GENERATED_BUILTINS, name  # (each is a builtin there: Namespace.builtins_spelled)


def test_every_builtin_the_generated_code_names_is_listed():
    found = set()
    for name in CASES:
        _covering("len")
        found |= _CLEAN[name][0]
    assert found <= GENERATED_BUILTINS
    assert GENERATED_BUILTINS - found <= ELSEWHERE  # each of the others named by the code of some case here


@pytest.mark.parametrize("builtin", sorted(GENERATED_BUILTINS - ELSEWHERE))
def test_a_module_binding_a_builtins_name_changes_no_derivative(builtin, tmp_path):
    module = _shadowing(tmp_path, builtin)
    covering = _covering(builtin)
    assert covering, f"no case's generated code names {builtin}"
    for name in covering[:3]:
        args, wrt = CASES[name]
        _, shadowed = _derivatives(getattr(module, name), args, wrt)
        _same(shadowed, _CLEAN[name][1])


def test_a_failed_assert_raises_assertion_error(tmp_path):
    module = _shadowing(tmp_path, "AssertionError")
    d = adcompiler.differentiate(module.asserting)
    for call in (lambda: d.grad(-1.0), lambda: d.jvp((-1.0,), (1.0,)), lambda: d.vjp((-1.0,), 1.0)):
        with pytest.raises(builtins.AssertionError, match="x must be positive"):
            call()


def test_the_fast_entry_sees_a_global_removed(tmp_path):
    """The check that the module still holds what the code was built from catches the builtin KeyError."""
    path = tmp_path / "shadowing_keyerror.py"
    path.write_text("SCALE = 2.0\n\n\ndef f(x):\n    return SCALE * x * x\n\n\n" + _hostile("KeyError"))
    spec = importlib.util.spec_from_file_location("shadowing_keyerror", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    d = adcompiler.differentiate(module.f)
    assert d.grad(1.5) == d.grad(1.5) == 6.0  # the second call: the fast entry
    del module.SCALE
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="undefined name 'SCALE'"):
        d.grad(1.5)


def test_the_users_values_named_like_builtins_are_the_users(tmp_path):
    """A global the function reads, named like a builtin the generated code also calls: each is itself."""
    path = tmp_path / "values_named_like_builtins.py"
    path.write_text(
        "import numpy as np\n\nsum = np.array([1.0, 2.0])\nlen = 3.0\nslice = [0.5, 0.25]\n\n\n"
        "def f(x, xs):\n    s = np.dot(x, sum) * len\n    for v in xs:\n        s = s + v * slice[0]\n    return s\n"
    )
    spec = importlib.util.spec_from_file_location("values_named_like_builtins", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    d = adcompiler.differentiate(module.f)
    x, xs = np.array([1.0, 1.0]), [0.3, 0.4]
    value, (gx, gxs) = d.value_and_grad(x, xs)
    assert value == module.f(x, xs) == 9.0 + 0.35
    assert np.array_equal(gx, [3.0, 6.0]) and gxs == [0.5, 0.5]
    value, tangent = d.jvp((x, xs), (np.array([1.0, 0.0]), [1.0, 0.0]))
    assert (value, tangent) == (9.35, 3.0 + 0.5)


@pytest.mark.parametrize("builtin", ["len", "range", "enumerate", "type", "reversed"])
def test_numba_code_reads_the_builtins(builtin, tmp_path):
    module = _shadowing(tmp_path, builtin)
    xs = [0.3, -0.5, 0.7]
    shadowed = adcompiler.differentiate(module.list_loop, backend="numba")
    clean = derivative(S.list_loop, backend="numba")  # (the same for every builtin: compiled once)
    gradient = shadowed.grad(xs)
    assert len(gradient) == len(xs) and all(np.isfinite(gradient))
    _same(gradient, clean.grad(xs))
    _same(shadowed.jvp((xs,), (xs,)), clean.jvp((xs,), (xs,)))


@pytest.mark.parametrize("builtin", ["slice", "len", "range", "reversed", "enumerate", "hasattr"])
def test_printed_stages_run_in_the_module_that_binds_the_name(builtin, tmp_path):
    """The text of a stage spells a builtin the module binds ``builtins.x``: run in the module, as
    ``source()`` promises, it is the primal."""
    module = _shadowing(tmp_path, builtin)
    cases = ("slices", "list_loop", "largest", "axis_sum")  # (their helpers' text too: scatter_add, argmax, ...)
    for name, args in ((name, CASES[name][0]) for name in cases):
        d = adcompiler.differentiate(getattr(module, name))
        d.grad(*args)
        for stage in ("anf", "dup"):
            space = dict(vars(module))
            exec(compile(d.source(stage), f"<{stage}>", "exec"), space)
            assert space[name](*args) == getattr(module, name)(*args)
