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


def test_generated_text_is_the_same_whatever_the_hash_seed(tmp_path):
    """np.mod is np.remainder (and np.abs np.absolute): the name the code spells was the first of a set's
    order, which changed with PYTHONHASHSEED from one process to the next."""
    import subprocess
    import sys
    import textwrap

    (tmp_path / "aliases.py").write_text(
        "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.mod(x, 0.7) * np.abs(x) + np.true_divide(x, 2.0))\n"
    )
    script = textwrap.dedent("""\
        import sys
        import numpy as np
        import adcompiler
        sys.path.insert(0, sys.argv[1])
        import aliases
        d = adcompiler.differentiate(aliases.f)
        d.grad(np.array([0.3, -1.2]))
        print(d.source("grad") + d.source("forward"))
        """)
    texts = set()
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        texts.add(run.stdout)
    assert len(texts) == 1
