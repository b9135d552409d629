"""A kernel-free twin of a "Try" panel, for the website.

On the website no Python runs, so a live widget cannot redraw. Instead, while the book
is being built, each panel draws the figure for every setting of its controls, and
this module writes them into one self-contained piece of HTML: plain HTML controls
(sliders, buttons, menus, check boxes), an ``<img>``, the readings, and a few lines of
browser-side JavaScript that show the precomputed figure for the current setting.
No widget manager, no network, no kernel.

Which settings are drawn:

* every combination of the controls' values when there are at most ``MAX_STATES``;
* otherwise "one control at a time": each control's values with every other control
  at its starting value;
* in both cases, every setting the chapter's instructions go through (the panel's ``tour``),
  with the combinations on the way to each step, so the reader can set its controls in any order (and
  in the order the chapter's text sets them, every notch of a slider, so no arrow key on that
  way skips a value); and every combination of each group of
  controls the panel's lesson combines (its ``combined``, e.g. chapter 2's w with the steps).

On the page, moving a control keeps the others when that combination was drawn; a
one-notch slider move into a combination that was not drawn goes on to the next drawn
option and says which it passed; otherwise the other controls move back (to the drawn
setting that keeps most of them) and the panel says so next to the controls (:func:`move`),
until the reader moves a control that went back. In Jupyter they combine freely.

Each picture is a ``data:`` URI in the notebook's output, so the output is
self-contained; the website build (``_ext/course_pages.py``) moves every one into a
file of its own, which the browser fetches only when a control needs it.

A control whose values cannot be listed (a free-text box) keeps its starting value on
the website, and the panel says how to run it live.

The book build turns this on by setting the environment variable ``MWM_STATIC_PANELS=1``
(see the Makefile); the committed notebooks do not carry it. For a chapter committed
executed, ``scripts/book/book_cache.py`` adds :func:`static_html` of the panel's builder to the
panel's committed display, which is what the display would carry in a run.

Drawing every setting is the slow part of the book build, so it is done cheaply: each
figure geometry is laid out once (:func:`mwm.widgets.drawing.same_layout`), a figure is
rendered straight to a 256-colour lossless WebP (no intermediate PNG), settings that draw the same
figure are drawn once, and the settings are shared among ``MWM_PANEL_WORKERS`` forked
processes (default: the cores this process may use; ``1`` draws them in this process).
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import itertools
import json
import math
import multiprocessing
import os
import re
import sys

import ipywidgets as widgets
import numpy as np


#: Environment variable that makes panels add their static twin to their display.
STATIC_ENV = "MWM_STATIC_PANELS"
#: Largest number of settings drawn as a full grid.
MAX_STATES = 64
#: Environment variable: how many processes draw a panel's settings (default: the usable cores).
WORKERS_ENV = "MWM_PANEL_WORKERS"


def static_enabled() -> bool:
    """True when panels should carry their static twin (the website build)."""
    return os.environ.get(STATIC_ENV, "") not in ("", "0")


def control_options(control: widgets.ValueWidget):
    """The values a control can take, as (kind, values, labels), or None if they cannot be listed.

    kind is "range" (sliders), "toggle" (toggle buttons), "select" (dropdowns) or
    "checkbox". Float sliders are listed on their step grid.
    """
    if isinstance(control, widgets.Checkbox):
        return "checkbox", [False, True], ["off", "on"]
    if isinstance(control, (widgets.ToggleButtons, widgets.Dropdown, widgets.SelectionSlider,
                            widgets.RadioButtons)):
        kind = "toggle" if isinstance(control, (widgets.ToggleButtons, widgets.RadioButtons)) else (
            "range" if isinstance(control, widgets.SelectionSlider) else "select")
        return kind, list(control._options_values), [str(x) for x in control._options_labels]
    if isinstance(control, widgets.IntSlider):
        values = list(range(control.min, control.max + 1, control.step))
        return "range", values, [str(v) for v in values]
    if isinstance(control, widgets.FloatSlider):
        n = int(round((control.max - control.min) / control.step))
        decimals = max(0, int(np.ceil(-np.log10(control.step))) + 1)
        values = [round(control.min + i * control.step, decimals) for i in range(n + 1)]
        return "range", values, [f"{v:g}" for v in values]
    return None


def _closest(values, value):
    if value in values:
        return values.index(value)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return int(np.argmin([abs(v - value) for v in values]))
    raise ValueError(f"the control's value {value!r} is not among its options {values}")


#: One Agg renderer per picture size (pixels wide, high, dpi), re-used by every figure
#: :func:`_small_picture` draws in this process (see there). A forked drawing process starts
#: without them, as matplotlib's own font cache does: a renderer's fonts read their files
#: through descriptors the fork would share with the parent.
_RENDERERS: dict = {}
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_RENDERERS.clear)


#: The smallest text size, in points, the last :func:`_small_picture` drew in this process (None: none drawn yet).
_LAST_SMALLEST_PT: float | None = None


def _measuring_renderer(width: int, height: int, dpi: float):
    """An Agg renderer that also remembers the smallest text it drew since it was last cleared, in points.

    Every text matplotlib draws goes through ``draw_text`` (plain text and mathtext alike), so the
    size read there is the size drawn: tick labels outside the axes' limits, hidden labels and
    empty strings are not counted.
    """
    from matplotlib.backends.backend_agg import RendererAgg

    class MeasuringRendererAgg(RendererAgg):
        smallest_pt = None

        def clear(self):
            super().clear()
            self.smallest_pt = None

        def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
            if s.strip():
                size = prop.get_size_in_points()
                self.smallest_pt = size if self.smallest_pt is None else min(self.smallest_pt, size)
            return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)

    return MeasuringRendererAgg(width, height, dpi)


#: The format of the website's panel pictures: lossless WebP of the 256-colour picture. On these
#: plots it is about half the bytes of the same picture as an optimised PNG, and every browser
#: the site supports shows it.
PICTURE_MIME = "image/webp"


def _small_picture(fig) -> bytes:
    """Render a figure at the panels' DPI straight to a 256-colour lossless WebP picture.

    Every figure of one size is drawn with the same Agg renderer, cleared before each
    drawing: matplotlib keeps its text measurements and typeset formulas per renderer, so a
    panel's later settings re-use what its first one measured (a fifth less time, the same
    bytes). The palette comes from PIL's fast octree quantizer: on these plots (flat colours,
    anti-aliased lines and text) it is ten times faster than median cut and its files are
    smaller. The picture is encoded once, here, in the drawing processes, and is the file the
    website serves. WebP's method 3 (of 0-6): on the panels' pictures a third quicker to encode
    than PIL's default 4, and 1% smaller.
    """
    global _LAST_SMALLEST_PT
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    from .panel import DPI

    fig.set_dpi(DPI)
    canvas = FigureCanvasAgg(fig)
    width, height = canvas.get_width_height(physical=True)
    key = (width, height, fig.dpi)
    if key not in _RENDERERS:
        _RENDERERS[key] = _measuring_renderer(width, height, fig.dpi)
    # FigureCanvasAgg.get_renderer() keeps a renderer made for this key: hand it the shared one
    canvas.renderer, canvas._lastKey = _RENDERERS[key], key
    canvas.draw()
    _LAST_SMALLEST_PT = canvas.renderer.smallest_pt
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    image = image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    image.save(out, format="WEBP", lossless=True, quality=50, method=3)
    return out.getvalue()


def panel_workers(n_settings: int) -> int:
    """How many processes draw ``n_settings`` settings: ``MWM_PANEL_WORKERS`` or the usable cores, at most one per 4 settings.

    Raises:
        ValueError: if ``MWM_PANEL_WORKERS`` is set to something other than a whole number >= 1.
    """
    raw = os.environ.get(WORKERS_ENV, "")
    if raw:
        if not raw.isdigit() or int(raw) < 1:
            raise ValueError(f"{WORKERS_ENV} must be a whole number >= 1, got {raw!r}")
        wanted = int(raw)
    else:
        wanted = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(wanted, n_settings // 4))


#: The panel whose settings forked workers draw (set just before the fork, read by the children).
_PANEL = None


def _draw_one(values: dict) -> tuple[str, str, tuple]:
    """(base64 picture, readings, (picture width in pixels, smallest text drawn in points or None)) of one setting."""
    global _LAST_SMALLEST_PT
    from .panel import DPI

    fig, text = _PANEL._draw(values)
    _LAST_SMALLEST_PT = None
    picture = base64.b64encode(_small_picture(fig)).decode("ascii")
    return picture, text, (round(fig.get_figwidth() * DPI), _LAST_SMALLEST_PT)


def _draw_all(panel, all_values: list[dict]) -> list[tuple[str, str, tuple]]:
    """(base64 picture, readings, (width px, smallest text pt)) for each setting, in order; equal settings are drawn once.

    A panel with a ``picture_key`` draws one setting per key: the others of that key take its
    picture, and their readings from the panel's ``readings_of`` (or the drawn setting's
    readings when it has none). The drawn setting's own readings must be what ``readings_of``
    gives, or the two ways of reading the panel disagree.

    Raises:
        ValueError: if a drawn setting's readings differ from its ``readings_of(values)``.
    """
    global _PANEL
    from .drawing import same_layout

    keys = [json.dumps(v, sort_keys=True, default=repr) for v in all_values]
    unique = list(dict.fromkeys(keys))
    first_of = {k: all_values[keys.index(k)] for k in unique}
    picture_key = getattr(panel, "picture_key", None)
    readings_of = getattr(panel, "readings_of", None)
    shown_by = {k: picture_key(first_of[k]) if picture_key else k for k in unique}   # setting -> its picture's key
    drawn_for = {}   # picture key -> the setting drawn for it (the first with that key)
    for k in unique:
        drawn_for.setdefault(shown_by[k], k)
    to_draw = list(drawn_for.values())
    _PANEL = panel
    try:
        with same_layout():
            drawn = {to_draw[0]: _draw_one(first_of[to_draw[0]])}  # lays out the first geometry before any fork
            rest = to_draw[1:]
            workers = panel_workers(len(rest))
            if workers > 1 and sys.platform.startswith("linux"):  # fork is safe there, not on macOS
                with multiprocessing.get_context("fork").Pool(workers) as pool:
                    results = pool.map(_draw_one, [first_of[k] for k in rest],
                                       chunksize=max(1, len(rest) // (4 * workers)))
            else:
                results = [_draw_one(first_of[k]) for k in rest]
            drawn.update(zip(rest, results))
    finally:
        _PANEL = None
    if readings_of is not None:
        for k in to_draw:
            if readings_of(first_of[k]) != drawn[k][1]:
                raise ValueError(f"{panel.title}: readings_of({first_of[k]!r}) differs from the readings drawn with it")
    for k in unique:
        if k not in drawn:
            picture, text, size = drawn[drawn_for[shown_by[k]]]
            drawn[k] = (picture, readings_of(first_of[k]) if readings_of is not None else text, size)
    return [drawn[k] for k in keys]


def _tour(panel, listed: dict, start: dict) -> list[dict]:
    """The panel's ``tour`` as option indices, one step after another from the panel's start.

    Returns:
        [{"says", "combo" (name -> index, after the step's moves), "from" (the combo before them),
        "order" (the moved controls, in the order the text moves them), "expect", "same_picture" (True for a
        step whose moves change only the readings, e.g. another example in the same bucket)}].

    Raises:
        ValueError: for a step that is not a dict whose "says" is a non-empty string, whose "moves"
            is not a dict, that moves an unknown or unlistable control, gives a value that is not
            among the control's options, or whose ``expect`` is not a list of strings.
    """
    out, now = [], dict(start)
    for n, step in enumerate(getattr(panel, "tour", None) or []):
        if not isinstance(step, dict) or not isinstance(step.get("says"), str) or not step["says"].strip():
            raise ValueError(f"tour[{n}] must be a dict with a non-empty 'says' string, got {step!r}")
        moves = step.get("moves", {})
        expect = step.get("expect", [])
        where = f"tour[{n}] ({step['says'][:40]}...)"
        if not isinstance(moves, dict):
            raise ValueError(f"{where}: moves must be a dict control -> value, got {moves!r}")
        if not isinstance(expect, (list, tuple)) or not all(isinstance(e, str) for e in expect):
            raise ValueError(f"{where}: expect must be a list of strings, got {expect!r}")
        combo = dict(now)
        for control, value in moves.items():
            if control not in listed:
                raise ValueError(f"{where} moves control {control!r}, which is not a listable control of the "
                                 f"panel: {sorted(listed)}")
            options = listed[control]
            if value in options:
                combo[control] = options.index(value)
            elif (isinstance(value, (int, float)) and not isinstance(value, bool)
                  and all(isinstance(v, (int, float)) for v in options)
                  and min(abs(v - value) for v in options) < 1e-9):
                combo[control] = _closest(options, value)
            else:
                raise ValueError(f"{where}: {control}={value!r} is not among the control's options {options}")
        out.append({"says": step["says"], "combo": combo, "from": now, "expect": list(expect),
                    "order": list(moves), "same_picture": bool(step.get("same_picture", False))})
        now = combo
    return out


def _corners(combo: dict, start: dict, sliders=(), order=()) -> list[dict]:
    """Every combination that takes some of ``combo``'s changed controls to their new value, the others as in ``start``.

    These are drawn too, so a reader who makes a tour step's moves (from ``start``, the step
    before) one by one, in any order, never leaves the drawn combinations. For a control named
    in ``sliders`` (moved a notch at a time), every option between its value in ``start`` and
    its new value is drawn too, on the way the chapter's text takes (``order``: the moved
    controls in the order the text moves them; the ones before at their new value, the ones
    after as in ``start``): on that way an arrow key never skips a value.
    """
    changed = [n for n in combo if combo[n] != start[n]]
    out = []
    for r in range(len(changed) + 1):
        for subset in itertools.combinations(changed, r):
            corner = dict(start)
            corner.update({n: combo[n] for n in subset})
            out.append(corner)
    way = [n for n in order if n in changed] + [n for n in changed if n not in order]
    for k, n in enumerate(way):
        if n not in sliders:
            continue
        before = {**start, **{m: combo[m] for m in way[:k]}}
        step = 1 if combo[n] > start[n] else -1
        out += [{**before, n: i} for i in range(start[n] + step, combo[n], step)]
    return out


def _combined(panel, listed: dict, start: dict) -> list[dict]:
    """Every combination of each group in the panel's ``combined``, the other controls at start.

    Raises:
        ValueError: for a group that is not a tuple of names of listable controls.
    """
    out = []
    for n, group in enumerate(getattr(panel, "combined", None) or []):
        if not isinstance(group, (tuple, list)) or not group or any(name not in listed for name in group):
            raise ValueError(f"combined[{n}] must be a tuple of names of the panel's listable controls "
                             f"{sorted(listed)}, got {group!r}")
        for values in itertools.product(*[range(len(listed[name])) for name in group]):
            out.append({**start, **dict(zip(group, values))})
    return out


def state_key(combo: dict, names) -> str:
    """The key of a setting in ``static_states(...)["states"]``: the option indices joined by commas."""
    return ",".join(str(combo[n]) for n in names)


def static_states(panel):
    """List the settings the website shows, and draw each one.

    The settings are every combination when there are at most :data:`MAX_STATES` of them
    ("grid"), otherwise each control's values with the others at their start ("single");
    in both modes also every setting the panel's ``tour`` passes through (the chapter's
    instructions in its order: a list of steps {"says": the instruction, as the chapter
    words it, "moves": {control: value}, "expect": [strings the readings then show]}, each
    step's moves made from where the step before left the controls), with the corners on
    the way to each step (any subset of its moves made, the rest as before it) and every
    notch of a slider it moves. For a panel with a ``picture_key``, a control that does not
    change the picture at a tour step (the tank's hand-set gates while the pre-activations set
    them) is listed there at each of its values: they take the step's picture, drawn once, so
    the page can say the control has no effect there instead of moving the others back.

    Returns:
        dict with "title", "controls" (name, label, kind, option labels, starting index, or
        kind "fixed" for a control that cannot be listed), "mode" ("grid" or "single"),
        "states" (key "i,j,..." of option indices -> [image index, readings index], and, for a panel with a
        ``describe(values) -> str`` saying what its picture shows, the index of that sentence in "alts"),
        "images" (``data:`` URIs of :data:`PICTURE_MIME`, each distinct picture once; the website build moves
        them into files), "readings", "tour" (per step: "says", the state keys "from" and "key",
        expected substrings, "order": the positions of the controls it moves, in the order the
        chapter moves them, and "same_picture") and "picture" ("width": the
        widest picture in pixels; "smallest_pt": the smallest text any picture draws, in points, or None
        when the pictures were not rendered).

    Raises:
        ValueError: for a bad ``tour`` step (see :func:`_tour`).
    """
    names = list(panel.controls)
    listed, start = {}, {}
    controls = []
    for name in names:
        control = panel.controls[name]
        opts = control_options(control)
        label = control.description or name
        if opts is None:
            controls.append({"name": name, "label": label, "kind": "fixed", "value": str(control.value)})
            continue
        kind, values, labels = opts
        listed[name] = values
        start[name] = _closest(values, control.value)
        controls.append({"name": name, "label": label, "kind": kind, "options": labels, "start": start[name]})
    tour = _tour(panel, listed, start)
    sizes = [len(listed[n]) for n in listed]
    grid = int(np.prod(sizes)) if sizes else 1
    mode = "grid" if grid <= MAX_STATES else "single"
    base = panel.values()
    settings = []
    if mode == "grid":
        for combo in itertools.product(*[range(s) for s in sizes]):
            settings.append(dict(zip(listed, combo)))
    else:
        for name in listed:
            for i in range(len(listed[name])):
                combo = dict(start)
                combo[name] = i
                settings.append(combo)
    sliders = {c["name"] for c in controls if c.get("kind") == "range"}
    for step in tour:
        settings += _corners(step["combo"], step["from"], sliders, step["order"])
    settings += _combined(panel, listed, start)

    def values_of(combo):   # a setting's option indices -> the values its drawing gets
        return {**base, **{n: listed[n][i] for n, i in combo.items()}}

    picture_key = getattr(panel, "picture_key", None)
    if picture_key is not None:   # at each tour stop, every value of a control that changes nothing there (its picture)
        for step in tour:
            here = picture_key(values_of(step["combo"]))
            for name in listed:
                others = [{**step["combo"], name: i} for i in range(len(listed[name]))]
                settings += [c for c in others if picture_key(values_of(c)) == here]   # drawn once: no new picture
    unique = {}
    for combo in settings:
        unique.setdefault(state_key(combo, listed), combo)
    settings = list(unique.values())
    if len(settings) == grid:   # the combined groups and the tour came to every combination
        mode = "grid"
    images, readings, states = [], [], {}
    image_index, readings_index = {}, {}
    all_values = [values_of(combo) for combo in settings]
    describe = getattr(panel, "describe", None)
    alts, alt_index = [], {}
    widths, smallest = [], []
    for combo, values, (picture, text, (width, smallest_pt)) in zip(settings, all_values, _draw_all(panel, all_values)):
        uri = f"data:{PICTURE_MIME};base64," + picture
        if uri not in image_index:
            image_index[uri] = len(images)
            images.append(uri)
            widths.append(width)
            if smallest_pt is not None:
                smallest.append(smallest_pt)
        if text not in readings_index:
            readings_index[text] = len(readings)
            readings.append(text)
        states[state_key(combo, listed)] = [image_index[uri], readings_index[text]]
        if describe is not None:   # what the picture shows, in words (its alt text's first part)
            shows = describe(values)
            if not isinstance(shows, str) or not shows.strip():
                raise ValueError(f"{panel.title}: describe({values!r}) must give a sentence, got {shows!r}")
            if shows not in alt_index:
                alt_index[shows] = len(alts)
                alts.append(shows)
            states[state_key(combo, listed)].append(alt_index[shows])
    # "order": the listed controls' positions in the order the chapter sets them (the way drawn notch by notch)
    tour_out = [{"says": s["says"], "from": state_key(s["from"], listed), "key": state_key(s["combo"], listed),
                 "expect": s["expect"], "order": [list(listed).index(n) for n in s["order"]],
                 "same_picture": s["same_picture"]} for s in tour]
    out = {"title": panel.title, "controls": controls, "mode": mode, "states": states, "images": images,
           "readings": readings, "tour": tour_out,
           # the widest picture (pixels) and the smallest text any picture shows (points; None if none was measured)
           "picture": {"width": max(widths), "smallest_pt": min(smallest) if smallest else None}}
    if describe is not None:
        out["alts"] = alts
    return out


def idle_controls(data: dict, index: list[int]) -> list[int]:
    """The listed controls that do nothing at ``index``: what the website's script marks "(no effect in this setting)".

    A control is idle when at least one of its other values is drawn with the other controls as
    they are, and every such value shows the same picture and readings (chapter 5's seed while
    the model talks greedily). This mirrors ``markIdle`` in :data:`_SCRIPT` so that tests can check it.

    Args:
        data: :func:`static_states` output; index: the option index of each listed control.
    Returns:
        The idle controls' positions among the listed controls, in order.
    Raises:
        KeyError: if ``index`` is not a drawn setting.
    """
    listed = [c for c in data["controls"] if c["kind"] != "fixed"]
    here = data["states"][",".join(map(str, index))]
    idle = []
    for j, c in enumerate(listed):
        others = [data["states"].get(",".join(map(str, index[:j] + [i] + index[j + 1:])))
                  for i in range(len(c["options"])) if i != index[j]]
        drawn = [h for h in others if h is not None]
        if drawn and all(h[:2] == here[:2] for h in drawn):
            idle.append(j)
    return idle


def move(data: dict, index: list[int], control: int, i: int, step: bool = False) -> tuple[list[int], list[int]]:
    """What the website's script does when control number ``control`` (among the listed ones) is moved to option ``i``.

    The other controls stay where they are when that combination was drawn. A one-notch
    slider move (``step``) into a combination that was not drawn goes on in the same
    direction to the next option drawn with the others kept. Otherwise the drawn setting
    with that control at ``i`` that keeps the most other controls is shown (ties: the one
    with the most controls at their start): the controls that had to move are reported.
    This mirrors the JavaScript in :data:`_SCRIPT` so that tests can check it.

    Args:
        data: :func:`static_states` output; index: current option index of each listed
            control; control: which listed control moved (its position); i: its new option index; step: a
            one-notch slider move.

    Returns:
        (new index list, positions of the other controls that were moved back).

    Raises:
        ValueError: if ``control`` or ``i`` is out of range.
    """
    k = control
    listed = [c for c in data["controls"] if c["kind"] != "fixed"]
    if not 0 <= k < len(listed):
        raise ValueError(f"control must name one of the {len(listed)} listed controls, got {k}")
    if not 0 <= i < len(listed[k]["options"]):
        raise ValueError(f"i must be an option index of control {listed[k]['name']!r}, got {i}")
    states = data["states"]
    want = list(index)
    want[k] = i
    key = ",".join(map(str, want))
    if key not in states and step and abs(i - index[k]) == 1:
        d = i - index[k]
        j = i + d
        while 0 <= j < len(listed[k]["options"]):
            trial = list(want)
            trial[k] = j
            if ",".join(map(str, trial)) in states:
                want = trial
                break
            j += d
    if ",".join(map(str, want)) in states:
        return want, []
    starts = [c["start"] for c in listed]
    best, best_score = None, None
    for s in states:
        cand = [int(x) for x in s.split(",")]
        if cand[k] != i:
            continue
        score = (sum(cand[j] == want[j] for j in range(len(cand)) if j != k),
                 sum(cand[j] == starts[j] for j in range(len(cand)) if j != k))
        if best_score is None or score > best_score:
            best, best_score = cand, score
    if best is None:   # cannot happen for static_states output: every option is drawn at least once
        raise ValueError(f"option {i} of control {listed[k]['name']!r} was never drawn")
    return best, [j for j in range(len(best)) if j != k and best[j] != want[j]]


_SCRIPT = r"""
(function () {
  var root = document.currentScript.parentElement;
  var data = JSON.parse(root.querySelector("script.mwm-try-data").textContent);
  var listed = data.controls.filter(function (c) { return c.kind !== "fixed"; });
  var index = listed.map(function (c) { return c.start; });
  var starts = index.slice();
  var keys = Object.keys(data.states).map(function (s) { return s.split(",").map(Number); });
  var img = root.querySelector("img.mwm-try-figure");
  var out = root.querySelector(".mwm-try-readings");
  var status = root.querySelector(".mwm-try-status");
  var spoken = root.querySelector(".mwm-try-spoken");
  var setters = [];
  function key(ix) { return ix.join(","); }
  function plain(h) {  // a line break of the readings becomes "; " (textContent would join the lines' words)
    var d = document.createElement("div"); d.innerHTML = h.replace(/<br\s*\/?>/gi, "; ");
    return d.textContent.replace(/\s+/g, " ").trim();
  }
  function alt(hit) {  // as alt_text in Python: what the picture shows, then the settings (the readings follow it on the page)
    var parts = "Settings: " + listed.map(function (c, j) { return c.label + " " + c.options[index[j]]; }).join(", ") + ".";
    if (data.alts) { return data.alts[hit[2]] + " " + parts; }
    return data.title + (/[.?!]$/.test(data.title) ? " " : ". ") + parts + " " + plain(data.readings[hit[1]]);
  }
  // What a screen reader hears after a move: the control's new value and the readings' parts that
  // changed (at most SPOKEN characters), numbers without trailing zeros and signs in words.
  var SPOKEN = 140;
  // The readings' parts: split at ", " and "; " outside brackets. A part "label: value" (a label without "=")
  // names the parts after it up to the next "; "; "x = 1: y = 2" is two parts.
  function parts(t) {
    var out = [], depth = 0, cur = "", label = "";
    function push(end) {
      var p = cur.trim(), colon = -1, d = 0;
      cur = "";
      for (var n = 0; n < p.length; n++) {
        if (p[n] === "(" || p[n] === "[") { d++; } else if (p[n] === ")" || p[n] === "]") { d--; }
        if (d <= 0 && p[n] === ":" && p[n + 1] === " ") { colon = n; break; }
      }
      if (colon >= 0) {
        var head = p.slice(0, colon).trim();
        if (head.indexOf("=") >= 0) { out.push({label: label, text: head}); } else { label = head; }
        p = p.slice(colon + 2).trim();
      }
      if (p) { out.push({label: label, text: p}); }
      if (end === ";") { label = ""; }
    }
    for (var n = 0; n < t.length; n++) {
      var ch = t[n];
      if (ch === "(" || ch === "[") { depth++; } else if (ch === ")" || ch === "]") { depth--; }
      if (depth <= 0 && (ch === ";" || ch === ",") && t[n + 1] === " ") { push(ch); n++; continue; }
      cur += ch;
    }
    push(";");
    return out;
  }
  var SUP = {"\u207b": "minus ", "\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3", "\u2074": "4",
             "\u2075": "5", "\u2076": "6", "\u2077": "7", "\u2078": "8", "\u2079": "9"};
  function say(t) {
    return t.replace(/\d+(\.\d+)?e([-+]?)(\d+)/gi, function (m, f, sign, e) {
        return m.split(/e/i)[0] + " times 10 to the " + (sign === "-" ? "minus " : "") + parseInt(e, 10); })
      .replace(/\u00d7\s*10([\u207b\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)/g, function (m, e) {
        return " times 10 to the " + e.split("").map(function (c) { return SUP[c]; }).join(""); })
      .replace(/\d+\.\d+/g, function (m) { return String(parseFloat(m)); })
      .replace(/(^|[\s(=,\[])[-\u2212](?=\d)/g, "$1minus ")
      .replace(/\s*->\s*/g, " gives ").replace(/\s*[*\u00d7]\s*/g, " times ")
      .replace(/\u00b1/g, " plus or minus ").replace(/_/g, " sub ").replace(/\s+/g, " ").trim()
      .replace(/[.]+$/, "");
  }
  // what changed, in the readings' order, each under its label; parts that do not fit are left for the eye
  function announce(k, before, after) {
    var was = parts(before).map(function (p) { return p.label + "|" + p.text; });
    var changed = parts(after).filter(function (p) { return was.indexOf(p.label + "|" + p.text) < 0; });
    var text = say(listed[k].label + " " + listed[k].options[index[k]]) + ": ";
    if (!changed.length) { spoken.textContent = text + "the readings stay the same."; return; }
    var groups = [], n = 0;
    for (; n < changed.length; n++) {
      var p = changed[n], last = groups[groups.length - 1];
      var add = last && last.label === p.label ? ", " + say(p.text) : (groups.length ? "; " : "") + (p.label ? say(p.label) + ": " : "") + say(p.text);
      var length = text.length + groups.map(function (g) { return g.said; }).join("").length + add.length;
      if (length > SPOKEN) {
        if (!groups.length) {   // the first part alone is too long: its beginning
          groups.push({label: p.label, said: add.slice(0, add.lastIndexOf(" ", SPOKEN - text.length - 1)) + "\u2026"});
        }
        break;
      }
      if (last && last.label === p.label) { last.said += add; } else { groups.push({label: p.label, said: add}); }
    }
    spoken.textContent = text + groups.map(function (g) { return g.said; }).join("") +
      (n < changed.length ? "; and more below the picture." : ".");
  }
  var pictures = {}, wanted = null;
  function picture(src, done) {  // each picture is fetched once, by an Image kept here, so no fetch is ever cut off
    var p = pictures[src];
    if (!p) { p = pictures[src] = new Image(); p.src = src; }
    if (p.complete) { done(); } else { p.addEventListener("load", done); p.addEventListener("error", done); }
  }
  // A control none of whose other drawn values changes the picture or the readings here (chapter 5's seed
  // when the model talks greedily) says so beside it, until a move gives it an effect (idle_controls in Python).
  function markIdle() {
    var here = data.states[key(index)];
    listed.forEach(function (c, j) {
      var seen = 0, same = 0;
      for (var i = 0; i < c.options.length; i++) {
        if (i === index[j]) { continue; }
        var t = index.slice(); t[j] = i;
        var h = data.states[key(t)];
        if (!h) { continue; }
        seen++;
        if (h[0] === here[0] && h[1] === here[1]) { same++; }
      }
      var idle = seen > 0 && same === seen;
      var box = root.querySelector('.mwm-try-control[data-k="' + j + '"]');
      var note = box.querySelector(".mwm-try-idle-note");
      var inputs = box.querySelectorAll("input, select, button");   // a screen reader hears the note with the control
      box.classList.toggle("mwm-try-idle", idle);
      if (idle && !note) {
        note = document.createElement("span"); note.className = "mwm-try-idle-note";
        note.id = root.id + "-idle" + j;
        note.textContent = "(no effect in this setting)"; box.appendChild(note);
        inputs.forEach(function (e) { e.setAttribute("aria-describedby", note.id); });
      } else if (!idle && note) {
        note.remove();
        inputs.forEach(function (e) { e.removeAttribute("aria-describedby"); });
      }
    });
  }
  function show() {
    var hit = data.states[key(index)];
    if (!hit) { return; }
    markIdle();
    var src = data.images[hit[0]], text = alt(hit);
    out.innerHTML = data.readings[hit[1]];
    wanted = src;
    picture(src, function () {
      if (wanted !== src) { return; }
      if (img.getAttribute("src") !== src) { img.src = src; }
      img.alt = text;
    });
  }
  // what the reader was told about a control that went back, kept until they move that control
  var held = {};
  function choose(k, i, step) {
    var want = index.slice(); want[k] = i;
    var skipped = "";
    if (!data.states[key(want)] && step && Math.abs(i - index[k]) === 1) {
      var d = i - index[k];
      for (var j = i + d; j >= 0 && j < listed[k].options.length; j += d) {
        var t = want.slice(); t[k] = j;
        if (data.states[key(t)]) {
          want = t;
          var passed = [];
          for (var q = i; q !== j; q += d) { passed.push(listed[k].options[q]); }
          skipped = listed[k].label + " went on to " + listed[k].options[j] + ": " + passed.join(", ") +
            (passed.length > 1 ? " were" : " was") +
            " not drawn with the other controls as they are.";
          break;
        }
      }
    }
    delete held[k];
    var moved = [];
    if (!data.states[key(want)]) {
      var best = null, bestScore = null;
      keys.forEach(function (cand) {
        if (cand[k] !== i) { return; }
        var a = 0, b = 0;
        cand.forEach(function (v, j) { if (j !== k) { a += v === want[j] ? 1 : 0; b += v === starts[j] ? 1 : 0; } });
        if (bestScore === null || a > bestScore[0] || (a === bestScore[0] && b > bestScore[1])) { best = cand; bestScore = [a, b]; }
      });
      best.forEach(function (v, j) { if (j !== k && v !== want[j]) { held[j] = listed[j].label + " went back to " + listed[j].options[v]; } });
      want = best.slice();
    }
    var before = plain(data.readings[data.states[key(index)][1]]);
    index = want;
    listed.forEach(function (c, j) { setters[j](index[j]); });
    Object.keys(held).forEach(function (j) { moved.push(held[j]); });
    status.textContent = ((moved.length ? "That combination was not drawn for this page, so " + moved.join(", ") +
      (moved.length > 1 ? "; each stays there until you move it" : " and stays there until you move it") +
      ". In Jupyter the controls combine freely. " : "") + skipped).trim();
    show();
    announce(k, before, plain(data.readings[data.states[key(index)][1]]));
  }
  listed.forEach(function (c, k) {
    var box = root.querySelector('.mwm-try-control[data-k="' + k + '"]');
    if (c.kind === "range") {
      var input = box.querySelector("input");
      var shown = box.querySelector("output");
      input.addEventListener("input", function () { choose(k, parseInt(input.value, 10), true); });
      setters[k] = function (i) { input.value = i; input.setAttribute("aria-valuetext", c.options[i]); shown.textContent = c.options[i]; };
    } else if (c.kind === "select") {
      var sel = box.querySelector("select");
      sel.addEventListener("change", function () { choose(k, parseInt(sel.value, 10), false); });
      setters[k] = function (i) { sel.value = i; };
    } else if (c.kind === "checkbox") {
      var cb = box.querySelector("input");
      cb.addEventListener("change", function () { choose(k, cb.checked ? 1 : 0, false); });
      setters[k] = function (i) { cb.checked = i === 1; };
    } else {
      var buttons = Array.prototype.slice.call(box.querySelectorAll("button"));
      buttons.forEach(function (b, i) { b.addEventListener("click", function () { choose(k, i, false); }); });
      setters[k] = function (i) {
        buttons.forEach(function (b, j) { b.className = j === i ? "mwm-on" : ""; b.setAttribute("aria-pressed", j === i ? "true" : "false"); });
      };
    }
    setters[k](c.start);
  });
  root.querySelector(".mwm-try-controls").removeAttribute("inert");   // inert until this script runs
  root.classList.add("mwm-try-ready");
  show();
})();
"""

_STYLE = """
<style>
.mwm-try{--mwm-bg:#ffffff;--mwm-fg:#1f2328;--mwm-muted:#57606a;--mwm-line:#6e7781;--mwm-btn:#ffffff;--mwm-on:#0550ae;--mwm-on-fg:#ffffff;--mwm-focus:#0550ae;
 color:var(--mwm-fg);border:1px solid var(--mwm-line);border-radius:6px;padding:.6em .8em;margin:.5em 0;background:var(--mwm-bg)}
html[data-theme="dark"] .mwm-try{--mwm-bg:#15191f;--mwm-fg:#e6edf3;--mwm-muted:#b1bac4;--mwm-line:#8b949e;--mwm-btn:#262c34;--mwm-on:#79c0ff;--mwm-on-fg:#0d1117;--mwm-focus:#79c0ff}
html[data-theme="dark"] .mwm-try .mwm-try-figure{filter:none!important}
.mwm-try-controls{display:flex;flex-wrap:wrap;gap:.4em 1.2em;margin:.4em 0}
.mwm-try-control{display:inline-flex;flex-wrap:wrap;align-items:center;gap:.3em;font-size:.9em}
.mwm-try-control button{min-height:28px;min-width:28px;border:1px solid var(--mwm-line);background:var(--mwm-btn);color:var(--mwm-fg);border-radius:4px;padding:.1em .5em;cursor:pointer}
.mwm-try-control button.mwm-on{background:var(--mwm-on);color:var(--mwm-on-fg);border-color:var(--mwm-on);font-weight:bold}
.mwm-try-control button .mwm-mark{display:none}
.mwm-try-control button.mwm-on .mwm-mark{display:inline}
.mwm-try-control select{min-height:28px;background:var(--mwm-btn);color:var(--mwm-fg);border:1px solid var(--mwm-line);border-radius:4px}
.mwm-try-control input[type=range]{min-height:28px;accent-color:var(--mwm-on)}
.mwm-try-control input[type=checkbox]{width:24px;height:24px;accent-color:var(--mwm-on)}
.mwm-try-control output{min-width:2.5em;font-variant-numeric:tabular-nums}
.mwm-try button:focus-visible,.mwm-try input:focus-visible,.mwm-try select:focus-visible{outline:3px solid var(--mwm-focus);outline-offset:2px}
.mwm-try-frame{border:1px solid var(--mwm-line);background:#ffffff;padding:4px;border-radius:4px;display:inline-block;max-width:100%;box-sizing:border-box;overflow-x:auto;scrollbar-width:thin}
.mwm-try-figure{max-width:100%;height:auto;display:block}
.mwm-try-readings{font-size:.9em;margin-top:.3em;color:var(--mwm-fg)}
.mwm-try-status{font-size:.85em;font-weight:bold;color:var(--mwm-fg)}
.mwm-try-status:empty{display:none}
.mwm-try-spoken{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.mwm-try-note{font-size:.8em;color:var(--mwm-muted);margin-top:.3em}
.mwm-try-idle-note{font-size:.8em;color:var(--mwm-muted)}
@media (max-width:600px){.mwm-try{padding:.5em}.mwm-try-control{flex:1 1 100%}.mwm-try-control input[type=range]{flex:1 1 60%;width:100%}}
@media print{.mwm-try-controls,.mwm-try-status,.mwm-try-note{display:none!important}.mwm-try{break-inside:avoid;border-color:#999}}
</style>
"""


def _control_html(pid: str, k: int, c: dict) -> str:
    """The HTML of one listed control, named by its visible label and set to its starting option."""
    label_id = f"{pid}-l{k}"
    label = html.escape(c["label"])
    start = c["start"]
    if c["kind"] == "range":
        return (f'<div class="mwm-try-control" data-k="{k}"><span class="mwm-try-label" id="{label_id}">{label}</span>'
                f'<input type="range" min="0" max="{len(c["options"]) - 1}" step="1" value="{start}" '
                f'aria-labelledby="{label_id}" aria-valuetext="{html.escape(c["options"][start])}">'
                f'<output aria-hidden="true">{html.escape(c["options"][start])}</output></div>')
    if c["kind"] == "select":
        options = "".join(f'<option value="{i}"{" selected" if i == start else ""}>{html.escape(o)}</option>'
                          for i, o in enumerate(c["options"]))
        return (f'<div class="mwm-try-control" data-k="{k}"><span class="mwm-try-label" id="{label_id}">{label}</span>'
                f'<select aria-labelledby="{label_id}">{options}</select></div>')
    if c["kind"] == "checkbox":
        return (f'<div class="mwm-try-control" data-k="{k}"><input type="checkbox" id="{pid}-c{k}"'
                f'{" checked" if start == 1 else ""}><label for="{pid}-c{k}" id="{label_id}">{label}</label></div>')
    buttons = "".join(
        f'<button type="button" class="{"mwm-on" if i == start else ""}" aria-pressed="{"true" if i == start else "false"}">'
        f'<span class="mwm-mark" aria-hidden="true">\u2713 </span>{html.escape(o)}</button>'
        for i, o in enumerate(c["options"]))
    return (f'<div class="mwm-try-control" data-k="{k}" role="group" aria-labelledby="{label_id}">'
            f'<span class="mwm-try-label" id="{label_id}">{label}</span>{buttons}</div>')


def _plain(text: str) -> str:
    """HTML readings as one line of plain text (a line break becomes "; ", as the page's script makes it)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<br\s*/?>", "; ", text, flags=re.I))).split())


def alt_text(data: dict, key: str) -> str:
    """The alt text of the picture of state ``key``.

    For a panel with ``describe``: what the picture shows, then the settings. The panel's title
    stands above the controls and its readings right under the picture, so a screen reader meets
    both there, once. A panel without ``describe``: its title, the settings and the readings.
    The website's script writes the same text when a control moves.

    Raises:
        KeyError: if ``key`` is not a drawn state.
    """
    hit = data["states"][key]
    listed = [c for c in data["controls"] if c["kind"] != "fixed"]
    index = [int(x) for x in key.split(",")] if key else []
    settings = "Settings: " + ", ".join(f'{c["label"]} {c["options"][i]}' for c, i in zip(listed, index)) + "."
    if "alts" in data:
        return f'{data["alts"][hit[2]]} {settings}'
    title = data["title"] + ("" if data["title"][-1:] in ".?!" else ".")   # "... each cut?", not "cut?."
    return f'{title} {settings} {_plain(data["readings"][hit[1]])}'


def _readable_attributes(picture: dict) -> str:
    """The ``<img>`` attributes that keep a panel's smallest text readable on a phone (empty if it was not measured).

    ``style="min-width: ..px"`` (:func:`mwm.widgets.drawing.readable_width`): on a narrow screen the
    picture scrolls sideways in its frame instead of shrinking below it; ``data-picture-width`` and
    ``data-smallest-text`` (pixels of the picture) let a test measure the text on screen.
    """
    from .drawing import readable_width
    from .panel import DPI

    if picture.get("smallest_pt") is None:
        return ""
    text_px = math.floor(picture["smallest_pt"] * DPI / 72 * 100) / 100   # as written below: rounded down, never taller
    return (f' style="min-width:{readable_width(picture["width"], text_px)}px"'
            f' data-picture-width="{picture["width"]}" data-smallest-text="{text_px:.2f}"')


def static_html(panel) -> str:
    """The panel's static twin: HTML with its controls, all precomputed figures and the script.

    The pictures are ``data:`` URIs, so a notebook output stays self-contained; the
    website build (``_ext/course_pages.py``) moves them into files of their own.
    """
    data = static_states(panel)
    listed = [c for c in data["controls"] if c["kind"] != "fixed"]
    start_key = ",".join(str(c["start"]) for c in listed)
    hit = data["states"][start_key]
    notes = []
    if data["mode"] == "single":
        label = {c["name"]: c["label"] for c in listed}
        by_first = {}   # pairs that share their first control are said once: "A with each of B, C and D"
        for group in (getattr(panel, "combined", None) or []):
            by_first.setdefault(group[0] if len(group) == 2 else tuple(group), []).append(tuple(group))
        drawn = ["every setting the chapter's text goes through"] if data["tour"] else []
        for first, groups in by_first.items():
            if len(groups) > 1:
                names = [f"\u201c{label[g[1]]}\u201d" for g in groups]
                drawn.append(f"every combination of \u201c{label[first]}\u201d with each of "
                             f"{', '.join(names[:-1])} and {names[-1]}")
            else:
                drawn.append("every combination of " + " and ".join(f"\u201c{label[n]}\u201d" for n in groups[0]))
        notes.append("Not every combination of these controls was drawn for this page: moving a control keeps the"
                     " others when that combination was drawn" +
                     (f" (drawn: {'; '.join(drawn)})" if drawn else "") +
                     ", and otherwise moves them back, saying so next to the controls."
                     " Run the chapter in Jupyter to combine them freely.")
    fixed = [c for c in data["controls"] if c["kind"] == "fixed"]
    if fixed:
        names = ", ".join(c["label"] for c in fixed)
        notes.append(f"The {names} box keeps its first value here: run the chapter in Jupyter to type your own.")
    if getattr(panel, "live_only", None):
        notes.append(f"Run the chapter in Jupyter to {panel.live_only}: that part of the panel is live only there.")
    if not notes:
        notes.append("Every setting was drawn when this page was built; in Jupyter the panel is live.")
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    pid = "mwm-try-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:10]
    controls = "".join(_control_html(pid, k, c) for k, c in enumerate(listed))
    return (
        f'{_STYLE}<div class="mwm-try" id="{pid}">'
        f'<div class="mwm-try-title"><b>Try:</b> {html.escape(panel.title)}</div>'
        # without JavaScript the controls could be moved but would change nothing: they stay inert, and say so
        f'<div class="mwm-try-controls" inert>{controls}</div>'
        f'<noscript><div class="mwm-try-note">The controls need JavaScript, which is off in this browser: '
        f'the picture shows the panel\'s first setting.</div></noscript>'
        f'<div class="mwm-try-status" role="status"></div>'
        f'<div class="mwm-try-frame"><img class="mwm-try-figure" alt="{html.escape(alt_text(data, start_key))}"'
        f'{_readable_attributes(data["picture"])} src="{data["images"][hit[0]]}"></div>'
        f'<div class="mwm-try-readings">{data["readings"][hit[1]]}</div>'
        f'<div class="mwm-try-spoken" aria-live="polite"></div>'
        f'<div class="mwm-try-note">{html.escape(" ".join(notes))}</div>'
        f'<script type="application/json" class="mwm-try-data">{payload}</script>'
        f"<script>{_SCRIPT}</script></div>"
    )
