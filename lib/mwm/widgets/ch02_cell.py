"""Chapter 2's "Try" panels: the one-number cell, and a hidden state of six numbers."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..cell import rnn_forward, scalar_rnn
from .drawing import layout, value_bars
from .panel import TryPanel

#: Inputs of the one-number panel: one real word, then blanks (chapter 2 uses the first three).
SCALAR_INPUTS = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def draw_scalar_cell(w: float = 0.5, u: float = 1.0, steps: int = 3):
    """Figure: the hidden states h_1..h_steps of ``h_t = tanh(w h_{t-1} + u x_t)`` for x = (1, 0, 0, ...).

    Returns:
        (Figure, readings): the readings list the states to four decimals.
    """
    xs = np.array(SCALAR_INPUTS[:steps])
    hs = scalar_rnn(xs, w=w, u=u)
    fig = Figure(figsize=(6.4, 3.0))
    ax = fig.add_subplot(1, 1, 1)
    value_bars(ax, hs, [f"$h_{{{t + 1}}}$\n$x$={x:g}" for t, x in enumerate(xs)], digits=2)
    ax.set_xlim(-0.6, len(SCALAR_INPUTS) - 0.4)
    ax.set_ylabel("hidden state $h_t$")
    ax.set_title(rf"$h_t = \tanh({w:g}\,h_{{t-1}} + {u:g}\,x_t)$: one word, then blanks", fontsize=11)
    layout(fig)
    return fig, "states: " + ", ".join(f"{h:.4f}" for h in hs)


def describe_scalar_cell(w: float = 0.5, u: float = 1.0, steps: int = 3) -> str:
    """What :func:`draw_scalar_cell`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_scalar_cell`. Returns one sentence: the rule, the bars' values, and
    what happens to the first word (fades, holds, flips sign, is never written).
    """
    hs = scalar_rnn(np.array(SCALAR_INPUTS[:steps]), w=w, u=u)
    values = ", ".join(f"{h:.2f}" for h in hs)
    when = f"after each of {steps} steps" if steps > 1 else "after 1 step"
    said = (f"Bars of the hidden state {when}, each state tanh of {w:g} times the one before plus {u:g} times "
            f"the input, the input one word then blanks: {values}").replace("-", "minus ")
    first, last = abs(hs[0]), abs(hs[-1])
    if np.allclose(hs, 0):
        what = "with u = 0 the word is never written in, so every state is 0"
    elif steps == 1:
        what = "one bar, the word as written in"
    else:
        flips = w < 0 and np.all(np.sign(hs[1:]) == -np.sign(hs[:-1]))
        if last < 0.005:
            size = "the first word is gone after one step" if abs(hs[1]) < 0.005 else "the first word fades to almost nothing"
        elif np.isclose(last, first, atol=0.005):
            size = "the first word holds its size"
        elif last < first:
            size = f"the first word fades from {first:.2f} to {last:.2f}"
        elif np.isclose(abs(hs[-2]), last, atol=0.005):
            size = f"the state grows from {first:.2f} and settles at {last:.2f}"
        else:
            size = f"the state grows from {first:.2f} to {last:.2f}"
        what = size + ("; the state flips sign at every step" if flips else "")
    return f"{said}; {what}."


def scalar_cell_try(w: float = 0.5, u: float = 1.0, steps: int = 1) -> TryPanel:
    """The one-number cell panel: keep-old weight w, new-word weight u, and how many steps to run.

    Returns:
        TryPanel with controls ``w`` and ``u`` (FloatSliders, step 0.1) and ``steps`` (IntSlider 1-8).
    """
    controls = {
        "w": widgets.FloatSlider(value=w, min=-1.5, max=1.5, step=0.1, description="keep old w"),
        "u": widgets.FloatSlider(value=u, min=0.0, max=2.0, step=0.1, description="new word u"),
        "steps": widgets.IntSlider(value=steps, min=1, max=len(SCALAR_INPUTS), description="steps"),
    }
    panel = TryPanel("one number of memory: how fast does the first word fade?", controls,
                     lambda v: draw_scalar_cell(**v))
    panel.tour = [   # chapter 2's "Try it", and the states it quotes
        {"says": "move the *steps* slider from 1 to 3 and read the states 0.7616, 0.3634, 0.1797", "moves": {"steps": 3},
         "expect": ["states: 0.7616, 0.3634, 0.1797"]},
        {"says": "Then push *keep old w* up to 1", "moves": {"w": 1.0}, "expect": ["states: 0.7616, 0.6420, 0.5663"]},
        {"says": "Try a negative $w$ and watch the state change sign at every step", "moves": {"w": -0.5},
         "expect": ["states: 0.7616, -0.3634, 0.1797"]},
        {"says": "The *new word u* slider sets how strongly the word is written in the first place", "moves": {"u": 2.0},
         "expect": ["states: 0.9640, -0.4479, 0.2203"]},
    ]
    # the lesson: how w fades the first word over the steps, for every w; and how u scales what comes in
    panel.combined = [("w", "steps"), ("u", "steps")]
    panel.describe = lambda v: describe_scalar_cell(**v)
    return panel


#: Inputs of the six-number panel: a word of strength 1 at steps 1 and 5, blanks between.
SIX_INPUTS = np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])


def six_state_weights(mode: str = "slide down", fade: float = 0.9, size: int = 6, seed: int = 0):
    """The (W, U, b) of the six-number panel.

    "slide down": W = fade * (shift one slot down), U writes the word into the top slot,
    so each word slides down the card one slot per step, fading by ``fade`` each time.
    "mix": W = fade * a random orthogonal matrix (fixed ``seed``), which smears every
    word over all slots.

    Raises:
        ValueError: for an unknown mode.
    """
    if mode == "slide down":
        W = fade * np.eye(size, k=-1)
    elif mode == "mix":
        q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((size, size)))
        W = fade * q
    else:
        raise ValueError(f"mode must be 'slide down' or 'mix', got {mode!r}")
    U = np.zeros((size, 1))
    U[0, 0] = 1.0
    return W, U, np.zeros(size)


def draw_six_state(mode: str = "slide down", fade: float = 0.9, steps: int = 10):
    """Figure: the six numbers of the hidden state (rows) after each word (columns), as a heat map."""
    W, U, b = six_state_weights(mode, fade)
    hs, _ = rnn_forward(SIX_INPUTS[:, None], {"W": W, "U": U, "b": b})
    shown = np.full_like(hs, np.nan)
    shown[:steps] = hs[:steps]
    fig = Figure(figsize=(7.0, 3.4))
    ax = fig.add_subplot(1, 1, 1)
    im = ax.imshow(shown.T, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
    for t in range(steps):
        for i in range(hs.shape[1]):
            if abs(hs[t, i]) >= 0.05:  # only the slots that hold something are written
                ax.text(t, i, f"{hs[t, i]:.1f}", ha="center", va="center", fontsize=10)
    ax.set_xticks(range(len(SIX_INPUTS)))
    ax.set_xticklabels([f"{t + 1}\n{x:g}" for t, x in enumerate(SIX_INPUTS)], fontsize=10)
    ax.set_yticks(range(hs.shape[1]))
    ax.set_yticklabels([f"slot {i + 1}" for i in range(hs.shape[1])], fontsize=10)
    ax.set_xlabel("word $t$ (below it, its strength $x_t$)")
    ax.set_title(f"a hidden state of six numbers, $W$ = {mode} × {fade:g}", fontsize=11)
    fig.colorbar(im, ax=ax, fraction=0.03)
    layout(fig)
    top = ", ".join(f"{v:.4f}" for v in hs[:steps, 0])
    return fig, f"slot 1 over time: {top}"


def describe_six_state(mode: str = "slide down", fade: float = 0.9, steps: int = 10) -> str:
    """What :func:`draw_six_state`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_six_state`. Returns one sentence: the heat map's rows and columns, what W
    does, and after the last word read which slots hold something and the largest number.
    """
    W, U, b = six_state_weights(mode, fade)
    hs, _ = rnn_forward(SIX_INPUTS[:, None], {"W": W, "U": U, "b": b})
    last = hs[steps - 1]
    holding = [i + 1 for i in range(len(last)) if abs(last[i]) >= 0.05]
    big = int(np.argmax(np.abs(last)))
    how = (f"W moves each number one slot down at every word, times {fade:g}" if mode == "slide down"
           else f"W mixes every slot into every slot at every word, times {fade:g}")
    if len(holding) > 1:
        held = f"slots {', '.join(map(str, holding))} hold something, the largest {last[big]:.1f} in slot {big + 1}"
    elif holding:
        held = f"only slot {holding[0]} holds something, {last[big]:.1f}"
    else:
        held = "no slot holds anything"
    read = f"after each of the {steps} words read" if steps > 1 else "after the 1 word read"
    return (f"A heat map of the hidden state's six numbers, slots 1 to 6 in rows, {read}, in columns, red above 0 "
            f"and blue below; a word of strength 1 comes at "
            f"words 1 and 5, blanks between; {how}. After word {steps}, {held}.").replace("-", "minus ")


def six_state_try(mode: str = "slide down", fade: float = 0.9, steps: int = 10) -> TryPanel:
    """The six-number hidden-state panel: how a bigger state stores words (slide down) or mixes them.

    Returns:
        TryPanel with controls ``mode`` (ToggleButtons), ``fade`` (FloatSlider) and ``steps`` (IntSlider).
    """
    controls = {
        "mode": widgets.ToggleButtons(options=["slide down", "mix"], value=mode, description="W"),
        "fade": widgets.FloatSlider(value=fade, min=0.5, max=1.0, step=0.1, description="fade"),
        "steps": widgets.IntSlider(value=steps, min=1, max=len(SIX_INPUTS), description="words read"),
    }
    panel = TryPanel("a hidden state of six numbers", controls, lambda v: draw_six_state(**v))
    panel.describe = lambda v: describe_six_state(**v)
    panel.tour = [{"says": "Switch to *mix*", "moves": {"mode": "mix"}, "expect": ["slot 1 over time: 0.7616, -0.0285"]}]
    return panel


