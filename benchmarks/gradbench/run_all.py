"""Every GradBench eval on adcompiler (python and numba targets), JAX (jit) and PyTorch: one table.

    python benchmarks/gradbench/run_all.py --gradbench /tmp/gradbench --quick   # smallest sizes only
    python benchmarks/gradbench/run_all.py --gradbench /tmp/gradbench --evals lse det --tools adc-python jax
    python benchmarks/gradbench/run_all.py --gradbench /tmp/gradbench \
        --out benchmarks/results/gradbench.md --json benchmarks/results/gradbench.json  # the committed table

For each eval and each tool, one session through ``relay.py``: GradBench's own eval driver (from
the checkout made by ``relay.py prepare``; without ``--gradbench``, ``native.py`` with JAX as the
oracle) at GradBench's default sizes, smallest first, until one run of the tool takes longer than
``--budget`` seconds: that size is the last the tool runs.  Each tool is a fresh process on one
thread, pinned to one CPU.  Writes the markdown table (``--out``, default
``benchmarks/out/gradbench.md``, which git ignores) and every record (``--json``); the logs of
every session (messages, the tools' and drivers' stderr) go to ``--logs``.

Times: each evaluate runs the function at least ``--min-runs`` times and for ``--min-seconds``
(GradBench's ``Runs``; 2 runs for particle and saddle, each run a whole optimisation), but a
function slower than the budget is run twice, or once past 10 budgets (``protocol.measure``).  The
table gives the minimum over the runs after the first (the first is the "first call": it includes
adcompiler's transformation, Numba's and XLA's compilation when they happen; a row with a single
run says so), and the JSON keeps every run.  Primal and derivative come from the same process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import relay  # noqa: E402
from evals import PEERS_FORMULATION  # noqa: E402

REPO = HERE.parent.parent
EVALS = ("det", "gmm", "ba", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle")
TOOLS = ("adc-python", "adc-numba", "adc-python-pf", "adc-numba-pf", "jax", "pytorch")
ADC = ("adc-python", "adc-numba", "adc-python-pf", "adc-numba-pf")
# adc-*-pf: the evals of PEERS_FORMULATION only, on the formulation the peers differentiate.
PEERS = ("jax", "pytorch")
PRIMAL = {
    "det": "primal",
    "lse": "primal",
    "llsq": "primal",
    "ode": "primal",
    "kmeans": "cost",
    "gmm": "objective",
    "ba": "objective",
    "ht": "objective",
    "lstm": "objective",
}
DERIVATIVE = {
    "det": ("gradient",),
    "lse": ("gradient",),
    "llsq": ("gradient",),
    "ode": ("gradient",),
    "kmeans": ("dir",),
    "gmm": ("jacobian",),
    "ba": ("jacobian",),
    "ht": ("jacobian",),
    "lstm": ("jacobian",),
    "particle": ("rr", "ff", "fr", "rf"),
    "saddle": ("rr", "ff", "fr", "rf"),
}
# The smallest of GradBench's default sizes, for --quick.
QUICK = {
    "det": "-l 5",
    "lse": "-n 2500",
    "llsq": "-n 16",
    "ode": "-n 1000 -s 1",
    "kmeans": "-k 10 -n 1000 -d 8",
    "gmm": "-d 2 -k 5",
    "lstm": "-l 2 -c 1024",
    "ba": "--max 1",
    "ht": "--max 1",
    "particle": "",
    "saddle": "",
}
# GradBench's defaults, but ht's hand12, absent from the snapshot here (and far past any budget).
DEFAULT = {e: "" for e in EVALS} | {"ht": "--max 11"}


def tool_command(tool: str, python: str, gradbench: Path | None) -> list[str]:
    if tool.startswith("adc-"):
        backend = tool.removeprefix("adc-").removesuffix("-pf")
        extra = ["--formulation", "peers"] if tool.endswith("-pf") else []
        return [python, str(HERE / "tool.py"), "--backend", backend, *extra]
    command = [python, str(HERE / "peer_tool.py"), "--peer", tool]
    return command + (["--gradbench", str(gradbench)] if gradbench else [])


def run(args) -> list[dict]:
    records: list[dict] = []
    args.logs.mkdir(parents=True, exist_ok=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    for eval_name in args.evals:
        sizes = QUICK[eval_name] if args.quick else DEFAULT[eval_name]
        if args.gradbench is None and eval_name in ("ba", "ht"):
            print(f"{eval_name}: needs GradBench's data files (--gradbench); left out", flush=True)
            continue
        if args.gradbench is None and eval_name == "lstm":
            sizes += f" --text {args.lstm_text}" if args.lstm_text else ""
        runs, secs = (2, 0) if eval_name in ("particle", "saddle") else (args.min_runs, args.min_seconds)
        driver_args = f"{sizes} --min-runs {runs} --min-seconds {secs}".split()
        for tool_name in args.tools:
            if tool_name.endswith("-pf") and eval_name not in PEERS_FORMULATION:
                continue
            argv, cwd, env = relay.eval_command(eval_name, args.gradbench, args.eval_python, driver_args)
            log = args.logs / f"{eval_name}-{tool_name}.jsonl"
            tool = relay.Tool(
                tool_command(tool_name, args.python, args.gradbench),
                relay.tool_env([str(HERE)], args.budget),
                REPO,
                args.cpu,
                relay.side_file(log, "tool.stderr"),
            )
            started = time.time()
            try:
                got = relay.relay(
                    argv,
                    cwd,
                    env,
                    tool,
                    tool_name,
                    args.budget,
                    args.timeout,
                    log,
                    progress=lambda r: print(_line(r), flush=True),
                )
            finally:
                tool.kill()
            print(f"-- {eval_name} on {tool_name}: {time.time() - started:.0f} s", flush=True)
            records += [compact(asdict(r)) for r in got]
            args.json.write_text(dump({}, records))  # so far
    return records


def _line(r: relay.Record) -> str:
    t = f"{warm(r) * 1e3:9.3f} ms" if r.timings_ns else ""
    err = "" if r.success else (r.error or "").splitlines()[0][:120]
    return f"{r.eval:8} {r.tool:10} {r.function:9} {r.description:16} {r.status:8} {str(r.valid):5} {t} {err}"


KEPT_TIMINGS = 20


def dump(info: dict, records: list[dict]) -> str:
    """The run as JSON: its meta, then one record a line."""
    lines = ",\n".join(json.dumps(r) for r in records)
    return f'{{"meta": {json.dumps(info, indent=1)},\n"records": [\n{lines}\n]}}\n'


def compact(r: dict) -> dict:
    """The record with the statistics of its runs and only the first ``KEPT_TIMINGS`` timings
    (a fast function runs thousands of times in ``--min-seconds``), its messages cut short."""
    ns = r["timings_ns"]
    if ns:
        after = ns[1:] if len(ns) > 1 else ns
        r["runs"] = {
            "count": len(ns),
            "first_ns": ns[0],
            "warm_min_ns": min(after),
            "warm_median_ns": int(statistics.median(after)),
        }
    r["timings_ns"] = ns[:KEPT_TIMINGS]
    for key in ("error", "analysis_error"):  # the whole message is in the session's log
        if r.get(key) and len(r[key]) > 600:
            r[key] = r[key][:600] + " [...]"
    return r


def warm(r) -> float:
    """Seconds: the minimum over the runs after the first (the only run when there is one)."""
    if isinstance(r, dict) and "runs" in r:
        return r["runs"]["warm_min_ns"] / 1e9
    ns = r["timings_ns"] if isinstance(r, dict) else r.timings_ns
    return min(ns[1:] if len(ns) > 1 else ns) / 1e9


def runs(r: dict) -> int:
    return r["runs"]["count"] if "runs" in r else len(r["timings_ns"])


def first(r: dict) -> float:
    return r["timings_ns"][0] / 1e9


# ------------------------------------------------------------------------------------------- the table


def seconds(s: float | None) -> str:
    if s is None:
        return ""
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def verdict(r: dict | None) -> str:
    """correct / wrong / the failure, short."""
    if r is None:
        return "—"
    if r["status"] == "skipped":
        return (
            "skipped (budget)"
            if "budget" in (r["error"] or "")
            else f"skipped ({short(r['error']).removeprefix('skipped: ')})"
        )
    if r["status"] == "timeout":
        return f"timeout ({short(r['error']).removeprefix('timeout: ')})"
    if not r["success"]:
        return f"{r['status'] if r['status'] != 'failed' else 'refused'}: {short(r['error'])}"
    if r["valid"] is None:
        return "unchecked"
    return "yes" if r["valid"] else f"WRONG: {short(r['analysis_error'])}"


def short(message: str | None, limit: int = 110) -> str:
    """The error's first informative line, paths and object addresses left out, cut to ``limit``."""
    if not message:
        return ""
    message = re.sub(r" at 0x[0-9a-f]+", "", message)
    lines = [l.strip() for l in message.splitlines() if l.strip()]
    line = lines[0] if lines else ""
    if line.startswith("Traceback") or line.startswith("the tool died"):
        line = next((l for l in reversed(lines) if not l.startswith("File ") and not l.startswith("^")), line)
    for prefix in (str(REPO) + "/", str(Path(sys.prefix)) + "/", "/work/main/.venv/", "/work/wt/benchvenv/"):
        line = line.replace(prefix, "")
    line = line.replace("|", "\\|")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def ok(r: dict | None) -> bool:
    return r is not None and r["success"] and r["valid"] is not False and bool(r["timings_ns"])


def table(records: list[dict], args) -> str:
    by = {}
    sizes: dict[str, list[str]] = {}
    for r in records:
        by[(r["eval"], r["description"], r["tool"], r["function"])] = r
        sizes.setdefault(r["eval"], [])
        if r["description"] not in sizes[r["eval"]]:
            sizes[r["eval"]].append(r["description"])
    tools = [t for t in TOOLS if any(r["tool"] == t for r in records)]
    out = [
        "| eval | size | function | tool | correct | primal | derivative | deriv / primal | first call | notes |",
        "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    summary = []
    for e in [e for e in EVALS if e in sizes]:
        for size in sizes[e]:
            for fn in DERIVATIVE[e]:
                best = {}
                for tool in tools:
                    p = by.get((e, size, tool, PRIMAL.get(e, ""))) if e in PRIMAL else None
                    d = by.get((e, size, tool, fn))
                    if all(r is None or r["status"] == "skipped" for r in (p, d)):
                        continue
                    pt = warm(p) if ok(p) else None
                    dt = warm(d) if ok(d) else None
                    ratio = f"{dt / pt:.1f}" if pt and dt else ""
                    notes = []
                    if p is not None and p.get("notes", {}).get("primal_kind"):
                        notes.append(f"primal: {p['notes']['primal_kind']}")
                    for rr in (p, d):
                        if rr is not None and rr.get("notes", {}).get("source"):
                            notes.append(rr["notes"]["source"])
                            break
                    if p is not None and not ok(p) and p["status"] != "skipped":
                        notes.append(f"primal {verdict(p)}")
                    if p is not None and p.get("notes", {}).get("numba_primal_refused"):
                        notes.append(f"Numba refused the primal: {short(p['notes']['numba_primal_refused'], 80)}")
                    for label, rr in (("primal", p), ("derivative", d)):
                        if ok(rr) and runs(rr) == 1:
                            notes.append(f"{label}: one run, first call included")
                    correct = verdict(d)
                    out.append(
                        f"| {e} | {size} | {fn} | {tool} | {correct} | {seconds(pt)} | {seconds(dt)} | {ratio} | "
                        f"{seconds(first(d)) if d and d['timings_ns'] else ''} | {'; '.join(dict.fromkeys(notes))} |"
                    )
                    if dt is not None:
                        best[tool] = dt
                adc = {t: s for t, s in best.items() if t in ADC}
                peer = {t: s for t, s in best.items() if t in PEERS}
                if adc or peer:
                    summary.append((e, size, fn, adc, peer))
    lines = ["## Every run", ""] + out + ["", "## adcompiler's best target against the best peer (derivative time)", ""]
    lines += [
        "| eval | size | function | best adcompiler | best peer | adcompiler / peer |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    per_eval: dict[str, list[float]] = {}
    for e, size, fn, adc, peer in summary:
        a = min(adc.items(), key=lambda kv: kv[1]) if adc else None
        p = min(peer.items(), key=lambda kv: kv[1]) if peer else None
        ratio = a[1] / p[1] if a and p else None
        if ratio is not None:
            per_eval.setdefault(e, []).append(ratio)
        lines.append(
            f"| {e} | {size} | {fn} | {f'{seconds(a[1])} ({a[0]})' if a else 'none correct'} | "
            f"{f'{seconds(p[1])} ({p[0]})' if p else 'none'} | {f'{ratio:.2f}' if ratio else ''} |"
        )
    medians = {e: statistics.median(v) for e, v in per_eval.items()}
    lines += [
        "",
        "Median of adcompiler / peer per eval (over its sizes where both are correct): "
        + (", ".join(f"{e} {m:.2f}" for e, m in medians.items()) or "none")
        + ".",
    ]
    if medians:
        lines.append(f"Median over those evals: **{statistics.median(medians.values()):.2f}**.")
    lines += ["", "## Sizes run", "", sizes_table(records, sizes, tools)]
    lines += [
        "",
        "## Refusals, crashes and wrong answers",
        "",
        "Each distinct message once, with where it happened:",
        "",
    ]
    groups: dict[tuple, list[str]] = {}
    for r in records:
        if r["status"] == "skipped" or (r["success"] and r["valid"] is not False):
            continue
        message = r["error"] if not r["success"] else r["analysis_error"]
        where = f"{r['function']} on {r['tool']}"
        text = short(message, 400)
        groups.setdefault((r["eval"], text), [])
        if where not in groups[(r["eval"], text)]:
            groups[(r["eval"], text)].append(where)
    for (e, text), places in groups.items():
        lines.append(f"- **{e}** ({', '.join(places)}): {text}")
    return "\n".join(lines) + "\n"


def sizes_table(records: list[dict], sizes: dict, tools: list[str]) -> str:
    """Per eval and tool: the largest size it ran correctly, and the first it did not run."""
    rows = ["| eval | " + " | ".join(tools) + " |", "| --- |" + " --- |" * len(tools)]
    for e in [e for e in EVALS if e in sizes]:
        cells = []
        for tool in tools:
            mine = [r for r in records if r["eval"] == e and r["tool"] == tool and r["description"] != "-"]
            if not mine:
                cells.append("—")
                continue
            good = [r["description"] for r in mine if r["function"] in DERIVATIVE[e] and ok(r)]
            skipped = [r["description"] for r in mine if r["status"] == "skipped"]
            cell = f"up to {good[-1]}" if good else "no derivative"
            if skipped:
                cell += f"; skipped from {skipped[0]}"
            cells.append(cell)
        rows.append(f"| {e} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def meta(args, started: float, load_before: tuple) -> dict:
    """How the run was made: the command, the machine, the versions, the load around it."""
    import platform

    versions = {}
    probe = (  # each package on its own: one missing (torch in a venv for the adcompiler tools) leaves only it out
        "import importlib, json\nfound = {}\nfor m in ('numpy', 'numba', 'jax', 'torch', 'scipy'):\n"
        "    try:\n        found[m] = getattr(importlib.import_module(m), '__version__', '?')\n"
        "    except ImportError:\n        pass\nprint(json.dumps(found))"
    )
    try:
        import subprocess

        versions = json.loads(
            subprocess.run([args.python, "-c", probe], capture_output=True, text=True, timeout=120).stdout
        )
    except Exception:  # noqa: BLE001 - a missing package only leaves its version out
        pass
    return {
        "command": "python benchmarks/gradbench/run_all.py " + " ".join(args.argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "wall_minutes": round((time.time() - started) / 60, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "load_average": [round(x, 1) for x in load_before] + [round(x, 1) for x in os.getloadavg()],
        "versions": versions,
        "cpu": args.cpu,
        "budget": args.budget,
        "timeout": args.timeout,
        "min_runs": args.min_runs,
        "min_seconds": args.min_seconds,
        "drivers": f"GradBench's own, from {args.gradbench}" if args.gradbench else "native.py, JAX x64 as the oracle",
    }


def header(m: dict) -> str:
    load = m.get("load_average", [])
    return (
        "# GradBench on adcompiler, JAX and PyTorch\n\n"
        f"Made by `{m['command']}` on {m['date']} ({m['wall_minutes']} minutes), {m['machine']}"
        + "".join(f", {k} {v}" for k, v in m.get("versions", {}).items())
        + "; one thread per tool, pinned to "
        f"CPU {m['cpu']}; budget {m['budget']:g} s a run, timeout {m['timeout']:g} s an evaluate, each evaluate "
        f"at least {m['min_runs']} runs and {m['min_seconds']:g} s. Eval drivers: {m['drivers']}. "
        + (f"Load average (1, 5, 15 min) before and after: {load[:3]}, {load[3:]}. " if load else "")
        + (m.get("remark", "") + "\n\n")
        + "Times are the minimum over the runs after the first; *first call* is the first run of that "
        "evaluate (adcompiler's transformation, Numba's and XLA's compilation when they happen there). "
        "*correct*: the eval's own check (GradBench's manual C++ tool, or its expected values). Sizes past "
        "the one at which a tool took longer than the budget were not run (see *Sizes run*). The primal "
        "of adc-numba is the eval module's function under `numba.njit` where Numba takes it, else Python "
        "(*notes*). adc-*-pf: the peers' formulation: kmeans on the matrix-product expansion GradBench's JAX and "
        "PyTorch tools use, ba on the observations batched into arrays (JAX batches them with vmap).\n\n"
    )


def main(argv=None) -> None:
    relay.exit_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gradbench", type=Path, default=None, help="GradBench working copy (relay.py prepare)")
    parser.add_argument("--evals", nargs="+", default=list(EVALS), choices=EVALS)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    parser.add_argument("--quick", action="store_true", help="only the smallest default size of each eval")
    parser.add_argument(
        "--budget", type=float, default=2.0, help="seconds a run may take before larger sizes are skipped"
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds an evaluate may take in all")
    parser.add_argument("--min-runs", type=int, default=3)
    parser.add_argument("--min-seconds", type=float, default=0.3)
    parser.add_argument("--cpu", type=int, default=sorted(os.sched_getaffinity(0))[-1])
    parser.add_argument("--python", default=sys.executable, help="the Python of the tools (numba, jax, torch)")
    parser.add_argument("--eval-python", default=sys.executable, help="the Python of the eval drivers")
    parser.add_argument("--lstm-text", type=Path, help="native lstm driver: the text (GradBench's lstm_full.txt)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/out/gradbench.md")
    parser.add_argument("--json", type=Path, default=REPO / "benchmarks/out/gradbench.json")
    parser.add_argument("--logs", type=Path, default=Path("/tmp/gradbench-logs"))
    parser.add_argument("--from-json", action="store_true", help="only write the table from --json (a finished run)")
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    if args.from_json:
        saved = json.loads(args.json.read_text())
        info, records = saved["meta"], saved["records"]
    else:
        started, load_before = time.time(), os.getloadavg()
        records = run(args)
        info = meta(args, started, load_before)
        args.json.write_text(dump(info, records))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header(info) + table(records, args))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
