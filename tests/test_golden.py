"""Golden files: the generated derivative code, as a reader sees it.

These pin readability (names, layout, no noise), not correctness: the oracle
tests check the numbers.  After an intended change to the output, regenerate
with ``ADC_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``.
"""

import os
import re
from pathlib import Path

import pytest

import adcompiler

from . import stage_funcs as S

GOLDEN = Path(__file__).parent / "golden"
CASES = [(fn, stage) for fn in (S.recipe, S.reassign, S.uses_polar, S.clashing) for stage in ("forward", "reverse")]


@pytest.mark.parametrize("fn,stage", CASES, ids=lambda c: getattr(c, "__name__", c))
def test_golden(fn, stage):
    got = adcompiler.differentiate(fn).source(stage)
    path = GOLDEN / f"{fn.__name__}.{stage}.py"
    if os.environ.get("ADC_UPDATE_GOLDEN"):
        path.write_text(got)
    assert got == path.read_text()


@pytest.mark.parametrize("fn,stage", CASES, ids=lambda c: getattr(c, "__name__", c))
def test_no_noise(fn, stage):
    src = adcompiler.differentiate(fn).source(stage)
    noise = r"(?<![\w.])0(\.0*)? \*|\* 1(\.0*)?(?![\w.])|[+-] 0(\.0*)?(?![\w.])|(?<![\w.])0(\.0*)? \+"
    assert not re.search(noise, src), re.search(noise, src)
