"""``adc check FILE.py --function f --args "..."``: ``check_grad`` from the command line.

Reads FILE.py as ``adc compile`` does (without running any of it, unless ``--import``), evaluates
``--args`` as a Python tuple in FILE's namespace (its imports and constants, so ``np.ones(3)`` works where
FILE imports NumPy as ``np``), and compares both modes with central differences and the complex step.
Status 0 when every error is within ``--tol``, 1 when one is not (the table is printed) or the function
is refused (a located error), 2 for input that cannot be used (a bad ``--args``, an unknown function).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..api.check import check_grad
from ..errors import UnsupportedSyntaxError
from ..front.parse import module_functions
from .inputs import LoadError, as_spelt, import_input


def add_parser(sub) -> None:
    """The ``check`` subcommand's arguments."""
    check = sub.add_parser("check", help="compare a function's derivatives with finite differences (check_grad)")
    check.add_argument("file", help="the Python file holding the function")
    check.add_argument("--function", help="the function to check (default: the file's only function)")
    check.add_argument("--args", required=True, help='the arguments, as Python: "1.0, 2.0" or "[0.5, 1.5], np.ones(3)"')
    check.add_argument("--wrt", help="differentiate only these parameters, comma-separated (default: all)")
    check.add_argument("--tol", type=float, default=1e-6, help="largest relative error accepted (default: 1e-6)")
    check.add_argument("--import", dest="run", action="store_true", help="import FILE.py whole, as adc compile does")


def run(args: argparse.Namespace) -> int:
    """Run ``adc check``; the status (see the module's docstring)."""
    path = Path(args.file)
    if not path.is_file():
        return _fail(f"{path}: {'is a directory; pass one Python file' if path.is_dir() else 'no such file'}", 2)
    dont_write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        module = import_input(str(path), args.run)
    except LoadError as exc:
        return _fail(str(exc), 1)
    finally:
        sys.dont_write_bytecode = dont_write_bytecode
    functions = module_functions(module)
    unset = vars(module).get("__adc_unset__", {})  # names adc could not know without running the file
    name = args.function
    if name not in functions and name in unset:
        return _fail(as_spelt(unset[name].error(name), path), 1)
    if name is None:
        if len(functions) != 1:
            found = ", ".join(functions) or "none"
            return _fail(f"{path}: which function? pass --function NAME (found: {found})", 2)
        name = next(iter(functions))
    if name not in functions:
        return _fail(f"{path}: no function named {name} (found: {', '.join(functions) or 'none'})", 2)
    fn = functions[name]
    values = _arguments(args.args, vars(module), path)
    if isinstance(values, str):
        return _fail(values, 2)
    wrt = tuple(w.strip() for w in args.wrt.split(",")) if args.wrt else None
    try:
        worst = check_grad(fn, *values, wrt=wrt, tol=args.tol)
    except UnsupportedSyntaxError as exc:  # MissingRuleError too
        return _fail(as_spelt(exc, path), 1)
    except NameError as exc:  # a name of the file adc could not know without running it (a decorated helper)
        if getattr(exc, "name", None) not in unset:
            raise
        return _fail(as_spelt(unset[exc.name].error(exc.name), path), 1)
    except AssertionError as exc:
        print(exc, file=sys.stderr)
        return 1
    except (TypeError, ValueError) as exc:  # arguments the function cannot take, or not differentiable
        return _fail(f"{name}{_params(fn)} with --args {args.args!r}: {exc}", 2)
    print(f"{name}: derivatives agree (largest relative error {worst:.2e}, tol {args.tol:g})")
    return 0


def _tuple_of(text: str):
    """``--args`` compiled as a tuple: ``(text,)``, or, where that is no Python, the text without a trailing
    comma (``"1.5, 2.0,"``: a tuple as Python writes one); the first's SyntaxError where neither is."""
    try:
        return compile(f"({text}\n,)", "--args", "eval")
    except SyntaxError:
        listed = text.rstrip()
        if not (listed.endswith(",") and listed[:-1].strip()):
            raise
        try:
            return compile(f"({listed[:-1]}\n,)", "--args", "eval")
        except SyntaxError:
            pass
        raise


def _arguments(text: str, namespace: dict, path: Path):
    """``--args`` as a tuple of values, or what is wrong with it (a string, with a caret under the place)."""
    try:
        code = _tuple_of(text)
    except SyntaxError as exc:
        caret = " " * (max(exc.offset or 1, 2) - 2) + "^"
        return f"--args: {exc.msg}:\n    {text}\n    {caret}"
    try:
        return eval(code, dict(namespace))  # noqa: S307 - the user's own command line, run as their code
    except NameError as exc:  # a name of FILE's that reading it did not compute: say why
        unread = namespace.get("__adc_unset__", {}).get(exc.name)
        if unread is None:
            return f"--args {text!r}: evaluating it raised NameError: {exc}"
        return f"--args {text!r}: {exc.name} is not known without running {path} ({unread.phrase()}); use --import"
    except Exception as exc:  # noqa: BLE001 - any error evaluating the user's expression is reported
        return f"--args {text!r}: evaluating it raised {type(exc).__name__}: {exc}"


def _params(fn) -> str:
    return "(" + ", ".join(fn.__code__.co_varnames[: fn.__code__.co_argcount]) + ")"


def _fail(message: str, status: int) -> int:
    print(f"adc: {message}", file=sys.stderr)
    return status
