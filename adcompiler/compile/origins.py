"""Where each line of generated code comes from: the user's line it was generated from, as the IR says.

``emit`` records an ``Origin`` for every line it writes (``render_module(..., origins=[])``): the
file and line of the statement it writes (``Eq.line`` and the like), and the section of its
function (the heading comment it follows).  Black and the targets' translations then rewrite the
text; ``carried`` follows each statement and comment of the text emit wrote to the one it became,
so the origins stay facts of the IR, never read back out of the text.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import difflib
import inspect
import os
import io
import linecache
import re
import tokenize
from dataclasses import dataclass, field

from ..errors import UnsupportedSyntaxError


@dataclass(frozen=True)
class Origin:
    """A generated line's source: ``line`` of ``filename``, in the section headed ``section`` ("" for
    the lines before a function's first heading, such as the primal sweep before "adjoints ...");
    ``source`` is the IR's record of the user's function (``ir.nodes.Source``: its lines)."""

    filename: str
    line: int
    section: str = ""
    source: object = field(default=None, repr=False, hash=False, compare=False)


NEWLINE = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list:
    """``text``'s lines as Python numbers them (split at ``\\n``, ``\\r\\n`` and ``\\r`` only, unlike
    ``str.splitlines``)."""
    lines = NEWLINE.split(text)
    return lines[:-1] if lines and not lines[-1] else lines


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def carried(before: str, origins: list, after: str) -> list:
    """The origin of each line of ``after`` (None where it has none), ``after`` being ``before``
    rewritten (formatted by black, translated for a target) and ``origins`` those of ``before``'s lines.

    Statements are matched in order by what they say (their ``ast``, positions aside; a compound
    statement by its header), comments by their text; a statement a translation rewrote keeps its
    origin (paired with the most alike of the statements where the two texts differ), one it added
    has none."""
    out: list = [None] * len(source_lines(after))
    comment_lines = _comments(after)
    blank = {k + 1 for k, text in enumerate(source_lines(after)) if not text.strip()}
    taken = {line for _, line in comment_lines} | blank
    for (_, a, _, _), (_, _, span, _) in _matched(_statements(before), _statements(after), _atoms):
        origin = origins[a - 1] if a - 1 < len(origins) else None
        for line in span:
            if line not in taken:
                out[line - 1] = origin
    for (_, a), (_, b) in _matched(_comments(before), comment_lines):
        out[b - 1] = origins[a - 1] if a - 1 < len(origins) else None
    return out


def _matched(old: list, new: list, atoms=None):
    """Pairs of matching items (``(key, ...)`` tuples) of two sequences, in order: runs of equal keys,
    and, where a run was replaced by another, the pairs ``_aligned`` finds by their ``atoms``."""
    keys_old, keys_new = [x[0] for x in old], [x[0] for x in new]
    if keys_old == keys_new:  # black: the same statements, only laid out differently
        yield from zip(old, new)
        return
    matcher = difflib.SequenceMatcher(None, keys_old, keys_new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            yield from zip(old[i1:i2], new[j1:j2])
        elif tag == "replace" and atoms is not None:
            yield from _aligned(old[i1:i2], new[j1:j2], atoms)


_MOST = 40_000  # pairs of statements compared in one replaced run, at most
_ALIKE = 0.25  # the likeness below which two statements are not one rewritten


def _aligned(old: list, new: list, atoms) -> list:
    """The pairs, in order, of two runs of statements with the greatest likeness in all (each pair at
    least ``_ALIKE`` alike: the share of ``atoms`` they have in common), so that a statement dropped,
    one added and one rewritten in one run are told apart."""
    n, m = len(old), len(new)
    if n * m > _MOST:
        return list(zip(old, new)) if n == m else []
    xs, ys = [atoms(x) for x in old], [atoms(y) for y in new]
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n):
        for j in range(m):
            likeness = len(xs[i] & ys[j]) / len(xs[i] | ys[j])
            paired = score[i][j] + likeness if likeness >= _ALIKE else 0.0
            score[i + 1][j + 1] = max(score[i][j + 1], score[i + 1][j], paired)
    pairs, i, j = [], n, m
    while i and j:
        if score[i][j] == score[i - 1][j]:
            i -= 1
        elif score[i][j] == score[i][j - 1]:
            j -= 1
        else:
            pairs.append((old[i - 1], new[j - 1]))
            i, j = i - 1, j - 1
    return pairs[::-1]


def _atoms(item) -> set:
    """What a statement says, as a set: its kind, and the names, attributes and constants it holds."""
    node = item[3]
    out = {type(node).__name__}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            out.add("." + sub.attr)
        elif isinstance(sub, ast.Constant):
            out.add(repr(sub.value))
        elif isinstance(sub, (ast.FunctionDef, ast.arg)):
            out.add(getattr(sub, "name", None) or sub.arg)
    return out


def _statements(text: str) -> list:
    """``(key, first line, lines of its own, node)`` for every statement of ``text``, outer before inner
    (a compound statement's node and key: its header alone)."""
    out: list = []

    def visit(stmts):
        for node in stmts:
            inner = [s for block in _BLOCKS for s in _block(node, block)]
            if not inner:
                out.append((ast.dump(node), node.lineno, range(node.lineno, node.end_lineno + 1), node))
                continue
            header = copy.copy(node)
            for block in _BLOCKS:
                if hasattr(header, block):
                    setattr(header, block, [])
            head = getattr(node, "decorator_list", None) or [node]
            first_inner = min(s.lineno for s in inner)
            out.append((ast.dump(header), node.lineno, range(head[0].lineno, first_inner), header))
            for block in _BLOCKS:
                visit(_block(node, block))

    visit(ast.parse(text).body)
    return out


def _block(node, field: str) -> list:
    block = getattr(node, field, None)
    if not isinstance(block, list):
        return []
    if field in ("handlers", "cases"):
        return [s for handler in block for s in handler.body]
    return [s for s in block if isinstance(s, ast.stmt)]


def _comments(text: str) -> list:
    """``(text, line)`` of every comment alone on its line."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
        if tok.type == tokenize.COMMENT and not tok.line[: tok.start[1]].strip():
            out.append((tok.string, tok.start[0]))
    return out


class Told:
    """Where each line of a generated text that was loaded comes from: the origins ``emit`` recorded for
    the text it ``written``, carried to the ``text`` loaded (a target's translation, black) when first asked
    (``carried`` compares the two; no error, no cost)."""

    def __init__(self, written: str, origins: list, text: str | None = None):
        self.written, self.origins, self.text = written, origins, text
        self.lines = source_lines(text if text is not None else written)

    def at(self, line: int) -> tuple:
        """``(the user's line, its text, None)`` for line ``line`` of the text (the origin of the nearest line
        at or above it that has one), ``(None, "the runtime helper h", h)`` for a line of the runtime helper
        ``h`` (which no user line made), ``(None, None, None)`` where neither is found."""
        if self.text is not None:  # (carried once)
            self.origins, self.text = carried(self.written, self.origins, self.text), None
        for k in range(min(line, len(self.lines)) - 1, -1, -1):
            origin = self.origins[k] if k < len(self.origins) else None
            if origin is not None:
                lines = getattr(origin.source, "lines", {})
                return origin.line, lines[origin.line].strip() if origin.line in lines else None, None
            helper = re.match(r"def (\w+)\(", self.lines[k])
            if helper:
                return None, f"the runtime helper {helper.group(1)}", helper.group(1)
        return None, None, None

    def file_at(self, line: int) -> str | None:
        """The file of the origin ``at`` finds for ``line`` (a user's file, or adcompiler's own: a NumPy or SciPy
        function it writes in Python, ``rules.numpy_written``), or None."""
        if self.text is not None:
            self.origins, self.text = carried(self.written, self.origins, self.text), None
        for k in range(min(line, len(self.lines)) - 1, -1, -1):
            origin = self.origins[k] if k < len(self.origins) else None
            if origin is not None:
                return getattr(origin.source, "filename", None)
            if re.match(r"def (\w+)\(", self.lines[k]):
                return None
        return None


LOADED: dict = {}  # the file name generated code was loaded under -> its ``Told`` (compile.load records it)


def _without_generated_names(construct: str, fn) -> str:
    """``construct`` told without the names generated code gives: ``(t3)``, ``(d_x)``, ``(tape_1)`` left out, a
    temporary ``t16`` said as "a value", the sweeps of a function ``g`` of fn's module (``g_A_forward_sweep``) as
    "g's derivative"."""
    told = re.sub(r" \((?:t\d+|d_\w+|kept|tape\w*|residuals?)\)", "", construct)
    users = sorted((n for n, v in getattr(fn, "__globals__", {}).items() if inspect.isfunction(v)), key=len)
    for name in reversed(users):  # (the longest first: det_of_minor before det)
        told = re.sub(rf"\b{re.escape(name)}_\w*?(?:forward|reverse)(?:_sweep)?\b", f"{name}'s derivative", told)
    return re.sub(r"\bt\d+(?:_\d+)*\b", "a value", told)


def _same_file(a: str | None, b: str) -> bool:
    return a is not None and os.path.realpath(a) == os.path.realpath(b)


def _through_own_rule(e: UnsupportedSyntaxError, where: str) -> tuple:
    """``(told, line, e)`` for a refusal ``e`` located in one of adcompiler's rule modules (``scipy.linalg.expm``'s
    vjp calls ``expm_frechet``, which has no rule: a second derivative cannot go through it): the loaded
    derivative code that calls that rule and the line of it that does, and ``e`` told as the rules of the
    function they belong to (the code of a function of the file ``where``); ``(None, None, e)`` where it is not
    such a refusal."""
    own = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # (the adcompiler package)
    if not e.filename or not os.path.abspath(e.filename).startswith(own + os.sep):
        return None, None, e
    from ..rules.custom import CUSTOM

    name = None
    for k in range(e.lineno or 0, 0, -1):  # the def around the refused line: the rule's name
        found = re.match(r"\s*def (\w+)\(", linecache.getline(e.filename, k))
        if found:
            name = found.group(1)
            break
    owner = next(
        (
            fn
            for fn, pair in CUSTOM.items()
            for rule in pair
            if getattr(rule, "__name__", None) == name
            and getattr(rule, "__code__", None) is not None
            and os.path.abspath(rule.__code__.co_filename) == os.path.abspath(e.filename)
        ),
        None,
    )
    if owner is None:
        return None, None, e
    for told in reversed(list(LOADED.values())):  # the newest of fn's code that calls the rule
        at = next((k + 1 for k, text in enumerate(told.lines) if re.search(rf"\b{name}\(", text)), None)
        if at is not None and told.at(at)[0] is not None and _same_file(told.file_at(at), where):
            module = (getattr(owner, "__module__", None) or "").split("._")[0]
            construct = f"the rules of {module}.{owner.__name__}, adcompiler's, which it cannot differentiate again ({e.construct})"
            return told, at, type(e)(construct, e.remedy, e.filename, e.lineno, (e.offset or 1) - 1, e.text)
    return None, None, e


_ORDINAL = {1: "first", 2: "second", 3: "third"}


@contextlib.contextmanager
def second_order_of(fn):
    """A refusal met while differentiating ``fn``'s generated derivative code (hessian and hvp: a helper of
    the first derivative with no rule of its own, such as ``np.cov``'s ``cov_vjp``) told at the line of
    ``fn`` that the helper came from, not at the generated code: the origin of the refused line of the
    loaded code (``LOADED``)."""
    try:
        yield
    except UnsupportedSyntaxError as e:
        told, at = LOADED.get(e.filename), e.lineno or 0
        where = inspect.getsourcefile(fn) or fn.__code__.co_filename
        if told is None:  # refused inside a rule of adcompiler's own, which the first derivative calls
            told, at, e = _through_own_rule(e, where)
        line, text, helper = told.at(at) if told is not None else (None, None, None)
        origin, order = (told.file_at(at) if line is not None else None), 2
        while origin in LOADED and line is not None:  # fn is derivative code too (a third derivative, through
            told, at, order = LOADED[origin], line, order + 1  # hessian's code): that line's own origin, to the user's
            line, text, helper = told.at(at)
            origin = told.file_at(at) if line is not None else None
        if line is None or text is None or where in LOADED and origin in (None, where):
            raise
        where = origin if where in LOADED else where
        through = f"through `{text}`"
        if origin is not None and not _same_file(origin, where):  # a line of generated code
            line, through = fn.__code__.co_firstlineno, f"of {fn.__name__} (through a derivative it takes)"
        refused = re.sub(  # (the adjoint helpers of a derivative's code, whose own rules stop at some order)
            r"^(\w+_[jv]jp\w*) with \d+ arguments$",
            r"\1, a runtime helper with no derivative rule of its own,",
            _without_generated_names(e.construct, fn),
        )
        nth = {2: "a second derivative (hessian, hvp, a transform of a transform)", 3: "a third derivative"}.get(
            order, f"a derivative of order {order}"
        )
        construct = f"{nth} {through}, its {_ORDINAL.get(order - 1, 'lower')} derivative's code refused for {refused}"
        remedy = "take its first derivative only (grad, vjp, jvp), or write that line with functions whose second derivatives adcompiler has (docs/subset.md)"
        if order > 2:
            remedy = (
                f"take derivatives of up to order {order - 1} there, or write that line with functions whose"
                f" derivatives of order {order} adcompiler has (docs/subset.md)"
            )
        if "list or a number" in e.construct or "arguments do not decide" in e.construct:  # (reverse over reverse
            # through a tape of numbers and lists: a recursion)
            remedy = "take the second derivative forward over reverse (adcompiler.hessian, hvp, jvp of grad), which takes that code"
        written = linecache.getline(where, line) or text
        raise type(e)(construct, remedy, where, line, len(written) - len(written.lstrip()), written.strip()) from None


_NOTE = "adcompiler: "  # how the note below begins (added once)


def note_origin(e: BaseException) -> None:
    """Add to ``e``, raised inside generated derivative code, a note naming the user's line that code was made
    from (Python 3.11 prints a note under the exception; its own traceback shows the generated line only where
    the ``traceback`` module prints it, not in an uncaught exception's report): the deepest frame of loaded code
    whose line has an origin (a runtime helper's frame has none: its caller's is taken), chased through
    derivative code differentiated again to the user's file."""
    if any(isinstance(n, str) and n.startswith(_NOTE) for n in getattr(e, "__notes__", ())):
        return
    found, tb = None, e.__traceback__
    while tb is not None:
        told = LOADED.get(tb.tb_frame.f_code.co_filename)
        line = told.at(tb.tb_lineno)[0] if told is not None else None
        if line is not None:
            found = (told, tb.tb_lineno, tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    if found is None:
        return
    told, at, name = found
    line, text, _ = told.at(at)
    origin = told.file_at(at)
    while origin in LOADED and line is not None:  # (code made from derivative code: that line's own origin)
        told, at = LOADED[origin], line
        line, text, _ = told.at(at)
        origin = told.file_at(at) if line is not None else None
    if line is not None and origin is not None:
        e.add_note(f"{_NOTE}raised by derivative code ({name}) made from {origin}, line {line}: {text}")
