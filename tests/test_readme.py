"""README.md against the code: its table of refused constructs names catalogue rows that are refused.

The table under ``<!-- refused: ... -->`` in README.md lists, per construct, the markers of
``tests/catalogue_funcs.py`` that show it; ``test_error_catalogue.py`` checks each marker's
function is refused with a located error in both modes.  Here: every marker the README names
exists and is in the catalogue's cases, and every catalogue case is in the README, so neither can
change without the other.
"""

import os
import re

import test_error_catalogue as T

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def _table(marker: str) -> list:
    """The rows of the markdown table following the comment ``<!-- marker``: lists of cells."""
    lines = open(README, encoding="utf-8").read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"<!-- {marker}"))
    rows = []
    for line in lines[start + 3 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _readme_markers() -> set:
    return {m for _, cell in _table("refused") for m in re.findall(r"`([a-z_0-9]+)`", cell)}


def test_every_refused_construct_in_readme_is_a_catalogue_case():
    cases = {marker for _, marker, _, _, _ in T.CASES} | {"array_param_write"}
    assert _readme_markers() - cases == set()


def test_every_catalogue_case_is_in_readme():
    cases = {marker for _, marker, _, _, _ in T.CASES}
    assert cases - _readme_markers() == set()
