"""``differentiate(f, arrays="any")`` and ``adc compile --arrays any``: derivative code that calls the
array namespace of its arguments (the array API standard, through ``array-api-compat``), so that
it runs on Dask, CuPy, array-api-strict or NumPy arrays (``translate`` says the rule: the generated
functions are translated on the IR, as each spec is built, by the passes ``PASSES`` hands the driver).

The default, ``arrays="numpy"``, is the plain NumPy code, untouched.  A NumPy construct the
translation has no array-API formulation for is refused at the user's line, naming it.
"""

from __future__ import annotations

import inspect
import re
import weakref

from . import translate
from ...compile import emit
from ...compile.load import load
from ...compile.pipeline import TargetPasses
from ...errors import UnsupportedSyntaxError
from ...ir.nodes import Source

ARRAYS = ("numpy", "any")


def check(arrays: str, backend: str) -> None:
    """Refuse an unknown ``arrays`` option, or one the backend does not compile."""
    if arrays not in ARRAYS:
        raise ValueError(f"arrays={arrays!r}: choose one of {', '.join(map(repr, ARRAYS))}")
    if arrays == "any" and backend != "python":
        raise ValueError(f'arrays="any" runs with backend="python" (backend={backend!r} compiles NumPy code)')


def array_api_compat():
    """The ``array_api_compat`` module, or an ImportError that says how to install it."""
    try:
        import array_api_compat
    except ImportError:
        raise ImportError('arrays="any" needs array-api-compat: pip install "adcompiler[arrays]"') from None
    return array_api_compat


def generated(defs: list, program, facts=None) -> list:
    """The generated functions of one spec in their array-API form (``compile.pipeline.TargetPasses``),
    or the error located at the user's line a refused construct's statement came from."""
    try:
        return translate.functions(defs, program.helpers, program.helper, _fresh(program)("xp"))
    except translate.NotInStandard as e:
        source = next((d.source for d in defs if d.source is not None), None)
        raise located(e, source) from None


def helper_sources(program, wanted: list) -> list:
    """The runtime helpers' source for code calling ``wanted`` (``(helper, its name)`` pairs)."""
    return translate.helper_texts(wanted, program.helper, program.helper_source)


PASSES = TargetPasses(generated=generated, helper_sources=helper_sources)


def copied(functions: list, program, globals_: dict) -> list:
    """The user's functions ``adc compile`` copies into the module it writes (their source), in their
    array-API form, or the error located at the line of the user's file a refused construct is on."""
    out = []
    for text in functions:
        try:
            out.append(translate.copied(text, program.helper, _fresh(program)("xp"), globals_))
        except translate.NotInStandard as e:
            name = re.search(r"def (\w+)\(", text).group(1)
            fn = inspect.unwrap(globals_[name])
            lines, first = inspect.getsourcelines(fn)
            at = first + next(k for k, line in enumerate(lines) if line.lstrip().startswith("def "))
            def_line = next(k for k, line in enumerate(text.splitlines(), 1) if line.startswith("def "))
            where = Source(
                _filename(fn), {at + k: line for k, line in enumerate(text.splitlines()[def_line - 1 :])}, {}
            )
            raise located(translate.NotInStandard(e.construct, at + e.line - def_line), where) from None
    return out


def located(error, source) -> UnsupportedSyntaxError:
    """The error for a refused construct (``translate.NotInStandard``) at its line of ``source`` (the
    ``ir.nodes.Source`` of the user's function it came from)."""
    lines = source.lines if source is not None else {}
    line = error.line or min(lines, default=1)
    return UnsupportedSyntaxError(
        f'{error.construct} under arrays="any"',
        'write it with functions of the array API standard, or differentiate with arrays="numpy"',
        source.filename if source is not None else "<unknown>",
        line,
        0,
        lines[line].strip() if line in lines else None,
    )


def build(owner, program, built: list, mode: str):
    """The entry function for ``mode``: the generated functions ``built`` (in their array-API form)."""
    array_api_compat()
    fn = owner.fn
    source = emit.render_module(built, program.ns, program.helper_sources, formatted=False)
    label = f"{mode} of {fn.__qualname__} (arrays='any')"
    namespace = load(source, fn.__globals__, label, program.supplied, {d.name for d in built})
    return namespace[built[0].name]


_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # program -> the names this target added


def _fresh(program):
    """``program``'s fresh module names, each asked for once: every function reads the same ``xp``."""
    names = _NAMES.setdefault(program, {})
    return lambda name: names[name] if name in names else names.setdefault(name, program.module.fresh(name))


def _filename(fn) -> str:
    return inspect.getsourcefile(fn) or fn.__code__.co_filename
