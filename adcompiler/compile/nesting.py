"""Generated statements -> the same with deep chains of ``if``s flattened: nesting Python's parser takes.

An ``elif`` chain of the user's, a chain of conditional expressions (``a if c else b if d else ...``,
or ``(a if c else b) if d else e``) or of ``and``/``or`` tests is a chain of ``if``s, each in a branch
of the one before.  Where an ``else`` holds the next ``if`` alone, the emitter writes ``elif``
(``emit``); where a branch holds more (the test computed first and kept for the adjoint sweep,
``t2 = x < 1.0``; the branches' values joined after it), each link nests one level deeper, and Python
refuses a hundred levels of indentation.  So an ``if`` nesting more than ``LINKS`` levels deep is
written as a sequence of ``if``s at one level, along its deepest path: each branch on the path is
entered through a flag its ``if`` sets in its place::

    if t1:                              entered = entered_1 = False
        B1                              if t1:
    else:                                   B1
        P1                              else:
        if t2:                              entered = True
            B2                  ->      if entered:
        else:                               P1
            P2                              if t2:
            if t3: ...                          B2
        Q1                                  else:
                                                entered_1 = True
                                        if entered_1:
                                            P2
                                            if t3: ...
                                        ...
                                        if entered:
                                            Q1

What follows a link in its branch (Q1) runs after everything deeper, in the same order as before; a
``break``, ``continue`` or ``return`` anywhere leaves the whole sequence, as it left the nest.  The
other branches stay where they are (flattened the same way where they nest deep themselves); loops
are not crossed (Python allows twenty nested ones: code nests them no deeper than the user's).
"""

from __future__ import annotations

from ..ir import expr as E
from ..ir.nodes import Assign, ForS, IfS, WhileS, every_statement, free_names

LINKS = 16  # an if nesting deeper (elifs not counted) is flattened


def flattened(body: tuple, taken) -> tuple:
    """``body`` with every ``if`` nesting more than ``LINKS`` levels flattened along its deepest path
    (see the module's docstring); ``taken``: names the function uses (the flags get others)."""
    if not any(isinstance(s, IfS) for s in every_statement(body)):
        return body
    return _Flattening(lambda: set(taken) | set(free_names(list(body))) | _assigned(body)).block(body)


class _Flattening:
    """One function's flattening: the depth of each ``if`` (memoised) and the flags' fresh names
    (``entered``, ``entered_1``, ... none of them a name of ``names()``, asked on the first)."""

    def __init__(self, names):
        self.names, self.taken, self.count = names, None, 0
        self.depths: dict = {}  # id(if) -> (it, how many levels it nests, elifs not counted)

    def fresh(self) -> str:
        if self.taken is None:
            self.taken = self.names()
        while True:
            name = "entered" if self.count == 0 else f"entered_{self.count}"
            self.count += 1
            if name not in self.taken:
                self.taken.add(name)
                return name

    def depth(self, s: IfS) -> int:
        """The levels ``s`` nests (1 for an if holding no if; an elif adds none)."""
        hit = self.depths.get(id(s))
        if hit is None or hit[0] is not s:
            chain = _elifs(s)
            inner = max([self.within(c.body) for c in chain] + [self.within(chain[-1].orelse)])
            hit = self.depths[id(s)] = (s, 1 + inner)
        return hit[1]

    def within(self, block: tuple) -> int:
        """The levels the deepest ``if`` of ``block`` nests (0: none; loops are not crossed)."""
        return max((self.depth(x) for x in block if isinstance(x, IfS)), default=0)

    def block(self, stmts: tuple) -> tuple:
        out: list = []
        for s in stmts:
            if isinstance(s, IfS) and self.depth(s) > LINKS:
                out += self.chain(s)
            elif isinstance(s, IfS):  # (its elifs rebuilt in a loop: a chain of a thousand is no recursion)
                out.append(self.rebuilt(_elifs(s), None))
            elif isinstance(s, ForS):
                out.append(ForS(s.target, s.iterable, self.block(s.body), s.line, s.parallel))
            elif isinstance(s, WhileS):
                out.append(WhileS(self.block(s.header), s.test, self.block(s.body), s.line))
            else:
                out.append(s)
        return tuple(out)

    def rebuilt(self, chain: list, cut) -> IfS:
        """The ifs of an elif ``chain`` with their blocks flattened, the block ``cut`` ((k, "body") or
        (last, "orelse")) replaced by the statement setting the flag ``cut[2]``."""
        last = chain[-1]
        orelse = self.block(last.orelse) if cut is None or cut[:2] != (len(chain) - 1, "orelse") else _set(cut[2])
        node = None
        for k in range(len(chain) - 1, -1, -1):
            c = chain[k]
            body = _set(cut[2]) if cut is not None and cut[:2] == (k, "body") else self.block(c.body)
            node = IfS(c.test, body, orelse if node is None else (node,), c.line)
        return node

    def chain(self, s: IfS) -> list:
        """``s`` as a sequence of ifs at one level along its deepest path (see the module's docstring):
        each step runs a block (the first: ``s`` itself) up to its deepest if, whose deepest branch is
        replaced by the flag entering the next step; what follows that if in the block runs at the end,
        deepest first."""
        head: list = []  # the flags, all False before the sequence
        steps: list = []  # the ifs at one level, in order
        posts: list = []  # (the flag of a block, what follows its if), outermost first
        guard, block = None, (s,)
        while True:
            ifs = [k for k, x in enumerate(block) if isinstance(x, IfS)]
            if not ifs:
                steps += _guarded(guard, self.block(block))
                break
            k = max(reversed(ifs), key=lambda k: self.depth(block[k]))  # the deepest (the last of equals)
            if block[k + 1 :]:
                posts.append((guard, self.block(block[k + 1 :])))
            chain = _elifs(block[k])
            branches = [(self.within(c.body), i, "body", c.body) for i, c in enumerate(chain)]
            branches.append((self.within(chain[-1].orelse), len(chain) - 1, "orelse", chain[-1].orelse))
            deepest = max(branches, key=lambda b: b[0])
            if deepest[0] == 0:  # no if below: the last step
                steps += _guarded(guard, self.block(block[:k]) + (self.rebuilt(chain, None),))
                break
            flag = self.fresh()
            head.append(flag)
            steps += _guarded(guard, self.block(block[:k]) + (self.rebuilt(chain, deepest[1:3] + (flag,)),))
            guard, block = flag, deepest[3]
        starts = [Assign((flag,), E.Num(False)) for flag in head]
        ends = [IfS(E.Name(flag), stmts, ()) for flag, stmts in reversed(posts)]
        return starts + steps + ends


def _elifs(s: IfS) -> list:
    """``s`` and the ifs each alone in the else of the one before (written ``elif``)."""
    chain = [s]
    while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], IfS):
        chain.append(chain[-1].orelse[0])
    return chain


def _set(flag: str) -> tuple:
    return (Assign((flag,), E.Num(True)),)


def _guarded(flag, stmts: tuple) -> list:
    return list(stmts) if flag is None else [IfS(E.Name(flag), stmts, ())]


def _assigned(body) -> set:
    names: set = set()
    for s in every_statement(body):
        if isinstance(s, Assign):
            names.update(t for t in s.targets if isinstance(t, str))
        elif isinstance(s, ForS):
            names.add(s.target)
    return names
