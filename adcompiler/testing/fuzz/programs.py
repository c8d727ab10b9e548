"""The program of a seed: program_seed numbers a campaign's programs, generate writes one.

A program is scalar, NumPy, or either (drawn from its seed), deep (deep.py) or of NumPy functions on
lists (numpy_lists.py), by Config.mode.
"""

from __future__ import annotations

import random

from .config import DEFAULT, Config, Spec
from .deep import DeepGen
from .numpy_lists import ListNpGen
from .numpy_program import NpGen
from .scalar_program import Gen
from .what_runs import WhatGen

GENERATORS = {"scalar": Gen, "numpy": NpGen, "deep": DeepGen, "lists": ListNpGen}  # by Config.mode


def program_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def generate(rng: random.Random, config: Config = DEFAULT) -> Spec:
    """The program of one seed: scalar (Gen), NumPy (NpGen), deep (DeepGen: long elif chains, loop nests)
    or NumPy functions of lists (ListNpGen) by config.mode; "mixed" draws scalar or NumPy first; "what"
    rewrites either (what_runs)."""
    mode = config.mode
    if mode == "what":
        return WhatGen(rng, config).program()
    if mode == "mixed":
        mode = "numpy" if rng.random() < 0.5 else "scalar"
    return GENERATORS[mode](rng, config).program()
