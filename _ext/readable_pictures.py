"""Pictures whose smallest text stays readable on a phone: the chapters' plots and the SVG diagrams.

A picture shown narrower than its natural size shrinks its text with it: on a 390-pixel phone a
chapter's plot showed its tick labels 6-7 pixels tall. After the HTML build, every picture a page
shows from ``_images/`` gets the narrowest width that keeps its smallest text
:data:`mwm.widgets.drawing.MIN_TEXT_PX` tall (``style="min-width: ..px"``, from
:func:`mwm.widgets.drawing.readable_width`), and sits in a ``<span class="mwm-picture">`` box that
scrolls sideways when the screen is narrower (the site's script makes such a box a Tab stop). The
"Try" panels' pictures carry the same attributes from their static twin
(:mod:`mwm.widgets.static`).

What the smallest text is:

* a chapter's plot (a PNG a code cell printed): the smallest font size the cell's code asks for
  (``fontsize=...``) or the course style's smallest (:func:`smallest_pt_asked`), at the PNG's own
  resolution; the image file is found by its content (Jupyter Book names it by its SHA-256);
* an SVG diagram (``chapters/figures``): its smallest ``font-size``, in viewBox units
  (:func:`svg_text_sizes`), against the viewBox's width.

A picture of ``_images/`` that is neither stops the build with an error naming it: a new kind of
picture must say how small its text is.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from sphinx.errors import ExtensionError

SVG = "{http://www.w3.org/2000/svg}"
#: The style settings whose sizes every plot's text starts from (its labels, ticks, legends and notes).
_STYLE_KEYS = ("xtick.labelsize", "ytick.labelsize", "legend.fontsize", "font.size")
_IMG = re.compile(r'<img (?P<attrs>[^>]*?)src="(?P<src>(?:\.\./)*_images/(?P<name>[^"/]+))"(?P<rest>[^>]*)/?>')


def smallest_pt_asked(source: str) -> float:
    """The smallest font size, in points, a plotting cell's code can draw: its ``fontsize=...`` values and the course style's sizes.

    Args:
        source: the code cell's source.
    Raises:
        TypeError: if ``source`` is not a string.
    """
    from mwm.widgets.drawing import COURSE_STYLE

    if not isinstance(source, str):
        raise TypeError(f"source must be a string, got {type(source).__name__}")
    asked = [float(s) for s in re.findall(r"fontsize=([0-9.]+)", source)]
    return min(asked + [COURSE_STYLE[k] for k in _STYLE_KEYS])


def svg_text_sizes(root) -> list[tuple[str, float | None]]:
    """(text, font size in viewBox units) for every non-empty ``<text>`` and ``<tspan>`` of an SVG, sizes inherited.

    Args:
        root: the ``<svg>`` element (``xml.etree.ElementTree``). A text of no stated size has None.
    """
    sizes = []

    def walk(el, inherited):
        size = el.get("font-size")
        style = re.search(r"font-size:\s*([\d.]+)", el.get("style", ""))
        if style:
            size = style.group(1)
        if size is not None:
            inherited = float(re.sub(r"(px)?$", "", size))
        if el.tag in (SVG + "text", SVG + "tspan") and (el.text or "").strip():
            sizes.append((el.text.strip(), inherited))
        for child in el:
            walk(child, inherited)

    walk(root, None)
    return sizes


def chapter_plots(chapters: list[Path]) -> dict[str, tuple[int, float]]:
    """SHA-256 of each PNG the chapters' code cells printed -> (its width in pixels, its smallest text in pixels).

    Raises:
        ValueError: for a PNG without its resolution (pHYs), so its text size cannot be known.
    """
    from PIL import Image

    found = {}
    for path in chapters:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            smallest = smallest_pt_asked("".join(cell["source"]))
            for output in cell.get("outputs", []):
                png = output.get("data", {}).get("image/png")
                if png is None:
                    continue
                data = base64.b64decode(png)
                with Image.open(io.BytesIO(data)) as image:
                    width, dpi = image.size[0], image.info.get("dpi", (0, 0))[0]
                if not dpi:
                    raise ValueError(f"{path.name}: a plot saved without its resolution")
                found[hashlib.sha256(data).hexdigest()] = (width, smallest * float(dpi) / 72)
    return found


def svg_picture(path: Path) -> tuple[float, float]:
    """(viewBox width, smallest font size) of an SVG diagram, both in viewBox units.

    Raises:
        ValueError: for an SVG without a viewBox, or with a text of no stated size.
    """
    root = ET.parse(path).getroot()
    view = root.get("viewBox", "").split()
    if len(view) != 4:
        raise ValueError(f"{path.name}: no viewBox")
    sizes = [size for _, size in svg_text_sizes(root)]
    if not sizes or None in sizes:
        raise ValueError(f"{path.name}: a text of no stated size")
    return float(view[2]), min(sizes)


def readable_pictures_in_page(text: str, known: dict[str, tuple[float, float]]) -> tuple[str, int]:
    """The page with every ``_images/`` picture kept readable (see the module's docstring); how many there were.

    Args:
        text: the page's HTML; known: image file name -> (width, smallest text), in the picture's units.
    Raises:
        KeyError: for a picture not in ``known``.
    """
    from mwm.widgets.drawing import readable_width

    count = 0

    def fix(match):
        nonlocal count
        if "data-picture-width=" in match.group(0):   # a page an earlier build already gave its widths (not rebuilt)
            return match.group(0)
        name = html.unescape(match["name"])
        if name not in known:
            raise KeyError(name)
        width, smallest = known[name]
        smallest = math.floor(smallest * 100) / 100   # as written below: rounded down, never taller
        count += 1
        rest = match["rest"].rstrip().rstrip("/").rstrip()
        return (f'<span class="mwm-picture"><img {match["attrs"]}src="{match["src"]}"{rest} '
                f'style="min-width:{readable_width(width, smallest)}px" data-picture-width="{width:g}" '
                f'data-smallest-text="{smallest:.2f}" /></span>')

    return _IMG.sub(fix, text), count


def keep_pictures_readable(app, exception) -> None:
    """After an HTML build, give every page's ``_images/`` pictures their readable width (module docstring)."""
    if exception is not None or app.builder.format != "html":
        return
    site, root = Path(app.outdir), Path(app.srcdir)
    images = site / "_images"
    plots = chapter_plots(sorted((root / "chapters").glob("*.ipynb")))
    known = {}
    for path in sorted(images.glob("*")) if images.is_dir() else []:
        if path.suffix == ".svg":
            known[path.name] = svg_picture(path)
        elif path.stem in plots:
            known[path.name] = plots[path.stem]
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        if "_images/" not in text:
            continue
        try:
            fixed, count = readable_pictures_in_page(text, known)
        except KeyError as missing:
            raise ExtensionError(f"{page.relative_to(site)}: the picture _images/{missing.args[0]} is neither a "
                                 "chapter's plot nor an SVG diagram, so how small its text is cannot be known "
                                 "(see _ext/readable_pictures.py)") from None
        if count:
            page.write_text(fixed, encoding="utf-8")


def setup(app):
    app.connect("build-finished", keep_pictures_readable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
