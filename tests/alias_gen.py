"""Random programs that alias and mutate lists and NumPy arrays (for test_aliasing.py).

Each generated function takes floats ``x, y`` and containers (two lists, or
one array), and then, in random order: makes aliases (``b = xs``), copies
(``list(xs)``, ``a * 1.0``), lists of lists that share rows (``R = [b, xs]``,
``M = R[0]``), element writes and augmented writes through any alias, loops
that overwrite elements again and again, appends and ``xs += [a, b]``, swaps of list names,
aliases chosen by a branch, and calls of helpers that write into the list
they are given.  It returns a number that reads every container, so a write
through one name must be seen through the others.

The generator tracks, for every name, which list objects it may refer to and
how long they are, so every index it writes is valid.  Values stay bounded
(``tanh``/``sin`` squash loop updates), so finite differences are accurate.

``ARRAY_BUGS`` are the array features adcompiler is known to get wrong (see
the strict xfail tests in test_aliasing.py); ``array_function`` leaves them
out unless asked.
"""

from __future__ import annotations

import random

HELPERS = '''
def fill(ys, v):
    """Write into the list it is given; return a number."""
    ys[0] = v * ys[1]
    ys[-1] += 0.5 * v
    return ys[0] * 0.25


def scale_all(ys, v):
    """Overwrite every element of the list it is given."""
    for i in range(len(ys)):
        ys[i] = math.tanh(ys[i] * v + 0.1)
    return v * 0.5


def touch_row(rows, v):
    """Write into a row of a list of lists."""
    rows[0][1] = rows[1][0] * v
    return rows[0][0]
'''

HEADER = "import math\n\nimport numpy as np\n\n" + HELPERS

LIST_ARGS = {"x": "float", "y": "float", "xs": 3, "ys": 3}
ARRAY_ARGS = {"x": "float", "y": "float", "a": 4}

# In-place changes of arrays that adcompiler gets wrong (strict xfails in test_aliasing.py):
# augmented assignment to an array another name also holds, writes through views, and writes into an array
# while a view of it is still read.
ARRAY_BUGS = ("aug_alias", "view_write", "view_aug", "view_then_write", "array_of_floats")

# Views of a local array of 4 (``{a}``) in the spellings that make one: slices, tuple indices with a slice, a new
# axis or an ellipsis, flips, the pieces of a split and views of views (a tuple index was taken for a copy: a
# write through ``a[..., 1:]`` was lost; a view of a view was not seen to see its base's writes).
VIEWS = (
    "{a}[1:]",
    "{a}[::2]",
    "{a}[1:,]",
    "{a}[..., 1:]",
    "{a}[None, :]",
    "{a}[:, None]",
    "np.flip({a})",
    "np.split({a}, 2)[1]",
    "{a}.reshape(2, 2)",
    "{a}[1:][::2]",
    "{a}.reshape(2, 2)[0]",
    "{a}[::-1][1:]",
)

# Read-only views (NumPy refuses a write through them, but they see their base's writes): the diagonal of a
# matrix, by np.diag too (np.diag of a matrix was taken for a copy, as it is of a vector: the derivative missed
# the base's later writes).
READ_ONLY_VIEWS = ("np.diag({a}.reshape(2, 2))", "np.diagonal({a}.reshape(2, 2))", "{a}.reshape(2, 2).diagonal()")


# Shallow copies of a list of lists (``{}``: the list), and whether the copy holds the rows in reverse: each
# holds the same row objects, so a write into a row of the copy is one into the list's (``list(rows)`` was
# taken for a copy of the rows too: the derivative missed the write).
SHALLOW_COPIES = (
    ("list({})", False),
    ("{}.copy()", False),
    ("{}[:]", False),
    ("list(reversed({}))", True),
    ("[r for r in {}]", False),
)


class _Fn:
    """Lines of one function being written, with indentation and fresh names."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines: list[str] = []
        self.indent = 1
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p


class ListGen(_Fn):
    """A random function over float and list arguments that aliases and mutates lists."""

    def __init__(self, rng: random.Random):
        super().__init__(rng)
        self.floats = ["x", "y"]
        self.refs: dict[str, set] = {"xs": {0}, "ys": {1}}  # list name -> the objects it may hold
        self.length: dict[int, int] = {0: 3, 1: 3}  # object -> its (least) length
        self.rows: dict[str, list] = {}  # list-of-lists name -> the row objects, row by row
        self.objects = 2

    # ---------------------------------------------------------------- reads

    def minlen(self, var: str) -> int:
        return min(self.length[o] for o in self.refs[var])

    def index(self, var: str) -> str:
        n = self.minlen(var)
        k = self.rng.randrange(-n, n)
        return str(k)

    def atom(self) -> str:
        r = self.rng.random()
        if r < 0.35:
            return self.rng.choice(self.floats)
        if r < 0.8 or not self.rows:
            var = self.rng.choice(sorted(self.refs))
            return f"{var}[{self.index(var)}]"
        rows = self.rng.choice(sorted(self.rows))
        j = self.rng.randrange(len(self.rows[rows]))
        n = self.length[self.rows[rows][j]]
        return f"{rows}[{j}][{self.rng.randrange(n)}]"

    def expr(self, depth: int = 2) -> str:
        if depth == 0 or self.chance(0.3):
            return self.atom()
        a, b = self.expr(depth - 1), self.expr(depth - 1)
        form = self.rng.choice(["{a} + {b}", "{a} * {b}", "math.sin({a}) * {b}", "math.tanh({a} - {b})", "0.5 * {a}"])
        return "(" + form.format(a=a, b=b) + ")"

    def small(self) -> str:
        """A bounded expression, for values written inside loops."""
        return f"math.tanh({self.expr()})"

    # ---------------------------------------------------------------- statements

    def new_object(self, length: int) -> int:
        self.objects += 1
        self.length[self.objects] = length
        return self.objects

    def stmt(self, in_loop: bool = False) -> None:
        r = self.rng.random()
        if self.rows and not in_loop and self.chance(0.25):
            self.rows_stmt()
            return
        lists = sorted(self.refs)
        if r < 0.10 and not in_loop:
            new, old = self.name("b"), self.rng.choice(lists)
            self.emit(f"{new} = {old}")
            self.refs[new] = set(self.refs[old])
        elif r < 0.15 and not in_loop:
            new, old = self.name("c"), self.rng.choice(lists)
            self.emit(f"{new} = list({old})")
            self.refs[new] = {self.new_object(self.minlen(old))}
        elif r < 0.19 and not in_loop:
            new = self.name("c")
            self.emit(f"{new} = [{self.expr(1)}, {self.expr(1)}, {self.expr(1)}]")
            self.refs[new] = {self.new_object(3)}
        elif r < 0.40:
            var = self.rng.choice(lists)
            value = self.small() if in_loop else self.expr()
            self.emit(f"{var}[{self.index(var)}] = {value}")
        elif r < 0.52:
            var = self.rng.choice(lists)
            op = self.rng.choice(["+=", "-=", "*="])
            value = f"(0.5 + 0.25 * {self.small()})" if op == "*=" else self.small()
            self.emit(f"{var}[{self.index(var)}] {op} {value}")
        elif r < 0.60 and not in_loop:
            new = self.name("s")
            self.emit(f"{new} = {self.expr()}")
            self.floats.append(new)
        elif r < 0.67 and not in_loop:
            name = self.name("R")
            picked = [self.rng.choice(lists) for _ in range(2)]
            if all(len(self.refs[p]) == 1 for p in picked) and all(self.minlen(p) >= 2 for p in picked):
                self.emit(f"{name} = [{picked[0]}, {picked[1]}]")
                self.rows[name] = [next(iter(self.refs[p])) for p in picked]
        elif r < 0.75 and self.rows and not in_loop:
            self.rows_stmt()
        elif r < 0.82 and not in_loop:
            var = self.rng.choice([v for v in lists if self.minlen(v) >= 2] or lists)
            if self.minlen(var) >= 2:
                new = self.name("z")
                helper = self.rng.choice(["fill", "scale_all"])
                self.emit(f"{new} = {helper}({var}, {self.small()})")
                self.floats.append(new)
        elif r < 0.87 and not in_loop:
            var = self.rng.choice(lists)
            grown = self.rng.choice([1, 1, 2])  # (xs += [a, b]: the list itself extended, as append does)
            if grown == 1 and self.rng.random() < 0.5:
                self.emit(f"{var}.append({self.expr(1)})")
            else:
                self.emit(f"{var} += [{', '.join(self.expr(1) for _ in range(grown))}]")
            if len(self.refs[var]) == 1:  # held by a branch-chosen name, no one object surely grows
                self.length[next(iter(self.refs[var]))] += grown
        elif r < 0.91 and not in_loop:
            self.loop()
        elif r < 0.95 and not in_loop and len(lists) >= 2:
            a, b = self.rng.sample(lists, 2)
            self.emit(f"{a}, {b} = {b}, {a}")
            self.refs[a], self.refs[b] = self.refs[b], self.refs[a]
        elif not in_loop and len(lists) >= 2:
            a, b = self.rng.sample(lists, 2)
            new = self.name("q")
            self.emit(f"if {self.atom()} > 0.1:")
            self.emit(f"    {new} = {a}")
            self.emit("else:")
            self.emit(f"    {new} = {b}")
            self.refs[new] = self.refs[a] | self.refs[b]
        else:
            var = self.rng.choice(lists)
            self.emit(f"{var}[{self.index(var)}] = {self.small()}")

    def rows_stmt(self) -> None:
        """Alias a row of a list of lists, write through the rows, or let a helper write into a row."""
        rows = self.rng.choice(sorted(self.rows))
        j = self.rng.randrange(2)
        r = self.rng.random()
        if r < 0.3:
            new = self.name("m")
            self.emit(f"{new} = {rows}[{j}]")
            self.refs[new] = {self.rows[rows][j]}
        elif r < 0.55:
            i = self.rng.randrange(self.length[self.rows[rows][j]])
            self.emit(f"{rows}[{j}][{i}] = {self.expr()}")
        elif r < 0.7:  # a shallow copy: a new list of the same rows
            new = self.name("R")
            spelling, flipped = self.rng.choice(SHALLOW_COPIES)
            self.emit(f"{new} = {spelling.format(rows)}")
            self.rows[new] = self.rows[rows][::-1] if flipped else list(self.rows[rows])
        elif r < 0.8:  # each row written through a loop over a copy of the list
            row, i = self.name("r"), self.rng.randrange(min(self.length[o] for o in self.rows[rows]))
            self.emit(f"for {row} in {self.rng.choice(SHALLOW_COPIES)[0].format(rows)}:")
            self.emit(f"    {row}[{i}] = math.tanh({row}[{i}] * {self.atom()})")
        else:
            new = self.name("z")
            self.emit(f"{new} = touch_row({rows}, {self.small()})")
            self.floats.append(new)

    def loop(self) -> None:
        k = self.name("k")
        var = self.rng.choice(sorted(self.refs))
        n = self.minlen(var)
        self.emit(f"for {k} in range({self.rng.randint(2, 5)}):")
        self.indent += 1
        self.emit(f"{var}[{k} % {n}] = math.tanh({var}[{k} % {n}] * {self.atom()} + {var}[({k} + 1) % {n}])")
        for _ in range(self.rng.randint(0, 2)):
            self.stmt(in_loop=True)
        self.indent -= 1

    def function(self, name: str, nstmts: int) -> str:
        for _ in range(nstmts):
            self.stmt()
        reads = [f"{v}[{self.index(v)}]" for v in sorted(self.refs)]
        reads += [f"{r}[{j}][0]" for r in sorted(self.rows) for j in range(2)]
        reads += self.floats[2:]
        self.rng.shuffle(reads)
        terms = " + ".join(f"{self.rng.choice(['', '0.5 * ', 'math.sin'])}({t})" for t in reads)
        self.emit(f"return x * y + {terms}")
        return f"def {name}(x, y, xs, ys):\n" + "\n".join(self.lines) + "\n"


class ArrayGen(_Fn):
    """A random function over floats and one NumPy array that aliases and writes into local arrays."""

    def __init__(self, rng: random.Random, bugs=()):
        super().__init__(rng)
        self.bugs = set(bugs)
        self.floats = ["x", "y"]
        self.arrays = {"a": 4}  # array name -> length
        self.views: list = []  # reads of views taken before their base was written into (view_then_write)

    def local_arrays(self) -> list:
        return sorted(n for n in self.arrays if n != "a")

    def atom(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            return self.rng.choice(self.floats)
        var = self.rng.choice(sorted(self.arrays))
        return f"{var}[{self.rng.randrange(-self.arrays[var], self.arrays[var])}]"

    def expr(self, depth: int = 2) -> str:
        if depth == 0 or self.chance(0.3):
            return self.atom()
        a, b = self.expr(depth - 1), self.expr(depth - 1)
        form = self.rng.choice(["{a} + {b}", "{a} * {b}", "np.sin({a}) * {b}", "np.tanh({a} - {b})"])
        return "(" + form.format(a=a, b=b) + ")"

    def stmt(self) -> None:
        r = self.rng.random()
        locals_ = self.local_arrays()
        if r < 0.15 or not locals_:
            new = self.name("b")
            sources = ["a * 1.0", "a.copy()", "np.sin(a)", "x * a + y", "np.ones(4) * x"]
            if "array_of_floats" in self.bugs:
                sources.append("np.array([x, y, x * y, 1.0])")
            src = self.rng.choice(sources)
            self.emit(f"{new} = {src}")
            self.arrays[new] = 4
        elif r < 0.25:
            new, old = self.name("c"), self.rng.choice(locals_)
            self.emit(f"{new} = {old}")
            self.arrays[new] = self.arrays[old]
        elif r < 0.45:
            var = self.rng.choice(locals_)
            n = self.arrays[var]
            self.emit(f"{var}[{self.rng.randrange(-n, n)}] = {self.expr()}")
        elif r < 0.55:
            var = self.rng.choice(locals_)
            n = self.arrays[var]
            op = self.rng.choice(["+=", "-=", "*="])
            self.emit(f"{var}[{self.rng.randrange(-n, n)}] {op} np.tanh({self.expr()})")
        elif r < 0.62:
            var = self.rng.choice(locals_)
            self.emit(f"{var}[1:3] = {self.atom()} * {var}[0:2]")
        elif r < 0.68:
            var = self.rng.choice(locals_)
            self.emit(f"{var}[:] = np.tanh({var} * {self.atom()})")
        elif r < 0.74:
            var = self.rng.choice(locals_)
            self.emit(f"{var} = {var} * {self.atom()} + {self.rng.choice(sorted(self.arrays))}")
        elif r < 0.80:
            new = self.name("s")
            self.emit(f"{new} = {self.expr()}")
            self.floats.append(new)
        elif r < 0.86:
            var = self.rng.choice(locals_)
            k = self.name("k")
            self.emit(f"for {k} in range({self.rng.randint(2, 4)}):")
            self.emit(f"    {var}[{k} % 4] = np.tanh({var}[{k} % 4] * {self.atom()} + {var}[({k} + 1) % 4])")
        elif r < 0.92 and "aug_alias" in self.bugs:
            var, alias = self.rng.choice(locals_), self.name("c")
            self.emit(f"{alias} = {var}")
            self.emit(f"{alias} {self.rng.choice(['+=', '*='])} {self.atom()}")
            self.arrays[alias] = self.arrays[var]
        elif "view_write" in self.bugs or "view_aug" in self.bugs:
            var = self.rng.choice(locals_)
            view = self.name("v")
            self.emit(f"{view} = {self.rng.choice(VIEWS).format(a=var)}")
            kinds = [k for k in ("view_write", "view_aug") if k in self.bugs]
            if self.rng.choice(kinds) == "view_write":
                self.emit(f"{view}[0] = {self.expr()}")
            else:
                self.emit(f"{view} += {self.atom()}")
        elif "view_then_write" in self.bugs:  # a view taken, its base written, the view read after
            var = self.rng.choice(locals_)
            view = self.name("v")
            if self.chance(0.3):
                self.emit(f"{view}, {self.name('w')} = np.split({var}, 2)")
            elif self.chance(0.2):  # a list of views
                self.emit(f"{view} = [{var}[1:3], {var}[:2]]")
                self.emit(f"{var}[{self.rng.randrange(4)}] = {self.expr()}")
                self.views.append(f"np.sum({view}[0] * {view}[1])")
                return
            else:
                self.emit(f"{view} = {self.rng.choice(VIEWS + READ_ONLY_VIEWS).format(a=var)}")
            self.emit(f"{var}[{self.rng.randrange(4)}] = {self.expr()}")
            self.views.append(f"np.sum({view} * {view})")
        else:
            var = self.rng.choice(locals_)
            self.emit(f"{var}[0] = {var}[0] * {self.atom()}")

    def function(self, name: str, nstmts: int) -> str:
        for _ in range(nstmts):
            self.stmt()
        reads = [f"np.sum({v} * {v})" for v in sorted(self.arrays)] + self.views + self.floats[2:]
        if len(self.arrays) > 1:  # a sum of two arrays: both adjoints one cotangent (its tangent: one object too)
            u, v = self.rng.sample(sorted(self.arrays), 2)
            reads.append(f"np.sum(np.tanh({u} + {v}) ** 3)")
        self.rng.shuffle(reads)
        self.emit(f"return x * y + {' + '.join(reads)}")
        return f"def {name}(x, y, a):\n" + "\n".join(self.lines) + "\n"


def list_function(rng: random.Random, name: str) -> str:
    return ListGen(rng).function(name, rng.randint(3, 9))


def array_function(rng: random.Random, name: str, bugs=()) -> str:
    return ArrayGen(rng, bugs).function(name, rng.randint(3, 8))


def module(functions) -> str:
    """The source of a module holding the shared helpers and the given function sources."""
    return HEADER + "\n\n" + "\n\n".join(functions)
