"""Formulas typeset when the site is built, not in the reader's browser.

Sphinx writes each formula as TeX (``<span class="math ...">\\(...\\)</span>``, ``<div class="math
...">\\[...\\]</div>``) and leaves it to MathJax, a 258 KiB script, to typeset in the browser: on a
phone on a slow line the reader saw raw TeX for seconds. After an HTML build this extension
hands every formula of the site to the same MathJax (the copy sphinx-mathjax-offline ships),
run once by Node.js (``scripts/book/typeset_maths.js``), and writes its output into the pages:

* each formula becomes MathJax's CommonHTML with its MathML beside it for screen readers,
  exactly what the browser would have made;
* the stylesheet those formulas need (the font faces and the glyphs used anywhere on the site)
  goes to ``_static/mwm-maths.css``, linked from every page with a formula; the fonts stay in
  ``_static/mathjax``;
* MathJax's script and its settings leave the pages.

A formula MathJax cannot read stops the build with its page and message, as the browser would
have shown a red error. Node.js is Debian's ``nodejs`` (``make book`` installs it).
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from sphinx.errors import ExtensionError

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "book" / "typeset_maths.js"
#: The site's stylesheet of typeset formulas, and where it finds MathJax's fonts (relative to itself).
STYLESHEET = "_static/mwm-maths.css"
FONTS = "mathjax/output/chtml/fonts/woff-v2"
#: The formulas' size relative to the surrounding text. In the browser MathJax matched the x-height
#: of the reader's system font (system-ui): 127% for DejaVu Sans, about 116% for Segoe UI, 121% for
#: San Francisco and Roboto. Typeset once, the formulas take the middle value.
SCALE = 1.21

#: A formula as Sphinx writes it: the element (its tag and attributes kept) and its TeX.
_FORMULA = re.compile(r'(?P<open><(?P<tag>span|div) class="math notranslate nohighlight"[^>]*>)'
                      r'(?P<body>.*?)(?P<close></(?P=tag)>)', re.S)
_DELIMITED = re.compile(r"\\\((?P<inline>.*?)\\\)|\\\[(?P<display>.*?)\\\]", re.S)
_MATHJAX_SCRIPTS = re.compile(r'<script>window\.MathJax = .*?</script>\s*'
                              r'|<script[^>]*src="[^"]*_static/mathjax/[^"]*"[^>]*></script>\s*', re.S)


def _mathjax_folder() -> Path:
    """The MathJax 3 folder sphinx-mathjax-offline ships (it holds node-main.js for Node.js)."""
    module = sys.modules.get("sphinx-mathjax-offline")
    if module is None:
        import importlib
        module = importlib.import_module("sphinx-mathjax-offline")
    folder = Path(module.__file__).parent / "static" / "mathjax"
    if not (folder / "node-main.js").is_file():
        raise ExtensionError(f"typeset_maths: no MathJax for Node.js in {folder}")
    return folder


def formulas_in_page(text: str) -> list[tuple[str, bool]]:
    """The (TeX, display) of every formula Sphinx wrote in a page's HTML, in order; TeX unescaped."""
    found = []
    for match in _FORMULA.finditer(text):
        for part in _DELIMITED.finditer(match["body"]):
            display = part["display"] is not None
            found.append((html.unescape(part["display"] if display else part["inline"]), display))
    return found


def typeset(formulas: list[tuple[str, bool]], config: dict | None = None) -> tuple[dict, str, list]:
    """Typeset ``formulas`` with MathJax in Node.js.

    Args:
        formulas: (TeX, display) pairs; config: the site's ``mathjax3_config`` (its ``tex`` part applies).
    Returns:
        ({(TeX, display): HTML of its <mjx-container>}, the stylesheet they need, [((TeX, display), message)]
        for each formula MathJax could not read).
    Raises:
        ExtensionError: when Node.js is missing or MathJax fails.
    """
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise ExtensionError("typeset_maths: the website's formulas are typeset when it is built, by Node.js; "
                             "install it: sudo apt-get install nodejs (make book does)")
    unique = list(dict.fromkeys(formulas))
    job = {"mathjax": str(_mathjax_folder()), "fontURL": FONTS, "scale": SCALE, "config": config or {},
           "formulas": [[tex, display] for tex, display in unique]}
    done = subprocess.run([node, str(SCRIPT)], input=json.dumps(job), capture_output=True, text=True,
                          encoding="utf-8", check=False)
    if done.returncode != 0:
        raise ExtensionError(f"typeset_maths: MathJax in Node.js failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout)
    errors = [(unique[i], message) for i, message in out["errors"]]
    return dict(zip(unique, out["html"])), out["css"], errors


#: The fonts a page's formulas use, asked for at once: found only through the stylesheet, they arrived after
#: the first paint and the formulas' lines moved (layout shift up to 0.3 on the practice pages).
#: (file, a marker of its use in the typeset HTML): the "zero" font MathJax measures with, the upright
#: letters, digits and operators (a character class with no variant), and the italic letters.
_PRELOADS = (("MathJax_Zero", re.compile(r"<mjx-container")),
             ("MathJax_Main-Regular", re.compile(r'<mjx-c class="mjx-c[0-9A-F]+">')),
             ("MathJax_Math-Italic", re.compile(r' TEX-I"')))


def typeset_page(text: str, typeset_html: dict, stylesheet_href: str) -> str:
    """The page with each formula replaced by its typeset HTML, MathJax's scripts removed, the stylesheet linked
    and the fonts its formulas use preloaded."""
    def replace(match):
        body = _DELIMITED.sub(lambda part: typeset_html[(html.unescape(part["display"] if part["display"] is not None
                                                                      else part["inline"]),
                                                         part["display"] is not None)], match["body"])
        return match["open"] + body + match["close"]
    text = _FORMULA.sub(replace, text)
    text = _MATHJAX_SCRIPTS.sub("", text)
    fonts = stylesheet_href.rsplit("/", 1)[0] + "/" + FONTS
    links = [f'<link rel="stylesheet" type="text/css" href="{stylesheet_href}" />'] + [
        f'<link rel="preload" href="{fonts}/{name}.woff" as="font" type="font/woff" crossorigin />'
        for name, used in _PRELOADS if used.search(text)]
    return text.replace("</head>", "\n".join(links) + "\n</head>", 1)


def typeset_site(app, exception) -> None:
    """After an HTML build: typeset every page's formulas (see the module's docstring)."""
    if exception is not None or app.builder.format != "html":
        return
    site = Path(app.outdir)
    pages = {page: page.read_text(encoding="utf-8") for page in sorted(site.rglob("*.html"))}
    found = {page: formulas_in_page(text) for page, text in pages.items()}
    formulas = [f for page_formulas in found.values() for f in page_formulas]
    if not formulas:
        return
    config = getattr(app.config, "mathjax3_config", None) or {}
    typeset_html, css, errors = typeset(formulas, {k: v for k, v in config.items() if k == "tex"})
    if errors:
        where = {f: page.relative_to(site) for page, fs in found.items() for f in fs}
        raise ExtensionError("typeset_maths: MathJax could not read these formulas:\n" + "\n".join(
            f"  {where[formula]}: {formula[0]!r}: {message}" for formula, message in errors))
    (site / STYLESHEET).write_text(css, encoding="utf-8")
    for page, text in pages.items():
        if found[page]:
            href = os.path.relpath(site / STYLESHEET, page.parent).replace(os.sep, "/")
            page.write_text(typeset_page(text, typeset_html, href), encoding="utf-8")


def setup(app):
    # after sphinx-mathjax-offline has copied MathJax's fonts (default priority 500)
    app.connect("build-finished", typeset_site, priority=800)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
