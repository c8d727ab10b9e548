"""Deep expressions: long operator chains and deep nesting, as generated or machine-written code has them,
differentiate in both modes and compile to modules that import; lowering does not recurse as deep as a
chain is long; past what the passes can walk, a located error, never a RecursionError.

References: analytic derivatives."""

import importlib.util
import math
import sys

import pytest

import adcompiler
from adcompiler.cli.main import compile_file
from adcompiler.compile.pipeline import Program


def _module(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path, module


def _written(path):
    """The module ``adc compile`` writes for ``path``, loaded (it must import: Python's parser has limits)."""
    namespace = {}
    exec(compile(compile_file(str(path), ()), "derivs.py", "exec"), namespace)
    return namespace


def test_two_hundred_minus_signs(tmp_path):
    path, m = _module(tmp_path, "negs", "def f(x, y):\n    return " + "- " * 200 + "x * y\n")
    d = adcompiler.differentiate(m.f)
    assert d.grad(0.3, 0.7) == pytest.approx((0.7, 0.3), rel=1e-15)
    assert d.jvp((0.3, 0.7), (1.0, 2.0)) == pytest.approx((0.21, 0.7 + 0.6), rel=1e-15)
    ns = _written(path)
    value, cotangents = ns["f_reverse"](0.3, 0.7, 1.0)
    assert value == pytest.approx(0.21, rel=1e-15) and cotangents == pytest.approx((0.7, 0.3), rel=1e-15)


@pytest.mark.slow  # a long sum: test_cli_static's long sums and the chains of test_deep_nesting by default
def test_three_hundred_term_sum(tmp_path):
    terms = " + ".join(f"{i}.0 * x * y" for i in range(300))
    path, m = _module(tmp_path, "terms", f"def f(x, y):\n    return {terms} - x\n")
    total = sum(range(300))
    d = adcompiler.differentiate(m.f)
    assert d.grad(0.3, 0.7) == pytest.approx((total * 0.7 - 1.0, total * 0.3), rel=1e-13)
    value, tangent = d.jvp((0.3, 0.7), (1.0, 0.0))
    assert tangent == pytest.approx(total * 0.7 - 1.0, rel=1e-13)
    ns = _written(path)
    assert ns["f_forward"](0.3, 0.7, 0.0, 1.0)[1] == pytest.approx(total * 0.3, rel=1e-13)


def test_two_hundred_nested_calls_compile_to_a_module_that_imports(tmp_path):
    n = 200
    source = "import math\n\n\ndef f(x):\n    return " + "math.sin(" * n + "x" + ")" * n + "\n"
    path, m = _module(tmp_path, "nested", source)
    value, slope = 0.4, 1.0
    for _ in range(n):  # the chain rule by hand
        value, slope = math.sin(value), math.cos(value) * slope
    d = adcompiler.differentiate(m.f)
    assert d.grad(0.4) == pytest.approx(slope, rel=1e-12)
    ns = _written(path)
    assert ns["f_reverse"](0.4, 1.0)[1] == pytest.approx((slope,), rel=1e-12)
    assert ns["f_forward"](0.4, 1.0)[1] == pytest.approx(slope, rel=1e-12)


def test_lowering_a_long_chain_does_not_recurse_with_its_length(tmp_path):
    # Python parses a 900-term sum within its default recursion limit; lowering it one frame per term
    # (and several per level, as before) would not fit
    terms = " + ".join(f"x * {i}.0" for i in range(900))
    _, m = _module(tmp_path, "chain", f"def f(x):\n    return -(- - - x) + {terms}\n")
    function = Program(m.f.__globals__).anf(m.f)
    assert sum(1 for eq in function.body if getattr(eq, "prim", None) == "add") == 900


def test_too_deep_is_a_located_error(tmp_path, monkeypatch):
    import adcompiler.compile.building

    monkeypatch.setattr(adcompiler.compile.building, "ROOM", 250)  # (the room transformations take for recursion)
    path, m = _module(
        tmp_path,
        "deep",
        "def f(x):\n    return " + "math_sin(" * 150 + "x" + ")" * 150 + "\n\n\ndef math_sin(x):\n    return x * x\n",
    )
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(250)
    try:
        with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
            adcompiler.differentiate(m.f).grad(0.5)
    finally:
        sys.setrecursionlimit(limit)
    message = str(info.value)
    assert f"{path}:1:" in message and "nested too deeply" in message and "split it" in message
