"""The hand-laid SVG diagrams in chapters/figures/ and the chapters' references to figures.

Every diagram parses as XML, scales with the page (a viewBox, no fixed width or height),
names itself for screen readers (<title> and <desc>), draws no text below 14 user units,
sits on a light background (so it stays legible in dark mode) and stays small. The
committed files are exactly what ``scripts/book/draw_figures.py`` draws, and every figure a
chapter or the intro points at exists.
"""
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from _ext.readable_pictures import svg_text_sizes
from scripts.book import draw_figures

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "chapters" / "figures"
SVGS = sorted(FIGURES.glob("*.svg"))
NS = "{http://www.w3.org/2000/svg}"
MIN_FONT = 14


def _luminance(colour: str) -> float:
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_there_are_the_five_diagrams():
    assert [p.name for p in SVGS] == sorted(draw_figures.DRAWINGS)


@pytest.mark.parametrize("path", SVGS, ids=lambda p: p.stem)
def test_diagram_is_accessible_scalable_and_legible(path):
    root = ET.parse(path).getroot()                               # well-formed XML
    assert root.tag == NS + "svg"
    view = [float(v) for v in root.get("viewBox", "").split()]
    assert len(view) == 4 and 600 <= view[2] <= 800, "a viewBox about 700 units wide"
    assert root.get("width") is None and root.get("height") is None, "no fixed size: it scales to the column"
    title, desc = root.find(NS + "title"), root.find(NS + "desc")
    assert title is not None and len(title.text.strip()) > 10
    assert desc is not None and len(desc.text.split()) >= 30, "a description that says what the diagram shows"
    sizes = svg_text_sizes(root)
    assert sizes, "labels are real SVG text"
    small = [(t, s) for t, s in sizes if s is None or s < MIN_FONT]
    assert not small, f"text below {MIN_FONT} units (or of no stated size): {small[:5]}"
    background = root.find(NS + "rect")
    assert [float(background.get(k)) for k in ("x", "y", "width", "height")] == view, "a background first"
    assert _luminance(background.get("fill")) > 0.9, "a light background"
    assert path.stat().st_size < 20_000


@pytest.mark.parametrize("path", SVGS, ids=lambda p: p.stem)
def test_strokes_and_text_are_dark_on_the_light_background(path):
    text = path.read_text(encoding="utf-8")
    strokes = set(re.findall(r'stroke="(#[0-9a-fA-F]{6})"', text))
    assert strokes and all(_luminance(c) < 0.45 for c in strokes), f"strokes too light: {sorted(strokes)}"
    text_fills = set(re.findall(r'<text [^>]*fill="(#[0-9a-fA-F]{6})"', text))
    assert text_fills and all(_luminance(c) < 0.45 for c in text_fills), f"text too light: {sorted(text_fills)}"


def test_the_committed_diagrams_are_what_the_script_draws():
    drawn = draw_figures.draw_all()
    for name, svg in drawn.items():
        assert (FIGURES / name).read_text(encoding="utf-8") == svg, f"run python scripts/book/draw_figures.py ({name})"
    assert draw_figures.draw_all() == drawn, "the drawing is deterministic"


def _references(markdown: str) -> list[str]:
    refs = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", markdown)
    refs += re.findall(r'<img [^>]*src="([^"]+)"', markdown)
    refs += re.findall(r"```\{(?:figure|image)\}\s+(\S+)", markdown)
    return [r for r in refs if not r.startswith(("http:", "https:", "data:"))]


def _pages():
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        yield path, "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    yield ROOT / "intro.md", (ROOT / "intro.md").read_text(encoding="utf-8")


def test_every_figure_a_page_shows_exists():
    missing = [f"{page.name}: {ref}" for page, text in _pages() for ref in _references(text)
               if not (page.parent / ref).is_file()]
    assert not missing, missing


def test_chapter_3_shows_the_unrolled_cell_with_alt_text():
    cells = json.loads((ROOT / "chapters" / "03-unrolling.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    (alt,) = re.findall(r"!\[([^\]]*)\]\(figures/unrolled-cell\.svg\)", text)
    assert len(alt.split()) >= 25 and "W" in alt and "U" in alt
