"""Figures readable on the website: resolution, on-screen text size, typeset maths, alt text.

The website shows a picture at most ``COLUMN_PX`` (729) CSS pixels wide at a 1366-pixel
desktop window (measured in Chromium on the built site): a wider PNG is scaled down, and
a text of ``pt`` points in a PNG of ``dpi`` dots per inch ends up
``pt * dpi / 72 * min(1, 729 / width_px)`` pixels tall. Every panel's first picture and
every figure a chapter draws must keep its smallest text at ``MIN_TEXT_PX`` (10) or more,
be drawn at 150 dpi or more, and write its maths with mathtext (``$h_{t-1}$``), not ASCII.
"""
import ast
import base64
import json
import re
import struct
from pathlib import Path

import matplotlib
import pytest
from matplotlib.figure import Figure

from _ext.readable_pictures import smallest_pt_asked

from mwm import widgets as W
from mwm.widgets.drawing import (COLUMN_PX, COURSE_STYLE, DPI, MIN_TEXT_PX, course_style, figure_plain_maths,
                                 plain_maths, smallest_text_px)

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]-*.ipynb"))
BUILDERS = [W.running_state_try, W.window_try, W.scalar_cell_try, W.six_state_try, W.unroll_try,
            W.shapes_try, W.next_word_try, W.step_machine_try, W.chain_try, W.eigen_memory_try, W.cliff_try,
            W.blend_dial_try, W.ten_steps_try, W.both_ways_try, W.tank_try, W.memory_lab_try, W.talk_try,
            W.translate_try, W.bottleneck_try, W.beam_try, W.bleu_try, W.bottleneck_bleu_try, W.attention_read_try]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def test_course_style_resolution_and_fonts():
    assert DPI >= 150 and W.panel.DPI == DPI
    assert COURSE_STYLE["figure.dpi"] >= 150 and COURSE_STYLE["savefig.dpi"] >= 150
    with course_style():
        fig = Figure()  # the style's own default size, with a title, labels, ticks and a legend
        ax = fig.add_subplot(1, 1, 1)
        ax.plot([0, 1], [0, 1], label="a line")
        ax.set(title="title", xlabel="$t$", ylabel="$h_t$")
        ax.legend()
        assert fig.dpi == DPI
        px, _ = smallest_text_px(fig)
    assert px >= MIN_TEXT_PX
    # outside the block matplotlib's own settings are back
    assert matplotlib.rcParams["figure.dpi"] == matplotlib.rcParamsDefault["figure.dpi"]


def test_smallest_text_px_follows_the_scaling_rule():
    fig = Figure(figsize=(10.0, 3.0), dpi=150)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title("big", fontsize=14)
    ax.text(0.5, 0.5, "small", fontsize=8)
    ax.text(0.5, 0.2, "hidden", fontsize=5, visible=False)
    px, text = smallest_text_px(fig)
    assert text == "small"
    assert px == pytest.approx(8 * 150 / 72 * (COLUMN_PX / 1500))
    # a picture narrower than the column is shown at its natural size
    assert smallest_text_px(fig, column_px=2000)[0] == pytest.approx(8 * 150 / 72)
    with pytest.raises(ValueError, match="column_px"):
        smallest_text_px(fig, column_px=0)
    with pytest.raises(ValueError, match="no text"):
        smallest_text_px(Figure())


def test_plain_maths_finds_ascii_maths_outside_mathtext():
    assert plain_maths("h_t = tanh(w h_(t-1))") == ["h_t", "tanh(", "_("]
    assert plain_maths("direction, lambda = 1") == ["lambda"]
    assert plain_maths("the length ||W^t (1, 0)||") == ["||", "^t", "||"]
    assert plain_maths(r"$h_t = \tanh(w\,h_{t-1})$, $\lambda$ = 1, $\|W^t\|$") == []
    assert plain_maths("chai or coffee? the train to delhi") == []
    with pytest.raises(TypeError, match="text"):
        plain_maths(3)


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_panel_picture_is_readable_in_the_column(build):
    panel = build()
    fig, _ = panel._draw(panel.values())  # the drawing the panel shows first, in the course style
    assert fig.dpi >= 150
    px, text = smallest_text_px(fig, dpi=W.panel.DPI)
    assert px >= MIN_TEXT_PX, f"{text!r} is {px:.1f} px on screen"
    assert figure_plain_maths(fig) == []


def _png_size_and_dpi(png: bytes) -> tuple[int, int, float]:
    """(width px, height px, dots per inch from the pHYs chunk; 0 when absent) of a PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    at = png.find(b"pHYs")
    if at < 0:
        return width, height, 0.0
    per_metre_x, _, unit = struct.unpack(">IIB", png[at + 4:at + 13])
    return width, height, per_metre_x * 0.0254 if unit == 1 else 0.0


def _figure_cells():
    """(chapter, cell) for every code cell whose outputs hold a PNG and that is not a "Try" panel."""
    for path in CHAPTERS:
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            outputs = [o.get("data", {}) for o in cell.get("outputs", [])]
            if any("image/png" in d for d in outputs) and not any(WIDGET_VIEW in d for d in outputs):
                yield path.stem, cell


FIGURE_CELLS = list(_figure_cells())
PLOT_TEXT_CALLS = {"set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "annotate"}
PLOT_TEXT_KEYWORDS = {"label", "title", "xlabel", "ylabel"}


def _plot_strings(source: str) -> list[str]:
    """The literal strings a cell's code gives matplotlib as titles, axis labels, legend labels and notes."""
    found = []

    def literal(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            found.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in PLOT_TEXT_CALLS and node.args:
                literal(node.args[0])
            for keyword in node.keywords:
                if keyword.arg in PLOT_TEXT_KEYWORDS:
                    literal(keyword.value)
    return found


def test_chapters_have_figures_to_check():
    assert len(FIGURE_CELLS) >= 8
    assert {chapter[:2] for chapter, _ in FIGURE_CELLS} >= {"07", "08", "09", "12", "14"}


@pytest.mark.parametrize("chapter,cell", FIGURE_CELLS, ids=[f"{c}:{cell['id']}" for c, cell in FIGURE_CELLS])
def test_chapter_figure_is_readable_and_described(chapter, cell):
    source = "".join(cell["source"])
    alt = cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "")
    assert len(alt.split()) >= 8, "the figure needs an alt text saying what it shows"
    assert not re.fullmatch(r"[0-9a-f]{32,}(\.png)?", alt)
    # the smallest text the cell asks for: its explicit font sizes, else the course style's smallest
    smallest_pt = smallest_pt_asked(source)
    for data in (o.get("data", {}) for o in cell["outputs"]):
        if "image/png" not in data:
            continue
        width, _, dpi = _png_size_and_dpi(base64.b64decode(data["image/png"]))
        assert dpi >= 150, f"{chapter}: a figure saved at {dpi:.0f} dpi"
        on_screen = smallest_pt * dpi / 72 * min(1.0, COLUMN_PX / width)
        assert on_screen >= MIN_TEXT_PX, f"{chapter}: {smallest_pt} pt in a {width}-px picture is {on_screen:.1f} px"
    for text in _plot_strings(source):
        assert plain_maths(text) == [], f"{chapter}: ASCII maths in {text!r}"


def test_chapters_that_plot_use_the_course_style():
    for path in CHAPTERS:
        nb = json.loads(path.read_text())
        code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
        draws = [i for i, s in enumerate(code) if re.search(r"plt\.subplots|Figure\(", s)]
        if not draws:
            continue
        styled = [i for i, s in enumerate(code) if re.search(r"^use_course_style\(\)", s, re.M)]
        assert styled and styled[0] < draws[0], f"{path.name} draws before applying the course style"



def _luminance(rgb) -> float:
    """WCAG relative luminance of an sRGB colour (components in [0, 1])."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a, b) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("width,step", [(1, 1), (2, 2), (2, 3), (3, 3)])
def test_beam_tree_text_stands_out_from_its_box(width, step):
    from matplotlib.colors import to_rgb
    from matplotlib.patches import FancyBboxPatch
    with course_style():
        fig, _ = W.draw_beam(width, step)
    fig.canvas.draw()
    ax = fig.axes[0]
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
    checked = 0
    for text in ax.texts:
        where = ax.transData.transform(text.get_position())
        behind = [p for p in boxes if p.contains_point(where)]
        background = to_rgb(behind[-1].get_facecolor()) if behind else (1.0, 1.0, 1.0)
        assert _contrast(to_rgb(text.get_color()), background) >= 4.5, text.get_text()
        checked += 1
    assert checked >= 20
    assert smallest_text_px(fig)[0] >= MIN_TEXT_PX


# --- on a phone: every picture keeps its smallest text 10 px tall (the site build, _ext/readable_pictures.py) ---

def test_a_picture_is_never_shown_narrower_than_its_text_allows():
    from mwm.widgets.drawing import readable_width

    # a 960-pixel panel picture with 10-pt text at 150 dpi (20.83 px): 461 px keeps that text 10 px tall
    assert readable_width(960, 10 * 150 / 72) == 461
    assert 10 * 150 / 72 * 461 / 960 >= MIN_TEXT_PX > 10 * 150 / 72 * 460 / 960
    assert readable_width(720, 14) == 515   # an SVG diagram: 14-unit labels in a 720-unit viewBox
    for bad in ((0, 20), (960, 0), (-1, 20)):
        with pytest.raises(ValueError, match="must be positive"):
            readable_width(*bad)


def test_the_build_boxes_every_chapter_picture_at_its_readable_width():
    import hashlib

    from _ext import readable_pictures as rp

    plots = rp.chapter_plots(CHAPTERS)
    for _chapter, cell in FIGURE_CELLS:   # every plot of every chapter, by its content, with its cell's smallest text
        for data in (o.get("data", {}) for o in cell["outputs"]):
            if "image/png" in data:
                png = base64.b64decode(data["image/png"])
                width, _, dpi = _png_size_and_dpi(png)
                assert plots[hashlib.sha256(png).hexdigest()] == (width, smallest_pt_asked("".join(cell["source"])) * dpi / 72)
    for svg in (ROOT / "chapters" / "figures").glob("*.svg"):
        assert rp.svg_picture(svg) == (720.0, 14.0)
    page = ('<p><img alt="a &gt; b" src="../_images/d.svg" class="align-center" /></p>'
            '<img alt="plot" src="../../_images/p.png" />')
    fixed, count = rp.readable_pictures_in_page(page, {"d.svg": (720.0, 14.0), "p.png": (1035, 18.75)})
    assert count == 2
    assert ('<p><span class="mwm-picture"><img alt="a &gt; b" src="../_images/d.svg" class="align-center" '
            'style="min-width:515px" data-picture-width="720" data-smallest-text="14.00" /></span></p>') in fixed
    assert 'src="../../_images/p.png" style="min-width:552px" data-picture-width="1035" data-smallest-text="18.75" />' in fixed
    with pytest.raises(KeyError, match="p.png"):
        rp.readable_pictures_in_page(page, {"d.svg": (720.0, 14.0)})
    # a page an earlier build already rewrote (an incremental build leaves unchanged pages as they are)
    assert rp.readable_pictures_in_page(fixed, {"d.svg": (720.0, 14.0), "p.png": (1035, 18.75)}) == (fixed, 0)


def test_a_panels_pictures_carry_their_smallest_drawn_text():
    """The static twin measures the text its renderer really draws: chapter 11's 9-pt cell values, not the style's 10 pt."""
    from mwm.widgets import both_ways_try, window_try
    from mwm.widgets.static import _draw_all, static_html

    panel = both_ways_try()
    (_, _, (width, smallest_pt)), = _draw_all(panel, [panel.values()])   # one setting, drawn as the website draws it
    assert smallest_pt == 9.0 and width == 1080
    html = static_html(window_try())
    assert 'style="min-width:461px" data-picture-width="960" data-smallest-text="20.83"' in html
