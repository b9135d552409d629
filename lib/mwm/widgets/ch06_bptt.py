"""Chapter 6's "Try" panel: the step machine of backprop through time, with truncation.

The machine is §2's one-number cell (w = 0.5, u = 1, b = 0, h0 = 0) reading four words
x = (1, 0, 0, 0), with a loss on word 4 only, L = 1/2 (h_4 - 1)^2. The step slider walks
forward through the four hidden states, puts the loss on word 4, walks the gradient back one
word at a time (each word's copy of the cell adding its contribution to dL/dw), and finally
sums the contributions: -0.4655. Cutting the text into chunks of tau = 2 words keeps the
contributions of words 3 and 4 only: -0.3211.

In Jupyter a play button walks the step slider from 1 to 10 by itself. It is linked to
the slider in the browser (``jslink``) and sits beside the controls, but it is not one of
the panel's ``controls``: the website's static twin (:mod:`mwm.widgets.static`) lists
those, and shows the step slider without the button.
"""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..bptt import last_state_loss, scalar_bptt
from ..cell import scalar_rnn
from .drawing import INPUT_COLOUR, STATE_COLOUR, WEIGHT_COLOUR, arrow, box
from .panel import TryPanel

#: The step machine's sentence, weights and target (chapter 6).
STEP_INPUTS = (1.0, 0.0, 0.0, 0.0)
STEP_W, STEP_U, STEP_TARGET = 0.5, 1.0, 1.0
#: Slider positions: 1 inputs, 2-5 the hidden states, 6 the loss and word 4's contribution, 7-9 the walk back, 10 the sum.
N_STEPS = 10
#: The truncation choices: label -> truncation length tau, the chunk length (None: no cut).
CUTS = {"no cut": None, "τ = 3": 3, "τ = 2": 2, "τ = 1": 1}
#: Milliseconds between two steps when the play button runs the machine.
PLAY_INTERVAL_MS = 900


def step_machine(tau=None):
    """The step machine's numbers: (hs, loss, ScalarGrads) for truncation length ``tau`` (None: full BPTT)."""
    hs = scalar_rnn(STEP_INPUTS, STEP_W, STEP_U)
    loss, dL_dh = last_state_loss(hs, STEP_TARGET)
    return hs, loss, scalar_bptt(STEP_INPUTS, hs, dL_dh, STEP_W, STEP_U, tau=tau)


def _stage(step, T):
    """How far the machine has got: (states shown, first word whose gradient is shown, summed?)."""
    shown = min(max(step - 1, 0), T)
    back_to = T - (step - 1 - T) + 1 if step > T + 1 else T + 1   # gradient shown for words >= back_to
    return shown, max(back_to, 1), step >= N_STEPS


def _walk(step, cut):
    """The machine at slider position ``step`` with truncation ``cut``: (tau, step_machine(tau), words, _stage).

    Raises:
        ValueError: for a ``step`` outside 1-10 or an unknown ``cut``.
    """
    if cut not in CUTS:
        raise ValueError(f"cut must be one of {list(CUTS)}, got {cut!r}")
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or not 1 <= step <= N_STEPS:
        raise ValueError(f"step must be a whole number from 1 to {N_STEPS}, got {step!r}")
    tau = CUTS[cut]
    T = len(STEP_INPUTS)
    return tau, step_machine(tau), T, _stage(step, T)


def draw_step_machine(step: int = N_STEPS, cut: str = "no cut"):
    """Figure: the step machine at slider position ``step`` (1-10) with truncation ``cut``.

    Top: four copies of the cell; green discs are the hidden states h_t, red discs the
    gradient dL/dh_t reaching each state (area grows with its size), a dashed line each cut.
    Bottom: each copy's contribution to dL/dw, and their sum once the walk is over.

    Returns:
        (Figure, readings): the readings give the states, the loss, the contributions so far and,
        at step 10, dL/dw (-0.4655 with no cut, -0.3211 with tau = 2).

    Raises:
        ValueError: for a ``step`` outside 1-10 or an unknown ``cut``.
    """
    tau, (hs, loss, g), T, (n_states, back_to, summed) = _walk(step, cut)
    cut_after = [] if tau is None else [m for m in range(tau, T, tau)]   # cuts between word m and m+1
    # a word's gradient is "reached" if it lies in the last word's chunk
    first_in_chunk = 1 if tau is None else ((T - 1) // tau) * tau + 1

    fig = Figure(figsize=(7.4, 4.8))
    top = fig.add_axes((0.02, 0.42, 0.96, 0.52))
    bottom = fig.add_axes((0.12, 0.08, 0.86, 0.26))
    for t in range(1, T + 1):
        x0 = 1.4 * t
        box(top, x0 - 0.4, 0.9, 0.8, 0.6, "$w$ = 0.5", fc="#f5f5f5", fontsize=10)
        arrow(top, (x0, 0.25), (x0, 0.9), color=INPUT_COLOUR)
        top.text(x0, 0.18, f"$x_{t}$ = {STEP_INPUTS[t - 1]:g}", ha="center", va="top", fontsize=10, color=INPUT_COLOUR)
        arrow(top, (x0 - 1.0, 1.2), (x0 - 0.4, 1.2), color="0.5")
        if t <= n_states:
            h = hs[t - 1]
            top.scatter([x0], [1.88], s=(6 + 28 * abs(h)) ** 2, color=STATE_COLOUR, alpha=0.75)
            top.text(x0, 2.28, f"{h:.4f}", ha="center", fontsize=10, color="darkgreen")
        if t >= back_to:
            reached = t >= first_in_chunk
            d = g.dh[t - 1]
            if reached:
                top.scatter([x0], [2.88], s=(4 + 26 * np.sqrt(abs(d))) ** 2, color="tab:red", alpha=0.7)
            top.text(x0, 3.35, f"{d:.4f}" if reached else "no gradient\n(cut)", ha="center",
                     fontsize=10, color="tab:red" if reached else "0.35")
    top.text(0.35, 1.2, "$h_0$ = 0", ha="right", va="center", fontsize=10)
    if n_states:
        top.text(0.5, 2.32, "$h_t$", ha="right", va="bottom", fontsize=11, color="darkgreen")
    if back_to <= T:
        top.text(0.5, 3.4, r"$\partial L / \partial h_t$", ha="right", va="bottom", fontsize=11, color="tab:red")
    if step >= T + 2:
        top.text(1.4 * T + 0.5, 2.85, f"$L = (h_4 - 1)^2/2$\n= {loss:.4f}", fontsize=10, va="center", color="tab:red")
    for m in cut_after:
        xc = 1.4 * m + 0.7
        top.plot([xc, xc], [0.0, 3.6], ls="--", color="0.3", lw=1.2)
        top.text(xc, 3.62, "cut", ha="center", va="bottom", fontsize=10)
    top.set_xlim(-0.9, 1.4 * T + 2.0)
    top.set_ylim(-0.1, 3.9)
    top.axis("off")
    phase = ("forward: the hidden states flow" if step <= T + 1 else
             "backward: the gradient walks back" if not summed else "add up the contributions")
    top.set_title(f"step {step} / {N_STEPS}: {phase}" + ("" if tau is None else rf"  (chunks of $\tau$ = {tau})"),
                  fontsize=11)

    shown = [t for t in range(1, T + 1) if t >= back_to]
    steps_dw = [g.dw_steps[t - 1] if t in shown else 0.0 for t in range(1, T + 1)]
    labels = [f"word {t}" for t in range(1, T + 1)] + [r"sum $= \partial L / \partial w$"]
    values = steps_dw + [g.dw if summed else 0.0]
    colours = [WEIGHT_COLOUR if (t + 1) in shown and t + 1 >= first_in_chunk else "0.8" for t in range(T)]
    colours.append("tab:red")
    bottom.bar(range(T + 1), values, color=colours)
    for i, v in enumerate(values):
        if i < T and (i + 1) in shown or (i == T and summed):
            bottom.text(i, v - 0.02, f"{v:.4f}", ha="center", va="top", fontsize=10)
    bottom.set_xticks(range(T + 1))
    bottom.set_xticklabels(labels, fontsize=10)
    bottom.set_ylim(-0.62, 0.08)
    bottom.axhline(0, color="0.6", lw=0.8)
    bottom.set_ylabel(r"step's $\partial L / \partial w$", fontsize=10)

    parts = []
    if n_states:
        parts.append("states: " + ", ".join(f"{h:.4f}" for h in hs[:n_states]))
    if step >= T + 2:
        parts.append(f"loss at word 4: L = {loss:.4f}, dL/dh4 = {g.dh[-1]:.4f}")
        kept = [t for t in shown if t >= first_in_chunk]
        parts.append("contributions to the gradient of w: " + ", ".join(f"word {t}: {g.dw_steps[t - 1]:.4f}" for t in sorted(kept)))
        if any(t < first_in_chunk for t in shown):
            parts.append(f"no gradient crosses the cut before word {first_in_chunk}")
    if summed:
        parts.append(f"dL/dw = {g.dw:.4f}")
    if not parts:
        parts.append("the words x = 1, 0, 0, 0 wait at the start; h0 = 0")
    return fig, "; ".join(parts)


def describe_step_machine(step: int = N_STEPS, cut: str = "no cut") -> str:
    """What :func:`draw_step_machine`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_step_machine`. Returns one sentence: the phase, the hidden
    states shown so far, the gradients that reached the states (and the cuts), and the bars of
    each copy's contribution to dL/dw with their sum at the end.
    """
    tau, (hs, loss, g), T, (n_states, back_to, summed) = _walk(step, cut)
    first_in_chunk = 1 if tau is None else ((T - 1) // tau) * tau + 1
    said = [f"Step {step} of {N_STEPS} of the step machine, {T} copies of the cell with w = 0.5 in a row"
            + ("" if tau is None else f", cut into chunks of {tau} by dashed lines")]
    said.append("green discs, the hidden states: " + ", ".join(f"{h:.2f}" for h in hs[:n_states]) if n_states
                else "no hidden state computed yet")
    reached = [t for t in range(max(back_to, first_in_chunk), T + 1)]
    if back_to <= T:
        said.append(f"the loss {loss:.2f}; red discs, the gradient walking back: "
                    + ", ".join(f"word {t} {g.dh[t - 1]:.2f}" for t in reached)
                    + ("" if back_to >= first_in_chunk else f"; none before word {first_in_chunk}, behind the cut"))
    if summed:
        said.append(f"the bars below add the copies' contributions to dL/dw, {g.dw:.4f}")
    return ("; ".join(said) + ".").replace("-", "minus ")


def step_machine_try(step: int = N_STEPS, cut: str = "no cut") -> TryPanel:
    """The step machine panel: walk forward through four hidden states and back with the gradient; cut it.

    Returns:
        TryPanel with controls ``step`` (IntSlider 1-10) and ``cut`` (ToggleButtons: no cut,
        τ = 3, τ = 2, τ = 1: chunks of τ words, no gradient crossing a chunk border), and a
        ``play`` attribute: an ipywidgets.Play (1-10, one step every ``PLAY_INTERVAL_MS``)
        shown first in the row of controls and linked to the step slider in the browser.
        Pressed at step 10 it starts again from step 1. It is not in ``controls``, so the
        website's static twin lists the slider's values, leaves the button out and says
        (``live_only``) that playing needs Jupyter.
    """
    controls = {
        "step": widgets.IntSlider(value=step, min=1, max=N_STEPS, description="step"),
        "cut": widgets.ToggleButtons(options=list(CUTS), value=cut, description="truncate"),
    }
    panel = TryPanel("the step machine: states forward, gradient back, contributions added", controls,
                     lambda v: draw_step_machine(**v))
    play = widgets.Play(value=controls["step"].value, min=1, max=N_STEPS, interval=PLAY_INTERVAL_MS,
                        description="play the steps")
    panel.play = play
    panel.live_only = "press play and watch the steps run by themselves"
    panel.play_link = widgets.jslink((play, "value"), (controls["step"], "value"))
    row = panel.children[1]                       # the row of controls (TryPanel puts it under the title)
    row.children = (play,) + tuple(row.children)
    panel.describe = lambda v: describe_step_machine(**v)
    panel.tour = [   # chapter 6's "Try it": the machine run step by step, then the two cuts
        {"says": "drag *step* back to 1, then forward to 10", "moves": {"step": 1}, "expect": ["wait at the start"]},
        {"says": "Steps 2 to 5 fill in the four states", "moves": {"step": 5}, "expect": ["states: 0.7616, 0.3634, 0.1797, 0.0896"]},
        {"says": "At step 6 the loss appears on word 4", "moves": {"step": 6},
         "expect": ["loss at word 4: L = 0.4144, dL/dh4 = -0.9104", "word 4: -0.1623"]},
        {"says": "Steps 7 to 9 carry it back one word at a time", "moves": {"step": 9}, "expect": ["word 2: -0.1444"]},
        {"says": "Step 10 adds them: $-0.4655$", "moves": {"step": 10}, "expect": ["dL/dw = -0.4655"]},
        {"says": "Now press $\\tau = 2$ under *truncate*", "moves": {"cut": "τ = 2"},
         "expect": ["no gradient crosses the cut before word 3", "dL/dw = -0.3211"]},
        {"says": "Then try $\\tau = 3$", "moves": {"cut": "τ = 3"}, "expect": ["word 4: -0.1623; no gradient", "dL/dw = -0.1623"]},
    ]
    return panel
