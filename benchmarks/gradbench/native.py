"""The eval's side of GradBench's protocol, for when GradBench's own eval drivers cannot run here.

    python benchmarks/gradbench/native.py EVAL [sizes] [--min-runs N] [--min-seconds S] [--oracle jax|numpy]

It sends ``start``, ``define`` and an ``evaluate`` per function and size, as GradBench's driver for
EVAL does, with the same inputs (the same seeds and generators: ``np.random.seed(31337)`` and
``rand`` for det, lse, llsq, ode and kmeans, ``default_rng(31337)`` for gmm), and answers each
output with an ``analysis``: valid when it matches the oracle's output under GradBench's rule
(``|a - b| / max(1, |a| + |b|) <= 1e-4`` entry by entry, ``comparison.py``).  The oracle is JAX in
double precision (``peers/jax_port.py``), or with ``--oracle numpy`` closed forms where an eval has
them (lse, det, llsq; particle and saddle always check GradBench's expected values).  ba and ht need
GradBench's data files, and lstm GradBench's text: run GradBench's drivers for those (relay.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

DEFAULTS = {
    "det": {"l": [5, 6, 7, 8, 9, 10, 11]},
    "lse": {"n": [2500, 5000, 10000, 20000, 40000, 80000, 160000, 320000, 640000, 1280000]},
    "llsq": {"n": [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8196, 16392], "m": [128]},
    "ode": {"n": [1000, 10000, 100000], "s": [1, 10, 100]},
    "kmeans": {"k": [10, 100, 1000], "n": [1000, 10000], "d": [8, 16]},
    "gmm": {"d": [2, 10, 20, 32, 64], "k": [5, 10, 25, 50, 100], "n": [1000]},
    "lstm": {"l": [2, 4, 6], "c": [1024, 4096, 8192]},
    "particle": {},
    "saddle": {},
}
FUNCTIONS = {
    "det": ("primal", "gradient"),
    "lse": ("primal", "gradient"),
    "llsq": ("primal", "gradient"),
    "ode": ("primal", "gradient"),
    "kmeans": ("cost", "dir"),
    "gmm": ("objective", "jacobian"),
    "lstm": ("objective", "jacobian"),
    "particle": ("rr", "ff", "fr", "rf"),
    "saddle": ("rr", "ff", "fr", "rf"),
}
EXPECTED = {  # GradBench's own expected outputs (evals/particle/run.py, evals/saddle/run.py)
    "particle": 0.2071918746486116,
    "saddle": [8.246324826140356e-06] * 4,
}


def difference(x: float, y: float) -> float:
    """ADBench's relative difference, as GradBench's comparison.py computes it."""
    return abs(x - y) / max(1.0, abs(x) + abs(y))


def mismatches(expected: Any, actual: Any, tolerance: float = 1e-4, path: str = "") -> list[str]:
    """Where ``actual`` differs from ``expected`` (GradBench's compare_json_objects)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return [] if expected == actual else [f"{path}: {expected} != {actual}"]
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if isinstance(expected, int) and isinstance(actual, int):
            return [] if expected == actual else [f"{path}: {expected} != {actual}"]
        ok = difference(float(actual), float(expected)) <= tolerance
        return [] if ok else [f"{path}: {expected} != {actual}"]
    if type(expected) is not type(actual):
        return [f"{path}: expected value of type {type(expected)}, got value of type {type(actual)}"]
    if isinstance(expected, dict):
        out = []
        for key in set(expected) | set(actual):
            where = f"{path}.{key}" if path else key
            if key not in expected:
                out.append(f"Unexpected key '{where}'.")
            elif key not in actual:
                out.append(f"Key '{where}' is missing.")
            else:
                out += mismatches(expected[key], actual[key], tolerance, where)
        return out
    if isinstance(expected, list):
        if len(expected) != len(actual):
            return [f"{path}: Expected array of length {len(expected)}, got array of length {len(actual)}."]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            out += mismatches(e, a, tolerance, f"{path}[{i}]")
        return out
    return [] if expected == actual else [f"{path}: {expected} != {actual}"]


# -------------------------------------------------------------------------------------------- inputs


def inputs(eval_name: str, sizes: dict, text: str | None = None) -> list[tuple[str, dict]]:
    """(description, input) for each size, in GradBench's order."""
    if eval_name == "det":
        np.random.seed(31337)
        return [(f"{ell}", {"A": np.random.rand(ell * ell).tolist(), "ell": ell}) for ell in sizes["l"]]
    if eval_name == "lse":
        np.random.seed(31337)
        return [(f"n={n}", {"x": np.random.rand(n).tolist()}) for n in sizes["n"]]
    if eval_name == "llsq":
        np.random.seed(31337)
        combos = sorted([(n, m) for n in sizes["n"] for m in sizes["m"]], key=lambda v: v[0] * v[1])
        return [(f"n={n},m={m}", {"x": np.random.rand(m).tolist(), "n": n}) for n, m in combos]
    if eval_name == "ode":
        np.random.seed(31337)
        combos = sorted([(n, s) for n in sizes["n"] for s in sizes["s"]], key=lambda v: v[0] * v[1])
        return [(f"n={n},s={s}", {"x": np.random.rand(n).tolist(), "s": s}) for n, s in combos]
    if eval_name == "kmeans":
        np.random.seed(31337)
        combos = sorted(
            [(k, n, d) for k in sizes["k"] for n in sizes["n"] for d in sizes["d"]], key=lambda v: v[0] * v[1] * v[2]
        )
        out = []
        for k, n, d in combos:
            points = np.random.rand(n, d).tolist()
            out.append((f"k={k},n={n},d={d}", {"points": points, "centroids": points[-k:]}))
        return out
    if eval_name == "gmm":
        combos = sorted([(d, k) for d in sizes["d"] for k in sizes["k"]], key=lambda v: v[0] * v[1])
        n = sizes["n"][0]
        return [(f"{d}_{k}_{n}", gmm_input(31337, d, k, n, 0, 1.0)) for d, k in combos]
    if eval_name == "lstm":
        np.random.seed(31337)
        combos = sorted([(l, c) for l in sizes["l"] for c in sizes["c"]], key=lambda v: v[0] * v[1])
        return [(f"l={l},c={c}", lstm_input(text or "", l, c)) for l, c in combos]
    if eval_name == "particle":
        return [("w=0", {"w": 0.0})]
    if eval_name == "saddle":
        return [("w=0", {"start": [1.0, 1.0]})]
    raise KeyError(f"{eval_name}: no native driver (needs GradBench's data files; run GradBench's driver)")


def gmm_input(seed, d, k, n, m, gamma) -> dict:
    rng = np.random.default_rng(seed=seed)
    return {
        "d": d,
        "k": k,
        "n": n,
        "x": [list(rng.normal(size=d)) for _ in range(n)],
        "m": m,
        "gamma": gamma,
        "alpha": list(rng.normal(size=k)),
        "mu": [list(rng.uniform(size=d)) for _ in range(k)],
        "q": [list(rng.normal(size=d)) for _ in range(k)],
        "l": [list(rng.normal(size=d * (d - 1) // 2)) for _ in range(k)],
    }


def lstm_input(text: str, layers: int, chars: int) -> dict:
    """GradBench's gen_lstm: the text's first ``chars`` characters as bit rows, random state and
    parameters."""
    use = text[:chars]
    bits = int(np.ceil(np.log2(max(ord(c) for c in use))))
    sequence = [[float(b) for b in bin(ord(c))[2:].zfill(bits)] for c in use]
    state = np.random.random((2 * layers, bits))
    main_params = np.random.random((2 * layers, bits * 4))
    extra_params = np.random.random((3, bits))
    return {
        "main_params": main_params.tolist(),
        "extra_params": extra_params.tolist(),
        "state": state.tolist(),
        "sequence": sequence,
    }


# ------------------------------------------------------------------------------------------- oracles


def numpy_oracle(eval_name: str, function: str, raw: dict) -> Any:
    """Closed forms, independent of the evals' modules and of any AD tool."""
    if eval_name == "lse":
        x = np.asarray(raw["x"])
        e = np.exp(x - x.max())
        return float(x.max() + np.log(e.sum())) if function == "primal" else (e / e.sum()).tolist()
    if eval_name == "det":
        A = np.asarray(raw["A"]).reshape(raw["ell"], raw["ell"])
        value = np.linalg.det(A)
        return float(value) if function == "primal" else (value * np.linalg.inv(A).T).ravel().tolist()
    if eval_name == "llsq":
        x, n = np.asarray(raw["x"]), raw["n"]
        t = np.array([-1 + i * 2 / (n - 1) for i in range(n)])
        V = np.vander(t, len(x), increasing=True)
        r = np.sign(t) - V @ x
        return float(0.5 * r @ r) if function == "primal" else (-(V.T @ r)).tolist()
    raise KeyError(f"no NumPy oracle for {eval_name}")


def make_oracle(eval_name: str, kind: str) -> Callable[[str, dict], Any] | None:
    """``oracle(function, input) -> expected output``, or None (no check)."""
    if eval_name in EXPECTED:
        return lambda function, raw: EXPECTED[eval_name]
    if kind == "none":
        return None
    if kind == "numpy":
        return lambda function, raw: numpy_oracle(eval_name, function, raw)
    from peers import jax_port
    from protocol import evaluate

    fns = jax_port.functions(eval_name)
    return lambda function, raw: evaluate(fns[function], raw | {"min_runs": 1, "min_seconds": 0})["output"]


# ------------------------------------------------------------------------------------------- session


class Session:
    """The eval's side of one protocol session over this process's stdin and stdout."""

    def __init__(self):
        self.id = 0

    def send(self, message: dict) -> dict:
        sys.stdout.write(json.dumps({"id": self.id} | message) + "\n")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        response = json.loads(line)
        if response.get("id") != self.id:
            raise ValueError(f"expected message ID {self.id}, got {response.get('id')}")
        self.id += 1
        return response


def run(eval_name: str, sizes: dict, min_runs: int, min_seconds: float, oracle_kind: str, text: str | None):
    session = Session()
    session.send({"kind": "start", "eval": eval_name, "config": {"driver": "native", "oracle": oracle_kind}})
    if not session.send({"kind": "define", "module": eval_name}).get("success"):
        return
    oracle = make_oracle(eval_name, oracle_kind)
    for description, raw in inputs(eval_name, sizes, text):
        for function in FUNCTIONS[eval_name]:
            message_id = session.id
            message = {"min_runs": min_runs, "min_seconds": min_seconds}
            response = session.send(
                {
                    "kind": "evaluate",
                    "module": eval_name,
                    "function": function,
                    "input": raw | message,
                    "description": description,
                }
            )
            if not response.get("success") or oracle is None:
                continue
            try:
                found = mismatches(oracle(function, raw), response.get("output"))
                error = (
                    None
                    if not found
                    else f"Found {len(found)} mismatches, showing {min(10, len(found))}:\n" + "\n".join(found[:10])
                )
            except Exception as e:  # noqa: BLE001 - the oracle's failure is the analysis's error
                found, error = ["oracle failed"], "oracle failed:\n" + "".join(traceback.format_exception(e))
            analysis = {"kind": "analysis", "of": message_id, "valid": not found}
            if error:
                analysis["error"] = error
            session.send(analysis)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("eval", choices=sorted(DEFAULTS))
    for key in ("l", "n", "m", "s", "k", "d", "c"):
        parser.add_argument(f"-{key}", nargs="+", type=int)
    parser.add_argument("--min-runs", type=int, default=1)
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--oracle", choices=("jax", "numpy", "none"), default="jax")
    parser.add_argument("--text", type=Path, help="lstm: the text to take characters from")
    args = parser.parse_args(argv)
    sizes = {key: getattr(args, key) or value for key, value in DEFAULTS[args.eval].items()}
    text = args.text.read_text(encoding="utf8") if args.text else None
    if args.eval == "lstm" and text is None:
        parser.error("lstm needs --text (GradBench's evals/lstm/data/lstm_full.txt or another text)")
    try:
        run(args.eval, sizes, args.min_runs, args.min_seconds, args.oracle, text)
    except (EOFError, BrokenPipeError):
        pass


if __name__ == "__main__":
    main()
