"""The error catalogue: every construct outside the subset raises a located error.

Each case differentiates one function of catalogue_funcs.py and checks that
adcompiler raises UnsupportedSyntaxError (a SyntaxError; MissingRuleError is a
subclass) that points into catalogue_funcs.py at the line holding the marker
comment ``# ERR:<marker>``, with a column, a message naming the construct and
advice after "; ".  Line numbers are looked up from the markers, never
hard-coded, so the functions file may be edited freely.
"""

import os
import re

import numpy as np
import pytest

import adcompiler
import catalogue_funcs as C
from shared import adc

FUNCS_PATH = os.path.abspath(C.__file__)
with open(FUNCS_PATH, encoding="utf-8") as _fh:
    FUNCS_LINES = _fh.read().splitlines()

# "FILE:LINE:COL: <construct> is not supported; <what to write instead>"
MESSAGE = re.compile(
    r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<construct>.+?) is not supported; (?P<advice>.+)$",
    re.S,
)


def marker_line(marker: str) -> int:
    """The 1-based line of catalogue_funcs.py carrying ``# ERR:<marker>`` (exactly once)."""
    pattern = re.compile(r"# ERR:" + re.escape(marker) + r"\b(?!_)")
    hits = [i + 1 for i, line in enumerate(FUNCS_LINES) if pattern.search(line)]
    assert len(hits) == 1, f"marker ERR:{marker} found on lines {hits}"
    return hits[0]


def marker_text(marker: str) -> str:
    return FUNCS_LINES[marker_line(marker) - 1]


def check_located(err, marker, keywords, filename_suffix="catalogue_funcs.py"):
    """The shared assertions on a raised error."""
    assert isinstance(err, SyntaxError)
    assert isinstance(err, adcompiler.UnsupportedSyntaxError)
    assert err.filename is not None and err.filename.endswith(filename_suffix), err.filename
    expected_line = marker_line(marker)
    assert err.lineno == expected_line, f"lineno {err.lineno}, expected {expected_line}: {err.msg}"
    assert isinstance(err.offset, int) and err.offset >= 1, err.offset
    assert err.offset <= len(FUNCS_LINES[expected_line - 1]) + 1, err.offset
    m = MESSAGE.match(err.msg)
    assert m, f"message not of the form 'FILE:LINE:COL: X is not supported; advice': {err.msg!r}"
    assert m["file"] == err.filename and int(m["line"]) == err.lineno and int(m["col"]) == err.offset
    construct = m["construct"].lower()
    for word in keywords:
        assert word.lower() in construct, f"{word!r} not named in the construct {m['construct']!r}"
    assert "; " in err.msg
    assert len(m["advice"].strip()) >= 5, f"no advice: {err.msg!r}"


def _bug(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


ASYNC_BUG = (
    "parse_function raises a bare TypeError ('... is not defined with def') for an async def: "
    "not UnsupportedSyntaxError, no file/line/column and no advice"
)
YIELD_STMT_BUG = (
    "a bare `yield`/`yield from` statement is reported as 'an expression statement (its value is "
    "discarded)': the fence checks ast.Expr before the Yield inside it, so the message never names "
    "yield/generators nor gives the 'build and return a list' advice"
)
NO_SOURCE_CALL_BUG = (
    "calling a function without source from a file function is reported at <string>:1 (the exec'd "
    "function's own code object), not at the call site in the user's file"
)

# (function, marker, words the construct part of the message must contain, args, marks)
# args None means (1.5,).
CASES = [
    ("c_class", "class", ("class",), None, ()),
    ("c_try_except", "try_except", ("try",), None, ()),
    ("c_try_finally", "try_finally", ("try",), None, ()),
    ("c_try_star", "try_star", ("try",), None, ()),
    ("c_with", "with", ("with",), None, ()),
    ("c_yield", "yield", ("yield",), None, ()),
    ("c_yield_value", "yield_value", ("yield",), None, ()),
    ("c_yield_from", "yield_from", ("yield",), None, ()),
    ("c_genexp", "genexp", ("generator",), None, ()),  # kept as a value (consumed at once it works)
    ("c_async_def", "async_def", ("async",), None, ()),
    ("c_await", "await", ("async",), None, ()),
    ("c_global", "global", ("global",), None, ()),
    ("make_nonlocal", "nonlocal", ("nonlocal",), None, ()),
    ("c_lambda", "lambda", ("lambda",), None, ()),  # other than a key= of max, min, sorted or one named
    ("c_nested_nonlocal", "nested_nonlocal", ("nonlocal",), None, ()),
    ("c_nested_recursive", "nested_recursive", ("recursive", "local function"), None, ()),
    ("c_nested_escape", "nested_escape", ("local function", "value"), None, ()),
    ("c_const_list_write", "const_list_write", ("list", "other than read"), None, ()),
    ("c_draw_params", "draw_params", ("np.random.normal", "computed"), None, ()),
    ("c_kwargs", "kwargs", ("**kwargs",), None, ()),
    ("c_kwonly", "kwonly", ("keyword-only",), None, ()),  # without a default
    ("c_posonly", "posonly", ("positional-only",), (1.5, 2.0), ()),
    ("c_walrus", "walrus", (":=",), None, ()),
    ("c_match", "match", ("match",), None, ()),
    ("c_del", "del", ("del",), None, ()),
    ("c_dict", "dict", ("dict",), None, ()),
    ("c_dictcomp", "dictcomp", ("dict comprehension",), None, ()),
    ("c_set", "set", ("set",), None, ()),
    ("c_setcomp", "setcomp", ("set comprehension",), None, ()),
    ("c_string_arith", "string_arith", ("str",), None, ()),
    ("c_raise", "raise", ("raise",), None, ()),
    ("c_import", "import", ("import",), None, ()),
    ("c_import_from", "import_from", ("import",), None, ()),
    ("c_call_no_source", "call_no_source", ("no_source", "no source"), None, ()),
    ("c_ulp", "ulp", ("ulp", "no derivative rule"), None, ()),
    ("c_divmod", "divmod", ("divmod", "no derivative rule"), ([3.0, 1.0, 2.0],), ()),
    ("c_no_return", "no_return_def", ("return",), None, ()),
    ("c_bare_return", "bare_return", ("return",), None, ()),
    ("c_tuple_shapes", "tuple_shapes", ("return", "shape"), None, ()),
    ("c_call_local", "call_local", ("calling", "local variable"), None, ()),
    ("c_function_value", "function_value", ("math.sin",), None, ()),
    ("c_attr_local", "attr_local", (".strides",), None, ()),
    ("c_attr_assign", "attr_assign", ("the attribute s.a", "an object is a value"), None, ()),
    # a few more from the fence's table
    ("c_annassign", "annassign", ("annotated",), None, ()),
    ("c_starred_call", "starred_call", ("*args",), None, ()),
    ("c_bitwise", "bitwise", ("operator",), None, ()),
    ("c_is_compare", "is_compare", ("comparison", "is"), None, ()),
    # refused because the value or the object cannot be followed
    ("c_loop_var_after", "loop_var_after", ("loop variable", "after"), None, ()),
    ("c_loop_var_reassigned", "loop_var_reassigned", ("for-loop variable",), None, ()),
    ("c_param_loop_var", "param_loop_var", ("parameter 'x'", "for-loop variable"), (0.5, [1.0, 2.0]), ()),
    ("c_list_slice_assign", "list_slice_assign", ("slice of a list",), ([1.0, 2.0, 3.0],), ()),
    ("c_linalg_eigh", "linalg_eigh", ("np.linalg.eig", "complex"), (np.eye(2),), ()),
    ("c_add_at", "add_at", ("np.multiply.at", "no derivative rule"), None, ()),
]


def test_a_value_read_from_a_list_of_lists_and_numbers_is_refused_in_reverse_mode():
    """Which of a list or a number xs[i] is depends on i: forward mode carries its tangent whatever it
    is, reverse mode would have to guess the adjoint, so it refuses with the line that uses it."""
    d = adcompiler.differentiate(C.c_mixed_list_read, wrt="x")
    assert d.jvp((1.5, 0), (1.0,)) == (3.0, 2.0)
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        d.vjp((1.5, 0), 1.0)
    check_located(info.value, "mixed_list_read", ("list or a number",))


def _fn(name):
    fn = getattr(C, name)
    return fn() if name.startswith("make_") else fn  # make_nonlocal returns the closure


def _params():
    for name, marker, words, args, marks in CASES:
        for mode in ("grad", "jvp"):
            yield pytest.param(name, marker, words, args, mode, marks=marks, id=f"{marker}-{mode}")


@pytest.mark.parametrize("name, marker, words, args, mode", list(_params()))
def test_unsupported_construct(name, marker, words, args, mode):
    args = (1.5,) if args is None else args
    d = adcompiler.differentiate(_fn(name))
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        if mode == "grad":
            d.grad(*args)
        else:
            # one tangent per differentiated parameter, shaped like its primal (a default counts too)
            primals = args + (2.0,) * (len(d.wrt) - len(args))
            tangents = tuple([1.0] * len(a) if isinstance(a, list) else np.ones_like(a) for a in primals)
            d.jvp(primals, tangents)
    check_located(info.value, marker, words)


@pytest.mark.parametrize("name", ["c_ulp", "c_divmod"])
def test_missing_rule_is_missing_rule_error(name):
    args = ([3.0, 1.0, 2.0],) if name == "c_divmod" else (1.5,)
    with pytest.raises(adcompiler.MissingRuleError):
        adcompiler.differentiate(_fn(name)).grad(*args)


# ------------------------------------------------ writing into an array parameter
# Reported when the reverse code is built, so only .grad on an ndarray raises.


def _array_param_error():
    d = adcompiler.differentiate(C.c_array_param_write)
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        d.grad(np.array([1.0, 2.0, 3.0]))
    return info.value


def test_array_parameter_write():
    check_located(_array_param_error(), "array_param_write", ("writing into", "array parameter"))


def test_array_parameter_write_names_the_users_variable():
    err = _array_param_error()
    assert re.search(r"array parameter A\b", err.msg), err.msg


def test_array_parameter_write_column():
    err = _array_param_error()
    assert err.offset == marker_text("array_param_write").index("A[0]") + 1


# ------------------------------------------------ a function with no source, differentiated directly


def test_no_source_function_directly():
    d = adcompiler.differentiate(C.no_source)
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        d.grad(1.5)
    err = info.value
    # There is no file to point at: the location is the exec'd code's own "<string>", line 1.
    assert err.filename == "<string>"
    assert err.lineno == C.no_source.__code__.co_firstlineno
    assert isinstance(err.offset, int) and err.offset >= 1
    m = MESSAGE.match(err.msg)
    assert m, err.msg
    assert "no_source" in m["construct"] and "no source" in m["construct"]
    assert len(m["advice"].strip()) >= 5


# ------------------------------------------------ the command line


def test_cli_reports_file_line_col():
    proc = adc("compile", FUNCS_PATH, "--function", "c_try_except")
    assert proc.returncode != 0
    line = marker_line("try_except")
    col = marker_text("try_except").index("try") + 1
    out = proc.stderr + proc.stdout
    m = re.search(r"(\S*catalogue_funcs\.py):(\d+):(\d+): (.+?) is not supported; (.+)", out)
    assert m, out
    assert (int(m[2]), int(m[3])) == (line, col), out
    assert "try" in m[4] and len(m[5].strip()) >= 5
    assert "Traceback" not in out
