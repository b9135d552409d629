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
  at its starting value (moving one control resets the others on the page; in Jupyter
  they combine freely).

A control whose values cannot be listed (a free-text box) keeps its starting value on
the website, and the panel says how to run it live.

The book build turns this on by setting the environment variable ``MWM_STATIC_PANELS=1``
(see the Makefile); the committed notebooks do not carry it.

Drawing every setting is the slow part of the book build, so it is done cheaply: each
figure geometry is laid out once (:func:`mwm.widgets.drawing.same_layout`), a figure is
rendered straight to a 256-colour PNG (no intermediate PNG), settings that draw the same
figure are drawn once, and the settings are shared among ``MWM_PANEL_WORKERS`` forked
processes (default: the cores this process may use; ``1`` draws them in this process).
"""
from __future__ import annotations

import base64
import html
import io
import itertools
import json
import multiprocessing
import os
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


def _small_png(fig) -> bytes:
    """Render a figure at the panels' DPI straight to a 256-colour PNG (about a quarter of the bytes of full colour).

    The palette comes from PIL's fast octree quantizer: on these plots (flat colours,
    anti-aliased lines and text) it is ten times faster than median cut and its files are
    smaller.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    from .panel import DPI

    fig.set_dpi(DPI)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    image = image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
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


def _draw_one(values: dict) -> tuple[str, str]:
    fig, text = _PANEL._draw(values)
    return base64.b64encode(_small_png(fig)).decode("ascii"), text


def _draw_all(panel, all_values: list[dict]) -> list[tuple[str, str]]:
    """(base64 PNG, readings) for each setting, in order; equal settings are drawn once."""
    global _PANEL
    from .drawing import same_layout

    keys = [json.dumps(v, sort_keys=True, default=repr) for v in all_values]
    unique = list(dict.fromkeys(keys))
    first_of = {k: all_values[keys.index(k)] for k in unique}
    _PANEL = panel
    try:
        with same_layout():
            drawn = {unique[0]: _draw_one(first_of[unique[0]])}  # lays out the first geometry before any fork
            rest = unique[1:]
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
    return [drawn[k] for k in keys]


def static_states(panel):
    """List the settings the website shows, and draw each one.

    Returns:
        dict with "controls" (name, label, kind, option labels, starting index, or
        kind "fixed" for a control that cannot be listed), "mode" ("grid" or "single"),
        "states" (key "i,j,..." of option indices -> [image index, readings index]),
        "images" (base64 PNGs, each distinct picture once) and "readings".
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
                if combo not in settings:
                    settings.append(combo)
    images, readings, states = [], [], {}
    image_index, readings_index = {}, {}
    all_values = []
    for combo in settings:
        values = dict(base)
        values.update({n: listed[n][i] for n, i in combo.items()})
        all_values.append(values)
    for combo, (png, text) in zip(settings, _draw_all(panel, all_values)):
        if png not in image_index:
            image_index[png] = len(images)
            images.append(png)
        if text not in readings_index:
            readings_index[text] = len(readings)
            readings.append(text)
        key = ",".join(str(combo[n]) for n in listed)
        states[key] = [image_index[png], readings_index[text]]
    return {"controls": controls, "mode": mode, "states": states, "images": images, "readings": readings}


_SCRIPT = r"""
(function () {
  var root = document.currentScript.parentElement;
  var data = JSON.parse(root.querySelector("script.mwm-try-data").textContent);
  var listed = data.controls.filter(function (c) { return c.kind !== "fixed"; });
  var index = listed.map(function (c) { return c.start; });
  var img = root.querySelector("img.mwm-try-figure");
  var out = root.querySelector(".mwm-try-readings");
  var setters = [];
  function show() {
    var hit = data.states[index.join(",")];
    if (!hit) { return; }
    img.src = "data:image/png;base64," + data.images[hit[0]];
    out.innerHTML = data.readings[hit[1]];
  }
  function choose(k, i) {
    if (data.mode === "single") {
      listed.forEach(function (c, j) { if (j !== k) { index[j] = c.start; setters[j](c.start); } });
    }
    index[k] = i;
    setters[k](i);
    show();
  }
  var box = root.querySelector(".mwm-try-controls");
  listed.forEach(function (c, k) {
    var wrap = document.createElement("label");
    wrap.className = "mwm-try-control";
    var name = document.createElement("span");
    name.textContent = c.label + " ";
    wrap.appendChild(name);
    var shown = document.createElement("output");
    if (c.kind === "range") {
      var input = document.createElement("input");
      input.type = "range"; input.min = 0; input.max = c.options.length - 1; input.step = 1;
      input.setAttribute("aria-label", c.label);
      input.addEventListener("input", function () { choose(k, parseInt(input.value, 10)); });
      wrap.appendChild(input); wrap.appendChild(shown);
      setters[k] = function (i) { input.value = i; shown.textContent = " " + c.options[i]; };
    } else if (c.kind === "select") {
      var sel = document.createElement("select");
      sel.setAttribute("aria-label", c.label);
      c.options.forEach(function (o, i) { var op = document.createElement("option"); op.value = i; op.textContent = o; sel.appendChild(op); });
      sel.addEventListener("change", function () { choose(k, parseInt(sel.value, 10)); });
      wrap.appendChild(sel);
      setters[k] = function (i) { sel.value = i; };
    } else if (c.kind === "checkbox") {
      var cb = document.createElement("input");
      cb.type = "checkbox";
      cb.setAttribute("aria-label", c.label);
      cb.addEventListener("change", function () { choose(k, cb.checked ? 1 : 0); });
      wrap.appendChild(cb);
      setters[k] = function (i) { cb.checked = i === 1; };
    } else {
      var buttons = c.options.map(function (o, i) {
        var b = document.createElement("button");
        b.type = "button"; b.textContent = o;
        b.addEventListener("click", function () { choose(k, i); });
        wrap.appendChild(b);
        return b;
      });
      setters[k] = function (i) { buttons.forEach(function (b, j) { b.className = j === i ? "mwm-on" : ""; }); };
    }
    box.appendChild(wrap);
    setters[k](c.start);
  });
  show();
})();
"""

_STYLE = """
<style>
.mwm-try{border:1px solid #d0d7de;border-radius:6px;padding:.6em .8em;margin:.5em 0}
.mwm-try-controls{display:flex;flex-wrap:wrap;gap:.4em 1.2em;margin:.4em 0}
.mwm-try-control{display:inline-flex;align-items:center;gap:.3em;font-size:.9em}
.mwm-try-control button{border:1px solid #999;background:#f6f8fa;border-radius:4px;padding:.1em .5em;cursor:pointer}
.mwm-try-control button.mwm-on{background:#0969da;color:#fff;border-color:#0969da}
.mwm-try-figure{max-width:100%;height:auto;display:block}
.mwm-try-readings{font-size:.9em;margin-top:.3em}
.mwm-try-note{font-size:.8em;color:#57606a;margin-top:.3em}
</style>
"""


def static_html(panel) -> str:
    """The panel's static twin: HTML with its controls, all precomputed figures and the script."""
    data = static_states(panel)
    hit = data["states"][",".join(str(c["start"]) for c in data["controls"] if c["kind"] != "fixed")]
    notes = []
    if data["mode"] == "single":
        notes.append("On this page each control moves on its own (the others return to their start);"
                     " run the chapter in Jupyter to combine them freely.")
    fixed = [c for c in data["controls"] if c["kind"] == "fixed"]
    if fixed:
        names = ", ".join(c["label"] for c in fixed)
        notes.append(f"The {names} box keeps its first value here: run the chapter in Jupyter to type your own.")
    if getattr(panel, "live_only", None):
        notes.append(f"Run the chapter in Jupyter to {panel.live_only}: that part of the panel is live only there.")
    if not notes:
        notes.append("Every setting was drawn when this page was built; in Jupyter the panel is live.")
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        f'{_STYLE}<div class="mwm-try">'
        f'<div class="mwm-try-title"><b>Try:</b> {html.escape(panel.title)}</div>'
        f'<div class="mwm-try-controls"></div>'
        f'<img class="mwm-try-figure" alt="{html.escape(panel.title)}" '
        f'src="data:image/png;base64,{data["images"][hit[0]]}">'
        f'<div class="mwm-try-readings">{data["readings"][hit[1]]}</div>'
        f'<div class="mwm-try-note">{html.escape(" ".join(notes))}</div>'
        f'<script type="application/json" class="mwm-try-data">{payload}</script>'
        f"<script>{_SCRIPT}</script></div>"
    )
