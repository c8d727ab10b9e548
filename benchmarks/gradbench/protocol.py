"""GradBench's JSON protocol, the tool's side: one message a line on stdin, one response a line on stdout.

The eval sends ``start``, ``define`` (a module), ``evaluate`` (a module, a function and its input)
and ``analysis`` (its verdict on an earlier output); every response carries the message's ``id``.
An ``evaluate`` response has ``success``, the ``output`` and one ``evaluate`` timing (nanoseconds)
per run: the tool runs the function at least ``min_runs`` times and until ``min_seconds`` have
passed (GradBench's ``Runs``).  See GradBench's CONTRIBUTING.md, "Protocol".
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, TextIO


@dataclass
class Function:
    """One GradBench function of a module, as a tool runs it: ``prepare`` (the eval's JSON input to
    the call's arguments, not timed), ``run`` (the timed call), ``finish`` (also timed: waits for an
    asynchronous result), ``post`` (the result to the JSON the eval expects, not timed)."""

    prepare: Callable[[Any], tuple]
    run: Callable[..., Any]
    post: Callable[[Any], Any]
    notes: dict = field(default_factory=dict)  # said in the response (e.g. which primal ran)
    finish: Callable[[Any], Any] = lambda out: out


def evaluate(fn: Function, raw: Any) -> dict:
    """The fields of an ``evaluate`` response: ``fn`` run on the eval's input ``raw`` as ``Runs`` asks."""
    args = fn.prepare(raw)
    output, timings = measure(fn.run, args, raw.get("min_runs", 1), raw.get("min_seconds", 0), fn.finish)
    response = {"success": True, "output": fn.post(output), "timings": timings}
    if fn.notes:
        response["notes"] = dict(fn.notes)
    return response


def measure(run: Callable, args: tuple, min_runs: int, min_seconds: float, finish: Callable = lambda out: out):
    """Run ``run(*args)`` at least ``min_runs`` times and for at least ``min_seconds``: the last
    output and one timing per run.  ``finish`` (inside the timed region) waits for asynchronous
    results (JAX's ``block_until_ready``).

    The harness's relay sets ``GRADBENCH_MAX_SECONDS`` (its budget, B): once two runs have been made
    and the runs after the first have taken longer than B, no more are made, ``min_runs`` or not; and
    when the first run alone took longer than 10 B it is the only one.  A slow function is then timed
    once or twice instead of timed out; the second run is the warm one (the first may include
    compilation, which does not use up the warm runs' budget: gmm's Jacobian under Numba, 16 s of
    compilation in a process whose cache was cold, was timed once warm, its caches cold, 184 µs
    against the 120 µs of later runs).
    ``min_seconds`` counts the runs after the first: a first run that compiles (Numba's, XLA's) does not
    stand for the warm runs the report takes the minimum of (kmeans' dir under Numba was timed three
    times, its compilation filling the 0.3 s)."""
    timings = []
    elapsed = warm = 0
    output = None
    cap = float(os.environ.get("GRADBENCH_MAX_SECONDS", "inf")) * 1e9
    while len(timings) < max(1, min_runs) or warm < min_seconds * 1e9:
        if len(timings) >= 2 and warm > cap or len(timings) == 1 and elapsed > 10 * cap:
            break
        start = time.perf_counter_ns()
        output = finish(run(*args))
        ns = time.perf_counter_ns() - start
        timings.append({"name": "evaluate", "nanoseconds": ns})
        elapsed += ns
        warm += ns if len(timings) > 1 else 0
    return output, timings


def short_error(e: BaseException, limit: int = 4000) -> str:
    """The error as ``Type: message`` (adcompiler's located errors carry file, line and column)
    followed by the traceback, cut to ``limit`` characters."""
    head = f"{type(e).__name__}: {e}"
    text = head + "\n\n" + "".join(traceback.format_exception(e))
    return text[:limit]


def serve(
    tool: str,
    define: Callable[[str], dict],
    evaluate: Callable[[str, str, Any], dict],
    config: Any = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> None:
    """Answer the eval's messages until stdin closes.  ``define(module)`` and ``evaluate(module,
    function, input)`` return the response's fields (beyond ``id``); an exception they raise
    becomes ``success: false`` with the error."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    for line in _lines(stdin):
        message = json.loads(line)
        response: dict[str, Any] = {"id": message["id"]}
        kind = message.get("kind")
        try:
            if kind == "start":
                response["tool"] = tool
                if config is not None:
                    response["config"] = config
            elif kind == "define":
                response.update(define(message["module"]))
            elif kind == "evaluate":
                response.update(evaluate(message["module"], message["function"], message["input"]))
        except Exception as e:  # noqa: BLE001 - any failure is the tool's answer, not a crash
            response.update({"success": False, "error": short_error(e)})
        stdout.write(json.dumps(response) + "\n")
        stdout.flush()


def _lines(stream: TextIO) -> Iterable[str]:
    while True:
        line = stream.readline()
        if not line:
            return
        if line.strip():
            yield line
