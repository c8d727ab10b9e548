"""Large arrays kept by glibc's allocator between a derivative's calls (``compile/memory.py``): after the
first generated module is loaded, making and freeing arrays of 1 MiB round after round takes no page
from the kernel again; ``ADCOMPILER_MALLOC=system`` leaves the allocator as it is (about 2,000 page faults
a round here: 8 MiB of arrays, given back and taken again).  Each case is a process of its own."""

import os
import platform
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc's malloc only"
)

ROUNDS = textwrap.dedent("""
    import resource
    import numpy as np
    import adcompiler

    def f(x):
        return np.sum(x * x)

    adcompiler.differentiate(f).grad(np.ones(3))  # (the first generated module loaded)
    faults = []
    for _ in range(12):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        arrays = [np.ones(1 << 17) for _ in range(8)]  # 8 arrays of 1 MiB, made and freed as a call's are
        del arrays
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    print(max(faults[4:]))
    """)


def _faults(tmp_path, **env) -> int:
    script = tmp_path / "rounds.py"
    script.write_text(ROUNDS)
    environment = {k: v for k, v in os.environ.items() if k != "ADCOMPILER_MALLOC"} | env
    done = subprocess.run([sys.executable, str(script)], env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_arrays_made_again_each_call_take_no_new_pages(tmp_path):
    assert _faults(tmp_path) < 64


def test_the_system_allocator_is_left_as_it_is_when_asked(tmp_path):
    assert _faults(tmp_path, ADCOMPILER_MALLOC="system") > 1000  # (the pages given back and taken again)


def test_keep_arrays_is_asked_once():
    from adcompiler.compile import memory

    first = memory.keep_arrays()
    assert memory.keep_arrays() is first and isinstance(first, bool)
