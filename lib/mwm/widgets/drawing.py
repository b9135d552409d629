"""Small drawing helpers shared by the panels: boxes, arrows, value bars and the layout."""
from __future__ import annotations

import contextlib
import contextvars

import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

INPUT_COLOUR = "tab:blue"
OUTPUT_COLOUR = "tab:cyan"
NOTE_COLOUR = "tab:green"
WEIGHT_COLOUR = "goldenrod"


def box(ax, x, y, w, h, text="", fc="white", ec="0.3", fontsize=10, lw=1.5, alpha=1.0):
    """Draw a rounded box with its lower-left corner at (x, y) and centred text."""
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.08",
                                fc=fc, ec=ec, lw=lw, alpha=alpha))
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize)


def arrow(ax, start, end, color="0.3", lw=1.5, style="-|>", ls="-", rad=0.0, label=None, fontsize=8):
    """Draw an arrow from ``start`` to ``end`` (data coordinates), optionally curved and labelled."""
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=12, color=color, lw=lw,
                                 linestyle=ls, connectionstyle=f"arc3,rad={rad}"))
    if label:
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        ax.text(mx, my, label, color=color, fontsize=fontsize, ha="center", va="bottom")


def value_bars(ax, values, labels, color=NOTE_COLOUR, ylim=(-1.05, 1.05), digits=4, highlight=None):
    """Bar chart of ``values`` with each bar's value written on it (``digits`` decimals)."""
    values = np.asarray(values, dtype=float)
    colours = [color] * len(values)
    if highlight is not None:
        colours[highlight] = "tab:red"
    ax.bar(range(len(values)), values, color=colours, alpha=0.8)
    for i, v in enumerate(values):
        ax.text(i, v + (0.03 if v >= 0 else -0.03) * (ylim[1] - ylim[0]), f"{v:.{digits}f}",
                ha="center", va="bottom" if v >= 0 else "top", fontsize=8)
    ax.set_xticks(range(len(values)))
    ax.set_xticklabels(labels, fontsize=9)
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


@contextlib.contextmanager
def same_layout():
    """Within this block, :func:`layout` lays out the first figure and re-uses that layout for its geometry."""
    token = _LAYOUTS.set({})
    try:
        yield
    finally:
        _LAYOUTS.reset(token)
