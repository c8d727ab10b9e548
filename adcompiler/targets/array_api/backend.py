"""``differentiate(f, arrays="any")`` and ``adc compile --arrays any``: derivative code that calls the
array namespace of its arguments (the array API standard, through ``array-api-compat``), so that
it runs on Dask, CuPy, array-api-strict or NumPy arrays (``back.arrays_target`` says the rule).

The default, ``arrays="numpy"``, is the plain NumPy code, untouched.  A NumPy construct the
translation has no array-API formulation for is refused at the user's line, naming it.
"""

from __future__ import annotations

import inspect
import weakref

from ...compile import emit
from .translate import NotInStandard, translate
from ...compile.load import load
from ...compile.origins import Told, carried
from ...errors import UnsupportedSyntaxError

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


def translated(source: str, program, filename: str, first_line: int, globals_: dict, origins: list) -> str:
    """The array-API form of the generated module ``source`` of ``program`` (``origins``: those of its
    lines), or the located error."""
    try:
        return translate(source, program.helpers, _fresh(program), globals_)
    except NotInStandard as e:
        raise located(e, Told(source, origins), filename, first_line) from None


def located(error: NotInStandard, told: Told, filename: str, first_line: int) -> UnsupportedSyntaxError:
    """The error for a refused construct at the user's line its code came from (``told``: where each
    line of the generated code comes from)."""
    line, text, _ = told.at(error.line)
    if line is None:
        line, text = first_line, None
    return UnsupportedSyntaxError(
        f'{error.construct} under arrays="any"',
        'write it with functions of the array API standard, or differentiate with arrays="numpy"',
        filename,
        line,
        0,
        text,
    )


def build(owner, program, built: list, mode: str):
    """The entry function for ``mode``: the generated functions ``built`` in their array-API form."""
    array_api_compat()
    fn = owner.fn
    origins: list = []
    source = emit.render_module(built, program.ns, program.helper_sources, formatted=False, origins=origins)
    source = translated(source, program, _filename(fn), fn.__code__.co_firstlineno, fn.__globals__, origins)
    label = f"{mode} of {fn.__qualname__} (arrays='any')"
    namespace = load(source, fn.__globals__, label, program.supplied, {d.name for d in built})
    return namespace[built[0].name]


def shown(text: str, program, fn, origins: list | None = None) -> str:
    """``f.source()`` under ``arrays="any"``: the code that runs, black-formatted; ``origins``, those of
    ``text``'s lines (where a refusal is told), become those of its lines (``back.origins``)."""
    first = fn.__code__.co_firstlineno
    out = emit.format_source(translated(text, program, _filename(fn), first, fn.__globals__, origins or []))
    if origins is not None:
        origins[:] = carried(text, origins, out)
    return out


_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # program -> the names this target added


def _fresh(program):
    """``program``'s fresh module names, each asked for once: the code shown is the code loaded."""
    names = _NAMES.setdefault(program, {})
    return lambda name: names[name] if name in names else names.setdefault(name, program.module.fresh(name))


def _filename(fn) -> str:
    return inspect.getsourcefile(fn) or fn.__code__.co_filename
