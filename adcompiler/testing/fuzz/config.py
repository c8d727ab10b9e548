"""What the generators are asked for and hand back: Config, presets, value bounds, KNOWN_BUGS, Spec."""

from __future__ import annotations

import dataclasses

NMAX = 4  # int parameters take values 0..NMAX
PARAM_BOUND = 1.5  # float parameters and list elements are drawn from [-1.5, 1.5]
HELPER_BOUND = 3.0  # helper arguments are squashed into [-3, 3]
SQUASH_AT = 6.0  # expressions larger than this get squashed
LOOP_CAP = 4.0  # outer variables assigned in a loop stay within max(bound, LOOP_CAP)


@dataclasses.dataclass(frozen=True)
class Config:
    """Sizes and feature probabilities of generated programs."""

    max_stmts: int = 12  # statements (counting nested ones) in the entry function
    max_helpers: int = 3
    helper_stmts: int = 6
    p_list_param: float = 0.35
    p_int_param: float = 0.3
    p_tuple_out: float = 0.25
    mode: str = (
        "scalar"  # "scalar" (Gen), "numpy" (NpGen), "mixed" (each program picks one), "deep", "lists", "what" (WhatGen)
    )
    p_array_stmt: float = 0.5  # NumPy programs: share of statements that are array statements
    p_rebind: float = 0.08  # share of statements that rebind a list (a parameter first) to a new list
    p_small_param: float = 0.35  # NumPy programs and helpers: a parameter of shape (), (1,), (k, 1), ...
    avoid_known: bool = True  # step around open adcompiler bugs (KNOWN_BUGS) so they do not hide others
    backend: str = "python"  # differentiate(..., backend=): "numba" checks the compiled target the same way


# Open adcompiler bugs, each with its regression files in tests/fuzz_regressions/. With Config.avoid_known
# the generator steps around the construct, or the checker accepts the symptom and counts the point as
# "known" (not a mismatch): a frequent bug would otherwise end the check of every program it is in, and
# hide whatever else is wrong there. Remove an entry when its bug is fixed (its regressions then pass).
KNOWN_BUGS = {}

DEFAULT = Config()
SMALL = Config(max_stmts=6, max_helpers=1, helper_stmts=4)  # the CI configuration
NUMPY = Config(mode="numpy", max_stmts=10, helper_stmts=5, p_list_param=0.1, p_int_param=0.2)
NUMPY_SMALL = Config(mode="numpy", max_stmts=6, max_helpers=1, helper_stmts=4, p_list_param=0.1, p_int_param=0.2)
MIXED = Config(mode="mixed")
WHAT = Config(mode="what", p_list_param=0.5)  # what_runs: decorated helpers, builtins' names bound, unpacking
WHAT_SMALL = Config(mode="what", max_stmts=6, max_helpers=2, helper_stmts=4, p_list_param=0.5)


@dataclasses.dataclass
class Spec:
    """A generated program: its source, entry name and parameter layout."""

    source: str
    entry: str
    params: list  # ("float", name) | ("list", name, length) | ("int", name)
    outputs: int  # 1: a float; >1: a tuple
