"""``adc compile FILE.py``: write a file's derivative code as a standalone module.

The module defines ``f_forward(*params, *tangents) -> (value, tangent)`` and
``f_reverse(*params, ct=1.0) -> (value, cotangents)`` for each selected ``f``
(every parameter differentiated), the derivative functions they call, the
user's primal helpers they call, and the imports and constants those need:
nothing from adcompiler or black.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import linecache
import os
import sys
from pathlib import Path

from ..compile import emit
from ..options import Options
from ..compile.origins import carried
from ..compile.page import module_page
from ..errors import UnsupportedSyntaxError
from ..targets import registry as targets
from ..analysis import values as V
from ..analysis.assume import assumed_signature
from ..front.files import UnreadDefinitionError, source_text, unread_functions
from ..front.parse import module_functions
from .inputs import LoadError, as_spelt, import_input
from ..targets.array_api import backend as arrays_backend
from . import check as cli_check
from .many import compile_many
from ..compile.building import Building
from ..compile.pipeline import STAGES, Program
from .outputs import OutputRefused, same_file, write_output
from .written import Unwritable, primal_helpers


def compile_file(
    path: str,
    functions=(),
    mode: str = "both",
    stage: str | None = None,
    checkpoint=None,
    run: bool = False,
    refused: list | None = None,
    arrays: str = "numpy",
    target: str = "python",
    origins: list | None = None,
) -> str:
    """The derivative module (or one stage) for the chosen functions of a file (``checkpoint``: as in
    ``differentiate``, for the reverse mode of the chosen functions' loops).  The file's definitions are
    read without running its other top-level code, unless ``run`` (``--import``) imports it whole.

    With no ``functions`` named and a ``refused`` list given, a function adcompiler refuses is left out
    (its error appended to ``refused``) and the others are compiled; otherwise a refusal is raised.
    ``arrays="any"``: code that calls its arguments' array namespace (see ``adcompiler.targets.array_api.backend``);
    ``target="numba"``: every function of the module compiled by ``@numba.njit(cache=True)``.  ``origins``,
    when given, gets the ``back.origins.Origin`` of each line of the module (for ``--html``)."""
    module = import_input(path, run)
    with Building():  # (room for deep recursion; the module's Programs are this call's own)
        return _compile_module(module, path, functions, mode, stage, checkpoint, refused, arrays, target, origins)


def _compile_module(
    module, path: str, functions, mode, stage, checkpoint, refused, arrays, target="python", origins=None
) -> str:
    available = module_functions(module)
    unread = unread_functions(module)  # functions adc compile could not make without running the file
    unset = vars(module).get("__adc_unset__", {})
    for name in functions:
        if name not in available and name in unset:
            raise unset[name].error(name)
    if not available and unread:
        raise Refused([u.error(name) for name, u in unread.items()])
    if not available:
        raise SystemExit(f"adc: {path}: no functions to differentiate (it defines no def at its top level)")
    if not functions and refused is not None:
        refused.extend(u.error(name) for name, u in unread.items())
    chosen = list(functions) or list(available)
    if not functions and refused is not None and len(chosen) > 1:
        try:  # every function at once, as usual; only where one is refused, each alone to name which
            return _compile_module(module, path, chosen, mode, stage, checkpoint, None, arrays, target, origins)
        except UnsupportedSyntaxError:
            if origins is not None:
                origins.clear()
        where = targets.of(target, arrays)  # (each function alone on the target it is written for)
        left_out = _refusals(module, {name: available[name] for name in chosen}, mode, stage, checkpoint, where)
        refused.extend(left_out.values())
        chosen = [name for name in chosen if name not in left_out]
        if not chosen:
            raise Refused(list(refused))
    missing = [f for f in chosen if f not in available]
    if missing:
        raise SystemExit(
            f"adc: {path}: no function named {', '.join(missing)} (found: {', '.join(available) or 'none'})"
        )
    options = Options(checkpoint=checkpoint, guard=True)  # each entry checks its arguments' kinds
    where = targets.of(target, arrays)  # (refuses arrays="any" with the numba target)
    program = where.program(vars(module), options)
    modes = ("forward", "reverse") if mode == "both" else (mode,)
    wanted = _reserved_entry_names(program, path, {name: available[name] for name in chosen}, modes, stage)
    sigs = {name: assumed_signature(program, available[name]) for name in chosen}
    if stage is not None:
        return "\n\n".join(
            program.stage(available[name], stage, _wrt(available[name], sigs[name]), sigs[name]) for name in chosen
        )
    _claim_entry_names(program, path, wanted, sigs)
    defs, seen = [], set()
    for name in chosen:
        fn = available[name]
        for m in modes:
            built = program.build(fn, m, _wrt(fn, sigs[name]), sigs[name])
            if built[0].name != f"{name}_{m}":
                raise RuntimeError(f"{name}'s {m} derivative came out as {built[0].name}, not as claimed")
            for d in built:
                if d.name not in seen:
                    seen.add(d.name)
                    defs.append(d)
    if where.finish_defs is not None:  # (Numba's: lists joined and repeated as calls, prange loops split)
        defs = where.finish_defs(defs, program.module.fresh)
    traced: list = []  # (the origins of the lines: where a target's refusal is told, and for the page)
    body = emit.render_module(
        defs, program.ns, origins=traced, formatted=False
    )  # (the namespace learns its imports; black runs once, on the whole module, below)
    helpers = primal_helpers(program, module, where.constant)
    if where.copied is not None:  # (the array API's: calling the arguments' array namespace)
        helpers["functions"] = where.copied(helpers["functions"], program, vars(module))
    header = [
        f'"""Derivatives of {Path(path).name}, generated by adcompiler (adc compile). Do not edit."""',
        "",
    ]
    header += program.ns.import_lines() + [""] + helpers["constants"] + [""] + helpers["functions"]
    header += ["\n\n" + h for h in program.helper_sources()]
    text = "\n".join(header) + "\n\n" + body
    module_text = text
    head = "\n".join(header) + "\n\n"
    if where.write is not None:  # compiled by numba.njit, or calling the arguments' array namespace
        text = where.write(text, program, path, vars(module), [None] * head.count("\n") + traced)
    text = emit.format_source(text)
    if origins is not None:
        origins.extend(carried(module_text, [None] * head.count("\n") + traced, text))
    return text


class Refused(Exception):
    """Every function of the file refused (each a located error): nothing to write."""

    def __init__(self, errors: list):
        super().__init__("; ".join(e.msg for e in errors))
        self.errors = sorted(errors, key=lambda e: e.lineno or 0)


class NameClashError(UnsupportedSyntaxError):
    """A name in the user's file that the written module must give to a derivative: ``f_forward`` or
    ``f_reverse`` of a chosen ``f`` (a function, variable or import of that name), located in the file."""

    def __init__(self, what: str, entry: str, mode: str, filename: str, lineno: int, col: int, text=None):
        self.construct = f"{what} clashes with the name adc compile gives {entry}'s {mode} derivative"
        other = {"forward": "reverse", "reverse": "forward"}[mode]
        self.remedy = (
            f"rename it (the written module defines f_forward and f_reverse for each chosen f), "
            f"or leave {entry} out with --function, or its {mode} mode with --mode {other}"
        )
        message = f"{filename}:{lineno}:{col + 1}: {self.construct}; {self.remedy}"
        SyntaxError.__init__(self, message, (filename, lineno, col + 1, text))


# Program.build's kind of spec for each mode of an entry point (its key is (kind, function, parameters)).
_ENTRY_KINDS = {"forward": "forward", "reverse": "fused"}


def _reserved_entry_names(program: Program, path: str, entries: dict, modes, stage) -> list:
    """The documented names ``f_forward`` / ``f_reverse`` of every chosen ``f``, ``(f, mode, name)``, taken
    before any function is lowered: a nested derivative lowered later (``tangent_of``'s
    ``adcompiler.jvp(energy, ...)``) and a callee's derivative (``h(x, b)``'s in ``b`` is ``h_b_forward``, the
    name ``h_b``'s own forward derivative needs) then name their code otherwise; a global of the file in the
    way is refused (``NameClashError``, at its first mention).  None taken for ``--stage``."""
    if stage is not None:
        return []
    wanted = [(fn, m, f"{entry}_{m}") for entry, fn in entries.items() for m in modes]
    for fn, m, name in wanted:
        if program.module.fresh(name) != name:
            raise _name_clash(path, name, name[: -len(m) - 1], m)
    return wanted


def _claim_entry_names(program: Program, path: str, wanted: list, sigs: dict) -> None:
    """Give each chosen function's derivative its reserved name (``_reserved_entry_names``), refusing where the
    user's own code (lowered by now) reads or binds that name: the program would otherwise call the
    derivative ``f_forward_1`` and leave ``f_forward`` to the user's, against the README.  (A name generated
    code uses, a nested derivative's copied into the module, is renamed there.)"""
    for fn, m, name in wanted:
        entry = name[: -len(m) - 1]  # (the file's name of the function: a decorator's function may be another's)
        if name in program.kept_names:
            raise _name_clash(path, name, entry, m)
        program.specs[(_ENTRY_KINDS[m], fn, _wrt(fn, sigs[entry]), sigs[entry])] = (name,)


def _name_clash(path: str, name: str, entry: str, mode: str) -> NameClashError:
    """The clash of ``name`` with ``entry``'s derivative, located where the file first defines or uses it
    (a name that only a star import or another module brings in is reported at the file's first line)."""
    source = source_text(Path(path))
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            what = f"the {'class' if isinstance(node, ast.ClassDef) else 'function'} {name}"
        elif isinstance(node, ast.alias) and (node.asname or node.name.partition(".")[0]) == name:
            what = f"the import of {name}"
        elif isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.arg) and node.arg == name:
            what = f"the name {name}"
        else:
            continue
        return NameClashError(what, entry, mode, path, node.lineno, node.col_offset, lines[node.lineno - 1])
    return NameClashError(f"the name {name} (which {path} imports)", entry, mode, path, 1, 0)


def _version() -> str:
    """The installed package's version (its metadata), or "unknown" when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("adcompiler")
    except PackageNotFoundError:
        return "unknown"


def _unwritable(output: Path, exc: OSError) -> str:
    """Why ``output`` could not be written, in its own terms rather than the temporary file's."""
    parent = output.parent
    if not parent.exists():
        return f"there is no directory {parent}"
    if not parent.is_dir():
        return f"{parent} is not a directory"
    if output.is_dir():
        return "it is a directory"
    return exc.strerror or str(exc)


def _refusals(module, fns: dict, mode: str, stage: str | None, checkpoint, where) -> dict:
    """The functions adcompiler refuses (``fns``: the file's name of each -> it), each built alone in a program
    of its own on the target ``where`` (the array-API target's refusals are its own): name -> the error."""
    found = {}
    modes = ("forward", "reverse") if mode == "both" else (mode,)
    for entry, fn in fns.items():
        program = where.program(vars(module), Options(checkpoint=checkpoint, guard=True))
        try:
            sig = assumed_signature(program, fn)
            if stage is not None:
                program.stage(fn, stage, _wrt(fn, sig), sig)
            for m in modes:
                program.build(fn, m, _wrt(fn, sig), sig)
            if stage is None:  # (what the written module would copy: a rule it cannot hold is this one's refusal)
                primal_helpers(program, module, where.constant)
        except UnsupportedSyntaxError as exc:
            if not os.path.isfile(exc.filename or "") or isinstance(exc, Unwritable):  # (generated code, or a
                exc = _at_function(exc, fn)  # rule made as the code runs: at fn's line)
            exc.left_out = (entry, _span(fn.__code__))  # (its error may be in a function it calls)
            found[entry] = exc
    return found


def _at_function(exc: UnsupportedSyntaxError, fn) -> UnsupportedSyntaxError:
    """``exc``, raised in derivative code adcompiler generated for a derivative ``fn`` takes (no file of the
    user's), told at ``fn``'s own line in the user's file."""
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    line = fn.__code__.co_firstlineno
    text = linecache.getline(filename, line).rstrip("\n") or None
    construct = f"{exc.construct} (in the code of a derivative {fn.__name__} takes)"
    return type(exc)(construct, exc.remedy, filename, line, 0, text)


def _span(code) -> tuple:
    """The first and last lines of a function's code (its nested functions' too)."""
    lines = [line for _, _, line in code.co_lines() if line is not None]
    for const in code.co_consts:
        if hasattr(const, "co_lines"):
            lines.append(_span(const)[1])
    return code.co_firstlineno, max(lines, default=code.co_firstlineno)


def _params(fn) -> tuple:
    """Its parameters, keyword-only ones too (the written module takes each by position or keyword)."""
    return fn.__code__.co_varnames[: fn.__code__.co_argcount + fn.__code__.co_kwonlyargcount]


def _wrt(fn, sig) -> tuple:
    """The parameters differentiated: every one but a string (``kind="mse"``, choosing a branch: a constant,
    as the API leaves it out)."""
    return tuple(p for p, a in zip(_params(fn), sig.avals) if not (isinstance(a, V.Static) and a.what == "str"))


def _checkpoint(text: str):
    """``--checkpoint`` as ``differentiate`` takes it: ``sqrt`` -> True, ``revolve`` -> "revolve",
    ``revolve:C`` -> ("revolve", C), else an int >= 1."""
    if text == "sqrt":
        return True
    if text.isdigit() and int(text) >= 1:
        return int(text)
    if text == "revolve":
        return "revolve"
    most = text.removeprefix("revolve:")
    if most != text and most.isdigit() and int(most) >= 1:
        return ("revolve", int(most))
    raise argparse.ArgumentTypeError(
        f"expected sqrt, a whole number >= 1, revolve or revolve:C with C a whole number >= 1, not {text!r}"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="adc", description="Source-to-source automatic differentiation for Python.")
    parser.add_argument("--version", action="version", version=f"adc {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    comp = sub.add_parser("compile", help="print or write the derivative module of Python files")
    comp.add_argument("file", nargs="+", help="the Python file holding the functions (several, or a directory: -o DIR)")
    comp.add_argument(
        "-o",
        "--output",
        help="write the module here (atomically) instead of printing it; for several files, the directory for them",
    )
    comp.add_argument(
        "--function",
        action="append",
        default=[],
        help="differentiate this function (repeatable; default: all)",
    )
    comp.add_argument("--mode", choices=("forward", "reverse", "both"), default="both")
    comp.add_argument(
        "--import",
        dest="run",
        action="store_true",
        help="import FILE.py whole, running its top-level code (by default only its imports, definitions "
        "and assignments that call none of its own code run)",
    )
    comp.add_argument(
        "--stage",
        choices=STAGES,
        help="print one stage of the pipeline instead of the module",
    )
    comp.add_argument(
        "--checkpoint",
        type=_checkpoint,
        metavar="K|sqrt|revolve[:C]",
        help="reverse mode: run long loops in segments of K iterations (sqrt: isqrt(N)), O(N/K + K) tape; "
        "revolve: binomial checkpointing, at most C loop states held (default: N.bit_length(), about log2 N)",
    )
    comp.add_argument(
        "--arrays",
        choices=arrays_backend.ARRAYS,
        default="numpy",
        help="any: derivative code that calls its arguments' array namespace (Dask, CuPy; needs array-api-compat)",
    )
    comp.add_argument(
        "--target",
        choices=targets.backends(),
        default="python",
        help="numba: every function of the module compiled by @numba.njit(cache=True) (lists taken as NumPy arrays)",
    )
    comp.add_argument(
        "--html",
        metavar="OUT.html",
        help="write one self-contained page showing FILE.py beside its derivative module, line linked to line",
    )
    cli_check.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "check":
        return cli_check.run(args)
    if args.html and (args.stage or len(args.file) > 1 or Path(args.file[0]).is_dir()):
        what = "--stage" if args.stage else "several files or a directory"
        print(f"adc: --html shows one file beside its derivative module, not {what}", file=sys.stderr)
        return 2
    if len(args.file) > 1 or Path(args.file[0]).is_dir():
        return compile_many(args, _compile_one)
    return _compile_one(args, Path(args.file[0]), args.output)


def _compile_one(args, path: Path, output: str | None) -> int:
    """``adc compile FILE.py``: print the module, or write it to ``output`` (and the page to ``--html``);
    the exit status."""
    if not path.is_file():
        print(f"adc: {path}: no such file", file=sys.stderr)
        return 2
    html = getattr(args, "html", None)
    for target, option in ((output, "-o"), (html, "--html")):
        if target and same_file(Path(target), path):
            print(
                f"adc: refusing to overwrite the input file {path} with its {_WHAT[option]}; choose another {option}",
                file=sys.stderr,
            )
            return 2
    if output and html and same_file(Path(output), Path(html)):
        print(f"adc: -o and --html name one file ({html}): choose two", file=sys.stderr)
        return 2
    dont_write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ beside FILE.py
    origins: list | None = [] if html else None
    try:
        refused: list = []
        text = compile_file(
            str(path),
            args.function,
            args.mode,
            args.stage,
            args.checkpoint,
            args.run,
            refused,
            args.arrays,
            args.target,
            origins,
        )
        for exc in sorted(refused, key=lambda e: getattr(e, "left_out", (None, (e.lineno or 0,)))[1][0]):
            how = "" if isinstance(exc, UnreadDefinitionError) else "; --function NAME compiles chosen ones"
            name, span = getattr(exc, "left_out", (None, None))
            inside = name is None or exc.lineno is None or span[0] <= exc.lineno <= span[1]
            whom = "" if name is None else f"{name} " if inside else f"{name}, which calls the function there, "
            print(f"adc: {as_spelt(exc, path)} ({whom}left out of the module{how})", file=sys.stderr)
    except UnsupportedSyntaxError as exc:  # MissingRuleError and NameClashError too: all located in the user's file
        print(f"adc: {as_spelt(exc, path)}", file=sys.stderr)
        return 1
    except Refused as exc:  # every function refused: each says where and why, one line each
        for error in exc.errors:
            print(f"adc: {as_spelt(error, path)}", file=sys.stderr)
        return 1
    except LoadError as exc:
        print(f"adc: {exc}", file=sys.stderr)
        return 1
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    finally:
        sys.dont_write_bytecode = dont_write_bytecode
    writes = [(output, text)] if output else []
    if html:
        title = Path(output).name if output else f"{path.stem}_ad.py"
        writes.append((html, module_page(str(path), source_text(path), text, origins, title)))
    for target, content in writes:
        read = _source_read(Path(target))
        if read is not None:  # (a module the file imports, whose source was read to compile it)
            option = "-o" if target == output else "--html"
            print(
                f"adc: refusing to overwrite {read}, a source file compiling {path} read; choose another {option}",
                file=sys.stderr,
            )
            return 2
        try:
            write_output(target, content)
        except OutputRefused as exc:
            print(f"adc: {target}: not written: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"adc: {target}: cannot write it: {_unwritable(Path(target), exc)}", file=sys.stderr)
            return 1
    if not writes:
        sys.stdout.write(text)
    return 0


_WHAT = {"-o": "derivative module", "--html": "page"}


def _source_read(target: Path) -> str | None:
    """The source file (of a module the input imports, read through ``linecache`` to compile it) that
    ``target`` names, or None."""
    if not target.exists():
        return None
    for name in list(linecache.cache):
        if not name.startswith("<") and os.path.isfile(name) and same_file(target, Path(name)):
            return name
    return None


if __name__ == "__main__":
    sys.exit(main())
