"""Source that is not the code a function runs is never differentiated: a module edited on disk and not
reloaded is refused, where it is written; ``f.__code__`` or ``f.__defaults__`` replaced (the function's
or a helper's) is read again, as a call reads it; and code that is its source is never refused
(methods, closures, decorators, nested functions, annotations under ``from __future__ import annotations``)."""

import importlib
import linecache
import os
import sys
import textwrap

import pytest

import adcompiler
from adcompiler.errors import StaleSourceError

HELPER = "def helper(x, k=2.0):\n    return k * x * x\n"
USER = "from stale_helper import helper\n\n\ndef f(x):\n    return helper(x) + x\n"


def _module(tmp_path, name: str, text: str):
    (tmp_path / f"{name}.py").write_text(text)
    sys.modules.pop(name, None)
    return importlib.import_module(name)


def _edit(module, old: str, new: str) -> None:
    """Change the module's file, as an editor does, without reloading it."""
    path = module.__file__
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace(old, new))
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    linecache.checkcache(path)


@pytest.fixture(autouse=True)
def importable(tmp_path):
    sys.path.insert(0, str(tmp_path))
    yield
    sys.path.remove(str(tmp_path))


@pytest.fixture
def modules(tmp_path):
    helper = _module(tmp_path, "stale_helper", HELPER)
    user = _module(tmp_path, "stale_user", USER)
    yield helper, user
    for name in ("stale_helper", "stale_user"):
        sys.modules.pop(name, None)


def test_a_function_edited_on_disk_is_refused_where_it_is_written(modules):
    helper, _ = modules
    assert helper.helper(1.5) == 4.5
    _edit(helper, "k * x * x", "k * x * x * x")
    with pytest.raises(StaleSourceError) as caught:
        adcompiler.differentiate(helper.helper).grad(1.5)
    assert caught.value.filename == helper.__file__ and caught.value.lineno == 1
    assert "reload the module" in str(caught.value)


@pytest.mark.parametrize(
    "edited",
    [
        "import math\n\n\ndef f(x):\n    return x * x\n",  # a blank line added above the def (crashed inside)
        "def f(x):\n    return x * x\n",  # the def moved up
        "import math\nX = 1\n",  # the def removed
        "import math\n\ndef g(y):\n    return y + 1.0\n",  # another def in its place
    ],
    ids=["shifted down", "moved up", "removed", "another def there"],
)
@pytest.mark.parametrize("call", ["grad", "differentiate"])
def test_a_def_moved_or_removed_on_disk_is_refused_as_stale(tmp_path, edited, call):
    """Lines added or taken out above a def, or the def gone, after the module was imported: a StaleSourceError
    naming the file (an internal AttributeError, or "no source available ... typed at a REPL", before)."""
    module = _module(tmp_path, "stale_moved", "import math\n\ndef f(x):\n    return x * x\n")
    (tmp_path / "stale_moved.py").write_text(edited)
    linecache.checkcache(module.__file__)
    with pytest.raises(StaleSourceError) as caught:
        if call == "grad":
            adcompiler.grad(module.f)(2.0)
        else:
            adcompiler.differentiate(module.f).grad(2.0)
    assert caught.value.filename == module.__file__ and "reload the module" in str(caught.value)
    sys.modules.pop("stale_moved", None)


def test_a_helper_edited_on_disk_is_refused(modules):
    helper, user = modules
    _edit(helper, "k * x * x", "k * x * x * x")
    with pytest.raises(StaleSourceError) as caught:
        adcompiler.differentiate(user.f).grad(1.5)
    assert caught.value.filename == helper.__file__


def test_reloaded_it_is_differentiated(modules):
    helper, user = modules
    _edit(helper, "k * x * x", "k * x * x * x")
    importlib.reload(helper)
    user = importlib.reload(user)
    assert adcompiler.differentiate(user.f).value_and_grad(1.5) == (2 * 1.5**3 + 1.5, 6 * 1.5**2 + 1)


def test_an_edit_after_the_derivative_was_built_changes_nothing(modules):
    helper, user = modules
    d = adcompiler.differentiate(user.f)
    first = d.value_and_grad(1.5)
    _edit(helper, "k * x * x", "k * x * x * x")
    assert d.value_and_grad(1.5) == first == (user.f(1.5), 2 * 2 * 1.5 + 1)


def cubed(x, k=2.0):
    return k * x * x * x


def test_the_functions_code_replaced(modules):
    helper, user = modules
    d, g = adcompiler.differentiate(helper.helper), adcompiler.grad(helper.helper)
    assert d.value_and_grad(1.5) == (4.5, (6.0, 2.25)) and g(1.5) == 6.0
    helper.helper.__code__ = cubed.__code__  # what a call runs now: its source is cubed's
    for _ in range(2):  # (the second: the fast entry)
        assert d.value_and_grad(1.5) == (helper.helper(1.5), (2 * 3 * 1.5**2, 1.5**3))
        assert g(1.5) == 2 * 3 * 1.5**2


def test_a_helpers_code_replaced(modules):
    helper, user = modules
    d = adcompiler.differentiate(user.f)
    assert d.grad(1.5) == 7.0
    helper.helper.__code__ = cubed.__code__
    for _ in range(2):
        assert d.value_and_grad(1.5) == (user.f(1.5), 2 * 3 * 1.5**2 + 1)
        assert d.jvp((1.5,), (1.0,)) == (user.f(1.5), 2 * 3 * 1.5**2 + 1)


def test_the_functions_defaults_replaced(modules):
    helper, _ = modules
    d = adcompiler.differentiate(helper.helper)
    assert d.value_and_grad(1.5) == d.value_and_grad(1.5) == (4.5, (6.0, 2.25))  # the second: the fast entry
    helper.helper.__defaults__ = (3.0,)
    for _ in range(2):
        assert d.value_and_grad(1.5) == (helper.helper(1.5), (2 * 3.0 * 1.5, 2.25)) == (6.75, (9.0, 2.25))
        assert d.grad(1.5, 2.0) == (6.0, 2.25)
        assert adcompiler.grad(helper.helper)(1.5) == 9.0


def test_a_helpers_defaults_replaced(modules):
    helper, user = modules
    d = adcompiler.differentiate(user.f)
    assert d.grad(1.5) == 7.0
    helper.helper.__defaults__ = (3.0,)
    for _ in range(2):
        assert d.value_and_grad(1.5) == (user.f(1.5), 2 * 3.0 * 1.5 + 1)


SOURCES = {
    "method": """
        class Model:
            def __init__(self, w):
                self.w = w

            def loss(self, x):
                return self.w * x * x
        """,
    "closure": """
        import functools

        def scaled(fn):
            @functools.wraps(fn)
            def wrapper(x):
                return 2.0 * fn(x)
            return wrapper

        def factory(w):
            def g(x):
                '''a docstring'''
                sq = lambda t: t * t
                return w * x * x + sq(x)
            return g
        """,
    "annotations": """
        from __future__ import annotations
        import numpy as np

        def f(x: float) -> float:
            def h(t: float) -> float:
                return np.sin(t) * t
            return sum([h(v) for v in (x, 2.0 * x)])
        """,
}


def test_code_that_is_its_source_is_never_refused(tmp_path):
    m = _module(tmp_path, "fresh_method", textwrap.dedent(SOURCES["method"]))
    assert adcompiler.differentiate(m.Model(3.0).loss).grad(2.0) == 12.0
    m = _module(tmp_path, "fresh_closure", textwrap.dedent(SOURCES["closure"]))
    assert adcompiler.grad(m.factory(3.0))(2.0) == 2 * 3.0 * 2.0 + 2 * 2.0
    assert adcompiler.grad(m.scaled(m.factory(1.0)))(2.0) == 2.0 * (2 * 2.0 + 2 * 2.0)
    m = _module(tmp_path, "fresh_annotations", textwrap.dedent(SOURCES["annotations"]))
    assert adcompiler.grad(m.f)(0.5) == pytest.approx(central(m.f, 0.5), rel=1e-7)


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def checked_square(x):
    """Defined in this test module, which pytest imports with its asserts rewritten."""
    assert x > -100.0, "x out of range"
    return x * x


def test_a_function_whose_asserts_pytest_rewrote_is_not_stale():
    """pytest compiles a test module's asserts into its own checks: the code is not its file's text
    compiled plainly, yet it is that text (found differentiating a function with an assert in a test)."""
    assert type(globals().get("__loader__")).__name__ == "AssertionRewritingHook"
    assert adcompiler.grad(checked_square)(3.0) == 6.0
    with pytest.raises(AssertionError, match="x out of range"):
        adcompiler.grad(checked_square)(-200.0)
