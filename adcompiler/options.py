"""One immutable record of what a build of derivative code is asked for (``Options``).

The user's choice (``checkpoint``), the entry point's (``guard``: ``adc compile``'s modules check their
arguments), and the switches of code generation a target sets (``targets.numba.backend.NUMBA``:
Numba has no ``del``, no list of mixed element types, no residuals that nest): the driver
(``compile.pipeline.Program``) holds one and hands it to the passes; no pass reads a flag of its own
off the driver.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    """What a build of derivative code is asked for (see the module docstring)."""

    checkpoint: object = None  # None, True, k, "revolve" or ("revolve", c): modes.checkpoint
    guard: bool = False  # each entry checks its arguments are of the kinds assumed for it (adc compile)
    releases: bool = True  # arrays no longer read let go around loops (optimize.release)
    versioned_loops: bool = True  # loops whose arrays may have one shape written twice (modes.versions)
    recompute_recursion: bool = False  # a recursive call's residuals recomputed, not kept (modes.plan)
    written_shadows: bool = True  # shadows of zeros written out from the abstract values (modes.structures)
    new_array_stores: bool = True  # an adjoint array stored into a shadow's 0.0 (modes.owned)
    shaped_zeros: bool = False  # a shadow list's zero for an array element: zeros of its shape (modes.shadows)
    calls_generated: bool = False  # a call of a user function not differentiated runs its generated code (modes.calls),
    # for a target that compiles what it runs, where the user's function as written lacks the target's spellings (Numba)
    parallel_loops: bool = False  # prange loops run in parallel (modes.parallel): a target with threads (Numba)
    shaped_parameters: bool = False  # a parameter the adjoint reads only for its shape kept as shape_like
    # (modes.shape_kept), for a target where each array a residual holds costs its reference counts (Numba)
    recomputed_residuals: bool = False  # a called function's residual that is arithmetic of others computed
    # again in its reverse sweep, and a loop's on its tape (modes.recomputed), for a target where each array costs
    # its allocation (Numba)
    inline_looped_calls: bool = False  # a call in a loop of a function of the module up to 80 statements written
    # in place (lower.inline_calls), for a target where each call's tuple of residuals costs its reference counts (Numba)
    small_arrays: tuple = ()  # (the entry function, {parameter: what it holds}) where its short rows are held
    # as numbers (lower.small_arrays), for a target where each array costs its allocation and counts (Numba)
    typed_zeros: bool = False  # accumulators of arrays' adjoints recorded with their ndims (modes.sweep), for a target
    # whose variables keep one type to set them to an array, not the number 0.0, in loops and branches (Numba)
    frozen_globals: bool = False  # the values of the numbers, arrays and lists of the module the code reads are
    # compiled into it (Numba's): one changed, in place too, builds the code again (front.environment)

    def but(self, **changes) -> "Options":
        """These options with ``changes``."""
        return dataclasses.replace(self, **changes)


DEFAULT = Options()
