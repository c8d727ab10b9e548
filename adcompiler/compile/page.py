"""The derivative read side by side: one self-contained HTML page (Tapenade's HTML output is the model).

The user's lines on the left, the generated code on the right (one listing per mode, shown as tabs),
every user line linked to the generated lines made from it and each of those back to it; clicking a
line highlights the lines linked to it.  The links are the origins ``emit`` records
(``back.origins``), not read out of the text.  Both sides are syntax-highlighted, by Pygments when it
is installed and by the standard library's tokenizer otherwise; the styles and the little script
are inline, so the page needs nothing but a browser.
"""

from __future__ import annotations

import ast
import builtins
import html
import io
import keyword
import os
import re
import tokenize
from dataclasses import dataclass

from .display import Page
from .origins import NEWLINE, Origin, source_lines


@dataclass(frozen=True)
class Listing:
    """One generated text shown on the right: its title ("forward", "reverse"), its text, and the
    origin of each of its lines (``back.origins``)."""

    title: str
    text: str
    origins: list


def page(title: str, files: dict, listings: list, selected: str | None = None) -> str:
    """The page: ``files`` maps each user file to its lines shown (line number -> text, file lines or
    a function's), ``listings`` the generated code; ``selected`` names the listing shown first."""
    slugs = _slugs([x.title for x in listings])
    files = {os.path.realpath(name): lines for name, lines in files.items()}  # (as origins name them, or not)
    file_index = {name: k for k, name in enumerate(files)}
    targets: dict = {}  # (file, line) -> [(slug, generated line, its function, its section)]
    for listing, slug in zip(listings, slugs, strict=True):
        functions = _functions(listing.text)
        for k, origin in enumerate(listing.origins, start=1):
            name = os.path.realpath(origin.filename) if isinstance(origin, Origin) else None
            if name in file_index and origin.line in files[name]:
                targets.setdefault((name, origin.line), []).append((slug, k, functions[k - 1], origin))
    chosen = slugs[[x.title for x in listings].index(selected)] if selected in [x.title for x in listings] else None
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        f'<head><meta charset="utf-8"><title>{_esc(title)}</title><style>{_CSS}</style></head>',
        f'<body data-selected="{chosen or slugs[0] if slugs else ""}">',
        f"<header><h1>{_esc(title)}</h1><p>{_HELP}</p></header>",
        '<main><section class="pane user">',
    ]
    for name, lines in files.items():
        parts.append(_user_file(name, lines, file_index[name], targets))
    parts.append('</section><section class="pane generated"><nav class="tabs">')
    parts += [f'<button type="button" data-tab="{s}">{_esc(x.title)}</button>' for x, s in zip(listings, slugs)]
    parts.append("</nav>")
    for listing, slug in zip(listings, slugs):
        parts.append(_listing(listing, slug, file_index))
    parts.append(f"</section></main><script>{_JS}</script></body></html>")
    return "\n".join(parts) + "\n"


def page_of(name: str, shown: list, selected: str) -> Page:
    """``f.source(html=True)``: the page of ``(stage, text, origins of its lines)`` for each stage shown
    of function ``name``, the lines of the user's functions they come from on the left."""
    files: dict = {}
    for _, _, origins in shown:
        for origin in origins:
            if isinstance(origin, Origin) and origin.source is not None:
                files.setdefault(origin.filename, {}).update(origin.source.lines)
    listings = [Listing(stage, text, origins) for stage, text, origins in shown]
    return Page(page(f"{name}: your code and its derivatives", files, listings, selected))


def module_page(filename: str, source: str, text: str, origins: list, title: str) -> str:
    """``adc compile FILE.py --html``: the page of ``text``, FILE.py's derivative module (its lines'
    ``origins``), beside the whole of FILE.py (``source``)."""
    lines = dict(enumerate(source_lines(source), start=1))
    name = os.path.basename(filename)
    return page(f"{name} and its derivatives (adc compile)", {filename: lines}, [Listing(title, text, origins)])


def _user_file(name: str, lines: dict, index: int, targets: dict) -> str:
    """One user file's lines, each with the links to what was generated from it."""
    numbers = sorted(lines)
    shown = highlighted_lines("".join(lines[n] + "\n" for n in numbers))  # (an empty last line kept)
    out = [f'<h2 title="{_esc(name)}">{_esc(os.path.basename(name) or name)}</h2><div class="code">']
    for k, (number, code) in enumerate(zip(numbers, shown, strict=True)):
        if k and number != numbers[k - 1] + 1:
            out.append('<div class="gap">\u22ee</div>')
        found = targets.get((name, number), [])
        to = " ".join(f"{slug}-{line}" for slug, line, _, _ in found)
        attrs = f' data-to="{to}"' if found else ""
        links = _links(_runs(found))
        line_id = f"s{index}-{number}"
        out.append(
            f'<div class="line{" linked" if found else ""}" id="{line_id}"{attrs}>'
            f'<a class="no" href="#{line_id}">{number}</a><span class="src">{code}</span>'
            f'<span class="to">{links}</span></div>'
        )
    out.append("</div>")
    return "".join(out)


def _runs(found: list) -> list:
    """The targets of one user line as runs of consecutive generated lines of one function and section:
    ``[listing, first line, function, section, last line]``."""
    runs: list = []
    for slug, line, function, origin in found:
        last = runs[-1] if runs else None
        if last and last[0] == slug and last[2] == function and last[3] == origin.section and last[4] == line - 1:
            last[4] = line
        else:
            runs.append([slug, line, function, origin.section, line])
    return runs


def _links(runs: list) -> str:
    """The links of one user line: per generated function, its name and a link to each run of lines."""
    groups: dict = {}
    for run in runs:
        groups.setdefault((run[0], run[2]), []).append(run)
    out = []
    for (_, function), members in groups.items():
        links = "".join(_link(run) for run in members)
        out.append(f'<span class="grp"><span class="fname">{_esc(function or "module")}</span>{links}</span>')
    return "".join(out)


def _link(run: list) -> str:
    slug, first, function, section, last = run
    lines = f"lines {first}-{last}" if last > first else f"line {first}"
    title = f"{function or 'module'}, {lines}" + (f" ({section})" if section else "")
    kind = " later" if section else ""
    return f'<a class="{slug}{kind}" href="#{slug}-{first}" title="{_esc(title)}">{first}</a>'


def _listing(listing: Listing, slug: str, file_index: dict) -> str:
    """One generated text, each line linked back to the user line it was generated from."""
    out = [f'<div class="listing" id="tab-{slug}"><h2>{_esc(listing.title)}</h2><div class="code">']
    shown = highlighted_lines(listing.text)
    for k, code in enumerate(shown, start=1):
        origin = listing.origins[k - 1] if k - 1 < len(listing.origins) else None
        line_id = f"{slug}-{k}"
        name = os.path.realpath(origin.filename) if isinstance(origin, Origin) else None
        if name in file_index:
            source = f"s{file_index[name]}-{origin.line}"
            where = f"line {origin.line} of {os.path.basename(origin.filename)}"
            out.append(
                f'<div class="line linked" id="{line_id}" data-from="{source}">'
                f'<a class="no" href="#{source}" title="{_esc(where)}">{k}</a><span class="src">{code}</span></div>'
            )
        else:
            out.append(
                f'<div class="line" id="{line_id}"><span class="no">{k}</span><span class="src">{code}</span></div>'
            )
    out.append("</div></div>")
    return "".join(out)


def _slugs(titles: list) -> list:
    """An id prefix for each listing: its title in letters and digits, unique."""
    out: list = []
    for title in titles:
        base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "code"
        slug, n = base, 1
        while slug in out or slug == "tab" or re.fullmatch(r"s\d+", slug):
            n += 1
            slug = f"{base}-{n}"
        out.append(slug)
    return out


def _functions(text: str) -> list:
    """The name of the top-level function each line of ``text`` is in (None outside any)."""
    out: list = [None] * len(source_lines(text))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return out
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for k in range(node.lineno - 1, min(node.end_lineno, len(out))):
                out[k] = node.name
    return out


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


# ---- highlighting ---------------------------------------------------------------------------------

_BUILTINS = frozenset(dir(builtins))


def highlighted_lines(text: str) -> list:
    """``text``'s lines as HTML, tokens in ``<span class="kw|bi|fn|str|num|com">``: by Pygments when it
    is installed, else by the standard library's tokenizer, else escaped as they are.  Exactly one
    entry per line of ``text``, whose characters it shows unchanged."""
    lines = source_lines(text)
    for tokens in (_pygments_tokens, _stdlib_tokens):
        spans = tokens(text)
        if spans is not None and "".join(part for _, part in spans) == text:
            return _split(_merged(spans), len(lines))
    return [_esc(line) for line in lines]


def _merged(spans: list) -> list:
    """Neighbouring pieces of one class as one (Pygments cuts a string at its quotes)."""
    out: list = []
    for cls, part in spans:
        if out and out[-1][0] == cls:
            out[-1] = (cls, out[-1][1] + part)
        else:
            out.append((cls, part))
    return out


def _split(spans: list, count: int) -> list:
    """Classed pieces of text as HTML lines (a piece that spans lines is cut at each line's end)."""
    out, current = [], []
    for cls, part in spans:
        pieces = NEWLINE.split(part)
        for k, piece in enumerate(pieces):
            if k:
                out.append("".join(current))
                current = []
            if piece:
                current.append(f'<span class="{cls}">{_esc(piece)}</span>' if cls else _esc(piece))
    out.append("".join(current))
    return (out + [""] * count)[:count]


def _pygments_tokens(text: str) -> list | None:
    """``(class, text)`` pieces of ``text`` by Pygments' Python lexer; None without Pygments."""
    try:
        from pygments.lexers import PythonLexer
        from pygments.token import Comment, Keyword, Name, Number, Operator, String
    except ImportError:
        return None
    kinds = [
        (Comment, "com"),
        (String, "str"),
        (Number, "num"),
        (Keyword, "kw"),
        (Operator.Word, "kw"),
        (Name.Builtin, "bi"),
        (Name.Function, "fn"),
        (Name.Class, "fn"),
        (Name.Decorator, "fn"),
    ]
    lexer = PythonLexer(stripnl=False, ensurenl=False, tabsize=0)
    out = []
    for kind, part in lexer.get_tokens(text):
        out.append((next((cls for k, cls in kinds if kind in k), ""), part))
    return out


def _stdlib_tokens(text: str) -> list | None:
    """``(class, text)`` pieces of ``text`` by the ``tokenize`` module; None where it cannot read it."""
    starts = [0] + [m.end() for m in NEWLINE.finditer(text)]
    marks = []
    previous = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            cls = _stdlib_class(tok, previous)
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                previous = tok
            if cls:
                begin = starts[tok.start[0] - 1] + tok.start[1]
                end = starts[tok.end[0] - 1] + tok.end[1]
                marks.append((begin, end, cls))
    except (tokenize.TokenError, SyntaxError, IndexError):
        return None
    out, at = [], 0
    for begin, end, cls in marks:
        if begin < at:
            continue
        out += [("", text[at:begin]), (cls, text[begin:end])]
        at = end
    out.append(("", text[at:]))
    return [piece for piece in out if piece[1]]


def _stdlib_class(tok, previous) -> str:
    if tok.type == tokenize.COMMENT:
        return "com"
    if tok.type == tokenize.STRING or tok.type in _FSTRING:
        return "str"
    if tok.type == tokenize.NUMBER:
        return "num"
    if tok.type != tokenize.NAME:
        return ""
    if previous is not None and previous.type == tokenize.NAME and previous.string in ("def", "class"):
        return "fn"
    if keyword.iskeyword(tok.string):
        return "kw"
    return "bi" if tok.string in _BUILTINS else ""


_FSTRING = {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, n)}

_HELP = (
    "Click a line of your code to highlight the lines generated from it (the numbers beside it link to "
    "them, by generated function; orange: a later section of that function, such as its adjoints); click "
    "a generated line to highlight the line of yours it comes from."
)

_CSS = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#1f2328;background:#fff;height:100vh;display:flex;flex-direction:column}
header{padding:6px 14px;border-bottom:1px solid #d0d7de}
header h1{font-size:16px;margin:0}header p{margin:2px 0 0;color:#57606a;font-size:12px}
main{flex:1;display:grid;grid-template-columns:1fr 1fr;min-height:0}
.pane{overflow:auto;min-height:0;padding:0 0 40vh}.user{border-right:1px solid #d0d7de}
h2{font-size:13px;margin:0;padding:4px 10px;background:#f6f8fa;border-bottom:1px solid #d0d7de;position:sticky;top:0}
.code{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.line{display:flex;white-space:pre;padding-right:8px}
.line.linked{cursor:pointer}.line.linked:hover{background:#f3f4f6}
.no{flex:none;width:4.5em;text-align:right;padding-right:1em;color:#8c959f;text-decoration:none;user-select:none}
.linked>.no{color:#0969da}
.src{flex:1}
.to{flex:none;margin-left:1em;font-size:11px;white-space:normal;text-align:right;max-width:45%}
.to a{display:inline-block;margin-left:3px;padding:0 3px;border-radius:3px;text-decoration:none;color:#0550ae;background:#ddf4ff}
.to a.later{color:#953800;background:#fff1e5}
.grp{display:inline-block;margin-left:8px}.fname{color:#57606a}
.gap{color:#8c959f;padding-left:3em}
.hit,:target{background:#fff8c5!important}.here{background:#ffe58f!important}
.kw{color:#cf222e}.bi{color:#8250df}.fn{color:#6639ba;font-weight:600}.str{color:#0a3069}.num{color:#0550ae}
.com{color:#6e7781;font-style:italic}
.tabs{display:none;position:sticky;top:0;background:#fff;border-bottom:1px solid #d0d7de;z-index:1}
.tabs button{font:inherit;border:0;background:none;padding:5px 12px;cursor:pointer;border-bottom:2px solid transparent}
.tabs button.on{border-bottom-color:#fd8c73;font-weight:600}
.js .tabs{display:block}.js .listing{display:none}.js .listing.on{display:block}.js .listing h2{display:none}
"""

_JS = """
(function(){
var d=document,b=d.body;b.classList.add('js');
function all(s){return Array.prototype.slice.call(d.querySelectorAll(s));}
function show(t){all('.tabs button').forEach(function(x){x.classList.toggle('on',x.dataset.tab===t);});
all('.listing').forEach(function(x){x.classList.toggle('on',x.id==='tab-'+t);});}
function tab(e){return e.closest('.listing').id.slice(4);}
function mark(u){all('.hit,.here').forEach(function(x){x.classList.remove('hit','here');});
u.classList.add('here');var ts=(u.dataset.to||'').split(' ').filter(Boolean).map(function(i){return d.getElementById(i);}).filter(Boolean);
ts.forEach(function(x){x.classList.add('hit');});return ts;}
function go(e,where){if(e){e.scrollIntoView({block:where||'center'});}}
d.addEventListener('click',function(ev){
var a=ev.target.closest('a'),line=ev.target.closest('.line.linked');if(!line){return;}ev.preventDefault();
if(line.dataset.to!==undefined){var ts=mark(line),t=a&&a.hash?d.getElementById(a.hash.slice(1)):null;
var cur=d.querySelector('.tabs button.on');t=t||ts.filter(function(x){return cur&&tab(x)===cur.dataset.tab;})[0]||ts[0];
if(t){show(tab(t));go(t);}}
else{var u=d.getElementById(line.dataset.from);if(u){mark(u);line.classList.add('here');go(u);}}});
all('.tabs button').forEach(function(x){x.addEventListener('click',function(){show(x.dataset.tab);});});
show(b.dataset.selected);
var h=location.hash&&d.getElementById(location.hash.slice(1));if(h&&h.closest('.listing')){show(tab(h));go(h);}
})();
"""
