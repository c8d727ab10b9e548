"""What a Numba error while compiling generated code means for the user's code: a located
``UnsupportedSyntaxError`` at the line of theirs the failing line of generated code comes from (``told``),
saying in their terms what Numba refused (``_REASONS``) and that ``backend="python"`` handles it."""

from __future__ import annotations

import inspect
import linecache
import os
import re
import traceback

from ...compile.origins import LOADED
from ...errors import UnsupportedSyntaxError


def located(error, told, fn, numba):
    """A located error for a Numba typing error in the compiled code (None for other errors); ``told``:
    where each line of that code comes from (``compile.origins.Told``)."""
    frames = traceback.extract_tb(error.__traceback__)
    compiling = any("numba" in f.filename and f.name == "_compile_for_args" for f in frames)
    if not isinstance(error, numba.core.errors.NumbaError) and not type(error).__module__.startswith("numba"):
        if not compiling or not any(f.filename.endswith(("typeinfer.py", "compiler_machinery.py")) for f in frames):
            return None  # an error of the compiled code as it runs, not of Numba compiling it
        error = f"Numba failed while typing it ({type(error).__name__}: {error})"
    message = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # Numba's terminal colours
    found = re.search(rf"{_FILE} \((\d+)\)", message)  # the innermost place Numba names
    user_line, text, helper = told.at(int(found.group(1)) if found else 0)
    reason = next((s.strip() for s in message.splitlines() if s.strip() and "Failed in" not in s), message)
    specific = re.search(r"raised a specific error:\s*\n\s*\w*Error: ([^\n]+)", message)
    if specific and reason.startswith("No implementation of function"):  # (what the one candidate said)
        reason = specific.group(1).strip()
    reason = re.sub(rf"(, defined at)?\s*\(?{_FILE}.*", "", reason)
    unified = re.search(r"Cannot unify array\((\w+), (\w+)[^)]*\) and array\((\w+), (\w+)", reason)
    if unified and unified.group(1) != unified.group(3):  # (float32 times a Python float: float64 in Numba)
        reason = (
            f"one variable holding arrays of two dtypes in compiled code, {unified.group(1)} and {unified.group(3)}:"
            " a float32 array times a number is float64 there, float32 in NumPy; write the number as"
            " np.float32(0.2), or pass float64 arrays"
        )
    if "arguments must all have the same dtype" in reason:  # (a matrix product: which dtypes it was handed)
        kinds = re.findall(r"array\((\w+), \d+d", message.split("arguments must all have the same dtype")[0])[-2:]
        reason = (
            f"Numba's matrix product (@, np.dot) takes two arrays of one float dtype, here {' and '.join(kinds)}:"
            + (
                " write A.astype(np.float64) @ x"
                if any(not k.startswith(("float", "complex")) for k in kinds)
                else " cast one (h.astype(W.dtype)), or pass arrays of one dtype"
            )
        )
    if "getitem(range_state" in message:  # (the signature, below the first line)
        reason = (
            'a slice of a range (range(n)[a:b], or the schedule of checkpoint=("revolve", k)), which Numba does not'
            " compile: write range(a, b), or drop checkpoint= for this target"
        )
    reason = next((plain for known, plain in _REASONS if known in reason), reason)
    order = ""
    if hasattr(fn, "__adc_user__"):  # the reverse code hessian differentiates: the origin of its line
        order, reverse = " at second order (hessian, hvp)", LOADED.get(fn.__code__.co_filename)
        fn = fn.__adc_user__
        if not helper:
            user_line, text, helper = reverse.at(user_line or 0) if reverse is not None else (None, None, None)
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    origin = told.file_at(int(found.group(1))) if found and not helper and not order else None
    if origin is not None and os.path.realpath(origin) != os.path.realpath(filename):  # a line of adcompiler's own
        reason, user_line, text = f"{reason}, in `{text}` of adcompiler's {os.path.basename(origin)}", None, None
    construct = text if helper else f"`{text}`" if text else f"the derivative code of {fn.__name__}"
    line = user_line or fn.__code__.co_firstlineno
    written = linecache.getline(filename, line)
    return UnsupportedSyntaxError(
        f'{construct} under backend="numba"{order} ({reason})',
        'differentiate it with backend="python", which handles it',
        filename,
        line,
        len(written) - len(written.lstrip()) if written.strip() else 0,  # (the statement's column)
        None if helper else text,
    )


_FILE = r"(?:<adcompiler [^>]*>|[^\s\"'(]*adc_[0-9a-f]+\.py)"  # generated code's file (cache.place's when kept)


_REASONS = (  # what Numba says -> what it means for the user's code
    (
        "recursive function does not converge",
        "a recursive call in reverse mode: each level keeps the next one's residuals, a type without end",
    ),
    (
        "Cannot unify array",
        "one variable holding two types in compiled code: arrays of two ndims (a broadcast that adds axes in a"
        " loop), or a list argument (an array there) and a list the code builds",
    ),
    (
        "only supported on float and complex arrays",
        "Numba's matrix product (@, np.dot) takes float arrays, not integer ones: write A.astype(np.float64)",
    ),
    ("built-in function setitem", "a write into a tuple: a list of arrays or tuples is one in compiled code"),
    ("unsupported opcode (IMPORT_NAME)", "it has no form Numba compiles: its Python form imports NumPy as it runs"),
    (
        "Untyped global name 'reversed'",
        "a loop checkpointed with checkpoint=: its segments run in reverse by Python's reversed, which Numba does"
        " not compile; drop checkpoint= for this target",
    ),
    (
        "Unknown attribute 'bit_length'",
        'checkpoint="revolve": its schedule reads int.bit_length, which Numba does not compile; drop checkpoint='
        " for this target",
    ),
)
