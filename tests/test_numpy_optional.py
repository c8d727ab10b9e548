"""NumPy stays optional: with `import numpy` made impossible, scalar and list code still differentiates."""

import math
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the functions live in a file (adcompiler reads source; `python -c` code has none)
MODULE = textwrap.dedent("""
    import math


    def f(x, y):
        z = x * math.sin(y)
        return z + x ** 2


    def g(xs, w):
        total = 0.0
        for i in range(len(xs)):
            total = total + w * xs[i] * xs[i]
        return total
    """)

SCRIPT = textwrap.dedent("""
    import sys

    sys.modules["numpy"] = None  # `import numpy` now raises ImportError
    try:
        import numpy
    except ImportError:
        pass
    else:
        raise SystemExit("numpy is still importable")

    import adcompiler

    assert sys.modules.get("numpy") is None, "adcompiler imported numpy"
    from nonumpy_funcs import f, g

    df = adcompiler.differentiate(f)
    dg = adcompiler.differentiate(g)
    print("grad|" + repr(df.grad(1.0, 2.0)))
    print("jvp|" + repr(df.jvp((1.0, 2.0), (1.0, 0.0))))
    print("vjp|" + repr(df.vjp((1.0, 2.0), 1.0)))
    print("list grad|" + repr(dg.grad([1.0, 2.0, 3.0], 0.5)))
    print("list jvp|" + repr(dg.jvp(([1.0, 2.0, 3.0], 0.5), ([1.0, 0.0, 0.0], 1.0))))
    assert sys.modules.get("numpy") is None, "differentiating imported numpy"
    print("ok")
    """)


def test_scalar_and_list_code_without_numpy(tmp_path):
    (tmp_path / "nonumpy_funcs.py").write_text(MODULE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), ROOT, env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = dict(line.split("|", 1) for line in proc.stdout.strip().splitlines() if "|" in line)
    assert proc.stdout.strip().splitlines()[-1] == "ok"

    s, c = math.sin(2.0), math.cos(2.0)
    dx, dy = eval(lines["grad"])
    assert abs(dx - (s + 2.0)) < 1e-14 and abs(dy - c) < 1e-14
    value, tangent = eval(lines["jvp"])
    assert abs(value - (s + 1.0)) < 1e-14 and abs(tangent - (s + 2.0)) < 1e-14
    value, (cx, cy) = eval(lines["vjp"])
    assert abs(cx - (s + 2.0)) < 1e-14 and abs(cy - c) < 1e-14
    dxs, dw = eval(lines["list grad"])
    assert dxs == [1.0, 2.0, 3.0] and dw == 14.0
    value, tangent = eval(lines["list jvp"])
    assert value == 7.0 and tangent == 1.0 + 14.0
