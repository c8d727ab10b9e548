"""Generated modules are formatted one top-level definition at a time (compile/formatting.py), each part
once a process: the text must be what black gives for the whole module, on every kind of module the
compiler writes (generated programs of the fuzzer's modes, with their runtime helpers, decorators,
comments above definitions, statements between them), and the stubs black lays out by their
neighbours are formatted whole."""

import random

import black
import pytest

import adcompiler
from adcompiler.compile import emit, formatting
from adcompiler.testing.fuzz import load_module
from adcompiler.testing.fuzz.config import Config
from adcompiler.testing.fuzz.programs import generate

WHOLE = black.Mode()  # black's own default, the style generated code has always had


def _recorded(monkeypatch) -> list:
    texts = []
    kept = formatting.format_source

    def record(src):
        texts.append(src)
        return kept(src)

    monkeypatch.setattr(emit, "format_source", record)
    return texts


@pytest.mark.parametrize("mode", ["scalar", "numpy", "lists"])
def test_the_text_is_black_s_for_the_whole_module(mode, tmp_path, monkeypatch):
    texts = _recorded(monkeypatch)
    rng = random.Random(5)
    for k in range(4):
        spec = generate(rng, Config(mode=mode))
        d = adcompiler.differentiate(getattr(load_module(spec.source, str(tmp_path)), spec.entry))
        for stage in ("forward", "reverse"):
            try:
                d.source(stage)
            except adcompiler.UnsupportedSyntaxError:
                break
    assert texts
    for src in texts:
        assert formatting.format_source(src) == black.format_str(src, mode=WHOLE)


@pytest.mark.parametrize(
    "src",
    [
        "import numpy as np\nX = 1\ndef f(x):\n    return x\n# a comment above g\n@deco\ndef g(y): return y\nY = f(2)\nZ=3\n",
        "def stub(x): ...\n@overload\ndef stub(x):\n    return x\n",
        "def f(x):\n  return (x+\n 1)\n\n\n\n\nclass C:\n  pass\nprint( f(1) )\n",
    ],
    ids=["mixed", "stub", "class"],
)
def test_modules_with_statements_comments_decorators_and_stubs(src):
    assert formatting.format_source(src) == black.format_str(src, mode=WHOLE)


def test_a_text_cpython_does_not_parse_is_refused_as_before():
    deep = "x = " + "[" * 250 + "1" + "]" * 250 + "\n"  # black parses it, CPython's compiler does not
    with pytest.raises((SyntaxError, RecursionError, MemoryError)):
        formatting.format_source(deep)
