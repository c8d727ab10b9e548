"""README.md and the docs against the code.

1. Their examples run, and print what they show.  Every ```python block of a page runs, in order, in
   one fresh Python process per page (so a block may use what an earlier one defined), unless the
   line before it is a ``<!-- not run: why -->`` comment (a summary of signatures).  A block after a
   line that says only ``prints`` is the output of the block before it, compared exactly (but for
   trailing blank lines).
2. The table of refused constructs in docs/limits.md (under ``<!-- refused: ... -->``) names, per
   construct, the markers of ``tests/catalogue_funcs.py`` that show it; ``test_error_catalogue.py``
   checks each marker's function is refused with a located error in both modes.  Every marker the
   table names is a catalogue case and every case is in the table, so neither changes alone.
"""

import ast
import importlib.util
import os
import re
import subprocess
import sys

import pytest

import test_error_catalogue as T
from shared import adc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(
    os.path.join("docs", name) for name in os.listdir(os.path.join(ROOT, "docs")) if name.endswith(".md")
)
MARK = "# ---- block {} ----"
# modules of the optional extras (pyproject.toml): a page whose examples import one that is not installed is skipped
OPTIONAL = {"numba": "numba", "dask": "arrays", "distributed": "arrays", "array_api_compat": "arrays"}
OPTIONAL |= {"array_api_strict": "arrays", "matplotlib": "bench", "pygments": "jupyter"}


def _blocks(text: str) -> list:
    """``(language, code, skipped, output)`` per fenced block, ``output`` the text of a following
    ``prints`` block (None if none); output blocks themselves are not listed."""
    found = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        before = [line for line in lines[:i] if line.strip()][-1:] or [""]
        code = "\n".join(lines[i + 1 : end]) + "\n"
        if before[0].strip() == "prints" and found:
            found[-1] = found[-1][:3] + (code,)
        else:
            found.append((fence.group(1), code, before[0].startswith("<!-- not run"), None))
        i = end + 1
    return found


def _missing_extras(script: str) -> list:
    """The optional modules ``script`` imports that are not installed, each with its extra."""
    imported = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".")[0])
    return [f"{m} ([{OPTIONAL[m]}])" for m in sorted(imported & set(OPTIONAL)) if importlib.util.find_spec(m) is None]


def _runnable(page: str) -> list:
    with open(os.path.join(ROOT, page), encoding="utf-8") as fh:
        return [(code, out) for lang, code, skipped, out in _blocks(fh.read()) if lang == "python" and not skipped]


@pytest.mark.parametrize(  # (docs/numba.md's examples compile a dozen functions with Numba: with --runslow)
    "page", [pytest.param(p, marks=[pytest.mark.slow] if p == "docs/numba.md" else []) for p in PAGES if _runnable(p)]
)
def test_examples_print_what_the_page_shows(page, tmp_path):
    blocks = _runnable(page)
    # each block's output ends at its mark; the first block starts at line 1, as the pages number its lines
    script = "".join(f"{code}print({MARK.format(k)!r})\n" for k, (code, _) in enumerate(blocks))
    missing = _missing_extras(script)
    if missing:
        pytest.skip(f"{page}'s examples import {', '.join(missing)}, not installed")
    path = tmp_path / "example.py"  # a file, so adcompiler can read the functions' source
    path.write_text(script)
    run = subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"{page}: its examples failed:\n{run.stderr}"
    printed = re.split(r"^# ---- block \d+ ----\n", run.stdout, flags=re.M)[:-1]
    assert len(printed) == len(blocks)
    for k, ((code, expected), got) in enumerate(zip(blocks, printed)):
        if expected is not None:
            assert got.rstrip("\n") == expected.rstrip(
                "\n"
            ), f"{page}, example {k + 1}: prints\n{got}\nnot what the page shows:\n{expected}"


def test_an_example_that_prints_what_it_shows_is_told_apart():
    """The reader of the pages: a ``prints`` block belongs to the block before it; a comment skips one."""
    text = "```python\nprint(1)\n```\n\nprints\n\n```text\n1\n```\n\n<!-- not run: x -->\n```python\nf(x)\n```\n"
    assert _blocks(text) == [("python", "print(1)\n", False, "1\n"), ("python", "f(x)\n", True, None)]


def test_a_page_importing_a_missing_extra_is_told_apart():
    """A page whose examples import an optional module that is absent is skipped, naming it and its extra."""
    script = "import math\nimport numba\nfrom dask import array\nfrom . import x\n"
    missing = {m for m in ("numba", "dask") if importlib.util.find_spec(m) is None}
    assert _missing_extras(script) == [f"{m} ([{OPTIONAL[m]}])" for m in sorted(missing)]
    assert _missing_extras("import os, math\nimport adcompiler\n") == []


def test_the_readmes_adc_command_prints_what_it_shows():
    """README's third command (``adc compile samples/...``) prints a module that ends as the README shows."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    command = re.search(r"^adc (compile samples/\S+\.py[^#\n]*)", text, re.M).group(1).split()
    shown = re.search(r"<!-- the end of what the command above prints.*?-->\n```text\n(.*?)```", text, re.S).group(1)
    run = adc(*command, cwd=ROOT)
    assert run.returncode == 0 and run.stdout.endswith(shown), run.stdout[-2000:] + run.stderr


def _table(marker: str) -> list:
    """The rows of the markdown table following the comment ``<!-- marker``: lists of cells."""
    with open(os.path.join(ROOT, "docs", "limits.md"), encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"<!-- {marker}"))
    rows = []
    for line in lines[start + 3 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _table_markers() -> set:
    return {m for _, cell in _table("refused") for m in re.findall(r"`([a-z_0-9]+)`", cell)}


def test_every_refused_construct_in_the_docs_is_a_catalogue_case():
    cases = {marker for _, marker, _, _, _ in T.CASES} | {"array_param_write"}
    assert _table_markers() - cases == set()


def test_every_catalogue_case_is_in_the_docs():
    cases = {marker for _, marker, _, _, _ in T.CASES}
    assert cases - _table_markers() == set()
