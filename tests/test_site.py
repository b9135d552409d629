"""The website in a real browser: offline, maths rendered, panels that move without a kernel.

The site (``conftest.site``, built once per session exactly as ``make book`` builds it:
every chapter executed, every "Try" panel drawn in all its settings) is served on localhost, and read by headless
Chromium from Debian's packages, driven by Playwright with its executable path set.
Every request that is not to the local server is blocked and counted as a failure.

The first tests read the built files (every page of the table of contents, maths,
figures, the practice pages); the others open pages in the browser (panels moved, search).
Every page opened once and read for all it must be (offline, maths, pictures, accessibility,
widths, weight, dark mode, print, the practice pages' folds) is in tests/test_site_readers.py, a
file of its own so that pytest-xdist can run it beside this one once the site is built.

Screenshots of each chapter are written to ``test-artifacts/screenshots/`` (not
committed). Without Chromium these tests skip with a message, unless
``MWM_REQUIRE_BROWSER=1`` (CI sets it) makes its absence an error.
"""
import base64
import functools
import gzip
import http.server
import re
import os
import shutil
import sys
import threading
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "screenshots"
#: The browser the tests drive: Debian's chromium-headless-shell (Chromium's own headless build, the
#: one Playwright itself runs headless; the same Blink, about half the CPU per page of the full
#: browser in headless mode), else the full chromium.
CHROMIUM = next((found for name in ("chromium-headless-shell", "chromium")
                 for found in [shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None)]
                 if found), None)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _pages():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        pages += [c["file"] for c in part["chapters"]]
    return pages


PAGES = _pages()
CHAPTERS = [p for p in PAGES if p.startswith("chapters/")]
PRACTICE = sorted(f"practice/{p.stem}" for p in (ROOT / "practice").glob("problem-*.md"))


def _need_browser():
    if CHROMIUM is None:
        message = "Chromium is not installed (apt-get install chromium-headless-shell); the browser tests need it"
        if os.environ.get("MWM_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)


# --- the built files: table of contents, maths, figures, practice pages ---

def _chapters_in_toc():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [c["file"] for part in toc["parts"] for c in part["chapters"] if c["file"].startswith("chapters/")]


def test_intro_and_every_chapter_page_exist(site):
    assert (site / "intro.html").is_file() and (site / "index.html").is_file()
    for doc in _chapters_in_toc():
        assert (site / f"{doc}.html").is_file(), doc


def _visible_text(html: str) -> str:
    html = re.sub(r"<(script|style|pre)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r'<span class="math[^"]*">.*?</span>', " ", html, flags=re.S)
    html = re.sub(r'<div class="math[^"]*">.*?</div>', " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


def _built_pages(site):
    """Every page the site renders (not its static files, sources, or the root's redirect to the intro)."""
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts
                  and 'http-equiv="Refresh"' not in p.read_text(encoding="utf-8")[:400])


def test_every_page_has_a_description_and_the_icon(site):
    """A description of its own (its first plain paragraph, at most 155 characters) for search engines and
    link previews, and the course's icon (without one, browsers ask for /favicon.ico and get a 404)."""
    described = {}
    for page in _built_pages(site):
        html = page.read_text(encoding="utf-8")
        found = re.findall(r'<meta name="description" content="([^"]*)"', html)
        assert len(found) == 1, (page, found)
        assert 40 <= len(found[0]) <= 155 and "<" not in found[0], (page, found[0])
        described[page.relative_to(site).as_posix()] = found[0]
        icon = re.search(r'<link rel="icon" href="([^"]+)"', html)
        assert icon and (page.parent / icon.group(1)).resolve().is_file(), page
    chapters = [described[f"{doc}.html"] for doc in _chapters_in_toc()]
    assert len(set(chapters)) == len(chapters), "each chapter describes itself"


def test_the_source_buttons_download_their_file(site):
    """The header's ".md" / ".ipynb" button downloads the page's source (the theme's link opened it in a tab)."""
    for page in _built_pages(site):
        html = page.read_text(encoding="utf-8")
        links = re.findall(r'<a href="([^"]*_sources/[^"]+)"([^>]*)>', html)
        if not links:
            continue
        for href, rest in links:
            name = href.rsplit("/", 1)[-1]
            assert f'download="{name}"' in rest and "_blank" not in rest, (page, href)
            assert (page.parent / href).resolve().is_file(), (page, href)


def test_every_table_header_cell_names_its_column(site):
    """No empty <th> (a screen reader announces a column by its header)."""
    empty = []
    for page in _built_pages(site):
        for cell in re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", page.read_text(encoding="utf-8"), re.S):
            if not re.sub(r"<[^>]+>", "", cell).strip():
                empty.append(page.relative_to(site).as_posix())
    assert not empty, empty


@pytest.mark.parametrize("doc", _chapters_in_toc())
def test_chapter_page_has_figures_maths_and_no_raw_dollars(site, doc):
    html = (site / f"{doc}.html").read_text(encoding="utf-8")
    images = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert images, "every chapter shows at least one figure (its Try panel)"
    for src in images:
        if src.startswith("data:image/png;base64,"):  # a "Try" panel's picture, embedded in the page
            png = base64.b64decode(src.split(",", 1)[1], validate=True)
            assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000, "an embedded picture that is no PNG"
            continue
        assert (site / doc).parent.joinpath(src).resolve().is_file(), src[:80]
    assert 'class="math notranslate nohighlight"' in html, "inline maths rendered"
    assert "$" not in _visible_text(html), "a $ left in the text: maths that did not parse"
    assert "dropdown" in html, "answers and proofs are folded away"


def test_formulas_are_typeset_in_the_page_not_by_a_script(site):
    """Every formula arrives typeset (MathJax's CommonHTML with its MathML for screen readers), so a page is
    readable before any script runs; no page loads MathJax's 258 KiB script; the stylesheet and fonts are there."""
    typeset = 0
    for page in _built_pages(site):
        html = page.read_text(encoding="utf-8")
        assert "window.MathJax" not in html and not re.search(r'<script[^>]*src="[^"]*mathjax/', html), page
        formulas = re.findall(r'<(span|div) class="math notranslate nohighlight"[^>]*>(.*?)</\1>', html, re.S)
        for _, body in formulas:
            assert body.count("<mjx-container") == 1 and "<mjx-assistive-mml" in body, (page, body[:200])
            assert "\\(" not in body and "\\[" not in body and "mjx-merror" not in body, (page, body[:200])
        assert "\\(" not in _visible_text(html), (page, "a formula left as TeX")
        if formulas:
            css = re.search(r'<link rel="stylesheet" type="text/css" href="([^"]*mwm-maths\.css)"', html)
            assert css and (page.parent / css.group(1)).resolve().is_file(), page
            preloads = re.findall(r'<link rel="preload" href="([^"]+\.woff)" as="font"', html)
            assert any("MathJax_Zero" in f for f in preloads), (page, "the formulas' fonts are not asked for at once")
            assert all((page.parent / f).resolve().is_file() for f in preloads), (page, preloads)
            typeset += len(formulas)
    assert typeset > 1000, f"only {typeset} formulas on the whole site"
    sheet = site / "_static" / "mwm-maths.css"
    fonts = re.findall(r'url\("?([^")]+\.woff)"?\)', sheet.read_text(encoding="utf-8"))
    assert fonts and all((sheet.parent / f).is_file() for f in fonts), fonts[:3]


def test_a_formula_mathjax_cannot_read_stops_the_build():
    """The build's typesetting names a formula MathJax cannot read (the browser showed it red), and typesets a good one."""
    sys.path.insert(0, str(ROOT / "_ext"))
    import typeset_maths
    good, bad = ("h_t = \\tanh(W h_{t-1})", False), ("\\frac{1}{", True)
    html, css, errors = typeset_maths.typeset([good, bad])
    assert [formula for formula, _ in errors] == [bad]
    assert html[good].startswith("<mjx-container") and "<mi>tanh</mi>" in html[good] and "@font-face" in css


def test_display_and_inline_maths_on_the_intro(site):
    html = (site / "intro.html").read_text(encoding="utf-8")
    assert '<div class="math notranslate nohighlight">' in html  # $$ ... $$
    assert '<span class="math notranslate nohighlight">' in html  # $ ... $


PRACTICE_PAGES = sorted(p.stem for p in (ROOT / "practice").glob("problem-*.md"))


def test_practice_part_offers_the_student_notebook(site):
    html = (site / "practice" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]*_downloads/[^"]*practice\.ipynb)"', html)
    assert links, "the practice index links the student notebook"
    notebook = (site / "practice" / links[0]).resolve()
    assert notebook.is_file()
    assert notebook.read_bytes() == (ROOT / "practice" / "downloads" / "practice.ipynb").read_bytes()
    for page in PRACTICE_PAGES:
        assert f'href="{page}.html"' in html, page


@pytest.mark.parametrize("page", PRACTICE_PAGES)
def test_practice_page_states_the_problem_with_its_solution_folded(site, page):
    html = (site / "practice" / f"{page}.html").read_text(encoding="utf-8")
    assert re.search(r"<details[^>]*dropdown", html) or 'class="dropdown' in html, "the solution is folded away"
    assert "Worked solution" in html and "_downloads/" in html
    assert 'class="math notranslate nohighlight"' in html
    assert "$" not in _visible_text(html), "a $ left in the text: maths that did not parse"


# --- in the browser ---

@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietServer(http.server.ThreadingHTTPServer):
    """A server that says nothing when the browser closes a connection before a file is sent (it left the page)."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """The built site served as static hosts serve it: text compressed with gzip for a browser that accepts it.

    So a page's weight counted in the browser is what a reader downloads from such a host.
    """

    COMPRESSED = {".html", ".js", ".css", ".json", ".svg", ".txt", ".map", ".ipynb", ".ttf"}

    def do_GET(self):
        """Send a text file gzip-compressed when the browser accepts it; anything else as the base class does."""
        path = Path(self.translate_path(self.path))
        if path.suffix in self.COMPRESSED and path.is_file() and "gzip" in self.headers.get("Accept-Encoding", ""):
            body = _gzipped(str(path), path.stat().st_mtime_ns)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, *args):
        pass


@functools.lru_cache(maxsize=256)
def _gzipped(path: str, mtime_ns: int) -> bytes:
    """The file at ``path`` compressed as a web server does (gzip level 6), kept while its mtime holds."""
    return gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)


@pytest.fixture(scope="module")
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Visit:
    """One page opened with every foreign request blocked, and its problems recorded."""

    def __init__(self, browser, base, path, viewport=(1280, 900), weigh=False):
        """Open ``path`` at the ``viewport`` size; with ``weigh``, the browser cache is off and
        ``self.transferred`` adds up the bytes of every response (as sent, compressed or not)."""
        self.problems = []
        self.transferred = 0
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        self.context.route("**/*", self._route(base))
        self.page = self.context.new_page()
        if weigh:
            cdp = self.context.new_cdp_session(self.page)
            cdp.send("Network.enable")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            cdp.on("Network.loadingFinished", self._count)
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"failed request: {r.url}"))
        self.page.on("response", lambda r: r.status >= 400 and self.problems.append(f"HTTP {r.status}: {r.url}"))
        # every layout shift not caused by the reader (Chromium's Layout Instability API), added up as CLS
        self.page.add_init_script("""window.__mwmShift = 0; new PerformanceObserver(list => { for (const e of list.getEntries())
            if (!e.hadRecentInput) window.__mwmShift += e.value; }).observe({type: "layout-shift", buffered: true});""")
        self.page.goto(f"{base}/{path}", wait_until="load")
        self.page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")

    def layout_shift(self) -> float:
        """The page's cumulative layout shift so far (0 = nothing moved by itself; "good" is below 0.1)."""
        return self.page.evaluate("""async () => { await document.fonts.ready;   // the fonts' arrival is when text moved
            await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done))); return window.__mwmShift; }""")

    def _count(self, event):
        self.transferred += event["encodedDataLength"]

    def _route(self, base):
        def handle(route):
            if route.request.url.startswith(base):
                route.continue_()
            else:
                self.problems.append(f"blocked foreign request: {route.request.url}")
                route.abort()
        return handle

    def close(self):
        self.context.close()


def chapter_panels(page):
    """The page's "Try" panels as (index, locator) pairs; a chapter page has at least one."""
    panels = page.locator(".mwm-try")
    assert panels.count() >= 1, "a chapter has at least one Try panel"
    return [(n, panels.nth(n)) for n in range(panels.count())]


def every_panel_moves(page):
    """Move one control of every "Try" panel on ``page``: each figure must change without a kernel.

    Run on each chapter's one visit by tests/test_site_readers.py.
    """
    for _n, panel in chapter_panels(page):
        figure = panel.locator("img.mwm-try-figure")
        before = figure.get_attribute("src")
        _move_a_control(panel)
        # the new picture is fetched first, then shown: wait for it (a timeout fails the test)
        page.wait_for_function("([img, before]) => img.getAttribute('src') !== before && img.complete",
                               arg=[figure.element_handle(), before], timeout=10000)


def _move_a_control(panel):
    """Move the first control that has another setting; the figure must follow."""
    for control in panel.locator(".mwm-try-control").all():
        if control.locator("input[type=range]").count():
            slider = control.locator("input[type=range]")
            top = int(slider.get_attribute("max"))
            value = int(slider.input_value())
            slider.fill(str(top if value != top else 0))
            return
        if control.locator("select").count():
            select = control.locator("select")
            options = select.locator("option").all()
            current = select.input_value()
            other = next(o.get_attribute("value") for o in options if o.get_attribute("value") != current)
            select.select_option(other)
            return
        if control.locator("input[type=checkbox]").count():
            control.locator("input[type=checkbox]").click()
            return
        buttons = control.locator("button").all()
        off = [b for b in buttons if "mwm-on" not in (b.get_attribute("class") or "")]
        if off:
            off[0].click()
            return
    raise AssertionError("the panel has no control to move")


@pytest.mark.parametrize("query,target", [("forget gate", "chapters/09-the-lstm"),
                                          ("bag of words", "chapters/01-why-order-matters")])
def test_search_finds_the_chapter(browser, server, query, target):
    if target not in PAGES:
        pytest.skip(f"{target} is not in the book yet")
    visit = Visit(browser, server, f"search.html?q={query.replace(' ', '+')}")
    page = visit.page
    try:
        link = page.locator(f'#search-results a[href*="{Path(target).name}.html"]').first
        link.wait_for(timeout=15000)
        # the results page fetches every result for its snippet; leaving before those
        # fetches end would abort them (and count as failed requests)
        page.wait_for_load_state("networkidle")
        link.click()
        page.wait_for_load_state("load")
        assert page.url.split("?")[0].split("#")[0].endswith(f"{target}.html")
        assert not visit.problems, visit.problems
    finally:
        visit.close()


def test_each_chapter_offers_its_notebook(site):
    for doc in CHAPTERS:
        html = (site / f"{doc}.html").read_text(encoding="utf-8")
        name = f"{Path(doc).name}.ipynb"
        assert "Run it locally" in html and "_downloads/" in html and name in html, doc
        downloads = list((site / "_downloads").rglob(name))
        assert downloads and downloads[0].stat().st_size > 1000, doc
