"""adcompiler as a GradBench tool: speaks GradBench's JSON protocol on stdin and stdout.

    python benchmarks/gradbench/tool.py --backend python|numba [--formulation peers]

``define`` answers for every eval of ``evals/`` (the transformation itself runs at the first call,
so its time is in the first ``evaluate`` timing); ``evaluate`` runs the function as ``adapters``
defines it, ``min_runs`` times and for ``min_seconds`` at least, one timing per run.  A refusal or
crash is ``success: false`` with the error (adcompiler's located errors name file, line, column).
Set ``OMP_NUM_THREADS=1`` (the relay does) for one thread.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import adapters  # noqa: E402
import protocol  # noqa: E402


def make_tool(backend: str, peers: bool = False):
    """(define, evaluate) for ``protocol.serve``; ``peers``: the peers' formulation of the evals in
    ``adapters.PEERS_FORMULATION``."""
    modules: dict[str, dict[str, protocol.Function]] = {}

    def define(module: str) -> dict:
        modules[module] = adapters.functions(module, backend, peers)
        return {"success": True}

    def evaluate(module: str, function: str, raw) -> dict:
        if module not in modules:
            define(module)
        return protocol.evaluate(modules[module][function], raw)

    return define, evaluate


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("python", "numba"), default="python")
    parser.add_argument(
        "--formulation",
        choices=("own", "peers"),
        default="own",
        help="each eval as written in evals/ (default), or, for "
        + " and ".join(adapters.PEERS_FORMULATION)
        + ", the formulation GradBench's JAX tool differentiates (kmeans: the matrix-product expansion; "
        "ba: the observations batched into arrays)",
    )
    args = parser.parse_args(argv)
    import adcompiler

    define, evaluate = make_tool(args.backend, args.formulation == "peers")
    config = {
        "backend": args.backend,
        "formulation": args.formulation,
        "adcompiler": str(Path(adcompiler.__file__).parent),
        "threads": os.environ.get("OMP_NUM_THREADS"),
    }
    try:
        protocol.serve(f"adcompiler-{args.backend}", define, evaluate, config)
    except (BrokenPipeError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    main()
