"""Chapter 3's "Try" panel: fold and unroll the cell; the chain grows, the weights do not."""
from __future__ import annotations

import ipywidgets as widgets
from matplotlib.figure import Figure

from ..params import cell_param_count, unshared_param_count
from .drawing import INPUT_COLOUR, STATE_COLOUR, WEIGHT_COLOUR, arrow, box
from .panel import TryPanel

#: Hidden-state size and word size of the panel (chapter 3's example).
HIDDEN, INPUT = 4, 3


def draw_unroll(length: int = 5, view: str = "unrolled", light_up_w: bool = False):
    """Figure: the cell folded (one box with a loop) or unrolled over ``length`` words, and the weight count.

    Returns:
        (Figure, readings): the readings give the shared count (32 for H=4, d=3) and
        what ``length`` unshared copies would need.
    """
    shared = cell_param_count(HIDDEN, INPUT)
    unshared = unshared_param_count(HIDDEN, INPUT, length)
    w_colour = "red" if light_up_w else WEIGHT_COLOUR
    w_lw = 3.5 if light_up_w else 2.0
    fig = Figure(figsize=(7.2, 3.6))
    ax = fig.add_axes((0.02, 0.05, 0.64, 0.82))
    bars = fig.add_axes((0.77, 0.12, 0.21, 0.62))
    if view == "folded":
        box(ax, 3.5, 1.0, 1.2, 1.0, "cell\n$W, U, \\mathbf{b}$", fontsize=11)
        arrow(ax, (4.5, 2.0), (3.7, 2.0), color=w_colour, lw=w_lw, rad=1.8)
        ax.text(4.1, 2.85, "$W$: the hidden state goes round the loop", ha="center", fontsize=11, color=w_colour)
        arrow(ax, (4.1, -0.2), (4.1, 1.0), color=INPUT_COLOUR, label="")
        ax.text(4.1, -0.35, r"$\mathbf{x}_t$, one word at a time", ha="center", va="top", fontsize=11, color=INPUT_COLOUR)
        ax.set_xlim(0, 8.4)
    else:
        for t in range(length):
            x0 = 0.6 + t * 1.0
            # boxes 0.55 wide a step of 1 apart: the W arrows between them long enough to be seen as arrows
            box(ax, x0, 1.0, 0.55, 0.8, rf"$\mathbf{{h}}_{{{t + 1}}}$", fc="#e8f5e9", fontsize=11)
            arrow(ax, (x0 + 0.275, 0.1), (x0 + 0.275, 1.0), color=INPUT_COLOUR)
            ax.text(x0 + 0.275, 0.0, rf"$\mathbf{{x}}_{{{t + 1}}}$", ha="center", va="top", fontsize=11, color=INPUT_COLOUR)
            arrow(ax, (x0 - 0.45 if t else 0.15, 1.4), (x0, 1.4), color=w_colour, lw=w_lw)
        ax.text(0.05, 1.4, r"$\mathbf{h}_0$", ha="right", va="center", fontsize=11, color=STATE_COLOUR)
        ax.set_xlim(-0.3, 8.4)
    ax.set_ylim(-0.6, 3.2)
    ax.axis("off")
    title = "the loop, folded" if view == "folded" else f"unrolled over {length} words: {length} copies, one $W$"
    ax.set_title(title + ("\n(every red arrow is the same $W$)" if light_up_w else ""), fontsize=11)
    bars.bar([0, 1], [shared, unshared], color=[WEIGHT_COLOUR, "0.6"])
    bars.set_xticks([0, 1])
    bars.set_xticklabels(["shared", "unshared"], fontsize=10, rotation=20)
    for i, v in enumerate((shared, unshared)):
        bars.text(i, v, str(v), ha="center", va="bottom", fontsize=10)
    bars.set_ylim(0, unshared_param_count(HIDDEN, INPUT, 8) * 1.15)
    bars.set_title(f"numbers to learn\n($H$={HIDDEN}, $d$={INPUT})", fontsize=11)
    text = (f"{length} words: the shared cell learns {shared} numbers; "
            f"{length} unshared copies would need {unshared}.")
    return fig, text


def describe_unroll(length: int = 5, view: str = "unrolled", light_up_w: bool = False) -> str:
    """What :func:`draw_unroll`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_unroll`. Returns one sentence: the cell folded (one box, the hidden
    state going round the loop through W) or unrolled (a chain of copies), the W arrows lit up
    or not, and the bars of numbers to learn, shared against unshared.
    """
    shared = cell_param_count(HIDDEN, INPUT)
    unshared = unshared_param_count(HIDDEN, INPUT, length)
    lit = (", the W arrow lit red" if view == "folded" else ", every W arrow lit red: the same W") if light_up_w else ""
    if view == "folded":
        cell = f"Left, the cell folded: one box, the hidden state going round a loop through W, a word coming in below{lit}"
    else:
        cell = (f"Left, the cell unrolled over {length} words: a chain of {length} copies from h0 to h{length}, each "
                f"reading its word from below and the state before it through W{lit}")
    return (f"{cell}. Right, two bars of numbers to learn with H = {HIDDEN} and d = {INPUT}: {shared} shared by every "
            f"copy, against {unshared} for {length} copies of their own.")


def unroll_try(length: int = 5, view: str = "unrolled", light_up_w: bool = False) -> TryPanel:
    """The unrolling panel: fold/unroll the picture, light up W, change the sentence length (2-8).

    Returns:
        TryPanel with controls ``length`` (IntSlider), ``view`` (ToggleButtons) and
        ``light_up_w`` (Checkbox).
    """
    controls = {
        "length": widgets.IntSlider(value=length, min=2, max=8, description="words"),
        "view": widgets.ToggleButtons(options=["unrolled", "folded"], value=view, description="picture"),
        "light_up_w": widgets.Checkbox(value=light_up_w, description="light up W"),
    }
    panel = TryPanel("a longer sentence makes a longer chain, not a bigger cell", controls,
                     lambda v: draw_unroll(**v))
    panel.describe = lambda v: describe_unroll(**v)
    switch = "Switch the picture between *unrolled* and *folded*"
    panel.tour = [   # chapter 3's "Try it"
        {"says": switch, "moves": {"view": "folded"}, "expect": ["5 words"]},
        {"says": switch, "moves": {"view": "unrolled"}, "expect": ["5 words"]},
        {"says": "Tick *light up W*", "moves": {"light_up_w": True}, "expect": ["5 words"]},
        {"says": "Then drag *words* down to 2 and up to 8", "moves": {"length": 2}, "expect": ["2 unshared copies would need 64"]},
        {"says": "Then drag *words* down to 2 and up to 8", "moves": {"length": 8},
         "expect": ["8 words: the shared cell learns 32 numbers; 8 unshared copies would need 256"]},
    ]
    return panel
