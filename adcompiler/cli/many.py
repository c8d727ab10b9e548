"""``adc compile A.py B.py -o OUTDIR`` and ``adc compile DIR -o OUTDIR``: several files, each compiled as
one file is, into a directory; outputs never written over inputs, and a run that compiles nothing says so."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from .outputs import same_file


def compile_many(args, compile_one) -> int:
    """``adc compile A.py B.py -o OUT`` or ``adc compile DIR -o OUT``: each file's module written to
    ``OUT/<its path under DIR>/<name>_ad.py``; a file without functions is skipped, a file that fails is
    reported (and not written) and the others are written; status 1 if any failed."""
    if not args.output:
        first = args.file[0] if len(args.file) == 1 else None
        what = f"{first}: is a directory: its files are" if first else "several files are"
        return _usage(f"{what} compiled into a directory: pass -o OUTDIR (or one Python file, printed)")
    if args.function or args.stage:
        return _usage("--function and --stage choose within one file: compile that file on its own")
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        return _usage(f"{out}: is not a directory (with several inputs, -o names the directory to write into)")
    targets: dict = {}  # output path -> input file
    for name in args.file:
        given = Path(name)
        if not given.exists():
            return _usage(f"{given}: no such file or directory")
        found = [given] if given.is_file() else sorted(_python_files(given, out))
        if not found and given.is_dir():
            if out.resolve() == given.resolve() or given.resolve() in out.resolve().parents:
                return _usage(
                    f"{given}: is the output directory {out} itself (or inside it): its files are left out, so there "
                    "is nothing to compile; write the modules into another directory (-o OUTDIR)"
                )
            return _usage(f"{given}: no Python files in it, nothing to compile")
        for file in found:
            target = out / (file.relative_to(given) if given.is_dir() else Path(file.name))
            target = target.with_name(target.stem + "_ad.py")
            if target in targets:
                return _usage(f"{file} and {targets[target]} would both be written to {target}: compile them apart")
            targets[target] = file
    inputs = [file for file in targets.values()]
    for target, file in targets.items():
        clash = next((i for i in inputs if target.exists() and same_file(target, i)), None)
        if clash is not None:
            return _usage(
                f"{file}'s module would be written over the input {clash} ({target}): "
                "choose another -o, or leave that file out of the inputs"
            )
    failed = written = 0
    for target, file in targets.items():
        if not _defines_functions(file):
            print(f"adc: {file}: no functions, skipped", file=sys.stderr)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        status = compile_one(args, file, str(target))
        failed += status != 0
        written += status == 0
        print(f"{'wrote' if status == 0 else 'failed'} {target}" + ("" if status == 0 else f" (from {file})"))
    if not failed and not written:
        print("adc: no file had a function to differentiate: nothing written", file=sys.stderr)
        return 1
    return 1 if failed else 0


def _python_files(directory: Path, out: Path):
    """The ``.py`` files under ``directory``, hidden folders, ``__pycache__`` and the output folder left out."""
    for file in directory.rglob("*.py"):
        parts = file.relative_to(directory).parts
        if any(p.startswith(".") or p == "__pycache__" for p in parts[:-1]):
            continue
        if out.resolve() in file.resolve().parents:
            continue
        yield file


def _defines_functions(file: Path) -> bool:
    """Whether ``file`` has a ``def`` at its top level (a file that does not parse: yes, so it is reported)."""
    try:
        tree = ast.parse(file.read_bytes())
    except (SyntaxError, ValueError):
        return True
    return any(isinstance(node, ast.FunctionDef) for node in tree.body)


def _usage(message: str) -> int:
    print(f"adc: {message}", file=sys.stderr)
    return 2
