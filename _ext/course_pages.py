"""Sphinx extension of the course: a "run it yourself" note on every chapter page.

It also gives every page a description for search engines and link previews (the opening
sentences of its text, :func:`page_description`), removes a duplicated script tag that this
Jupyter Book version emits, and, once the site is written, moves every "Try" panel picture
out of the pages into files of their own (:func:`move_panel_pictures`).

Each page under ``chapters/`` gets, right under its title, a short note with a link that
downloads the chapter's notebook (Sphinx copies the file into the site's ``_downloads``)
and the commands that open it live in JupyterLab, where every "Try" panel is
interactive.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes


def _note(docname: str, source: str) -> nodes.Element:
    name = Path(source).name
    para = nodes.paragraph()
    para += nodes.strong(text="Run this chapter yourself. ")
    para += nodes.Text("Download ")
    ref = addnodes.download_reference("", "", refdoc=docname, reftarget=name, refexplicit=True)
    ref += nodes.literal(text=name)
    para += ref
    para += nodes.Text(", or clone the course, run ")
    para += nodes.literal(text="make setup")
    para += nodes.Text(" in its folder (see its README), then open it with ")
    para += nodes.literal(text=f".venv/bin/jupyter lab chapters/{name}")
    para += nodes.Text(". There every panel is live; on this page the panels replay figures drawn when the site was built.")
    note = nodes.admonition(classes=["tip", "run-locally"])
    note += nodes.title(text="Run it locally")
    note += para
    return note


def add_run_note(app, doctree) -> None:
    docname = app.env.docname
    if not docname.startswith("chapters/"):
        return
    source = app.env.doc2path(docname)
    for section in doctree.findall(nodes.section):
        title = next(iter(section.findall(nodes.title)), None)
        index = section.index(title) + 1 if title is not None else 0
        section.insert(index, _note(docname, str(source)))
        break


#: The description of a page with no paragraph of plain text (the index, search and the like).
SITE_DESCRIPTION = ("A course on recurrent neural networks: the recurrent cell, backpropagation through time, "
                    "LSTM and GRU, attention, beam search and BLEU.")
#: After a page's title, for a page whose opening starts with a formula.
PAGE_OF_THE_COURSE = "A page of Machines with Memory, a course on recurrent neural networks."
#: At most this many characters, as search engines show.
DESCRIPTION_CHARS = 155


def _shortened(text: str) -> str:
    """``text`` on one line, cut to whole sentences that fit :data:`DESCRIPTION_CHARS`; a first sentence
    longer than that is cut at a word, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= DESCRIPTION_CHARS:
        return text
    sentences = re.findall(r".+?[.?!](?=\s|$)", text)
    kept = ""
    for sentence in sentences:
        if len(kept) + len(sentence) > DESCRIPTION_CHARS:
            break
        kept += sentence
    if kept:
        return kept.strip()
    return text[:DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _before_maths(para) -> str:
    """The paragraph's text up to its first formula, as whole sentences ("" if the formula comes first)."""
    text = ""
    for child in para.children:
        if child.tagname in ("math", "raw") or any(n.tagname in ("math", "raw") for n in child.findall()):
            return " ".join(re.findall(r".+?[.?!](?=\s|$)", " ".join(text.split())))
        text += child.astext()
    return text


def page_description(doctree) -> str:
    """The page's opening: the first of its first two paragraphs of running text (not in a note, a table
    or a list) that gives 40 characters or more before any formula (a description shows no TeX), as
    whole sentences of at most :data:`DESCRIPTION_CHARS` characters (a longer first sentence is cut at a
    word, with an ellipsis). Without one: the page's title and :data:`PAGE_OF_THE_COURSE`; without a
    title either (the index, search), :data:`SITE_DESCRIPTION`."""
    if doctree is None:
        return SITE_DESCRIPTION
    opening = [p for p in doctree.findall(nodes.paragraph) if isinstance(p.parent, (nodes.section, nodes.document))][:2]
    for para in opening:
        text = " ".join(_before_maths(para).split())
        if len(text) >= 40:
            return _shortened(text)
    title = next(iter(doctree.findall(nodes.title)), None)
    if title is None:
        return SITE_DESCRIPTION
    return _shortened(f"{title.astext().rstrip('.')}. {PAGE_OF_THE_COURSE}")


def add_description(app, pagename, templatename, context, doctree) -> None:
    """Add ``<meta name="description">`` with :func:`page_description` to the page's head."""
    tag = f'<meta name="description" content="{html.escape(page_description(doctree), quote=True)}" />\n'
    context["metatags"] = context.get("metatags", "") + tag


def drop_duplicate_scripts(app, pagename, templatename, context, doctree) -> None:
    """Keep each script once: sphinx-thebe registers its settings script twice in this
    Jupyter Book version, and the second copy throws "already declared" in the browser."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        filename = getattr(script, "filename", script) or ""  # the copies differ only in None vs ""
        key = (str(filename), tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


#: Where the panel pictures go, under the site's folder.
PANEL_DIR = Path("_static") / "panels"
_PANEL_DATA = re.compile(r'(<script type="application/json" class="mwm-try-data">)(.*?)(</script>)', re.S)
#: A panel picture as the panels' static twins carry it (mwm.widgets.static.PICTURE_MIME) or as a PNG.
_DATA_URI = re.compile(r"data:image/(?P<ext>png|webp);base64,[A-Za-z0-9+/=]+")


def _picture_file(uri: str, site: Path, made: dict) -> Path:
    """Write the picture of a ``data:`` URI once, as it is, named by its content; return its path."""
    if uri not in made:
        match = _DATA_URI.fullmatch(uri)
        if match is None:
            raise ValueError(f"not a panel picture's data: URI: {uri[:40]}...")
        data = base64.b64decode(uri.split(",", 1)[1], validate=True)
        path = site / PANEL_DIR / f"{hashlib.sha256(data).hexdigest()[:20]}.{match['ext']}"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        made[uri] = path
    return made[uri]


def move_panel_pictures_in_page(page: Path, site: Path, made: dict) -> int:
    """Replace the ``data:`` pictures of every "Try" panel in one built page with files.

    The panel's JSON then lists file URLs (relative to the page) and its first picture is
    an ordinary ``<img src>``. Returns how many pictures the page referred to.
    """
    text = page.read_text(encoding="utf-8")
    if "mwm-try-data" not in text:
        return 0
    urls = {}

    def url(uri):
        if uri not in urls:
            urls[uri] = os.path.relpath(_picture_file(uri, site, made), page.parent).replace(os.sep, "/")
        return urls[uri]

    def fix_data(match):
        data = json.loads(match.group(2))
        data["images"] = [url(u) if _DATA_URI.fullmatch(u) else u for u in data["images"]]
        payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
        return match.group(1) + payload + match.group(3)

    text = _PANEL_DATA.sub(fix_data, text)

    def fix_img(match):  # the panels' first pictures (every other data: picture is left alone)
        tag = match.group(0)
        return _DATA_URI.sub(lambda m: html.escape(url(m.group(0))) if m.group(0) in urls else m.group(0), tag)

    text = re.sub(r'<img class="mwm-try-figure"[^>]*>', fix_img, text)
    page.write_text(text, encoding="utf-8")
    return len(urls)


#: The theme's "download source" buttons (the page's .md or .ipynb): a link that opens a tab.
_SOURCE_LINK = re.compile(r'<a href="(?P<href>[^"]*_sources/[^"]+)" target="_blank"(?P<rest>\s+class="[^"]*btn-download-'
                          r'(?:source|notebook)-button)')


def download_sources_in_page(page: Path) -> int:
    """Make the page's "download source" links download their file instead of opening a tab; how many changed."""
    text = page.read_text(encoding="utf-8")

    def fix(match):
        name = html.escape(match["href"].rsplit("/", 1)[-1], quote=True)
        return f'<a href="{match["href"]}" download="{name}"{match["rest"]}'
    fixed, n = _SOURCE_LINK.subn(fix, text)
    if n:
        page.write_text(fixed, encoding="utf-8")
    return n


#: The theme's first script marks the page's colours "auto" until its own script, run once the page is read,
#: puts "light" or "dark": the theme styles inline code for those two only, so every line with code grew
#: by 2 px then, and the text below moved down (layout shift 0.2-0.3 on the practice pages).
_THEME_AUTO = 'document.documentElement.dataset.theme = localStorage.getItem("theme") || "auto";'
_THEME_NOW = ('document.documentElement.dataset.theme = localStorage.getItem("theme") || '
              '(window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");')


def theme_before_first_paint(text: str) -> str:
    """The page with the theme's first script choosing light or dark at once, as its later script would (see
    :data:`_THEME_AUTO`), so nothing moves when that script runs."""
    return text.replace(_THEME_AUTO, _THEME_NOW, 1)


def move_panel_pictures(app, exception) -> None:
    """After an HTML build, move every panel picture out of the pages into ``_static/panels/``, make
    the "download source" links download (:func:`download_sources_in_page`) and choose the page's
    colours before it is first drawn (:func:`theme_before_first_paint`)."""
    if exception is not None or app.builder.format != "html":
        return
    site = Path(app.outdir)
    made = {}
    for page in sorted(site.rglob("*.html")):
        move_panel_pictures_in_page(page, site, made)
        download_sources_in_page(page)
        text = page.read_text(encoding="utf-8")
        if _THEME_AUTO in text:
            page.write_text(theme_before_first_paint(text), encoding="utf-8")


def setup(app):
    app.connect("html-page-context", drop_duplicate_scripts)
    app.connect("html-page-context", add_description)
    app.connect("build-finished", move_panel_pictures)
    # Run before Sphinx's own collectors (priority 500) so the download link is registered.
    app.connect("doctree-read", add_run_note, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
