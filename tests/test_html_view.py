"""The derivative read side by side (issue 37, item 8): ``f.source(html=True)`` and ``adc compile FILE --html
OUT.html`` make one self-contained page, the user's lines linked to the generated lines made from them
and back.  Each page is read back with the standard library's html.parser (tests/html_page.py)."""

import html
import math
import os
import re
import sys

import pytest

import adcompiler
import html_view_funcs as H
from adcompiler.compile import emit
from adcompiler.compile.origins import Origin, carried
from adcompiler.compile.page import highlighted_lines
from adcompiler.cli.main import compile_file, main
from html_page import Page, external

HERE = os.path.abspath(__file__)
COMMENT = re.compile(r"\s*# line (\d+): (.*)")


def model(x, y):
    s = H.powers(x, y)
    if s > 1.0:
        s = s * math.cos(x)
    return s * y


def readme(x, y):
    z = x * math.sin(y)
    return z + x**2


def looped(x, n=4):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * s + i) * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x * x
    return s


MODULE = """import math


def helper(a):
    total = 0.0
    for k in range(2):
        total = total + math.exp(a * k)
    return total


def f(x, y):
    z = x * math.sin(y)
    if z > 0.5:
        z = z * helper(y)
    return z + x ** 2

"""  # (ending in a blank line)


def _page(f, *args, **options):
    f(*args)
    text = f.source(html=True, **options)
    return text, Page(text)


def _linked_both_ways(page: Page) -> None:
    """Every target of a user line is a generated line that links back to it, and every generated line
    that names a user line is among that line's targets."""
    for user in page.user_lines():
        for target in page.targets(user):
            assert target in page.ids and page.ids[target].get("data-from") == user, (user, target)
            assert f"#{target}" in page.hrefs or any(page.ids[t].get("data-from") == user for t in page.targets(user))
    for line, listing in page.listing_of.items():
        source = page.ids[line].get("data-from")
        if source is not None:
            assert source in page.ids and line in page.targets(source), (line, source)
            assert f"#{source}" in page.hrefs


def _comments_agree(page: Page, listing: str) -> None:
    """An oracle independent of the origins: each ``# line N: text`` comment of the code, and the line
    after it, link to the user's line N, whose text is the comment's."""
    lines = page.generated(listing)
    for k, line in enumerate(lines):
        found = COMMENT.match(page.lines[line])
        if found is None:
            continue
        source = page.ids[line].get("data-from")
        assert source is not None and source.endswith(f"-{found[1]}"), (page.lines[line], source)
        assert page.lines[source].strip() == found[2]
        assert page.ids[lines[k + 1]].get("data-from") == source, page.lines[lines[k + 1]]


def test_the_page_is_well_formed_and_needs_no_network():
    text, page = _page(adcompiler.differentiate(model), 0.5, 0.7)
    assert page.doctype and not page.problems
    assert external(page, text) == []
    assert page.styles and page.scripts  # inline


def test_each_tab_shows_exactly_the_code_source_gives():
    f = adcompiler.differentiate(model)
    _, page = _page(f, 0.5, 0.7)
    assert page.code("forward") == f.source("forward")
    assert page.code("reverse") == f.source("reverse")


def test_the_stage_asked_for_is_a_tab_too_and_shown_first():
    f = adcompiler.differentiate(readme)
    text, page = _page(f, 0.5, 0.7, stage="grad")
    assert page.code("grad") == f.source("grad") and page.code("reverse") == f.source("reverse")
    assert '<body data-selected="grad"' in text


def test_user_lines_link_to_their_generated_lines_and_back():
    _, page = _page(adcompiler.differentiate(model), 0.5, 0.7)
    assert page.user_lines() and all(page.targets(u) for u in page.user_lines()[1:2])  # (links to check)
    _linked_both_ways(page)
    for listing in ("forward", "reverse"):
        _comments_agree(page, listing)


def test_every_user_line_that_made_code_has_links():
    f = adcompiler.differentiate(model)
    _, page = _page(f, 0.5, 0.7)
    first = model.__code__.co_firstlineno
    for n in range(first + 1, first + 5):  # every statement of model made code in both modes
        targets = page.targets(f"s0-{n}")
        assert any(t.startswith("forward-") for t in targets) and any(t.startswith("reverse-") for t in targets)


def test_a_callee_in_another_file_is_shown_and_linked():
    _, page = _page(adcompiler.differentiate(model), 0.5, 0.7)
    first = H.powers.__code__.co_firstlineno
    loop_body = page.targets(f"s1-{first + 3}")  # total = total + a**k * math.sin(b)
    names = {re.sub(r"\s+", " ", page.lines[t]).strip() for t in loop_body}
    assert "total = total + t1 * math.sin(b)" in names  # the forward sweep's line
    assert "d_b += math.cos(b) * (t1 * ct)" in names  # and the reverse sweep's


def test_reverse_mode_links_a_line_to_its_primal_sweep_and_to_its_adjoints():
    f = adcompiler.differentiate(readme)
    text, page = _page(f, 0.5, 0.7)
    line = readme.__code__.co_firstlineno + 1  # z = x * math.sin(y)
    code = {page.lines[t].strip() for t in page.targets(f"s0-{line}") if t.startswith("reverse-")}
    assert code == {
        "# line %d: z = x * math.sin(y)" % line,
        "t1 = math.sin(y)",  # the primal sweep
        "z = x * t1",
        "d_x_1 = t1 * ct",  # the adjoints
        "d_y = math.cos(y) * (x * ct)",
    }
    links = re.search(rf'id="s0-{line}".*?</div>', text).group(0)
    assert re.search(r'class="reverse" href="#reverse-\d+" title="readme_reverse, lines', links)  # primal sweep
    assert re.search(r'class="reverse later" href="#reverse-\d+" title="[^"]*\(adjoints, last line first\)', links)


def test_a_statement_black_wraps_links_every_one_of_its_lines():
    f = adcompiler.differentiate(looped)
    _, page = _page(f, 0.3)
    line = f"s0-{looped.__code__.co_firstlineno + 3}"
    wrapped = [t for t in page.targets(line) if t.startswith("forward-")]
    generated = page.generated("forward")
    # the statement's tangent spreads over several lines, every one of them linked
    assert any(page.lines[t].strip() in (")", "(") or page.lines[t].rstrip().endswith("(") for t in wrapped)
    ends = [k for k, t in enumerate(generated) if t in wrapped]
    assert ends == list(range(ends[0], ends[-1] + 1))  # one run, no hole


def test_without_pygments_the_plain_highlighter_shows_the_same_code(monkeypatch):
    f = adcompiler.differentiate(model)
    with_pygments, page = _page(f, 0.5, 0.7)
    monkeypatch.setitem(sys.modules, "pygments", None)  # an import of it raises ImportError
    monkeypatch.setitem(sys.modules, "pygments.lexers", None)
    plain, page_plain = _page(f, 0.5, 0.7)
    assert page_plain.code("reverse") == f.source("reverse") == page.code("reverse")
    for text in (with_pygments, plain):
        assert '<span class="kw">def</span>' in text and '<span class="com"># line ' in text


@pytest.mark.parametrize("pygments", [True, False])
def test_both_highlighters_mark_keywords_strings_numbers_comments(monkeypatch, pygments):
    if pygments:
        pytest.importorskip("pygments")
    else:
        monkeypatch.setitem(sys.modules, "pygments", None)
        monkeypatch.setitem(sys.modules, "pygments.lexers", None)
    line = highlighted_lines('def f(x):  # c\n    return len("a") + 1.5\n')
    assert line[0] == '<span class="kw">def</span> <span class="fn">f</span>(x):  <span class="com"># c</span>'
    assert line[1].endswith(
        '<span class="bi">len</span>(<span class="str">&quot;a&quot;</span>) + <span class="num">1.5</span>'
    )


@pytest.mark.parametrize("pygments", [True, False])
def test_highlighting_keeps_every_character_and_one_entry_per_line(monkeypatch, pygments):
    if not pygments:
        monkeypatch.setitem(sys.modules, "pygments", None)
        monkeypatch.setitem(sys.modules, "pygments.lexers", None)
    text = 'x = """a\nb"""  # <tag> & \'q\'\r\ny = 1\rz = 2\n'
    lines = highlighted_lines(text)
    shown = [html.unescape(re.sub(r"<[^>]+>", "", line)) for line in lines]
    assert shown == ['x = """a', 'b"""  # <tag> & \'q\'', "y = 1", "z = 2"]


def test_arrays_any_page_shows_its_code():
    pytest.importorskip("array_api_compat")
    f = adcompiler.differentiate(readme, arrays="any")
    _, page = _page(f, 0.5, 0.7)
    assert page.code("reverse") == f.source("reverse") and page.code("forward") == f.source("forward")
    _linked_both_ways(page)
    _comments_agree(page, "reverse")


def test_a_variadic_function_passes_html_on():
    def total(*xs):
        return xs[0] * xs[1]

    f = adcompiler.differentiate(total)
    f.grad(1.0, 2.0)
    page = Page(f.source(html=True))
    assert not page.problems and page.code("reverse") == f.source("reverse")


def test_jupyter_shows_the_page_in_a_frame():
    f = adcompiler.differentiate(readme)
    f(0.5, 0.7)
    text = f.source(html=True)
    frame = text._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and html.unescape(frame.split('"')[1]) == text


def test_emitted_origins_leave_the_text_unchanged():
    f = adcompiler.differentiate(model)
    f(0.5, 0.7)
    program = f.program
    defs = program.build(model, "reverse", f.wrt, f._sig)
    origins: list = []
    text = emit.render_module(defs, program.ns, lambda: program.helper_sources(defs), origins=origins)
    assert text == f.source("reverse") and len(origins) == len(text.splitlines())


def test_origins_follow_statements_a_translation_rewrites_adds_and_drops():
    before = "def f(d, v):\n    check(v)\n    # line 3: d[1] += v\n    d[1] += v\n    return d\n"
    after = "@njit\ndef f(d, v):\n    # line 3: d[1] += v\n    add_at(d, 1, v)\n    new_helper()\n    return d\n"
    a, b = Origin("m.py", 3), Origin("m.py", 4)
    got = carried(before, [None, None, a, a, b], after)
    assert got == [None, None, a, a, None, b]  # the rewritten line keeps its origin, the added one has none


# ---- adc compile --html -----------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _module_page(project, *options):
    assert main(["compile", "m.py", "--html", "m.html", *options]) == 0
    text = (project / "m.html").read_text()
    return text, Page(text)


@pytest.mark.parametrize("target", ["python", "numba"])
def test_cli_writes_only_the_page_and_it_shows_the_module(project, capsys, target):
    if target == "numba":
        pytest.importorskip("numba")
    text, page = _module_page(project, "--target", target)
    assert capsys.readouterr().out == ""  # the page is the output: nothing printed
    assert sorted(p.name for p in project.iterdir()) == ["m.html", "m.py"]
    assert page.doctype and not page.problems and external(page, text) == []
    (listing,) = {v[4:] for v in page.listing_of.values()}
    assert page.code(listing) == compile_file(str(project / "m.py"), target=target)
    _linked_both_ways(page)
    _comments_agree(page, listing)
    assert [page.lines[f"s0-{n}"] for n in (11, 12)] == ["def f(x, y):", "    z = x * math.sin(y)"]
    helper_loop = {page.lines[t].strip() for t in page.targets("s0-7")}  # total = total + math.exp(a * k)
    assert len(helper_loop) > 2


def test_cli_with_arrays_any(project):
    pytest.importorskip("array_api_compat")
    text, page = _module_page(project, "--arrays", "any")
    (listing,) = {v[4:] for v in page.listing_of.values()}
    assert page.code(listing) == compile_file(str(project / "m.py"), arrays="any")
    _linked_both_ways(page)
    _comments_agree(page, listing)


def test_cli_writes_the_module_and_the_page(project):
    assert main(["compile", "m.py", "-o", "m_ad.py", "--html", "m.html"]) == 0
    page = Page((project / "m.html").read_text())
    assert page.code("m-ad-py") == (project / "m_ad.py").read_text()
    assert sorted(p.name for p in project.iterdir()) == ["m.html", "m.py", "m_ad.py"]


def test_cli_replaces_an_old_page_by_a_rename(project):
    (project / "m.html").write_text("old")
    before = os.stat(project / "m.html").st_ino
    _module_page(project)
    assert os.stat(project / "m.html").st_ino != before  # a new file renamed over it: never half written
    assert sorted(p.name for p in project.iterdir()) == ["m.html", "m.py"]


def test_cli_refuses_an_html_path_that_is_the_input(project, capsys):
    assert main(["compile", "m.py", "--html", "./m.py"]) == 2
    assert "refusing to overwrite the input file m.py with its page; choose another --html" in capsys.readouterr().err
    assert (project / "m.py").read_text() == MODULE and sorted(p.name for p in project.iterdir()) == ["m.py"]


def test_cli_refuses_one_file_for_module_and_page(project, capsys):
    assert main(["compile", "m.py", "-o", "out", "--html", "out"]) == 2
    assert "-o and --html name one file" in capsys.readouterr().err
    assert sorted(p.name for p in project.iterdir()) == ["m.py"]


@pytest.mark.parametrize("files, options", [(["m.py"], ["--stage", "anf"]), (["m.py", "."], ["-o", "outdir"])])
def test_cli_refuses_html_with_a_stage_or_several_files(project, capsys, files, options):
    assert main(["compile", *files, "--html", "m.html", *options]) == 2
    assert "--html shows one file beside its derivative module" in capsys.readouterr().err
    assert sorted(p.name for p in project.iterdir()) == ["m.py"]


def test_cli_refuses_a_directory_as_the_page(project, capsys):
    (project / "m.html").mkdir()
    assert main(["compile", "m.py", "--html", "m.html"]) == 1
    assert "m.html: not written: it is a directory" in capsys.readouterr().err
    assert list((project / "m.html").iterdir()) == []
