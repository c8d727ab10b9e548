"""The command-line options the benchmark scripts share: where results go (an ignored folder unless
asked otherwise), the reference harness, and whether a wrong derivative fails the run."""

from __future__ import annotations

import os

HERE = os.path.dirname(os.path.abspath(__file__))


def add_out(ap) -> None:
    """``--out DIR``: benchmarks/out by default, which git ignores (a run to commit: --out benchmarks/results)."""
    ap.add_argument(
        "--out",
        default=os.path.join(HERE, "out"),
        help="output directory (default benchmarks/out, ignored by git; --out benchmarks/results to commit a run)",
    )


def add_reference(ap, default, what: str) -> None:
    """``--reference DIR``: the reference harness (programs.py, handgrad.py), ``what`` it is used for."""
    ap.add_argument(
        "--reference",
        default=default,
        metavar="DIR",
        help=f"the reference harness (programs.py, handgrad.py){what}; default ../shared/peers beside the "
        "repository, if present",
    )


def add_strict(ap, what: str = "any gradient is WRONG or raises") -> None:
    """``--strict``: exit 1 if a derivative is wrong."""
    ap.add_argument("--strict", action="store_true", help=f"exit 1 if {what}")
