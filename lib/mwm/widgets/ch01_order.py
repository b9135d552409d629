"""Chapter 1's "Try" panels: the running state's turn, and the window's size."""
from __future__ import annotations

import itertools

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..order import bag_of_words, running_state, turn_matrix, window, words_of
from .drawing import layout
from .panel import TryPanel

SENTENCE_A = "dog bites man"
#: Every order of the three words, for sentence B.
ORDERS = [" ".join(p) for p in itertools.permutations(["dog", "bites", "man"])]
#: The announcement of chapter 1 used by the window panel.
ANNOUNCEMENT = "The train to Delhi from platform four is late"


def _fmt(v) -> str:
    return "(" + ", ".join(f"{x:g}" for x in np.round(v, 4) + 0.0) + ")"


def _separate_labels(fig, step_points: float = 12, tries: int = 6) -> None:
    """Move each word label of a plot away (further up, or down for a label below its point) from the labels
    before it and the plain sum's star until none overlap (at some turns two words end near the same point)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Annotation

    renderer = FigureCanvasAgg(fig).get_renderer()
    for ax in fig.axes:
        placed = [line.get_window_extent(renderer) for line in ax.lines if line.get_marker() == "*"]  # the star
        for label in (c for c in ax.get_children() if isinstance(c, Annotation) and c.get_text()):
            for _ in range(tries):
                box = label.get_window_extent(renderer)
                if not any(box.overlaps(other) for other in placed):
                    break
                x, y = label.xyann
                label.xyann = (x, y - step_points if label.get_va() == "top" else y + step_points)
            placed.append(label.get_window_extent(renderer))


def draw_running_state(angle: float = 90, keep: float = 1.0, sentence_b: str = "man bites dog"):
    """Figure: how sentence A and sentence B build their hidden states under W = keep * turn(angle).

    Each word is two moves: a dashed arrow for "turn the previous state with W" and a solid
    arrow for "add the word". The grey star is the plain sum of the words.

    Returns:
        (Figure, readings): the readings give both final states and whether they differ.
    """
    W = keep * turn_matrix(angle)
    fig = Figure(figsize=(7.0, 4.0))
    finals = {}
    for panel, (sentence, colour) in enumerate(((SENTENCE_A, "tab:blue"), (sentence_b, "tab:orange"))):
        ax = fig.add_subplot(1, 2, panel + 1)
        states = np.vstack([np.zeros(2), running_state(sentence, W)])
        finals[sentence] = states[-1]
        for step, word in enumerate(words_of(sentence)):
            old, new = states[step], states[step + 1]
            turned = W @ old
            if not np.allclose(turned, old):
                ax.annotate("", turned, old, arrowprops=dict(arrowstyle="->", ls="--", color="0.55"))
            ax.annotate("", new, turned, arrowprops=dict(arrowstyle="-|>", color=colour, lw=2))
            # the label goes up and right of its point, or down / left near the top / right edge
            # (so that at 60 degrees "3. +man" does not run into the title)
            dy = 5 + 11 * (step % 2)
            down, left = new[1] > 2.3, new[0] > 1.8
            ax.annotate(f"{step + 1}. +{word}", new, textcoords="offset points",
                        xytext=(-5 if left else 5, -dy if down else dy), color=colour, fontsize=11,
                        ha="right" if left else "left", va="top" if down else "baseline")
        ax.plot(*states[-1], "o", color=colour, ms=8)
        ax.plot(*bag_of_words(sentence), marker="*", ms=13, color="0.5", ls="none")
        ax.axhline(0, color="0.88", lw=1, zorder=0)
        ax.axvline(0, color="0.88", lw=1, zorder=0)
        ax.set_xlim(-3.3, 3.3)
        ax.set_ylim(-3.3, 3.3)
        ax.set_aspect("equal")
        ax.set_title(f'"{sentence}" ends at {_fmt(states[-1])}', fontsize=11, color=colour)
    fig.suptitle(f"$W$ = {keep:g} × turn by {angle:g}°   dashed: turn; solid: add the word; star: plain sum",
                 fontsize=11)
    layout(fig)
    _separate_labels(fig)
    a, b = finals[SENTENCE_A], finals[sentence_b]
    same = np.allclose(a, b)
    verdict = "the same state: this reader cannot tell them apart" if same else "different states"
    text = f'"{SENTENCE_A}" -> {_fmt(a)}; "{sentence_b}" -> {_fmt(b)}: <b>{verdict}</b>.'
    return fig, text


def describe_running_state(angle: float = 90, keep: float = 1.0, sentence_b: str = "man bites dog") -> str:
    """What :func:`draw_running_state`'s picture shows, in words (the website's alt text)."""
    W = keep * turn_matrix(angle)
    a, b = running_state(SENTENCE_A, W)[-1], running_state(sentence_b, W)[-1]
    paths = f'Two paths of the hidden state on a plane, blue for "{SENTENCE_A}" and orange for "{sentence_b}": '
    if np.allclose(W, np.eye(2)):
        how = "the cell adds each word's arrow without turning, so both paths end at the plain sum, the grey star"
    else:
        how = f"the cell turns the state by {angle:g} degrees, scaled by {keep:g}, before adding each word's arrow"
    if sentence_b == SENTENCE_A:
        end = "the same sentence twice, so the same path"
    elif np.allclose(a, b):
        end = ("this cell cannot tell the two orders apart" if np.allclose(W, np.eye(2))
               else "both end at the same point, so this cell cannot tell the two orders apart")
    else:
        end = f"they end at different points, {_fmt(a)} and {_fmt(b)}, so the order is kept".replace("-", "minus ")
    return f"{paths}{how}; {end}."


def running_state_try(angle: int = 90, keep: float = 1.0, sentence_b: str = "man bites dog") -> TryPanel:
    """The running-state panel of chapter 1: turn angle, keep factor, and the order of sentence B.

    Args:
        angle: starting turn in degrees (0-360, multiple of 15).
        keep: starting shrink factor in [0.5, 1].
        sentence_b: one of :data:`ORDERS`.

    Returns:
        TryPanel with controls ``angle`` (IntSlider), ``keep`` (FloatSlider) and
        ``sentence_b`` (Dropdown).

    Raises:
        ValueError: if ``sentence_b`` is not an order of "dog bites man".
    """
    if sentence_b not in ORDERS:
        raise ValueError(f"sentence_b must be one of {ORDERS}, got {sentence_b!r}")
    controls = {
        "angle": widgets.IntSlider(value=angle, min=0, max=360, step=15, description="turn (deg)"),
        "keep": widgets.FloatSlider(value=keep, min=0.5, max=1.0, step=0.1, description="keep"),
        "sentence_b": widgets.Dropdown(options=ORDERS, value=sentence_b, description="sentence B"),
    }
    panel = TryPanel("turn the previous state before adding each word", controls, lambda v: draw_running_state(**v))
    panel.describe = lambda v: describe_running_state(v["angle"], v["keep"], v["sentence_b"])
    look_closer = '"dog man bites" and "bites dog man" share the state $(-1,1)$'
    other_orders = "Pick other orders of the three words for sentence B: at 90 degrees none of them matches"
    rotate_60 = "Rotate by 60 degrees instead and all six orders end in six different states"
    panel.tour = [   # chapter 1's "Try it" and, after its table, the two orders that meet and the 60-degree turn
        {"says": "keep *keep* at 1 and set the *turn* to 0 degrees: both sentences land on $(2,2)$",
         "moves": {"angle": 0}, "expect": ['"dog bites man" -> (2, 2)', "cannot tell them apart"]},
        {"says": "Raise it again and they separate", "moves": {"angle": 45}, "expect": ["different states"]},
        {"says": "At 180 degrees they meet once more, at $(0,0)$", "moves": {"angle": 180},
         "expect": ['"dog bites man" -> (0, 0)', '"man bites dog" -> (0, 0)', "cannot tell them apart"]},
        {"says": other_orders, "moves": {"angle": 90, "sentence_b": "bites man dog"},
         "expect": ['"bites man dog" -> (-1, -1)', "different states"]},
        {"says": other_orders, "moves": {"sentence_b": "man dog bites"}, "expect": ['"man dog bites" -> (1, 1)', "different states"]},
        {"says": "Slide *keep* below 1 and back", "moves": {"keep": 0.5}, "expect": ['"dog bites man" -> (-0.75, 1.5)']},
        {"says": "Slide *keep* below 1 and back", "moves": {"keep": 1.0}, "expect": ['"dog bites man" -> (-2, 2)']},
        {"says": look_closer, "moves": {"sentence_b": "dog man bites"}, "expect": ['"dog man bites" -> (-1, 1)', "different states"]},
        {"says": look_closer, "moves": {"sentence_b": "bites dog man"}, "expect": ['"bites dog man" -> (-1, 1)', "different states"]},
        {"says": rotate_60, "moves": {"angle": 60}, "expect": ["different states"]},
        {"says": rotate_60, "moves": {"sentence_b": "dog man bites"}, "expect": ["different states"]},
    ]
    panel.combined = [("angle", "sentence_b")]   # "turn by 60 degrees instead": every turn with every order
    return panel




def draw_window(n: int = 3, sentence: str = ANNOUNCEMENT, keyword: str = "train"):
    """Figure: the words of ``sentence``, with the last ``n`` (what a window reader holds) highlighted.

    Returns:
        (Figure, readings): the readings list the window and say whether ``keyword`` is in it.
    """
    words = words_of(sentence)
    seen = window(words, n)
    start = len(words) - len(seen)
    fig = Figure(figsize=(6.4, 1.9))
    ax = fig.add_subplot(1, 1, 1)
    for i, word in enumerate(words):
        inside = i >= start
        colour = "tab:green" if inside else ("tab:red" if word == keyword else "0.8")
        ax.add_patch(_box(i, colour, alpha=0.35 if inside else 0.25))
        ax.text(i + 0.5, 0.5, word, ha="center", va="center", fontsize=10,
                color="black" if inside else "0.35")
    ax.set_xlim(-0.1, len(words) + 0.1)
    ax.set_ylim(-0.2, 1.3)
    ax.axis("off")
    ax.set_title(f'window of $n$ = {n}: what the reader holds at "{words[-1]}"', fontsize=11)
    layout(fig)
    held = keyword in seen
    text = (f"window: {' '.join(seen)}. "
            + (f'"{keyword}" is still inside.' if held else f'<b>"{keyword}" has dropped out</b>: what is {words[-1]}?'))
    return fig, text


def _box(i, colour, alpha):
    from matplotlib.patches import FancyBboxPatch
    return FancyBboxPatch((i + 0.05, 0.1), 0.9, 0.8, boxstyle="round,pad=0.02", fc=colour, ec="0.4", alpha=alpha)


def describe_window(n: int = 3, sentence: str = ANNOUNCEMENT, keyword: str = "train") -> str:
    """What :func:`draw_window`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_window`. Returns one sentence: the sentence's words in a row, the last
    ``n`` in green (what the reader holds), and whether the keyword, red when outside, still is.
    """
    words = words_of(sentence)
    seen = window(words, n)
    held = keyword in seen
    outside = len(words) - len(seen)
    return (f"The {len(words)} words of the sentence in a row, the last {len(seen)} in green, what a window of "
            f"{n} holds: \"{' '.join(seen)}\"" + (f"; the first {outside} lie outside it, in grey" if outside else "")
            + (f"; \"{keyword}\" is inside." if held else f"; \"{keyword}\", in red, has dropped out."))


def window_try(n: int = 9) -> TryPanel:
    """The window panel of chapter 1: slide the window size over the announcement of chapter 1.

    Args:
        n: starting window size (how many words it holds), 1 to the sentence's length (9).

    Returns:
        TryPanel with one control, ``n`` (IntSlider).
    """
    controls = {"n": widgets.IntSlider(value=n, min=1, max=len(words_of(ANNOUNCEMENT)), step=1, description="window n")}
    panel = TryPanel("how many words does a fixed window keep?", controls, lambda v: draw_window(**v))
    panel.describe = lambda v: describe_window(**v)
    panel.tour = [{"says": 'slide the window down to 3 and watch "train" drop out before "late" arrives', "moves": {"n": 3},
                   "expect": ['"train" has dropped out']}]
    return panel
