"""Every page of the website as readers meet it, in a real browser.

One visit per page (the site of ``conftest.site``, served and opened as in tests/test_site.py,
every request that is not to the local server blocked), read by each test of this file in
turn: offline, with its maths rendered and its pictures loaded (a screenshot of each chapter's first screen, in
``test-artifacts/screenshots/``); then axe-core (``node_modules``, installed by
``make test`` with npm), formulas, tables and pictures at desktop and phone widths (a picture's smallest
text at least 10 px on screen; wider than the column only in a box that scrolls), the weight of a first
load (the local server compresses text with gzip, as static hosts do), the Tab order, dark mode
and print; last, back at the desktop width on screen, every "Try" panel of a chapter is moved
(tests/test_site.py's :func:`every_panel_moves`) and taken through its chapter's instructions
(tests/test_site_panels.py's :func:`panels_follow_their_tours`). Kept apart from
tests/test_site.py so that the two files run side by side in pytest-xdist's workers once the
site is built; the practice pages are read in tests/test_site_practice_pages.py, with the same
visit and checks.
"""
import os
from pathlib import Path

import pytest

from tests.test_site import (ARTIFACTS, CHAPTERS, PAGES, ROOT, Visit, browser,  # noqa: F401  (fixtures used by name)
                             every_panel_moves, server)
from tests.test_site_panels import panels_follow_their_tours

# --- as readers meet it: accessibility, widths, weight, dark mode, print (every page) ---

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"   # from package-lock.json; `make test` runs npm ci
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
DESKTOP, PHONE = (1366, 900), (390, 844)
MAX_BYTES = 2_000_000   # transferred on first load, cache off

# Every display formula and table of the article wider than the article's content column.
# At the phone width, one inside a box that scrolls sideways, can be reached by Tab and shows a
# cue (its hidden edge fades out: a gradient mask) is allowed; the list names the others.
_TOO_WIDE = """(phone) => {
  const column = document.querySelector('article.bd-article');
  const cs = getComputedStyle(column);
  const width = column.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const scroller = (e) => {
    for (let p = e.parentElement; p && p !== column; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (['auto', 'scroll'].includes(s.overflowX) && p.scrollWidth > p.clientWidth) return p;
    }
    return null;
  };
  const bad = [];
  for (const e of column.querySelectorAll('mjx-container[display="true"], table, img')) {
    if (e.tagName !== 'TABLE' && e.closest('table')) continue;
    const inner = e.tagName === 'TABLE' ? e : (e.querySelector('mjx-math') || e);
    const w = inner.getBoundingClientRect().width;
    if (w <= width + 1) continue;
    const box = scroller(e);
    const fine = phone && box && box.getBoundingClientRect().width <= width + 1 && box.tabIndex >= 0
                 && getComputedStyle(box).maskImage.includes('gradient');
    if (!fine) bad.push(`${e.tagName.toLowerCase()} ${Math.round(w)} px > ${Math.round(width)} px` +
                        (box ? ' (its box lacks Tab access or a cue)' : ' (no scrolling box)') +
                        `: "${(e.alt || e.textContent || '').trim().slice(0, 50)}"`);
  }
  return bad;
}"""

#: Every picture the page shows in its article (plots, diagrams, "Try" panels) keeps its smallest text
#: 10 CSS pixels tall or more: the build writes each picture's width and smallest text (in the picture's
#: own units, data-picture-width and data-smallest-text); shown w pixels wide, that text is
#: smallest * w / width pixels tall. A picture without them fails: its text size is unknown.
_SMALL_TEXT = """() => {
  const bad = [];
  for (const img of document.querySelectorAll('article.bd-article img')) {
    const shown = img.getBoundingClientRect().width;
    if (!shown) continue;   // folded away: not on screen
    const name = (img.getAttribute('src') || '').split('/').pop().slice(0, 30);
    const width = parseFloat(img.dataset.pictureWidth), smallest = parseFloat(img.dataset.smallestText);
    if (!(width > 0 && smallest > 0)) { bad.push(`${name}: no size of its smallest text`); continue; }
    const px = smallest * shown / width;
    if (px < 10 - 1e-6) bad.push(`${name}: smallest text ${px.toFixed(1)} px on screen`);
  }
  return bad;
}"""


def _axe_violations(page, rules=None):
    """axe-core's WCAG 2.1 A/AA violations on the page (or those of the named ``rules`` alone),
    one line each: rule, impact, how many elements, the first targets."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": AXE_TAGS}
    found = page.evaluate("""async (only) => {
        const r = await axe.run(document, {runOnly: only, resultTypes: ['violations']});
        return r.violations.map(v => `${v.id} (${v.impact}, ${v.nodes.length}): ` +
                                     v.nodes.slice(0, 5).map(n => n.target.join(' ')).join(' | '));
    }""", only)
    return found


def _axe_missing():
    """Why axe-core cannot run (None when it can); its absence fails under MWM_REQUIRE_BROWSER=1."""
    if AXE.is_file():
        return None
    message = "axe-core is not installed (npm ci --no-audit --no-fund, as make test does)"
    if os.environ.get("MWM_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    return message


@pytest.fixture(scope="module")
def opened(request, browser, server):  # noqa: F811
    """(page name, :class:`Visit`) of the page ``request.param``, opened once at the desktop width
    for every test of this file that reads it (pytest runs them one after another, in file order)."""
    visit = Visit(browser, server, f"{request.param}.html", viewport=DESKTOP, weigh=True)
    yield request.param, visit
    visit.close()


@pytest.mark.parametrize("opened", PAGES, indirect=True)
def test_page_is_clean_offline(opened):
    doc, visit = opened
    page = visit.page
    raw = page.evaluate("""() => {
        const art = document.querySelector('article') || document.body;
        const copy = art.cloneNode(true);
        copy.querySelectorAll('pre, code, script, style, mjx-container, .mwm-try').forEach(e => e.remove());
        return copy.innerText;
    }""")
    assert "$" not in raw and "\\(" not in raw, "maths left unrendered"
    source = next(path for path in (ROOT / f"{doc}.md", ROOT / f"{doc}.ipynb") if path.is_file())
    if "$" in source.read_text(encoding="utf-8"):      # a page with maths (the intro and "How we checked" may have none)
        assert page.locator("mjx-container").count() > 0, "MathJax rendered nothing"
    broken = page.evaluate("() => [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80))")
    assert not broken, f"images that did not load: {broken}"
    assert page.locator("text=Loading widget").count() == 0
    shift = visit.layout_shift()
    assert shift < 0.1, f"the page moved by itself while loading: cumulative layout shift {shift:.3f}"
    assert page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count() == 0
    if doc.startswith("chapters/"):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        # for a person reading the run's artifacts: the chapter's first screen as JPEG (a whole chapter costs
        # Chromium 15 times as long, and the checks here read the whole page anyway)
        page.screenshot(path=str(ARTIFACTS / f"{Path(doc).name}.jpg"), type="jpeg", quality=80)
    assert not visit.problems, visit.problems


@pytest.mark.parametrize("opened", PAGES, indirect=True)
def test_page_as_readers_meet_it(opened):
    as_readers_meet_it(opened)


def as_readers_meet_it(opened):
    """The page's one visit (desktop, then resized to a phone): axe, widths, picture text, weight, Tab order, dark mode, print.

    Runs after the page's first tests and before its panels are moved, on the same visit. Without axe-core (no npm) the other
    checks still run, and the test then skips with a message.
    """
    doc, visit = opened
    no_axe = _axe_missing()
    page = visit.page
    failures = []
    page.wait_for_timeout(100)   # the site's script marks wide formulas once MathJax is done
    failures += [f"desktop: {w}" for w in page.evaluate(_TOO_WIDE, False)]
    failures += [f"desktop: {w}" for w in page.evaluate(_SMALL_TEXT)]
    if not no_axe:
        failures += [f"axe: {v}" for v in _axe_violations(page)]
    focusable = page.evaluate("() => [...document.querySelectorAll('mjx-container')].filter(e => e.tabIndex >= 0).length")
    if focusable:
        failures.append(f"{focusable} formulas are Tab stops")
    if visit.transferred > MAX_BYTES:
        failures.append(f"page weight {visit.transferred / 1e6:.2f} MB transferred > {MAX_BYTES / 1e6:.0f} MB")

    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    page.wait_for_timeout(400)   # the theme's and the site's resize handlers wait 200-300 ms
    failures += [f"phone: {w}" for w in page.evaluate(_TOO_WIDE, True)]
    failures += [f"phone: {w}" for w in page.evaluate(_SMALL_TEXT)]
    if not no_axe:   # what the phone layout changes: boxes that now scroll must be reachable by keyboard
        failures += [f"phone axe: {v}" for v in _axe_violations(page, ["scrollable-region-focusable"])]

    page.emulate_media(color_scheme="dark")
    try:
        page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'", timeout=3000)
    except Exception:   # playwright's TimeoutError
        failures.append(f"dark system, page theme {page.evaluate('() => document.documentElement.dataset.theme')!r}")

    page.emulate_media(media="print", color_scheme="light")
    printed = page.evaluate("""async () => {
        // content-visibility (how a closed fold hides its content) changes at the next rendering
        await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
        const shown = (e) => e.checkVisibility({contentVisibilityAuto: true, opacityProperty: true, visibilityProperty: true});
        const folded = [...document.querySelectorAll('article details > :not(summary)')].filter(e => !shown(e));
        const controls = [...document.querySelectorAll('.mwm-try-controls, .mwm-try input, .mwm-try button, .mwm-try select')].filter(shown);
        const nav = [...document.querySelectorAll('.bd-sidebar-primary, .bd-sidebar-secondary, .bd-header')].filter(shown);
        const code = [...document.querySelectorAll('article pre')].filter(e => !getComputedStyle(e).whiteSpace.startsWith('pre-wrap'));
        return {folded: folded.length, controls: controls.length, nav: nav.length, code: code.length};
    }""")
    for what, n in printed.items():
        if n:
            failures.append(f"print: {n} {dict(folded='folded contents stay hidden', controls='panel controls print', nav='navigation parts print', code='code blocks do not wrap')[what]}")
    failures += visit.problems
    assert not failures, f"{doc}:\n  " + "\n  ".join(failures)
    if no_axe:
        pytest.skip(no_axe)


def _back_on_screen(page):
    """The visit as a desktop reader has it again: desktop width, screen media, light scheme."""
    page.emulate_media(media="screen", color_scheme="light")
    page.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})


@pytest.mark.parametrize("opened", CHAPTERS, indirect=True)
def test_every_panel_moves_without_a_kernel(opened):
    _doc, visit = opened
    _back_on_screen(visit.page)
    every_panel_moves(visit.page)
    assert not visit.problems, visit.problems


@pytest.mark.parametrize("opened", CHAPTERS, indirect=True)
def test_panels_do_what_their_chapter_says_in_its_order(opened):
    _doc, visit = opened
    _back_on_screen(visit.page)
    panels_follow_their_tours(visit.page)
    assert not visit.problems, visit.problems
