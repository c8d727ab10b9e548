"""adcompiler as a GradBench tool: speaks GradBench's JSON protocol on stdin and stdout.

    python benchmarks/gradbench/tool.py --backend python|numba

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


def make_tool(backend: str, kmeans: str = "cost"):
    """(define, evaluate) for ``protocol.serve``."""
    modules: dict[str, dict[str, protocol.Function]] = {}

    def define(module: str) -> dict:
        options = {"formulation": kmeans} if module == "kmeans" else {}
        modules[module] = adapters.functions(module, backend, **options)
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
        "--kmeans",
        choices=("cost", "cost_matmul"),
        default="cost",
        help="the kmeans formulation: differences (default) or the matrix-product expansion the peers use",
    )
    args = parser.parse_args(argv)
    import adcompiler

    define, evaluate = make_tool(args.backend, args.kmeans)
    config = {
        "backend": args.backend,
        "kmeans": args.kmeans,
        "adcompiler": str(Path(adcompiler.__file__).parent),
        "threads": os.environ.get("OMP_NUM_THREADS"),
    }
    try:
        protocol.serve(f"adcompiler-{args.backend}", define, evaluate, config)
    except (BrokenPipeError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    main()
