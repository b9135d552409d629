"""The practice pages of the website as readers meet them, in a real browser.

Each practice page is visited once (tests/test_site_readers.py's ``opened``): its maths is
rendered and its worked solution stays folded until asked for (and folds again); then the
checks every page of the site meets (:func:`tests.test_site_readers.as_readers_meet_it`:
axe-core, widths, weight, Tab order, dark mode, print). A file of its own so that
pytest-xdist can read these pages beside the chapters.
"""
import pytest

from tests.test_site import PRACTICE, browser, server  # noqa: F401  (fixtures used by name)
from tests.test_site_readers import as_readers_meet_it, opened  # noqa: F401  (fixture used by name)


@pytest.mark.parametrize("opened", PRACTICE, indirect=True)
def test_practice_page_renders_and_folds_its_solution(opened):  # noqa: F811
    _doc, visit = opened
    page = visit.page
    assert page.locator("mjx-container").count() > 0, "MathJax rendered nothing"
    assert page.locator("mjx-merror").count() == 0, "a formula MathJax could not read"
    raw = page.evaluate("() => document.querySelector('article').innerText")
    assert "$" not in raw, "maths left unrendered"
    shift = visit.layout_shift()
    assert shift < 0.1, f"the page moved by itself while loading: cumulative layout shift {shift:.3f}"
    dropdown = page.locator("details.sd-dropdown")
    assert dropdown.count() == 1 and dropdown.get_attribute("open") is None, "the solution starts folded"
    assert not dropdown.locator(".sd-summary-content").is_visible()
    dropdown.locator("summary").click()
    assert dropdown.locator(".sd-summary-content").is_visible()
    dropdown.locator("summary").click()   # folded again, as the page's next test reads it
    assert dropdown.get_attribute("open") is None
    assert page.locator('a[href*="_downloads/"][href$="practice.ipynb"]').count() >= 1
    assert not visit.problems, visit.problems


@pytest.mark.parametrize("opened", PRACTICE, indirect=True)
def test_practice_page_as_readers_meet_it(opened):  # noqa: F811
    as_readers_meet_it(opened)
