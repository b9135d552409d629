"""Chapter 7's "Try" panels: the scalar chain across w = 1, and eigen-memory presets."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..dynamics import eigen_split, matrix_powers, scalar_chain, spectral_radius, tanh_fixed_point
from .drawing import spoken_number
from .panel import TryPanel

GOLD = "goldenrod"
#: The bar the readings quote (t = 10) stands out from the goldenrod ones in a different hue.
HIGHLIGHT = "tab:blue"
#: The scalar-chain panel's y ticks (log scale).
LOG_TICKS = (1e-8, 1e-6, 1e-4, 1e-2, 1.0, 1e2, 1e4)
#: How many steps the scalar-chain panel shows, and the step whose bar the readings quote.
CHAIN_STEPS, CHAIN_READ = 20, 10

#: The eigen-memory presets: name -> 2x2 matrix. "keep" is the chapter's worked matrix
#: (eigenvalues 1 and 0.5); "fade" and "explode" are it minus / plus 0.2 I, so they keep
#: its eigen-directions (4, 1) and (1, -1) and only change the volume (eigenvalues 0.8, 0.3
#: and 1.2, 0.7); "rotate" turns by about 36.87 degrees (eigenvalues 0.8 +- 0.6i).
PRESETS = {
    "keep": np.array([[0.9, 0.4], [0.1, 0.6]]),
    "fade": np.array([[0.7, 0.4], [0.1, 0.4]]),
    "explode": np.array([[1.1, 0.4], [0.1, 0.8]]),
    "rotate": np.array([[0.8, -0.6], [0.6, 0.8]]),
}
#: Every preset starts the hidden state at (1, 0).
START = np.array([1.0, 0.0])
#: Half-width of the eigen-memory map; a state outside it has "run off the map".
MAP = 1.6
#: The step counts the eigen-memory panel offers (a short list, so the website can draw every setting).
STEPS_SHOWN = ("0", "1", "2", "3", "4", "5", "10", "15", "20", "30", "40", "60")


def _log_bars(ax, values, outline, highlight, title):
    t = np.arange(1, len(values) + 1)
    sizes = np.abs(values)
    floor = 1e-10
    colours = [GOLD] * len(t)
    colours[highlight - 1] = HIGHLIGHT
    ax.bar(t, np.maximum(sizes, floor) - floor, bottom=floor, color=colours, alpha=0.85)
    if outline is not None:
        ax.bar(t, np.abs(outline) - floor, bottom=floor, fill=False, edgecolor="0.25", ls="--", lw=1.0,
               label=r"$|w|^t$, no $\tanh$")
        ax.legend(fontsize=10, loc="upper left")
    ax.set_yscale("log")
    ax.set_ylim(1e-8, 1e4)
    below = sizes < 1e-8   # bars that end under the chart's floor: a mark on the floor, so they are not read as missing
    if below.any():
        ax.plot(t[below], np.full(below.sum(), 2e-8), "v", color="0.25", ms=5)
    # plain-text tick labels: the default 10^k labels go through mathtext, which is slow to lay out
    ax.set_yticks(LOG_TICKS, [f"{v:g}" for v in LOG_TICKS])
    ax.minorticks_off()
    ax.axhline(1.0, color="0.5", lw=0.8)
    ticks = sorted({1, highlight, *range(5, len(values) + 1, 5)})
    ax.set_xticks(ticks)
    for tick, label in zip(ticks, ax.get_xticklabels()):
        if tick == highlight:  # the step the readings quote, in the bar's colour
            label.set_color(HIGHLIGHT)
            label.set_fontweight("bold")
    ax.set_xlabel("step $t$" + (" (\u25bc: below 1e-08)" if below.any() else ""))
    ax.set_title(title, fontsize=11)


def draw_chain(w: float = 0.5, tanh: bool = False, steps: int = CHAIN_STEPS):
    """Figure: the hidden state |h_t| and the Jacobian |dh_t/dh_0| along the scalar chain, t = 1..steps (log scale).

    The chain is ``h_t = w h_{t-1}`` (or ``tanh(w h_{t-1})`` with ``tanh=True``) from h_0 = 1.
    With tanh on, a dashed outline shows the plain powers |w|^t for comparison.

    Returns:
        (Figure, readings): the readings quote the state and the Jacobian at step 10 (and at
        the last step), and with tanh on and w > 1 the state h* it settles on.
    """
    w = round(float(w), 4)
    states, jacobians = scalar_chain(w, steps, h0=1.0, squash=tanh)
    plain = scalar_chain(w, steps, h0=1.0)[1] if tanh else None
    fig = Figure(figsize=(7.4, 3.4))
    ax1, ax2 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    rule = rf"\tanh({w:g}\,h_{{t-1}})" if tanh else rf"{w:g}\,h_{{t-1}}"
    _log_bars(ax1, states[1:], plain[1:] if tanh else None, CHAIN_READ, f"hidden state $|h_t|$, $h_t = {rule}$")
    _log_bars(ax2, jacobians[1:], plain[1:] if tanh else None, CHAIN_READ, r"Jacobian $|\partial h_t / \partial h_0|$")
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.16, top=0.9, wspace=0.3)  # fixed: no extra layout pass
    t = CHAIN_READ
    text = (f"w = {w:g}{' with tanh' if tanh else ''}: at t = {t} the state is {states[t]:.6g} "
            f"and the Jacobian {jacobians[t]:.6g}; at t = {steps} they are {states[steps]:.6g} and {jacobians[steps]:.6g}")
    if tanh and w > 1:
        h_star = tanh_fixed_point(w)
        text += (f". The state settles at h* = {h_star:.4f} (where h = tanh({w:g} h)); there each step "
                 f"multiplies the gradient by {w:g}(1 - h*^2) = {w * (1 - h_star ** 2):.4f}")
    return fig, text


def _went(values, steps: int, plural: bool = False) -> str:
    """Where ``values`` (1 at t = 0) end at ``steps``: "shrinks to 0.0617 by step 20", "grows to ...", "stays at 1"."""
    last = float(values[steps])
    if np.isclose(last, 1.0):
        verb = "stay" if plural else "stays"
        return f"{verb} at 1"
    verb = ("shrink" if last < 1 else "grow") + ("" if plural else "s")
    return f"{verb} to {spoken_number(last)} by step {steps}"


def describe_chain(w: float = 0.5, tanh: bool = False, steps: int = CHAIN_STEPS) -> str:
    """What :func:`draw_chain`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_chain`. Returns one sentence: the two bar charts, where the state and
    the Jacobian end, and with tanh the state it settles on and the plain powers outlined.
    """
    w = round(float(w), 4)
    states, jacobians = scalar_chain(w, steps, h0=1.0, squash=tanh)
    rule = f"tanh of {w:g} times the one before" if tanh else f"{w:g} times the one before"
    state = f"settles at {tanh_fixed_point(w):.3f}" if tanh and w > 1 else _went(np.abs(states), steps)
    said = (f"Two bar charts on a log scale over steps 1 to {steps}, each hidden state {rule}, starting from 1: "
            f"the hidden state (left) {state}, and the Jacobian, how much the state at step t moves when the first "
            f"one does (right), {_went(np.abs(jacobians), steps)}")
    if tanh:
        plain = scalar_chain(w, steps, h0=1.0)[1]
        said += f"; dashed outlines show the powers of w without tanh, which {_went(np.abs(plain), steps, plural=True)}"
    return said + "."


def chain_try(w: float = 0.5, tanh: bool = False) -> TryPanel:
    """The scalar-chain panel: slide w across 1, with and without tanh.

    Returns:
        TryPanel with controls ``w`` (FloatSlider 0.5-1.5, step 0.05) and ``tanh``
        (Checkbox: the squeeze on or off): 42 settings, all drawn for the website.
    """
    controls = {
        "w": widgets.FloatSlider(value=w, min=0.5, max=1.5, step=0.05, description="w",
                                 readout_format=".2f"),
        "tanh": widgets.Checkbox(value=tanh, description="with tanh"),
    }
    panel = TryPanel("the scalar chain h_t = w h_(t-1), with or without tanh", controls, lambda v: draw_chain(**v))
    panel.describe = lambda v: describe_chain(**v)
    ease = "Ease $w$ past 1 a notch at a time"
    panel.tour = [   # chapter 7's first "Try it" panel
        {"says": "At $w=0.5$ the blue bar at $t=10$ reads 0.000977 on both sides", "moves": {},
         "expect": ["at t = 10 the state is 0.000976562 and the Jacobian 0.000976562"]},
        {"says": "at $w=1.5$ it reads 57.67", "moves": {"w": 1.5}, "expect": ["at t = 10 the state is 57.665"]},
        {"says": ease, "moves": {"w": 0.9}, "expect": ["w = 0.9: at t = 10 the state is 0.348678"]},
        {"says": ease, "moves": {"w": 1.1}, "expect": ["w = 1.1: at t = 10 the state is 2.59374"]},
        {"says": "Now tick *with tanh*", "moves": {"tanh": True}, "expect": ["w = 1.1 with tanh"]},
        {"says": "At $w=1.5$ the state settles at 0.8586", "moves": {"w": 1.5}, "expect": ["settles at h* = 0.8586"]},
    ]
    return panel




def _eigen_walk(preset, steps):
    """(steps as an int, W of ``preset``, the path W^t (1, 0) for t = 0..steps, its lengths).

    Raises:
        ValueError: for an unknown preset.
    """
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {list(PRESETS)}, got {preset!r}")
    steps = int(steps)
    path = matrix_powers(PRESETS[preset], START, steps)
    return steps, PRESETS[preset], path, np.linalg.norm(path, axis=1)


def draw_eigen_memory(preset: str = "keep", steps=30):
    """Figure: the hidden state W^t (1, 0) for t = 0..steps in the plane, with W's eigen-directions, and its length.

    Args:
        preset: one of :data:`PRESETS`.
        steps: how many multiplications by W to show, 0..60 (an int or its text, "30").

    Returns:
        (Figure, readings): the readings give W's eigenvalues, its spectral radius, and the
        state and its length after ``steps`` steps.

    Raises:
        ValueError: for an unknown preset.
    """
    steps, W, path, lengths = _eigen_walk(preset, steps)
    values, directions, coefficients = eigen_split(W, START)
    fig = Figure(figsize=(7.4, 4.0))
    ax = fig.add_subplot(1, 2, 1)
    ax.set_xlim(-MAP, MAP)
    ax.set_ylim(-MAP, MAP)
    ax.set_aspect("equal")
    ax.axhline(0, color="0.85", lw=0.8)
    ax.axvline(0, color="0.85", lw=0.8)
    if np.isrealobj(values):
        for lam, d, colour in zip(values, directions, ("tab:blue", "tab:orange")):
            along = d / np.linalg.norm(d)
            ax.plot([-2 * along[0], 2 * along[0]], [-2 * along[1], 2 * along[1]], color=colour, lw=1.5, alpha=0.7,
                    label=rf"({d[0]:g}, {d[1]:g}), $\lambda$ = {lam:g}")
    else:
        circle = np.linspace(0, 2 * np.pi, 200)
        ax.plot(np.cos(circle), np.sin(circle), color="0.7", ls=":", lw=1, label="no real direction: it turns")
    if np.isrealobj(values):
        # the state after the last step, as its two eigen-parts: a lambda1^t e1 (blue), then b lambda2^t e2 (orange)
        first = coefficients[0] * values[0] ** steps * directions[0]
        second = coefficients[1] * values[1] ** steps * directions[1]
        if np.all(np.abs(first) <= MAP) and np.all(np.abs(first + second) <= MAP):
            ax.annotate("", xy=first, xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": "tab:blue", "lw": 2})
            ax.annotate("", xy=first + second, xytext=first,
                        arrowprops={"arrowstyle": "-|>", "color": "tab:orange", "lw": 2})
    inside = np.all(np.abs(path) <= MAP, axis=1)
    ax.plot(path[inside, 0], path[inside, 1], "o-", color="tab:green", ms=3.5, lw=0.8)
    ax.plot(*path[0], "ks", ms=6, label="start (1, 0)")
    ax.legend(fontsize=9, loc="lower left")
    ax.set_title(f"$W$ = {W.tolist()}", fontsize=11)
    if not inside.all():
        ax.text(0, MAP * 0.88, f"ran off the map at step {int(np.argmin(inside))}", ha="center",
                fontsize=10, color="tab:red")
    ax2 = fig.add_subplot(1, 2, 2)
    ax2.bar(np.arange(steps + 1), lengths, color=GOLD, alpha=0.85)
    ax2.axhline(1.0, color="0.5", lw=0.8, ls="--")
    ax2.set_xlim(-0.6, max(steps, 10) + 0.6)
    ax2.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax2.set_xlabel("step $t$")
    ax2.set_title(r"the state's length $\|W^t (1, 0)\|$", fontsize=11)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.12, top=0.93, wspace=0.22)
    lams = ", ".join(f"{v:.4g}" for v in np.atleast_1d(values))
    text = (f"eigenvalues {lams}; spectral radius {spectral_radius(W):.4g}. After {steps} "
            f"step{'' if steps == 1 else 's'} the state is "
            f"({path[-1, 0]:.4f}, {path[-1, 1]:.4f}), length {lengths[-1]:.4f}")
    return fig, text


def describe_eigen_memory(preset: str = "keep", steps=30) -> str:
    """What :func:`draw_eigen_memory`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_eigen_memory`. Returns one sentence: the state's path in the
    plane along W's eigen-directions (or turning, for complex eigenvalues), whether it ran off
    the map, and the bars of its length, from 1 to the last step's.
    """
    steps, W, path, lengths = _eigen_walk(preset, steps)
    values = np.atleast_1d(eigen_split(W, START)[0])
    if np.isrealobj(values):
        how = ("the two lines are W's eigen-directions, with eigenvalues "
               + " and ".join(spoken_number(v) for v in values))
    else:
        how = (f"W has no real direction and turns the state, its eigenvalues of size "
               f"{spoken_number(abs(values[0]))}")
    inside = np.all(np.abs(path) <= MAP, axis=1)
    off = "" if inside.all() else f"; it runs off the map at step {int(np.argmin(inside))}"
    size = ("1 at every step" if np.allclose(lengths, 1.0, atol=5e-4)
            else f"from 1 to {spoken_number(lengths[-1])} at step {steps}")
    return (f"Left, the hidden state's path in the plane from (1, 0) over {steps} steps, multiplied by W each step; "
            f"{how}{off}. Right, bars of the state's length at each step, {size}, the spectral radius being "
            f"{spoken_number(spectral_radius(W))}.")


def eigen_memory_try(preset: str = "keep", steps=30) -> TryPanel:
    """The eigen-memory panel: four matrices, the hidden state multiplied by W again and again.

    Returns:
        TryPanel with controls ``preset`` (ToggleButtons keep / fade / explode / rotate)
        and ``steps`` (SelectionSlider over :data:`STEPS_SHOWN`): 48 settings, all drawn
        for the website.
    """
    controls = {
        "preset": widgets.ToggleButtons(options=list(PRESETS), value=preset, description="W"),
        "steps": widgets.SelectionSlider(options=list(STEPS_SHOWN), value=str(steps), description="steps shown"),
    }
    panel = TryPanel("a hidden state of two numbers, multiplied by W at every step", controls,
                     lambda v: draw_eigen_memory(**v))
    panel.describe = lambda v: describe_eigen_memory(**v)
    up_from_0 = "On *keep*, slide *steps shown* up from 0"
    panel.tour = [   # chapter 7's second "Try it" panel
        {"says": up_from_0, "moves": {"steps": "0"}, "expect": ["After 0 steps the state is (1.0000, 0.0000)"]},
        {"says": up_from_0, "moves": {"steps": "60"}, "expect": ["After 60 steps the state is (0.8000, 0.2000), length 0.8246"]},
        {"says": "On *explode* the dots leave the map at step 4", "moves": {"preset": "explode"}, "expect": ["spectral radius 1.2"]},
        {"says": "*rotate* has no real eigenvector, and the length stays exactly 1", "moves": {"preset": "rotate"},
         "expect": ["spectral radius 1.", "length 1.0000"]},
    ]
    return panel
