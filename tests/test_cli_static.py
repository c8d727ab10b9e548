"""``adc compile`` and ``adc check`` read a file without running any of it (front/files.py): a hostile file
whose every top-level construct would delete a file, open a socket or end the process does none of it;
constants, functions, decorators, classes and the user's own modules are made from their source; a
value the program would have changed first is not used; a PEP 263 coding line and a long expression
are read as Python reads them.  Derivatives of the written modules are checked against analytic ones."""

import importlib.util
import math
import os
import socket
import subprocess
import sys
import textwrap
from typing import Optional

import numpy as np
import pytest

from shared import adc as adc_here

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HOSTILE = textwrap.dedent("""\
    \"\"\"Every top-level statement here would delete victim.txt, connect to the test's socket or end the
    process, were it run.\"\"\"
    import math
    import os
    import socket
    import subprocess
    import sys

    import evil_sibling
    from evil_sibling import SCALE
    from evil_package.inner import OFFSET

    PORT = {port}
    _ = os.remove("victim.txt")
    _s = socket.create_connection(("127.0.0.1", PORT))
    _ = os._exit(7)
    sys.exit(3)
    if True:
        subprocess.run(["rm", "-f", "victim.txt"])
    try:
        os.remove("victim.txt")
    except OSError:
        pass
    with open("victim.txt", "w") as fh:
        fh.write("overwritten")
    for _i in range(1):
        os.remove("victim.txt")
    DATA = [os.remove("victim.txt")]
    CFG = {{"k": socket.create_connection(("127.0.0.1", PORT))}}
    N = len(os.listdir("."))
    Y = __import__("os").remove("victim.txt")
    R = getattr(os, "remove")("victim.txt")
    W = [x for x in os.remove("victim.txt")]
    K = sorted(["victim.txt"], key=os.remove)
    LAM = lambda: os.remove("victim.txt")  # made, never called
    print(os.remove("victim.txt"))
    assert os.remove("victim.txt")


    def shout(fn):
        os.remove("victim.txt")
        return fn


    @shout
    def decorated(x):
        return x * 2.0


    @(lambda fn: os.remove("victim.txt") or fn)
    def decorated_by_lambda(x):
        return x * 2.0


    def defaulted(x, k=os.system("rm -f victim.txt")):
        return x * k


    def annotated(x: os.remove("victim.txt")) -> float:
        return x


    class Model:
        os.remove("victim.txt")
        scale = 2.0


    class Fields:
        w: float = socket.create_connection(("127.0.0.1", PORT))


    class Meta(type):
        def __new__(mcs, name, bases, ns):
            os.remove("victim.txt")
            return super().__new__(mcs, name, bases, ns)


    class WithMeta(metaclass=Meta):
        pass


    class Hooked:
        def __init_subclass__(cls):
            os.remove("victim.txt")


    class Sub(Hooked):
        pass


    def f(x):
        return math.sin(x) * SCALE + OFFSET * x


    def g(x, k=3.0):
        return x * k


    def strung(x: "__import__('os').remove('victim.txt')") -> "float":  # typing.get_type_hints would run it
        return x * 2.0


    def uses_data(x):
        return x * len(DATA)


    raise SystemExit(os.remove("victim.txt"))
    """)

SIBLING = textwrap.dedent("""\
    import os
    import socket

    os.remove("victim.txt")
    socket.create_connection(("127.0.0.1", {port}))
    SCALE = 3.0
    """)

PACKAGE_INIT = 'import os\nos.remove("victim.txt")\n'
PACKAGE_INNER = 'import os\nos.remove("victim.txt")\nOFFSET = 0.5\nos._exit(9)\n'


def _line(text, source=HOSTILE):
    """The number of the first line of ``source`` holding ``text``."""
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def adc(*args, cwd):
    """``python -m adcompiler ARGS`` in a process of its own: a hostile file may end the process were it run
    (the tests of files that cannot, from test_a_function_reading_a_changed_global_is_refused_with_import on,
    run ``adc`` in this process: ``adc_here``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "adcompiler", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=180,
    )


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def hostile(tmp_path):
    """A directory holding the hostile file, its sibling module and package, the victim, and a listening
    socket every connection attempt of theirs would reach."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    (tmp_path / "hostile.py").write_text(HOSTILE.format(port=port))
    (tmp_path / "evil_sibling.py").write_text(SIBLING.format(port=port))
    (tmp_path / "evil_package").mkdir()
    (tmp_path / "evil_package" / "__init__.py").write_text(PACKAGE_INIT)
    (tmp_path / "evil_package" / "inner.py").write_text(PACKAGE_INNER)
    (tmp_path / "victim.txt").write_text("still here\n")
    yield tmp_path, server
    server.close()


def _untouched(directory, server, new=()):
    assert (directory / "victim.txt").read_text() == "still here\n"
    names = {"hostile.py", "evil_sibling.py", "evil_package", "victim.txt", *new}
    assert {p.name for p in directory.iterdir()} == names
    with pytest.raises(socket.timeout):
        server.accept()[0].close()


def test_adc_compile_runs_nothing_of_a_hostile_file(hostile):
    directory, server = hostile
    proc = adc("compile", "hostile.py", "-o", "out.py", cwd=directory)
    assert proc.returncode == 0, proc.stderr
    _untouched(directory, server, new={"out.py"})
    out = _load(directory / "out.py")
    value, (dx,) = out.f_reverse(0.7)
    assert value == pytest.approx(math.sin(0.7) * 3.0 + 0.35, rel=1e-15)
    assert dx == pytest.approx(math.cos(0.7) * 3.0 + 0.5, rel=1e-15)
    assert out.g_forward(2.0, 3.0, 1.0, 0.0) == (6.0, 3.0)
    assert out.strung_reverse(2.0) == (4.0, (2.0,))
    notes = proc.stderr.splitlines()
    for name, marker in (
        ("decorated", "@shout"),
        ("decorated_by_lambda", "@(lambda"),
        ("defaulted", "def defaulted"),
        ("annotated", "def annotated"),
    ):
        line = _line(marker)
        note = next(n for n in notes if f"the function {name} " in n)
        assert note.startswith(f"adc: hostile.py:{line}:") and "--import" in note and "left out" in note, note


@pytest.mark.parametrize(
    "extra", [("--stage", "anf", "--function", "f"), ("--stage", "reverse"), ("--mode", "forward", "--function", "g")]
)
def test_adc_compile_stage_runs_nothing_of_a_hostile_file(hostile, extra):
    directory, server = hostile
    proc = adc("compile", "hostile.py", *extra, cwd=directory)
    assert proc.returncode == 0, proc.stderr
    _untouched(directory, server)


def test_adc_check_runs_nothing_of_a_hostile_file_but_the_function_checked(hostile):
    directory, server = hostile
    proc = adc("check", "hostile.py", "--function", "f", "--args", "0.7", cwd=directory)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("f: derivatives agree")
    _untouched(directory, server)


@pytest.mark.parametrize(
    "name, marker, col, words",
    [
        ("decorated", "@shout", 2, ["decorator shout", "the file's own code"]),
        ("decorated_by_lambda", "@(lambda", 3, ["decorator lambda fn:"]),
        ("defaulted", "def defaulted", 20, ["default value", "os.system(...) is a call adc compile does not make"]),
        ("annotated", "def annotated", 18, ["annotation os.remove('victim.txt')"]),
    ],
)
def test_a_definition_adc_does_not_make_is_a_located_error_naming_import(hostile, name, marker, col, words):
    directory, server = hostile
    line = _line(marker)
    for command in (("compile", "hostile.py", "--function", name), ("check", "hostile.py", "--function", name)):
        proc = adc(*command, *(("--args", "1.0") if command[0] == "check" else ()), cwd=directory)
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith(f"adc: hostile.py:{line}:{col}: the function {name} (")
        assert all(w in proc.stderr for w in words) and "--import" in proc.stderr, proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    _untouched(directory, server)


def test_a_global_a_skipped_statement_sets_is_a_located_error_naming_import(hostile):
    directory, server = hostile
    proc = adc("compile", "hostile.py", "--function", "uses_data", cwd=directory)
    assert proc.returncode == 1
    use, where = _line("return x * len(DATA)"), _line("DATA = [")
    assert (
        proc.stderr.startswith(f"adc: hostile.py:{use}:")
        and "'DATA'" in proc.stderr
        and f"line {where}:" in proc.stderr
    )
    assert "os.remove(...) is a call adc compile does not make" in proc.stderr and "--import" in proc.stderr
    _untouched(directory, server)


def test_code_that_may_rebind_any_name_leaves_nothing_known(hostile):
    """eval of a text, or globals(), at the top level may rebind any name: the function is refused, located."""
    directory, server = hostile
    with open(directory / "hostile.py", "a") as fh:
        fh.write("Z = eval(\"__import__('os').remove('victim.txt')\")\n")
    proc = adc("compile", "hostile.py", "--function", "f", cwd=directory)
    line = len(HOSTILE.splitlines()) + 1
    assert (
        proc.returncode == 1
        and proc.stderr.startswith(f"adc: hostile.py:{line}:")
        and "the function f (" in proc.stderr
    )
    assert "may rebind any name" in proc.stderr and "--import" in proc.stderr
    _untouched(directory, server)


def test_import_still_runs_the_file_whole(hostile):
    directory, _ = hostile
    proc = adc("compile", "hostile.py", "--import", "--function", "f", cwd=directory)
    assert proc.returncode != 0 and not (directory / "victim.txt").exists()  # what --import is documented to do


# ---------------------------------------------------------------------- what is read, and how


def _read(tmp_path, source, name="m.py", files=None):
    from adcompiler.front.files import read_definitions

    for other, text in (files or {}).items():
        path = tmp_path / other
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (tmp_path / name).write_text(textwrap.dedent(source))
    return read_definitions(tmp_path / name).module


def test_annotations_are_values_and_strings_that_do_not_resolve_are_dropped(tmp_path):
    m = _read(
        tmp_path,
        """\
        from typing import Optional

        import numpy as np

        def f(x: float, xs: list[float], w: "np.ndarray", o: Optional[int] = None, s: "os.getcwd()" = 1) -> "float":
            return x

        def g(x: open("victim.txt")):
            return x
        """,
    )
    assert m.f.__annotations__ == {"x": float, "xs": list[float], "w": np.ndarray, "o": Optional[int], "return": float}
    assert "annotation open('victim.txt')" in m.__adc_unset__["g"].why


def test_constants_are_computed_from_literals_and_pure_library_calls(tmp_path):
    m = _read(
        tmp_path,
        """\
        import math
        import numpy as np

        N = 3
        XS = [i * 0.5 for i in range(N)]
        A = np.array([[1.0, 2.0], [3.0, 4.0]])
        B = A.T @ A + np.eye(2)
        E = np.linspace(0.0, 1.0, 5)
        T, U = (1.5, -2.0)
        C = {"lr": 0.1, **{"steps": N}}
        S = f"run-{N:02d}"
        R = math.sqrt(2.0) if N > 2 else 0.0
        F = np.float32(0.5)
        EPS = np.finfo(np.float64).eps
        XS[0] += 10.0
        C["lr"] = 0.2
        P = [a * b for a, b in zip([1.0, 2.0], [3.0, 4.0])]
        Q = dict(enumerate(XS))
        V = sum(x * x for x in reversed(range(3)))
        W = (0.0 or N > 2 and 4.0, 2.0 and 0.0, not N)
        """,
    )
    assert m.W == (4.0, 0.0, False)  # (and/or: found by pyflakes, a local shadowing the truth it applied)
    assert m.P == [3.0, 8.0] and m.Q == {0: 10.0, 1: 0.5, 2: 1.0} and m.V == 5
    assert m.XS == [10.0, 0.5, 1.0] and m.T == 1.5 and m.U == -2.0 and m.C == {"lr": 0.2, "steps": 3}
    np.testing.assert_array_equal(m.B, np.array([[11.0, 14.0], [14.0, 21.0]]))
    assert m.E.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0] and m.S == "run-03" and m.R == math.sqrt(2.0)
    assert type(m.F) is np.float32 and m.EPS == np.finfo(np.float64).eps
    assert m.__adc_unset__ == {}


@pytest.mark.parametrize(
    "expr, why",
    [
        ("10 ** 10 ** 8", "too large"),
        ("[0.0] * 10 ** 12", "too large"),
        ("np.ones((10 ** 6, 10 ** 6))", "too large"),
        ("list(range(10 ** 12))", "too long"),
        ("math.factorial(10 ** 7)", "too large"),
        ("np.outer(np.ones(10 ** 6), np.ones(10 ** 6))", "too large"),
        ("np.random.default_rng(0).normal(size=3)", "a call adc compile does not make"),
        ("open('x').read()", "a call adc compile does not make"),
        ("sorted([1, 2], key=print)", "key="),
        ("np.frompyfunc(print, 1, 1)", "a call adc compile does not make"),
        ("(lambda: 1)()", "the file's own code"),
        ("[].append(1)", "a method call adc compile does not make"),
    ],
)
def test_values_that_would_cost_too_much_or_run_code_are_not_computed(tmp_path, expr, why):
    m = _read(tmp_path, f"import math\nimport numpy as np\n\nV = {expr}\n")
    assert "V" not in vars(m) and why in m.__adc_unset__["V"].why, m.__adc_unset__["V"]


def test_decorators_are_recognised_and_unknown_ones_leave_the_function_out(tmp_path):
    pytest.importorskip("numba", reason="the file read imports numba (its decorators are among those recognised)")
    m = _read(
        tmp_path,
        """\
        import functools
        import os

        import numba
        import adcompiler

        @numba.njit
        def a(x):
            return x + 1.0

        @numba.njit(cache=False, fastmath=True)
        def b(x):
            return x + 2.0

        @adcompiler.custom_jvp
        def c(x):
            return x * x

        @c.defjvp
        def c_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return x * x, 2.0 * x * t

        @functools.lru_cache
        def d(x):
            return x

        def h(x, act=os.remove, scale=2.0 * 3):  # a default naming a library function: a value, not a call
            return x

        def twice(fn):
            return lambda x: 2.0 * fn(x)

        @twice
        def e(x):
            return x
        """,
    )
    assert m.a.py_func(1.0) == 2.0 and m.b.py_func(1.0) == 3.0 and m.c(3.0) == 9.0
    assert m.h.__defaults__ == (os.remove, 6.0)
    from adcompiler.rules.custom import CUSTOM

    assert m.c in CUSTOM  # the rule was given, as importing the file gives it
    assert m.d(3.0) == 3.0 and m.d.__wrapped__(4.0) == 4.0  # (a memo: applied, as importing the file applies it)
    assert "twice is the file's own code" in m.__adc_unset__["e"].why
    assert m.__adc_unset__["e"].definition == "function" and m.__adc_unset__["e"].text == "@twice"


def test_classes_are_made_from_their_source(tmp_path):
    m = _read(
        tmp_path,
        """\
        import dataclasses
        from typing import NamedTuple

        import numpy as np

        @dataclasses.dataclass(frozen=True)
        class Params:
            w: float
            b: float = 0.5
            scale: float = 2.0

            def apply(self, x, k=3):
                return (self.w * x + self.b) * self.scale * k

            @property
            def total(self) -> float:
                return self.w + self.b

        class Point(NamedTuple):
            x: float
            y: float = 0.0

        class Base:
            K = 2.0
            TWICE = K * 2

            def f(self, x):
                return self.K * x

            @staticmethod
            def s(x):
                return -x

        class Child(Base):
            def f(self, x):
                return super().f(x) + 1.0
        """,
    )
    p = m.Params(1.5)
    assert (
        p.apply(2.0) == (1.5 * 2.0 + 0.5) * 2.0 * 3
        and p.total == 2.0
        and dataclasses_fields(m.Params) == ["w", "b", "scale"]
    )
    assert m.Point(1.0) == (1.0, 0.0) and m.Point._fields == ("x", "y")
    assert m.Child().f(3.0) == 7.0 and m.Base.TWICE == 4.0 and m.Base.s(1.0) == -1.0
    assert m.__adc_unset__ == {}


def dataclasses_fields(cls):
    import dataclasses

    return [f.name for f in dataclasses.fields(cls)]


def test_the_users_own_modules_are_read_not_imported(tmp_path):
    m = _read(
        tmp_path,
        """\
        import helpers
        from pkg import sub
        from pkg.sub import RATE as R
        import pkg.deep.leaf

        def f(x):
            return helpers.g(x) * R + pkg.deep.leaf.C
        """,
        files={
            "helpers.py": "import os\nos._exit(5)\nK = 2.0\n\ndef g(x):\n    return K * x\n",
            "pkg/__init__.py": "import os\nos._exit(6)\n",
            "pkg/sub.py": "from . import deep\nRATE = 0.25\n",
            "pkg/deep/__init__.py": "",
            "pkg/deep/leaf.py": "from ..sub import RATE\nC = RATE * 4\n",
        },
    )
    assert m.helpers.g(2.0) == 4.0 and m.R == 0.25 and m.pkg.deep.leaf.C == 1.0 and m.sub.RATE == 0.25
    assert m.f(1.0) == 2.0 * 0.25 + 1.0
    assert "helpers" not in sys.modules and "pkg" not in sys.modules


def test_try_import_falls_back_as_python_would(tmp_path):
    m = _read(
        tmp_path,
        """\
        try:
            import adc_no_such_accelerator as acc
        except ImportError:
            acc = None
        try:
            import math as m2
        except ImportError:
            m2 = None
        """,
    )
    assert m.acc is None and m.m2 is math


def test_a_value_a_skipped_statement_may_change_is_forgotten(tmp_path):
    m = _read(
        tmp_path,
        """\
        import numpy as np

        W = np.zeros(3)
        V = np.zeros(3)
        ALIAS = [V]
        KEEP = np.ones(3)
        G = 1.0
        H = 2.0


        def init(target):
            target[:] = 1.0


        def reset():
            global G
            G = 5.0


        def reads(x, w):
            return np.sum(w * x) + np.sum(KEEP)


        def fill_h():
            for row in HOLDER:
                row[0] = 1.0


        def wrap(fn):
            return fn


        @wrap  # not made (a decorator of the file's), but read for what it changes
        def reset_h2():
            global H2
            H2 = 0.0


        def first(v):
            v[0] = 1.0
            return v


        HOLDER = [np.zeros(2)]
        H2 = 3.0
        PAIR = ([1.0], 2.0)
        ROWS = [np.zeros(2)]
        init(W)
        reset()
        V.fill(2.0)
        print(reads(KEEP, KEEP))
        fill_h()
        reset_h2()
        PAIR[0].append(3.0)
        list(map(first, ROWS))
        """,
    )
    unset = m.__adc_unset__
    assert {"W", "G", "V", "ALIAS", "HOLDER", "H2", "PAIR", "ROWS"} <= set(unset)
    assert callable(m.first) and callable(m.reads)  # handed to calls: a function is not changed by that
    assert unset["W"].phrase() == "line 48: init(W) may change it in place, and adc compile does not run it"
    assert m.KEEP.tolist() == [1.0, 1.0, 1.0] and m.H == 2.0  # only read by what runs: kept


def test_a_function_reading_a_changed_global_is_refused_with_import(tmp_path):
    (tmp_path / "m.py").write_text(
        "import numpy as np\n\nW = np.zeros(3)\n\n\ndef init():\n    W[0] = 1.0\n\n\ninit()\n\n\n"
        "def f(x):\n    return np.sum(W * x)\n"
    )
    proc = adc_here("compile", "m.py", "--function", "f", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("adc: m.py:14:")
    assert "'W'" in proc.stderr and "line 10" in proc.stderr and "--import" in proc.stderr


def test_a_modules_getattr_hook_is_not_run(tmp_path):
    """``from hm import MAGIC`` where hm gives MAGIC by a module-level ``__getattr__`` (PEP 562): reading the
    files ran the hook (it wrote a file) and then failed on a probe; now the hook is not bound, MAGIC is a
    global adc compile does not know without --import (located), and with --import it is read."""
    (tmp_path / "hm.py").write_text('def __getattr__(name):\n    open("RAN", "a").write(name)\n    return 2.0\n')
    (tmp_path / "m.py").write_text("from hm import MAGIC\n\n\ndef f(x):\n    return MAGIC * x\n")
    proc = adc_here("compile", "m.py", "-o", "m_ad.py", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("adc: m.py:5:"), proc.stderr
    assert "__getattr__" in proc.stderr and "--import" in proc.stderr
    assert not (tmp_path / "RAN").exists() and not (tmp_path / "m_ad.py").exists()
    proc = adc_here("compile", "m.py", "--import", "-o", "m_ad.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _load(tmp_path / "m_ad.py").f_reverse(1.5)[1][0] == 2.0


# ---------------------------------------------------------------------- Python's own reading


def test_a_pep263_coding_line_is_read(tmp_path):
    source = (
        "# -*- coding: latin-1 -*-\n"
        '"""Caf\xe9 au lait: a latin-1 file."""\n'
        "import math\n\nLABEL = 'd\xe9riv\xe9e'\n\n\n"
        "def f(x):\n    # \xe9chelle\n    return math.exp(x) * 2.0\n"
    ).encode("latin-1")
    (tmp_path / "latin.py").write_bytes(source)
    proc = adc_here("compile", "latin.py", "-o", "latin_ad.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = _load(tmp_path / "latin_ad.py")
    assert out.f_reverse(0.3)[1][0] == pytest.approx(2.0 * math.exp(0.3), rel=1e-15)
    check = adc_here("check", "latin.py", "--args", "0.3", cwd=tmp_path)
    assert check.returncode == 0, check.stderr


@pytest.mark.parametrize("n", [100, pytest.param(1000, marks=pytest.mark.slow)])  # (1000 terms: 6 s, the same path)
def test_a_long_sum_compiles_as_through_the_api(tmp_path, n):
    terms = " + ".join(f"{i + 1}.0 * x" for i in range(n))
    (tmp_path / "long.py").write_text(f"def f(x):\n    return {terms}\n\n\ndef g(x):\n    return f(x) * x\n")
    proc = adc_here("compile", "long.py", "-o", "long_ad.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = _load(tmp_path / "long_ad.py")
    total = n * (n + 1) / 2
    assert out.f_reverse(0.5) == (total * 0.5, (total,))
    assert out.g_reverse(0.5)[1][0] == pytest.approx(2 * total * 0.5, rel=1e-15)


def test_a_module_found_only_through_a_sys_path_change_names_the_change_and_import(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "adc_lib_xyz.py").write_text("K = 2.0\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "s.py").write_text(
        'import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))\n'
        "import adc_lib_xyz\n\n\ndef f(x):\n    return x * adc_lib_xyz.K\n"
    )
    proc = adc_here("compile", "scripts/s.py", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr == (
        "adc: scripts/s.py:5: importing it raised ModuleNotFoundError: No module named 'adc_lib_xyz' "
        "(line 4 changes sys.path, and adc compile does not run it: use --import)\n"
    )
    assert adc_here("compile", "scripts/s.py", "--import", cwd=tmp_path).returncode == 0


def test_adc_check_args_naming_a_value_not_known_says_why(tmp_path):
    (tmp_path / "m.py").write_text(
        "import numpy as np\n\nX0 = np.ones(2)\nDATA = np.load('data.npy')\n\n\ndef f(x):\n    return np.sum(x * x)\n"
    )
    assert adc_here("check", "m.py", "--args", "X0", cwd=tmp_path).returncode == 0
    proc = adc_here("check", "m.py", "--args", "DATA", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr == (
        "adc: --args 'DATA': DATA is not known without running m.py "
        "(line 4: np.load(...) is a call adc compile does not make); use --import\n"
    )


def test_a_library_call_that_writes_a_file_is_not_called_while_building(tmp_path):
    """A library function without a derivative rule is called on example arguments while the code is
    built, to learn what kind of value it returns (analysis/library_values.py): never one that writes
    or reads a file, changes a setting or reads memory its arguments point at (np.save wrote
    touched.npy while adc compile built the module, which promises not to run the file)."""
    (tmp_path / "m.py").write_text(
        'import numpy as np\n\n\ndef f(x):\n    np.save("touched.npy", np.ones(3) * 2.0)\n    return x * x\n'
    )
    proc = adc_here("compile", "m.py", "-o", "m_ad.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py", "m_ad.py"]


@pytest.mark.parametrize(
    "path, called",
    [
        ("numpy.vander", True),
        ("scipy.special.multigammaln", True),
        ("numpy.setdiff1d", True),
        ("numpy.save", False),
        ("numpy.loadtxt", False),
        ("numpy.seterr", False),
        ("numpy.set_printoptions", False),
        ("numpy.lib.stride_tricks.as_strided", False),
        ("numpy.frombuffer", False),
        ("scipy.linalg.lu_solve", False),
        ("time.time", False),
    ],
)
def test_which_library_functions_are_called_on_examples(path, called):
    from adcompiler.analysis.library_values import called_at_build

    assert called_at_build(path) is called
