"""JAX (jit, x64) or PyTorch (CPU, float64) as a GradBench tool, on one thread.

    python benchmarks/gradbench/peer_tool.py --peer jax|pytorch [--gradbench DIR]

For an eval that GradBench's own tool implements (JAX: gmm, kmeans, llsq, lse, ode; PyTorch: ba,
gmm, ht, kmeans, lse, lstm) and a GradBench checkout given, the code run is GradBench's
(``gradbench.tools.<peer>.<eval>``, imported from the checkout); otherwise this harness's port
(``peers/jax_port.py``, ``peers/torch_port.py``).  The response's ``notes.source`` says which.

Timing differs from GradBench's ``wrap.multiple_runs`` in one way: JAX dispatches asynchronously,
so each timed run here ends with ``jax.block_until_ready`` on its result (GradBench's wrapper
stops the clock when the call returns).  The conversions before and after (``pre``, ``post``) are
GradBench's own and stay outside the timed region, as in GradBench.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import protocol  # noqa: E402

GRADBENCH_HAS = {
    "jax": {"gmm", "kmeans", "llsq", "lse", "ode"},
    "pytorch": {"ba", "gmm", "ht", "kmeans", "lse", "lstm"},
}
FUNCTIONS = {
    "det": ("primal", "gradient"),
    "lse": ("primal", "gradient"),
    "llsq": ("primal", "gradient"),
    "ode": ("primal", "gradient"),
    "kmeans": ("cost", "dir"),
    "gmm": ("objective", "jacobian"),
    "ba": ("objective", "jacobian"),
    "ht": ("objective", "jacobian"),
    "lstm": ("objective", "jacobian"),
    "particle": ("rr", "ff", "fr", "rf"),
    "saddle": ("rr", "ff", "fr", "rf"),
}


def one_thread(peer: str) -> None:
    """Limit the peer to one thread (the relay also sets the environment and pins the CPU)."""
    if peer == "pytorch":
        import torch

        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)


def from_gradbench(peer: str, eval_name: str, finish) -> dict[str, protocol.Function]:
    """GradBench's own functions for the eval: each ``wrap.multiple_runs`` function taken apart into
    its ``pre``, the decorated function and its ``post`` (closure variables of its ``wrapped``)."""
    module = importlib.import_module(f"gradbench.tools.{peer}.{eval_name}")
    out = {}
    for name in FUNCTIONS[eval_name]:
        wrapped = getattr(module, name)
        cells = dict(zip(wrapped.wrapped.__code__.co_freevars, wrapped.wrapped.__closure__, strict=True))
        pre, post = cells["pre"].cell_contents, cells["post"].cell_contents
        fn = protocol.Function(
            lambda raw, pre=pre: (pre(raw),), wrapped.function, post, {"source": "gradbench"}, finish
        )
        out[name] = fn
    return out


def make_tool(peer: str, gradbench: Path | None, source: str):
    if gradbench is not None:
        sys.path.insert(0, str(gradbench / "python/gradbench"))
    if peer == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        finish = jax.block_until_ready
        from peers import jax_port as port
    else:
        from peers import torch_port as port

        finish = lambda out: out  # noqa: E731
    modules: dict[str, dict[str, protocol.Function]] = {}

    def define(module: str) -> dict:
        use_gradbench = gradbench is not None and module in GRADBENCH_HAS[peer] and source != "port"
        if use_gradbench:
            modules[module] = from_gradbench(peer, module, finish)
        else:
            fns = port.functions(module)
            for fn in fns.values():
                fn.notes = fn.notes | {"source": "port"}
            modules[module] = fns
        return {"success": True}

    def evaluate(module: str, function: str, raw) -> dict:
        if module not in modules:
            define(module)
        return protocol.evaluate(modules[module][function], raw)

    return define, evaluate


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer", choices=("jax", "pytorch"), required=True)
    parser.add_argument("--gradbench", type=Path, help="a GradBench checkout: use its tool code where it has the eval")
    parser.add_argument(
        "--source", choices=("auto", "port"), default="auto", help="'port': always this harness's ports"
    )
    args = parser.parse_args(argv)
    one_thread(args.peer)
    define, evaluate = make_tool(args.peer, args.gradbench, args.source)
    try:
        protocol.serve(args.peer, define, evaluate, {"gradbench": str(args.gradbench) if args.gradbench else None})
    except (BrokenPipeError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    main()
