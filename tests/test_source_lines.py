"""``front.parse.source_lines`` reads a function's lines from what ``linecache`` holds of its file, as
``inspect.getsourcelines`` finds them (inspect first searches every loaded module for the file's module,
milliseconds a call once NumPy and SciPy are loaded): the same block, for every function and nested
function, lambda and decorated definition of a corpus of modules."""

import inspect
import linecache
import types

import pytest

import adcompiler
import adcompiler.testing.parallel_programs
import e2e_funcs
import np_funcs
from adcompiler.front import parse


def _codes(module):
    def nested(code):
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                yield c
                yield from nested(c)

    for value in vars(module).values():
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            yield value.__code__
            yield from nested(value.__code__)


@pytest.mark.parametrize(
    "module",
    [adcompiler.testing.parallel_programs, e2e_funcs, np_funcs, parse, inspect],
    ids=lambda m: m.__name__,
)
def test_the_block_is_inspect_s(module):
    codes = list(_codes(module))
    assert len(codes) >= 4
    for code in codes:
        linecache.checkcache(code.co_filename)
        linecache.getlines(code.co_filename)
        held = linecache.cache[code.co_filename][2]
        assert parse._held_block(code, held) == inspect.getsourcelines(code), (code.co_filename, code.co_name)


def test_a_lambda_and_a_decorated_function_of_a_written_file(tmp_path):
    path = tmp_path / "written.py"
    path.write_text(
        "import functools\n\nsquare = lambda x: x * x\n\n\n@functools.cache\ndef f(x):\n    return square(x) + 1.0\n"
    )
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    for fn in (namespace["square"], namespace["f"].__wrapped__):
        assert parse.source_lines(fn) == inspect.getsourcelines(fn.__code__)
    assert adcompiler.grad(namespace["f"].__wrapped__)(3.0) == 6.0
