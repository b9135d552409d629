"""Small drawing helpers shared by the panels: boxes, arrows, value bars, the layout, and the course style.

The course style (:data:`COURSE_STYLE`, applied by :func:`use_course_style` in a chapter
and by :func:`course_style` around every panel's drawing) fixes the resolution and the
font sizes of every figure, so that its text stays readable once the website scales the
picture down to its column; :func:`smallest_text_px` measures that.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import re

import matplotlib
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch


#: Resolution of every figure (panels' pictures and the chapters' own plots), in dots per inch.
DPI = 150

#: Width, in CSS pixels, that a figure may fill on the website in a 1366-pixel-wide desktop
#: window: measured in Chromium on the built site, a panel's picture is shown at most 729
#: pixels wide (the text column is 757); a wider picture is shown scaled down to it.
COLUMN_PX = 729

#: The same width in a 390-pixel-wide phone window (panels' pictures 330, other figures 358).
PHONE_COLUMN_PX = 330

#: The smallest text height, in CSS pixels on screen, that a figure may show in that column.
MIN_TEXT_PX = 10.0


def spoken_number(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits as a screen reader says it well, for the panels' alt texts.

    "0.0617", "3325" (no exponent below a million), "minus 0.36", "9.54 times 10 to the power minus 7".
    """
    x = float(x)
    if 1000 <= abs(x) < 1e6:
        text = f"{x:.0f}"
    else:
        mantissa, _, exponent = f"{x:.{digits}g}".partition("e")
        text = f"{mantissa} times 10 to the power {int(exponent)}" if exponent else mantissa
    return text.replace("-", "minus ")


def readable_width(width: float, smallest_text: float) -> int:
    """The narrowest a picture may be shown, in CSS pixels, for its smallest text to stay :data:`MIN_TEXT_PX` tall.

    A picture ``width`` units wide (pixels of a raster picture, or an SVG's viewBox units) whose
    smallest text is ``smallest_text`` of the same units tall: shown ``w`` CSS pixels wide, that
    text is ``smallest_text * w / width`` pixels tall. The website keeps every picture at least
    this wide; on a phone a wider picture scrolls sideways in its box instead of shrinking.

    Raises:
        ValueError: if ``width`` or ``smallest_text`` is not positive.
    """
    if not width > 0:
        raise ValueError(f"width must be positive, got {width}")
    if not smallest_text > 0:
        raise ValueError(f"smallest_text must be positive, got {smallest_text}")
    return math.ceil(width * MIN_TEXT_PX / smallest_text - 1e-9)

#: matplotlib settings shared by every figure of the course: the resolution above, font
#: sizes (points) large enough for figures up to about 8 inches wide, and titles at the top
#: edge of their axes ("axes.titley" 1.0; matplotlib's default, None, measures every axes'
#: top tick labels at each drawing to lift a title over them, a tenth of a panel picture's
#: drawing time, and no figure of the course has tick labels on top).
COURSE_STYLE = {
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "figure.figsize": (6.4, 3.4),
    "font.size": 10.0,
    "axes.titlesize": 11.0,
    "axes.labelsize": 10.0,
    "xtick.labelsize": 10.0,
    "ytick.labelsize": 10.0,
    "legend.fontsize": 10.0,
    "figure.titlesize": 11.0,
    "axes.titley": 1.0,
    "mathtext.fontset": "dejavusans",
}


def use_course_style() -> None:
    """Apply :data:`COURSE_STYLE` to matplotlib's global settings (one line at the top of a chapter).

    Afterwards every new pyplot figure is drawn at :data:`DPI` dots per inch with the
    course's font sizes, including the PNG that Jupyter's inline backend shows.
    """
    matplotlib.rcParams.update(COURSE_STYLE)


@contextlib.contextmanager
def course_style():
    """Within this block matplotlib uses :data:`COURSE_STYLE`; the global settings are restored afterwards."""
    with matplotlib.rc_context(COURSE_STYLE):
        yield


def in_course_style(draw):
    """Wrap a panel's ``draw`` function so that it always draws in :data:`COURSE_STYLE`.

    Args:
        draw: callable(values: dict) -> (Figure, readings).
    Returns:
        A callable with the same signature whose figures do not depend on the caller's
        matplotlib settings.
    Raises:
        TypeError: if ``draw`` is not callable.
    """
    if not callable(draw):
        raise TypeError(f"draw must be callable, got {type(draw).__name__}")

    @functools.wraps(draw)
    def wrapped(values):
        with course_style():
            return draw(values)
    return wrapped


def _visible_texts(fig):
    """Every visible, non-empty Text artist drawn in ``fig`` (titles, labels, tick labels, legends, notes)."""
    hidden, shown_ticks = set(), []
    for ax in fig.axes:
        for axis, lo_hi in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            lo, hi = min(lo_hi), max(lo_hi)
            drawn = ax.axison and axis.get_visible()
            for minor in (False, True):
                ticks = axis.get_minor_ticks() if minor else axis.get_major_ticks()
                locs = list(axis.get_ticklocs(minor=minor))
                for i, tick in enumerate(ticks):
                    labels = (tick.label1, tick.label2)
                    hidden.update(labels)
                    inside = i < len(locs) and lo - 1e-9 * (hi - lo) <= locs[i] <= hi + 1e-9 * (hi - lo)
                    if drawn and inside and tick.get_visible():
                        shown_ticks += [label for label in labels if label.get_visible()]
            if not drawn:
                hidden.add(axis.label)
            hidden.add(axis.offsetText)
    found = []
    for text in fig.findobj(matplotlib.text.Text):
        if text in hidden or not text.get_visible() or not text.get_text().strip():
            continue
        if text.axes is not None and not text.axes.get_visible():
            continue
        found.append(text)
    return found + [t for t in shown_ticks if t.get_text().strip()]


def figure_scale(fig, column_px: float = COLUMN_PX, dpi: float | None = None) -> float:
    """How much the website shrinks ``fig``'s picture: min(1, column width / picture width).

    Args:
        fig: a matplotlib Figure.
        column_px: the column's width in CSS pixels (> 0).
        dpi: the resolution the picture is saved at (> 0); None means the figure's own dpi.
    Returns:
        The scale, in (0, 1].
    Raises:
        ValueError: if ``column_px`` or ``dpi`` is not positive.
    """
    if not column_px > 0:
        raise ValueError(f"column_px must be positive, got {column_px}")
    dpi = fig.dpi if dpi is None else dpi
    if not dpi > 0:
        raise ValueError(f"dpi must be positive, got {dpi}")
    width_px = fig.get_figwidth() * dpi
    return min(1.0, column_px / width_px)


def smallest_text_px(fig, column_px: float = COLUMN_PX, dpi: float | None = None) -> tuple[float, str]:
    """The height of the smallest visible text of ``fig`` once shown in the website's column.

    A text of ``pt`` points in a picture saved at ``dpi`` dots per inch is ``pt * dpi / 72``
    pixels tall in the PNG; the browser shows the PNG at :func:`figure_scale` of its
    natural width, so the text is ``pt * dpi / 72 * scale`` CSS pixels tall on screen.
    Every visible Text artist counts: titles, axis labels, tick labels, legend entries,
    colour-bar labels and the notes written on the plot.

    Args:
        fig: a matplotlib Figure (it is drawn once, to know which tick labels show).
        column_px: the column's width in CSS pixels (> 0); default :data:`COLUMN_PX`.
        dpi: the resolution the picture is saved at; None means the figure's own dpi.
    Returns:
        (size in CSS pixels, the text that has it).
    Raises:
        ValueError: if the figure has no visible text, or ``column_px``/``dpi`` is not positive.
    """
    scale = figure_scale(fig, column_px, dpi)
    dpi = fig.dpi if dpi is None else dpi
    fig.canvas.draw()
    texts = _visible_texts(fig)
    if not texts:
        raise ValueError("fig shows no text")
    smallest = min(texts, key=lambda t: t.get_fontsize())
    return smallest.get_fontsize() * dpi / 72 * scale, smallest.get_text()


#: ASCII stand-ins for maths that a figure should typeset instead (outside $...$).
PLAIN_MATHS = re.compile(r"_\(|\^\(|\|\||\blambda\b|\btheta\b|\bgamma\b|\beta\b|\brho\b|\btanh\(|\bsigma\b"
                         r"|\b[hxcyz]_[tTk0-9]|\bd[hL]\w*/d|\^2\b|\^t\b")


def plain_maths(text: str) -> list[str]:
    """The pieces of ``text`` outside ``$...$`` that look like maths written in ASCII.

    Args:
        text: a figure's label, title, tick label or note.
    Returns:
        The matches of :data:`PLAIN_MATHS` outside mathtext, e.g. ``["h_(", "lambda"]``; an
        empty list when the text's maths is all typeset.
    Raises:
        TypeError: if ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    outside = re.sub(r"(?<!\\)\$.*?(?<!\\)\$", " ", text)
    return [m.group(0) for m in PLAIN_MATHS.finditer(outside)]


def figure_plain_maths(fig) -> list[tuple[str, list[str]]]:
    """Every visible text of ``fig`` with ASCII maths outside mathtext: [(text, matches)], empty if none."""
    fig.canvas.draw()
    found = []
    for text in _visible_texts(fig):
        hits = plain_maths(text.get_text())
        if hits:
            found.append((text.get_text(), hits))
    return found

INPUT_COLOUR = "tab:blue"
OUTPUT_COLOUR = "tab:cyan"
STATE_COLOUR = "tab:green"
WEIGHT_COLOUR = "goldenrod"


def box(ax, x, y, w, h, text="", fc="white", ec="0.3", fontsize=10, lw=1.5, opacity=1.0):
    """Draw a rounded box with its lower-left corner at (x, y) and centred text; ``opacity`` is matplotlib's alpha."""
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.08",
                                fc=fc, ec=ec, lw=lw, alpha=opacity))
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize)


def arrow(ax, start, end, color="0.3", lw=1.5, style="-|>", ls="-", rad=0.0, label=None, fontsize=8):
    """Draw an arrow from ``start`` to ``end`` (data coordinates), optionally curved and labelled."""
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=12, color=color, lw=lw,
                                 linestyle=ls, connectionstyle=f"arc3,rad={rad}"))
    if label:
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        ax.text(mx, my, label, color=color, fontsize=fontsize, ha="center", va="bottom")


def value_bars(ax, values, labels, color=STATE_COLOUR, ylim=(-1.05, 1.05), digits=4, highlight=None):
    """Bar chart of ``values`` with each bar's value written on it (``digits`` decimals)."""
    values = np.asarray(values, dtype=float)
    colours = [color] * len(values)
    if highlight is not None:
        colours[highlight] = "tab:red"
    ax.bar(range(len(values)), values, color=colours, alpha=0.8)
    for i, v in enumerate(values):
        ax.text(i, v + (0.03 if v >= 0 else -0.03) * (ylim[1] - ylim[0]), f"{v:.{digits}f}",
                ha="center", va="bottom" if v >= 0 else "top", fontsize=10)
    ax.set_xticks(range(len(values)))
    ax.set_xticklabels(labels, fontsize=10)
    ax.set_ylim(*ylim)
    ax.axhline(0, color="0.6", lw=0.8)


#: While a panel's static twin is drawn: {"params": subplot parameters of the first
#: figure, "geometry": its geometry}. None (the default) lays out every figure afresh.
_LAYOUTS: contextvars.ContextVar[dict | None] = contextvars.ContextVar("mwm_layouts", default=None)
_SUBPLOT_PARAMS = ("left", "right", "bottom", "top", "wspace", "hspace")


def _geometry(fig) -> tuple:
    """What decides a figure's layout besides its text: its size and where its axes sit in their grids."""
    axes = []
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        axes.append(None if spec is None else (spec.get_geometry(), spec.get_gridspec().get_width_ratios(),
                                               spec.get_gridspec().get_height_ratios()))
    return tuple(fig.get_size_inches().round(3)), tuple(str(a) for a in axes)


def layout(fig) -> None:
    """Fit the figure's subplots to its labels, like ``fig.tight_layout()``.

    Live panels lay out every figure. While a panel's static twin draws many settings of
    the same figure (inside :func:`same_layout`), the first figure runs ``tight_layout``,
    which costs most of a drawing, and every later figure of the same geometry (size,
    subplot grid) reuses its margins and gaps; a figure of another geometry is laid out
    on its own. The first figure is drawn before the work is shared among processes, so
    the pictures do not depend on how many there are.
    """
    cache = _LAYOUTS.get()
    if cache is None:
        fig.tight_layout()
        return
    key = _geometry(fig)
    if "geometry" not in cache:
        fig.tight_layout()
        cache["geometry"], cache["params"] = key, {name: getattr(fig.subplotpars, name) for name in _SUBPLOT_PARAMS}
    elif cache["geometry"] == key:
        fig.subplots_adjust(**cache["params"])
    else:
        fig.tight_layout()


def kept_figure(key: str, build):
    """The figure object ``build()`` made for ``key``, made once per :func:`same_layout` block.

    A panel whose static twin draws hundreds of settings builds its figure once and then only
    changes its artists' data for each setting (creating axes and their ticks is most of a
    drawing's cost). Outside a :func:`same_layout` block (a live panel) every call builds anew.

    Args:
        key: a name unique to the panel's figure; build: callable() -> the object to keep.
    Returns:
        What ``build`` returned, the same object for every call with ``key`` in one block.
    """
    cache = _LAYOUTS.get()
    if cache is None:
        return build()
    kept = cache.setdefault("kept", {})
    if key not in kept:
        kept[key] = build()
    return kept[key]


@contextlib.contextmanager
def same_layout():
    """Within this block, :func:`layout` lays out the first figure and re-uses that layout for its geometry;
    :func:`kept_figure` keeps each panel's figure."""
    token = _LAYOUTS.set({})
    try:
        yield
    finally:
        _LAYOUTS.reset(token)
