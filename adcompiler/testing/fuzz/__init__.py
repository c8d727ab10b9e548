"""Differential fuzzing of adcompiler: random programs in the supported subset, checked against finite differences.

A seeded generator (``random.Random``, deterministic per seed) writes random
functions as Python source: float (and sometimes list-of-float and int)
parameters, straight-line arithmetic, math functions on safe domains,
branches, ``for``/``while`` loops with ``break``/``continue``/early
``return``, lists, helper functions, tuple outputs.  NumPy programs (NpGen)
add float64 array parameters of small fixed shapes ((n,), (m,), (m, n)),
broadcasting arithmetic with floats, rows, columns and keepdims reductions,
elementwise functions on safe domains, ``maximum``/``where``/``clip``,
reductions, ``dot``/``@``/``outer``/``inner``, shape changes, slices, integer
and boolean indexing, writes into local arrays (``y[i] = ...``,
``Y[:, j] += ...``, ``+=`` on whole arrays), loops over ``range(len(a))``,
branches on array reductions, helpers taking and returning arrays, and array
outputs.  Both rebind parameters in loops and branches to values unlike the
argument (whose cotangent must still look like the argument): array parameters
of shape (), (1,), (k, 1), (1, k) broadcast up, vectors made matrices, list
parameters given longer or other lists.  Each program is written to a temporary ``.py`` file and imported
(adcompiler reads source with ``inspect``), differentiated, and checked at a
few random points:

* forward mode (``jvp`` along random directions) against central finite
  differences, reverse mode (``vjp`` with random cotangents) against the same
  finite differences, and ``<u, J v> == <J^T u, v>`` between the two;
* the value returned by ``jvp``/``vjp``/``value_and_grad`` equals the primal;
  ``grad`` equals ``vjp(1.0)``; tangents have the structure (and array
  shapes) of the output, cotangents the shape and dtype of their parameter;
* the printed stages ``anf`` and ``dup`` run and return the primal value, and
  the ``forward``/``reverse`` sources compile;
* with ``--nested-every N`` (``run(nested_every=N)``), on every N-th program whose
  output is a number, ``differentiate(d.grad).jvp`` (the gradient and a
  Hessian-vector product) against ``d.grad``, central differences of it and the
  Hessian's symmetry (nested; a refusal of gradient code is counted apart, not
  a bug).

A point is *skipped* (not a mismatch) when finite differences at step h and
h/10 disagree: the point is within a step of a kink or a branch switch.

Outcomes are counted: programs, points checked, points skipped, mismatches,
refusals (``UnsupportedSyntaxError``: the generator only writes the supported
subset, so a refusal is a bug) and crashes (any other exception raised by
adcompiler or by generated code when the primal runs fine).  Every mismatch,
refusal and crash is written, with its point, to a file in ``--out``.

``--backend numba`` (``Config.backend``) checks ``differentiate(f, backend="numba")`` the same way; a
program outside that target's subset must be refused naming ``backend="python"``, and is counted
apart ("outside the backend's subset"), not as a refusal.

Open bugs found before are listed in KNOWN_BUGS with their regression files:
by default the generator steps around them, or the checker accepts their
symptom and counts the point as "known-bug" instead of a mismatch, so that a
frequent bug does not hide the others (``--strict`` turns this off).

Run it as ``python -m adcompiler.testing.fuzz`` (see cli for the usage).  This package re-exports the
names other code uses (``from adcompiler.testing import fuzz; fuzz.run(...)``); its modules, each with
one job:

* config: what the generators are asked for and hand back (Config, presets, bounds, KNOWN_BUGS, Spec);
* scope: what a generator knows at a program point (Env, NpEnv, Helper, ArrayHelper), and the scopes
  of loops and branches;
* the generators, a few cooperating objects over one Draft (draft: the program being written, its
  random generators and lines; see scalar_expr): scalar_expr (Exprs: float expressions, conditions,
  helper calls, list reads), numpy_expr (ArrayExprs: array expressions of one shape) and numpy_shape
  (ShapeExprs: across shapes, floats from arrays), scalar_stmt (Stmts: statements and function
  bodies) with its parts scalar_lists (ListStmts), scalar_rebind (ListRebinds: lists rebound),
  numpy_stmt (ArrayStmts) and numpy_rebind (SmallRebinds: small array parameters broadcast up);
  scalar_program (Gen: scalar programs) and numpy_program (NpGen: NumPy programs) put them together;
  what_runs (WhatGen: either rewritten with functools.wraps decorators, module names that shadow
  builtins, and unpacking of the right and of the wrong length; ``--mode what``);
* programs: the program of a seed (program_seed, generate);
* layout: program values as flat vectors of floats (Layout, flat_out, structure, unflat_like);
* check: the oracle (check_point, check_program, check_source, load_module, Failure);
* nested: the nested check, a derivative of generated gradient code (check_nested, check_nested_source);
* minimiser: shrinking a failing program (minimise);
* campaign: many programs checked and counted (run, Summary, report, read_report, report_check);
* cli: the command line (main, config_for).
"""

from .campaign import Summary, read_report, report, report_check, run
from .check import (
    ATOL,
    DUALITY_RTOL,
    KINK_RTOL,
    RTOL,
    Failure,
    check_point,
    check_program,
    check_source,
    dtypes,
    fd_dir,
    load_module,
    primal,
    stage_value,
)
from .cli import config_for, main
from .config import (
    DEFAULT,
    HELPER_BOUND,
    KNOWN_BUGS,
    LOOP_CAP,
    MIXED,
    WHAT,
    WHAT_SMALL,
    NMAX,
    NUMPY,
    NUMPY_SMALL,
    PARAM_BOUND,
    SMALL,
    SQUASH_AT,
    Config,
    Spec,
)
from .layout import Layout, flat_out, structure, unflat_like
from .minimiser import minimise
from .nested import check_nested, check_nested_source
from .numpy_program import NpGen
from .programs import generate, program_seed
from .scalar_program import Gen
from .what_runs import WhatGen
from .scope import ArrayHelper, ArrInfo, Env, Helper, Idx, ListInfo, NpEnv

__all__ = [
    "ATOL",
    "ArrInfo",
    "ArrayHelper",
    "Config",
    "DEFAULT",
    "DUALITY_RTOL",
    "Env",
    "Failure",
    "Gen",
    "HELPER_BOUND",
    "Helper",
    "Idx",
    "KINK_RTOL",
    "KNOWN_BUGS",
    "LOOP_CAP",
    "Layout",
    "ListInfo",
    "MIXED",
    "WHAT",
    "WHAT_SMALL",
    "WhatGen",
    "NMAX",
    "NUMPY",
    "NUMPY_SMALL",
    "NpEnv",
    "NpGen",
    "PARAM_BOUND",
    "RTOL",
    "SMALL",
    "SQUASH_AT",
    "Spec",
    "Summary",
    "check_nested",
    "check_nested_source",
    "check_point",
    "check_program",
    "check_source",
    "config_for",
    "dtypes",
    "fd_dir",
    "flat_out",
    "generate",
    "load_module",
    "main",
    "minimise",
    "primal",
    "program_seed",
    "read_report",
    "report",
    "report_check",
    "run",
    "stage_value",
    "structure",
    "unflat_like",
]
