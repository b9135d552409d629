"""Every "Try" panel on the website does what its chapter's text says, in the text's order.

:func:`panels_follow_their_tours` reads, for every panel of a chapter page, the panel's tour
(``tour`` in the panel's builder: the chapter's instructions, carried in the page's panel
data), then replays it from the panel's start as a reader would, step after step, in the order
the chapter makes the moves: sliders one notch at a time with the arrow keys, buttons and check
boxes with a click, menus by choosing an option. On the way no other control may jump back (the
build draws every setting a tour passes through); after each step the readings must show what
the text says, the picture must have changed, and its alt text be what
:func:`mwm.widgets.static.alt_text` gives (what the picture shows, then the settings). The
pictures must be files of their own: no ``data:`` URI is left in a panel, and each picture shown
has loaded. tests/test_site_readers.py runs it on each chapter's one visit; the tests here check
what a panel says when a control leaves the drawn settings or does nothing.

Uses the session-wide built ``site`` and the server, browser and :class:`Visit` helpers of
``tests/test_site.py``.
"""
import contextlib
import json
import re

from mwm.widgets.static import _plain, alt_text, idle_controls
from tests.test_site import CHAPTERS, Visit, browser, chapter_panels, server  # noqa: F401  (fixtures used by name)


def _panel_data(panel):
    return json.loads(panel.locator("script.mwm-try-data").text_content())


def _index(panel, listed):
    """The option index each listed control shows now."""
    out = []
    for k, c in enumerate(listed):
        box = panel.locator(f'.mwm-try-control[data-k="{k}"]')
        if c["kind"] == "range":
            out.append(int(box.locator("input").input_value()))
        elif c["kind"] == "select":
            out.append(int(box.locator("select").input_value()))
        elif c["kind"] == "checkbox":
            out.append(1 if box.locator("input").is_checked() else 0)
        else:
            pressed = [b.get_attribute("aria-pressed") for b in box.locator("button").all()]
            assert pressed.count("true") == 1, f"{c['name']}: one button pressed, got {pressed}"
            out.append(pressed.index("true"))
    return out


def _set(panel, listed, k, target):
    """Move control k to option ``target`` as a reader would; sliders by arrow keys."""
    c = listed[k]
    box = panel.locator(f'.mwm-try-control[data-k="{k}"]')
    if c["kind"] == "range":
        slider = box.locator("input")
        for _ in range(len(c["options"])):
            now = int(slider.input_value())
            if now == target:
                break
            slider.focus()
            slider.press("ArrowRight" if target > now else "ArrowLeft")
        assert int(slider.input_value()) == target, f"{c['name']}: the slider did not reach {c['options'][target]}"
        assert slider.get_attribute("aria-valuetext") == c["options"][target]
    elif c["kind"] == "select":
        box.locator("select").select_option(str(target))
    elif c["kind"] == "checkbox":
        if _index(panel, listed)[k] != target:
            box.locator("input").click()
    else:
        button = box.locator("button").nth(target)
        button.click()
        assert button.get_attribute("aria-pressed") == "true"


def _shows_state(panel, data, key):
    """Wait until the panel's picture is the one drawn for state ``key``, loaded from its file."""
    src = data["images"][data["states"][key][0]]
    assert not src.startswith("data:") and "_static/panels/" in src, src[:60]
    panel.locator("img.mwm-try-figure").evaluate(
        "(img, src) => new Promise((ok, no) => { const t = Date.now(); (function wait() {"
        " if (img.getAttribute('src') === src && img.complete && img.naturalWidth > 0) { ok(true); }"
        " else if (Date.now() - t > 10000) { no(new Error('picture ' + src + ' not shown')); }"
        " else { setTimeout(wait, 20); } })(); })", src)


def _picture_loaded(panel):
    return panel.locator("img.mwm-try-figure").evaluate(
        "img => new Promise(ok => img.complete ? ok(img.naturalWidth > 0) : (img.onload = () => ok(img.naturalWidth > 0),"
        " img.onerror = () => ok(false)))")


#: The most a screen reader hears after one move: the control, its value and what changed, in at most
#: 140 characters (the script's SPOKEN), and "; and more below the picture." when parts were left out.
SPOKEN_MAX = 140 + len("; and more below the picture.")


def _hears_a_short_line(panel, where):
    """After a move, the panel's live region says it in one short line of words, not the whole readings."""
    spoken = panel.locator(".mwm-try-spoken").text_content()
    assert 0 < len(spoken) <= SPOKEN_MAX and spoken.endswith("."), f"{where}: a screen reader hears {spoken!r}"
    assert not re.search(r"\d\.\d*0\b|[*_]|->|\.\.$", spoken), f"{where}: not spoken maths: {spoken!r}"
    assert panel.locator("[aria-live]").count() == 1, f"{where}: more than the one live region"


def _back_to_start(panel, listed, start):
    """Move the controls back to the panel's start, one at a time (a move may send others back; a few rounds)."""
    for _ in range(3):
        for k in range(len(listed)):
            if _index(panel, listed)[k] != start[k]:
                _set(panel, listed, k, start[k])
        if _index(panel, listed) == start:
            return
    raise AssertionError(f"the controls did not get back to the start: {_index(panel, listed)} != {start}")


def panels_follow_their_tours(page):
    """Every panel of ``page`` follows its tour (the chapter's instructions, in the text's order) as a reader would.

    From the panel's start, each step's moves are made with the page's controls in the order the text
    makes them; no other control may jump back on the way, each stated reading must then show, the
    picture must be the one drawn for that setting, and a step that moves a control must change the
    picture (unless the step says only the readings change). Run on each chapter's one visit by
    tests/test_site_readers.py.
    """
    for n, panel in chapter_panels(page):
        assert "data:image" not in panel.inner_html(), f"panel {n + 1}: a picture left inside the page"
        data = _panel_data(panel)
        listed = [c for c in data["controls"] if c["kind"] != "fixed"]
        start = [c["start"] for c in listed]
        img = panel.locator("img.mwm-try-figure")
        assert _picture_loaded(panel), f"panel {n + 1}: the picture did not load"
        now = ",".join(map(str, _index(panel, listed)))   # where the visit's earlier moves left the panel
        assert img.get_attribute("alt") == alt_text(data, now), f"panel {n + 1}: the alt text is not alt_text's"
        assert data["tour"], f"panel {n + 1} ({data['title']}): its chapter gives it no tour"
        _back_to_start(panel, listed, start)
        for m, step in enumerate(data["tour"]):
            where = f"panel {n + 1} ({data['title']}), step {m + 1}: {step['says']}"
            assert ",".join(map(str, _index(panel, listed))) == step["from"], where
            target = [int(x) for x in step["key"].split(",")]
            for k in step["order"]:              # in the order the chapter makes the moves
                if target[k] != _index(panel, listed)[k]:
                    _set(panel, listed, k, target[k])
                    assert panel.locator(".mwm-try-status").text_content() == "", \
                        f"{where}: a control jumped back: {panel.locator('.mwm-try-status').text_content()}"
                    _hears_a_short_line(panel, where)
            assert _index(panel, listed) == target, where
            _shows_state(panel, data, step["key"])
            if step["key"] != step["from"] and not step["same_picture"]:
                assert data["states"][step["key"]][0] != data["states"][step["from"]][0], f"{where}: the picture did not change"
            idle = [k for k in range(len(listed))
                    if panel.locator(f'.mwm-try-control[data-k="{k}"].mwm-try-idle .mwm-try-idle-note').count()]
            assert idle == idle_controls(data, target), f"{where}: the controls said to do nothing here are {idle}"
            readings = _plain(panel.locator(".mwm-try-readings").inner_html())
            assert img.get_attribute("alt") == alt_text(data, step["key"]), f"{where}: the page's alt text is not alt_text's"
            for expected in step["expect"]:
                assert expected in readings, f"{where}: {expected!r} not in the readings {readings!r}"


@contextlib.contextmanager
def _first_panel(browser, server, chapter: str):  # noqa: F811
    """The first "Try" panel of the chapter whose page name starts with ``chapter`` ("02-"), on a visit of its own:
    yields (panel, its data, its listed controls, their names); the visit must end without a page problem."""
    doc = next(d for d in CHAPTERS if d.startswith(f"chapters/{chapter}"))
    visit = Visit(browser, server, f"{doc}.html")
    try:
        panel = visit.page.locator(".mwm-try").first
        data = _panel_data(panel)
        listed = [c for c in data["controls"] if c["kind"] != "fixed"]
        yield panel, data, listed, [c["name"] for c in listed]
        assert not visit.problems, visit.problems
    finally:
        visit.close()


def test_a_panel_says_when_a_control_moved_the_others_back(browser, server):  # noqa: F811
    with _first_panel(browser, server, "02-") as (panel, data, listed, names):
        target = [int(x) for x in next(t["key"] for t in data["tour"] if "*keep old w* up to 1" in t["says"]).split(",")]
        for k in range(len(listed)):
            if target[k] != listed[k]["start"]:
                _set(panel, listed, k, target[k])
        u = names.index("u")
        slider = panel.locator(f'.mwm-try-control[data-k="{u}"] input')
        slider.focus()
        slider.press("End")                   # u at its top with w = 1 and three steps: not drawn
        status = panel.locator(".mwm-try-status")
        assert "went back to" in status.text_content() and status.is_visible()
        index = _index(panel, listed)
        assert index[u] == len(listed[u]["options"]) - 1 and ",".join(map(str, index)) in data["states"]
        _shows_state(panel, data, ",".join(map(str, index)))
        label = {c["name"]: c["label"] for c in listed}
        went = [c["label"] for c, was, now in zip(listed, target, index) if was != now and c["name"] != "u"]
        assert f"{label['w']} went back to" in status.text_content() and went, status.text_content()
        assert all(f"{name} went back to" in status.text_content() for name in went), status.text_content()
        slider.press("ArrowLeft")             # another move of u: what went back is still said
        assert all(f"{name} went back to" in status.text_content() for name in went), status.text_content()
        w = names.index("w")
        _set(panel, listed, w, _index(panel, listed)[w] + 1)   # moving w: the panel stops saying w went back
        now = status.text_content()
        assert f"{label['w']} went back to" not in now, now
        assert all(f"{name} went back to" in now for name in went if name != label["w"]), now


def test_a_control_that_does_nothing_here_says_so(browser, server):  # noqa: F811
    """Chapter 5's seed while the model talks greedily: beside it, "(no effect in this setting)", as idle_controls
    computes from the panel's data; pressing "sample" gives it an effect, and the note goes."""
    with _first_panel(browser, server, "05-") as (panel, data, listed, names):
        seed, mode = names.index("seed"), names.index("mode")

        def idle_on_page():
            return [k for k in range(len(listed))
                    if panel.locator(f'.mwm-try-control[data-k="{k}"].mwm-try-idle .mwm-try-idle-note').count()]

        assert listed[mode]["options"][_index(panel, listed)[mode]] == "greedy"
        assert idle_on_page() == idle_controls(data, _index(panel, listed)) == [seed]
        note = panel.locator(f'.mwm-try-control[data-k="{seed}"] .mwm-try-idle-note')
        assert note.text_content() == "(no effect in this setting)" and note.is_visible()
        slider = panel.locator(f'.mwm-try-control[data-k="{seed}"] input')
        assert slider.get_attribute("aria-describedby") == note.get_attribute("id")   # a screen reader hears it
        _set(panel, listed, mode, listed[mode]["options"].index("sample"))
        assert idle_on_page() == idle_controls(data, _index(panel, listed)) == []
        assert slider.get_attribute("aria-describedby") is None
