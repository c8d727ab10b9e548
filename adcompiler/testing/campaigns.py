"""One campaign of a fuzzer of whole programs (``boundary``, ``nested_calls``): draw each program from a seeded
``random.Random``, check it at a point drawn from the same generator, count what came of it, and write each
refusal and failure with its source to a folder."""

from __future__ import annotations

import os
import random
import tempfile


def campaign(draw, check, programs: int, seed: int, out_dir: str | None, prefix: str) -> dict:
    """Counts of ``programs`` programs (``draw(rng)``: one, with its ``source``; ``check(program, seed, directory,
    k)``: "ok", "refusal: ..." or "failure: ..."): programs, ok, refusals, failures."""
    counts = {"programs": 0, "ok": 0, "refusals": 0, "failures": 0}
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix=prefix) as directory:
        for k in range(programs):
            program = draw(rng)
            result = check(program, rng.randrange(2**31), directory, k)
            counts["programs"] += 1
            kind = "ok" if result == "ok" else "refusals" if result.startswith("refusal") else "failures"
            counts[kind] += 1
            if kind != "ok" and out_dir:
                os.makedirs(out_dir, exist_ok=True)
                with open(os.path.join(out_dir, f"{kind}_seed{seed}_prog{k}.py"), "w") as fh:
                    fh.write("# " + result.replace("\n", "\n# ") + "\n" + program.source)
    return counts
