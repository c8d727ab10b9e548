"""A small GradBench intermediary: runs an eval driver against a tool and records what passes.

GradBench's intermediary (``gradbench run``) is a Rust program that cannot be built here; this one
does its job in Python.  It starts the eval (a process that sends messages on stdout) and the tool
(a process that answers on stdout), hands each message to the tool and each response back to the
eval, and keeps, for every ``evaluate``, the function, the input's description, success or the
error, the tool's timings and the eval's verdict (its ``analysis`` message).

    # once: a working copy of GradBench (its Python drivers, data and the C++ ``manual`` tool,
    # against which most drivers validate); needs make, a C++ compiler and nlohmann's json.hpp
    python benchmarks/gradbench/relay.py prepare --git-dir PATH/TO/gradbench.git --to /tmp/gradbench

    python benchmarks/gradbench/relay.py run --gradbench /tmp/gradbench --eval lse -- \\
        python benchmarks/gradbench/tool.py --backend python

With ``--gradbench`` the eval is GradBench's own driver (``python/gradbench/gradbench/evals/EVAL/
run.py``, run from the checkout, needing numpy, scipy, pydantic and dataclasses-json); without
it, ``native.py`` (the same inputs, validated against JAX in double precision).

Unlike GradBench's intermediary it can leave sizes out: once one run of an evaluate takes longer
than ``--budget`` seconds, the eval's later (larger) inputs are answered ``skipped`` without asking
the tool; an evaluate that takes longer than ``--timeout`` in all is answered ``timeout``, the tool
is killed and the rest of the session answered ``skipped`` (likewise when the tool dies).  The tool runs with one thread:
``OMP_NUM_THREADS=1`` and the like, JAX's XLA flags, and pinned to one CPU (``--cpu``).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_NUM_INTEROP_THREADS": "1",
}
MISSING_LSTM_TEXT = "evals/lstm/data/lstm_full.txt"
GRADBENCH_EVALS = ("det", "gmm", "ba", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle")


@dataclass
class Record:
    """What happened to one ``evaluate`` message."""

    eval: str
    tool: str
    function: str
    description: str
    id: int
    success: bool = False
    error: str | None = None
    status: str = "ok"  # ok, failed (the tool said no), skipped, timeout, crashed
    timings_ns: list[int] = field(default_factory=list)
    notes: dict = field(default_factory=dict)
    valid: bool | None = None  # the eval's analysis; None when it sent none
    analysis_error: str | None = None
    wall_s: float = 0.0  # the message's round trip, JSON included


class Tool:
    """The tool process: started on demand, restarted after a timeout or a crash, with the
    ``start`` and ``define`` messages replayed to the new process."""

    def __init__(self, command: list[str], env: dict, cwd: Path, cpu: int | None, stderr_path: Path | None):
        self.command, self.env, self.cwd, self.cpu = command, env, cwd, cpu
        self.stderr_path = stderr_path
        self.process: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.replay: list[dict] = []

    def _start(self) -> None:
        cpu = self.cpu
        stderr = open(self.stderr_path, "ab") if self.stderr_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=self.cwd,
            env=self.env,
            text=True,
            bufsize=1,
            start_new_session=True,
            preexec_fn=(lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.process, self.lines), daemon=True).start()
        for message in self.replay:
            self._exchange(message, timeout=600)

    @staticmethod
    def _read(process: subprocess.Popen, lines: queue.Queue) -> None:
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    def _exchange(self, message: dict, timeout: float) -> dict:
        assert self.process is not None
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ToolDied(self.stderr_tail()) from None
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no answer in {timeout:g} s") from None
            if line is None:
                raise ToolDied(self.stderr_tail())
            if line.strip():
                return json.loads(line)

    def ask(self, message: dict, timeout: float) -> dict:
        if self.process is None or self.process.poll() is not None:
            self._start()
        response = self._exchange(message, timeout)
        if message.get("kind") in ("start", "define"):
            self.replay.append(message)
        return response

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, 9)
            except ProcessLookupError:
                pass
            self.process.wait()
        self.process = None

    def stderr_tail(self, n: int = 1500) -> str:
        if self.stderr_path and self.stderr_path.exists():
            return self.stderr_path.read_text(errors="replace")[-n:]
        return ""


class ToolDied(RuntimeError):
    pass


def tool_env(extra_pythonpath: list[str] | None = None, budget: float | None = None) -> dict:
    """The environment of a tool process: one thread, adcompiler from this checkout, and the
    budget past which the tool stops repeating a run (``protocol.measure``)."""
    env = dict(os.environ) | ONE_THREAD
    if budget is not None and budget != float("inf"):
        env["GRADBENCH_MAX_SECONDS"] = str(budget)
    paths = [str(REPO)] + (extra_pythonpath or []) + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def eval_command(eval_name: str, gradbench: Path | None, python: str, args: list[str]) -> tuple[list[str], Path, dict]:
    """(argv, cwd, env) of the eval driver: GradBench's own when a checkout is given, else native.py."""
    env = dict(os.environ)
    if gradbench is not None:
        driver = gradbench / "python/gradbench/gradbench/evals" / eval_name / "run.py"
        env["PYTHONPATH"] = os.pathsep.join([str(gradbench / "python/gradbench"), env.get("PYTHONPATH", "")])
        return [python, str(driver), *args], gradbench, env
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), env.get("PYTHONPATH", "")])
    return [python, str(HERE / "native.py"), eval_name, *args], HERE, env


def relay(
    eval_argv: list[str],
    eval_cwd: Path,
    eval_env: dict,
    tool: Tool,
    tool_name: str,
    budget: float = float("inf"),
    timeout: float = 600.0,
    log_path: Path | None = None,
    progress=None,
) -> list[Record]:
    """Run one eval session against ``tool``: the records of its evaluate messages."""
    eval_stderr = open(side_file(log_path, "eval.stderr"), "w+b") if log_path else tempfile.TemporaryFile()
    driver = subprocess.Popen(
        eval_argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=eval_stderr,
        cwd=eval_cwd,
        env=eval_env,
        text=True,
        bufsize=1,
    )
    log = open(log_path, "w", buffering=1) if log_path else None  # noqa: SIM115
    t0 = time.perf_counter_ns()
    records: dict[int, Record] = {}
    eval_name = "?"
    over_at: str | None = None  # the description at which this tool went over budget
    stopped: str | None = None  # after a timeout or a crash, why the rest of the session is skipped
    try:
        for line in driver.stdout:
            if not line.strip():
                continue
            message = json.loads(line)
            _log(log, t0, "message", message)
            kind = message.get("kind")
            if kind == "start":
                eval_name = message.get("eval", eval_name)
            if kind == "define":
                eval_name = message.get("module", eval_name)
            record = None
            if kind == "evaluate":
                record = Record(
                    eval=message["module"],
                    tool=tool_name,
                    function=message["function"],
                    description=message.get("description", ""),
                    id=message["id"],
                )
                records[message["id"]] = record
            response = None
            if record is not None and stopped is not None:
                record.status, record.error = "skipped", f"skipped: {stopped}"
                response = {"id": message["id"], "success": False, "error": record.error}
            elif record is not None and over_at is not None and record.description != over_at:
                record.status, record.error = "skipped", f"skipped: over the {budget:g} s budget at {over_at}"
                response = {"id": message["id"], "success": False, "error": record.error}
            if response is None:
                started = time.perf_counter()
                try:
                    response = tool.ask(message, timeout)
                except TimeoutError as e:
                    tool.kill()
                    response = {"id": message["id"], "success": False, "error": f"timeout: {e}"}
                    if record is not None:
                        record.status = "timeout"
                        stopped = f"{record.function} at {record.description} timed out"
                except ToolDied as e:
                    tool.kill()
                    response = {"id": message["id"], "success": False, "error": f"the tool died:\n{e}"}
                    if record is not None:
                        record.status = "crashed"
                        stopped = f"the tool died at {record.function} at {record.description}"
                if record is not None:
                    record.wall_s = time.perf_counter() - started
            _log(
                log,
                t0,
                "response",
                _without_output(response) if log_path and not os.environ.get("RELAY_FULL_LOG") else response,
            )
            if record is not None:
                record.success = bool(response.get("success"))
                if not record.success and record.status == "ok":
                    record.status = "failed"
                record.error = record.error or response.get("error")
                record.timings_ns = [
                    t["nanoseconds"] for t in response.get("timings") or [] if t.get("name") == "evaluate"
                ]
                record.notes = response.get("notes") or {}
                if record.success and record.timings_ns and min(record.timings_ns) / 1e9 > budget:
                    over_at = record.description
                if progress:
                    progress(record)
            if kind == "define" and not response.get("success"):
                records[message["id"]] = Record(
                    eval=message.get("module", eval_name),
                    tool=tool_name,
                    function="define",
                    description="-",
                    id=message["id"],
                    status="failed",
                    error=response.get("error") or "define: success false",
                )
            if kind == "analysis" and message.get("of") in records:
                records[message["of"]].valid = bool(message.get("valid"))
                records[message["of"]].analysis_error = message.get("error")
            driver.stdin.write(json.dumps(response) + "\n")
            driver.stdin.flush()
    except BrokenPipeError:
        pass
    finally:
        try:
            driver.stdin.close()
        except BrokenPipeError:
            pass
        try:
            driver.wait(timeout=30)
        except subprocess.TimeoutExpired:
            driver.kill()
            driver.wait()
        if log:
            log.close()
    out = list(records.values())
    if driver.returncode not in (0, None, -9):
        eval_stderr.seek(0)
        tail = eval_stderr.read().decode(errors="replace")[-1500:]
        out.append(
            Record(
                eval=eval_name,
                tool=tool_name,
                function="-",
                description="-",
                id=-1,
                status="driver failed",
                error=f"the eval driver failed ({driver.returncode}):\n{tail}",
            )
        )
    eval_stderr.close()
    return out


def side_file(log_path: Path, kind: str) -> Path:
    """``run/lse-jax.jsonl`` -> ``run/lse-jax.<kind>``."""
    return log_path.parent / f"{log_path.name.removesuffix('.jsonl')}.{kind}"


def _log(log, t0: int, key: str, payload: dict) -> None:
    if log is None:
        return
    if key == "message" and "input" in payload and not os.environ.get("RELAY_FULL_LOG"):
        payload = payload | {"input": _summary(payload["input"])}
    log.write(json.dumps({"elapsed": {"nanoseconds": time.perf_counter_ns() - t0}, key: payload}) + "\n")


def _summary(value: Any) -> Any:
    """A large input's shape instead of its numbers (set RELAY_FULL_LOG=1 for everything)."""
    if isinstance(value, dict):
        return {k: _summary(v) for k, v in value.items()}
    if isinstance(value, list):
        return f"<list of {len(value)}>" if len(value) > 8 else [_summary(v) for v in value]
    return value


def _without_output(response: dict) -> dict:
    out = response.get("output")
    if isinstance(out, (list, dict)) and len(json.dumps(out)) > 2000:
        return response | {"output": _summary(out)}
    return response


# --------------------------------------------------------------------------------------------- prepare


def prepare(git_dir: Path, dest: Path, build_manual: bool = True, jobs: int = 2) -> list[str]:
    """A working copy of GradBench at ``dest`` from its git directory: the Python drivers, the
    evals' data and the C++ ``manual`` tool, built.  Files the snapshot lacks are left out (and
    reported); a missing lstm text is replaced by GradBench's own Markdown, ASCII only, which
    changes lstm's inputs but not what is checked.  Nothing is fetched."""
    notes = []
    dest.mkdir(parents=True, exist_ok=True)
    listing = subprocess.run(
        [
            "git",
            "-C",
            str(git_dir),
            "ls-tree",
            "-r",
            "HEAD",
            "--",
            "python",
            "evals",
            "cpp",
            "tools/manual",
            "README.md",
            "CONTRIBUTING.md",
            "LICENSE",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    present, missing = [], []
    for row in listing.splitlines():
        meta, path = row.split("\t", 1)
        sha = meta.split()[2]
        ok = subprocess.run(["git", "-C", str(git_dir), "cat-file", "-e", sha], capture_output=True).returncode == 0
        (present if ok else missing).append(path)
    archive = subprocess.Popen(["git", "-C", str(git_dir), "archive", "HEAD", "--", *present], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, check=True)
    archive.wait()
    notes += [f"absent from the snapshot: {p}" for p in missing]
    if MISSING_LSTM_TEXT in missing:
        text = "".join(
            (dest / p).read_text(encoding="utf8")
            for p in ["README.md", "CONTRIBUTING.md"] + [f"evals/{e}/README.md" for e in GRADBENCH_EVALS]
            if (dest / p).exists()
        )
        text = "".join(c for c in text if 32 <= ord(c) < 127 or c == "\n")
        (dest / MISSING_LSTM_TEXT).parent.mkdir(parents=True, exist_ok=True)
        (dest / MISSING_LSTM_TEXT).write_text(text, encoding="utf8")
        notes.append(
            f"{MISSING_LSTM_TEXT}: replaced by GradBench's Markdown files, ASCII only ({len(text)} characters)"
        )
    if build_manual:
        header = dest / "cpp/json.hpp"
        if not header.exists():
            system = Path("/usr/include/nlohmann/json.hpp")
            if not system.exists():
                raise SystemExit("the manual tool needs nlohmann's json.hpp: apt-get install nlohmann-json3-dev")
            header.symlink_to(system)
        subprocess.run(["make", "-C", str(dest / "tools/manual"), f"-j{jobs}", "NATIVE=no"], check=True)
        notes.append("built tools/manual (GradBench's validator for det, gmm, ba, ht, kmeans, llsq, lse, lstm, ode)")
    return notes


# ------------------------------------------------------------------------------------------------ cli


def summarise(records: list[Record]) -> str:
    lines = []
    for r in records:
        best = f"{min(r.timings_ns) / 1e6:10.3f} ms" if r.timings_ns else " " * 13
        verdict = {True: "valid", False: "INVALID", None: "-"}[r.valid]
        error = "" if r.success else " " + (r.error or "").splitlines()[0][:150] if r.error else ""
        lines.append(f"{r.eval:9} {r.function:9} {r.description:18} {r.status:8} {verdict:8} {best}{error}")
    return "\n".join(lines)


def exit_on_sigterm() -> None:
    """SIGTERM unwinds like an exception, so that the ``finally`` clauses kill the tool."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def main(argv=None) -> None:
    exit_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="make a GradBench working copy with the manual tool built")
    p.add_argument("--git-dir", type=Path, required=True, help="GradBench's git directory (a clone or a bare mirror)")
    p.add_argument("--to", type=Path, required=True)
    p.add_argument("--no-build", action="store_true")
    r = sub.add_parser("run", help="run one eval against one tool")
    r.add_argument("--eval", required=True, choices=GRADBENCH_EVALS)
    r.add_argument("--gradbench", type=Path, help="a GradBench working copy (relay.py prepare); else native.py")
    r.add_argument("--eval-python", default=sys.executable, help="the Python that runs the eval driver")
    r.add_argument("--eval-args", default="", help="arguments for the driver, e.g. '-n 100 1000 --min-runs 3'")
    r.add_argument("--budget", type=float, default=float("inf"))
    r.add_argument("--timeout", type=float, default=600.0)
    r.add_argument("--cpu", type=int, default=None)
    r.add_argument("--log", type=Path)
    r.add_argument("tool", nargs=argparse.REMAINDER, help="-- then the tool's command")
    args = parser.parse_args(argv)
    if args.command == "prepare":
        for note in prepare(args.git_dir, args.to, build_manual=not args.no_build):
            print(note)
        return
    command = args.tool[1:] if args.tool[:1] == ["--"] else args.tool
    if not command:
        parser.error("give the tool's command after --")
    argv_, cwd, env = eval_command(args.eval, args.gradbench, args.eval_python, args.eval_args.split())
    tool = Tool(
        command, tool_env(budget=args.budget), REPO, args.cpu, side_file(args.log, "tool.stderr") if args.log else None
    )
    try:
        records = relay(argv_, cwd, env, tool, " ".join(command), args.budget, args.timeout, args.log)
    finally:
        tool.kill()
    print(summarise(records))


if __name__ == "__main__":
    main()
