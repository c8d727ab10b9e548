"""Large arrays kept by the C allocator between a derivative's calls (glibc only).

A derivative of array code makes and frees the same arrays on every call.  glibc's ``malloc`` serves
an array of more than 128 KiB with ``mmap`` (raising that threshold as it sees such arrays freed) and
gives the top of its heap back to the system once more than twice that is free there, so each call can
take every page of its large arrays from the kernel again: a page fault each 4 KiB.  A process that
compiled code first has a large, scattered heap and rarely sees it; one that loaded its derivatives
from Numba's disk cache does, and ran GradBench kmeans' derivative (n = 10000, k = 100) in 16.5 ms
instead of 3.5 ms, the Python target's in 12.8 ms instead of 6.3 ms (2026-11-29).

``keep_arrays()``, run when the first generated module is loaded, sets the two thresholds once to where
glibc settles by itself after freeing an array of 32 MiB, its largest: arrays up to 32 MiB come from the
heap and up to 64 MiB of free heap stays in the process.  ``ADCOMPILER_MALLOC=system`` leaves the
allocator as it is; other C libraries (macOS, musl, Windows) are left alone.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # (glibc's malloc.h)
MMAP = 32 << 20  # DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems: the most glibc raises the threshold to
TRIM = 2 * MMAP  # what glibc sets the trim threshold to when it raises the other

_state: dict = {}  # "kept": whether this process's allocator was set (asked once)


def keep_arrays() -> bool:
    """Set glibc's thresholds (see the module docstring) once a process; whether they are set."""
    kept = _state.get("kept")
    if kept is None:
        kept = _state["kept"] = _set()
    return kept


def _set() -> bool:
    if os.environ.get("ADCOMPILER_MALLOC", "").strip().lower() == "system":
        return False
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM))
