"""Chapter 10's "Try" panels: the GRU's blend dial, and ten steps with a small dial.

The toy hidden state has two numbers so it can be drawn as an arrow. The previous state and the
candidate are chosen so that the blend passes through the chapter's two points: (0.5, 0) at
z = 0.25 and (0.2, 0.2) at z = 0.5. Writing ``h = (1 - z) a + z c`` at both dials gives
``0.75 a + 0.25 c = (0.5, 0)`` and ``0.5 a + 0.5 c = (0.2, 0.2)``, whose only solution is
the previous state ``a = (0.8, -0.2)`` and the candidate ``c = (-0.4, 0.6)`` (the chapter's one-number
example, 0.8 and -0.4, is the first coordinate).

The candidate is a real GRU candidate, ``h~ = tanh(W (r * h_prev) + p)``, with ``W`` the 2 x 2
identity and the input's part ``p = U x + b`` fixed so that at r = 1 the candidate is exactly
``c``: ``p = artanh(c) - a``. Lowering r makes the candidate look less at the previous state; at
r = 0 it is ``tanh(p)``, the word alone.

The ten-steps panel holds the gates still and reads the same word ten times. Its bars
count only the direct lane, ``(1 - z)^t``; because the candidate also reads the state (``W``
is the identity), the whole derivative ``dh_t/dh_0`` adds a second route through the
candidate, :func:`ten_steps_jacobian`. At r = 0 the candidate stops reading the state and the two
agree.
"""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..gru import (CANDIDATE, CANDIDATE_W, OLD_STATE, WORD_PUSH, dial_step,  # noqa: F401  (the panels' model:
                   ten_steps, ten_steps_jacobian)                                # chapter 10's two-number GRU)
from .drawing import STATE_COLOUR, layout, spoken_number
from .panel import TryPanel

OLD_COLOUR, CANDIDATE_COLOUR = "0.45", "tab:orange"


def _fmt(v) -> str:
    return "(" + ", ".join(f"{x:.4f}" for x in np.round(np.asarray(v, dtype=float), 4) + 0.0) + ")"


def _plane(ax, title):
    ax.axhline(0, color="0.88", lw=1, zorder=0)
    ax.axvline(0, color="0.88", lw=1, zorder=0)
    ax.add_patch(Rectangle(
        (-1, -1), 2, 2, fill=False, ec="0.8", ls=":", lw=1))
    ax.set_xlim(-1.1, 1.1)
    ax.set_ylim(-1.1, 1.1)
    ax.set_aspect("equal")
    ax.set_xlabel("state number 1")
    ax.set_ylabel("state number 2")
    ax.set_title(title, fontsize=11)


def _arrow(ax, end, colour, label, lw=2.0):
    """An arrow from the origin to ``end``, named in the legend (labels at the tips collide)."""
    ax.annotate("", end, (0, 0), arrowprops=dict(arrowstyle="-|>", color=colour, lw=lw))
    ax.plot([], [], color=colour, lw=lw, label=label)


def draw_blend_dial(z: float = 0.25, r: float = 1.0):
    """Figure: the previous state, the candidate and their blend as arrows; the blend slides along the line.

    Returns:
        (Figure, readings): the readings give the candidate and the new state to four decimals.
    """
    candidate, new = dial_step(z, r)
    full_candidate = dial_step(z, 1.0)[0]
    fig = Figure(figsize=(7.0, 4.0))
    ax = fig.add_subplot(1, 2, 1)
    _plane(ax, f"$z$ = {z:.2f}, $r$ = {r:.2f}")
    ax.plot(*np.c_[OLD_STATE, candidate], color="0.7", ls="--", lw=1)
    _arrow(ax, OLD_STATE, OLD_COLOUR, "previous state")
    _arrow(ax, candidate, CANDIDATE_COLOUR, r"candidate $\tilde{h}$")
    _arrow(ax, new, STATE_COLOUR, "new state", lw=2.5)
    ax.plot(*new, "o", color=STATE_COLOUR, ms=7)
    if r < 1:
        ax.plot(*full_candidate, "o", mfc="none", color=CANDIDATE_COLOUR, alpha=0.6, label="candidate at $r$ = 1")
    # the lower-left quarter stays empty for every z and r: previous state, candidates and blends lie elsewhere
    ax.legend(loc="lower left", fontsize=10, framealpha=0.9)
    bars = fig.add_subplot(1, 2, 2)
    parts = [1 - z, z]
    bars.bar([0, 1], parts, color=[OLD_COLOUR, CANDIDATE_COLOUR], alpha=0.85)
    for i, p in enumerate(parts):
        bars.text(i, p + 0.02, f"{p:.2f}", ha="center", fontsize=10)
    bars.set_xticks([0, 1])
    bars.set_xticklabels(["keep previous\n$1 - z$", "take candidate\n$z$"], fontsize=10)
    bars.set_ylim(0, 1.12)
    bars.set_title("the blend's two shares", fontsize=11)
    layout(fig)
    text = (f"previous state {_fmt(OLD_STATE)}, candidate {_fmt(candidate)}; new state = {1 - z:.2f} x previous + {z:.2f} x candidate "
            f"= <b>{_fmt(new)}</b>")
    return fig, text


def _point(v) -> str:
    """A point of the plane as a reader hears it: "(0.8, minus 0.2)", two decimals."""
    return ("(" + ", ".join(f"{x:.2f}" for x in np.round(np.asarray(v, dtype=float), 2) + 0.0) + ")").replace("-", "minus ")


def describe_blend_dial(z: float = 0.25, r: float = 1.0) -> str:
    """What :func:`draw_blend_dial`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_blend_dial`. Returns one sentence: the three arrows and where the new
    state sits between the previous state and the candidate, then the two shares' bars.
    """
    candidate, new = dial_step(z, r)
    if np.isclose(z, 0):
        where = "on the previous state: the candidate is ignored"
    elif np.isclose(z, 1):
        where = "on the candidate: the previous state is forgotten"
    else:
        where = f"{z:.0%} of the way from the previous state to the candidate"
    said = (f"Left, three arrows on a plane: the previous state {_point(OLD_STATE)} in grey, the candidate "
            f"{_point(candidate)} in orange and the new state {_point(new)}, {where}")
    if r < 1:
        said += (f"; with the reset gate at {r:.2f} the candidate moved from {_point(dial_step(z, 1.0)[0])}, "
                 "its place at r = 1, marked by an open circle")
    return said + f". Right, two bars: keep previous {1 - z:.2f}, take candidate {z:.2f}."


def blend_dial_try(z: float = 0.25, r: float = 1.0) -> TryPanel:
    """The blend-dial panel: the update gate z and the reset gate r, one GRU step in 2-D.

    Returns:
        TryPanel with controls ``z`` and ``r`` (FloatSliders 0-1, step 0.05).
    """
    controls = {
        "z": widgets.FloatSlider(value=z, min=0.0, max=1.0, step=0.05, description="update z"),
        "r": widgets.FloatSlider(value=r, min=0.0, max=1.0, step=0.05, description="reset r"),
    }
    panel = TryPanel("the blend dial: keep the previous state, or take the candidate?", controls,
                     lambda v: draw_blend_dial(**v))
    panel.describe = lambda v: describe_blend_dial(**v)
    slide = "Slide the dial $z$ from 0 to 1"
    check = "At $z=0.25$ it sits at $(0.5, 0)$, and at $z=0.5$ at $(0.2, 0.2)$; check both"
    panel.tour = [   # chapter 10's first "Try it" panel
        {"says": slide, "moves": {"z": 0.0}, "expect": ["new state = 1.00 x previous + 0.00 x candidate = (0.8000, -0.2000)"]},
        {"says": slide, "moves": {"z": 1.0}, "expect": ["new state = 0.00 x previous + 1.00 x candidate = (-0.4000, 0.6000)"]},
        {"says": check, "moves": {"z": 0.25}, "expect": ["= (0.5000, 0.0000)"]},
        {"says": check, "moves": {"z": 0.5}, "expect": ["= (0.2000, 0.2000)"]},
        {"says": "Now lower $r$", "moves": {"r": 0.0}, "expect": ["candidate (-0.8407, 0.7129)"]},
    ]
    return panel


def draw_ten_steps(z: float = 0.1, r: float = 1.0):
    """Figure: the state's path over ten steps (left) and the starting state's share (1 - z)^t (right).

    The bars are the direct lane only, ``(1 - z)^t``; the crosses are the whole
    ``dh_t/dh_0`` (:func:`ten_steps_jacobian`), lane and candidate together, for each state number.

    Returns:
        (Figure, readings): the state after ten steps, how far it moved from the start,
        the lane's share ``(1 - z)^10`` (0.3487 at z = 0.1) and the whole ``dh_10/dh_0``
        (diag(0.5941, 0.5519) at z = 0.1, r = 1).
    """
    states, share = ten_steps(z, r)
    whole = np.array([np.diag(j) for j in ten_steps_jacobian(z, r)])
    fig = Figure(figsize=(7.0, 4.0))
    ax = fig.add_subplot(1, 2, 1)
    _plane(ax, f"ten steps, $z$ = {z:.2f}, $r$ = {r:.2f}")
    ax.plot(states[:, 0], states[:, 1], "-o", color=STATE_COLOUR, ms=4, lw=1.5)
    _arrow(ax, OLD_STATE, OLD_COLOUR, "start")
    ax.plot(*states[-1], "D", color=STATE_COLOUR, ms=6, label="after 10 steps")
    ax.legend(loc="lower left", fontsize=10, framealpha=0.9)
    right = fig.add_subplot(1, 2, 2)
    t = np.arange(11)
    right.bar(t, (1 - z) ** t, color=STATE_COLOUR, alpha=0.8, label=f"lane $(1 - z)^t$, $1 - z$ = {1 - z:.2f}")
    right.plot(t, whole[:, 0], "x", color="k", ms=6, label=r"whole $\partial h_t / \partial h_0$, no. 1")
    right.plot(t, whole[:, 1], "+", color="0.4", ms=7, label=r"whole $\partial h_t / \partial h_0$, no. 2")
    right.plot(t, 0.5 ** t, "s", color="tab:red", ms=4, label="lane at $z$ = 0.5")
    right.set_ylim(0, 1.7)                       # headroom for the legend above the bars
    right.set_yticks(np.linspace(0, 1, 6))
    right.set_xlabel("step $t$")
    right.set_title("what of the start still counts", fontsize=11)
    right.legend(fontsize=9, loc="upper right")
    layout(fig)
    moved = np.linalg.norm(states[-1] - states[0])
    text = (f"after 10 steps the state is {_fmt(states[-1])} (moved {moved:.4f} from the start); "
            f"direct lane (1 - z)^10 = <b>{share:.4f}</b>; "
            f"whole dh10/dh0 = diag{_fmt(whole[-1])} "
            + ("(the lane alone: at r = 0 the candidate does not read the state)" if r == 0
               else "(the lane plus the route through the candidate)"))
    return fig, text


def describe_ten_steps(z: float = 0.1, r: float = 1.0) -> str:
    """What :func:`draw_ten_steps`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_ten_steps`. Returns one sentence: the state's path over ten steps and
    how far it ends from the start, then the bars of the start's share (1 - z)^t beside the
    whole derivative's two entries and the lane at z = 0.5.
    """
    states, share = ten_steps(z, r)
    whole = np.diag(ten_steps_jacobian(z, r)[-1])
    moved = float(np.linalg.norm(states[-1] - states[0]))
    bars = "1 at every step" if np.isclose(share, 1.0) else f"from 1 down to {spoken_number(share, 2)} at step 10"
    return (f"Left, the hidden state's path over ten steps from {_point(states[0])} with the update gate at {z:.2f} and "
            f"the reset gate at {r:.2f}: it ends at {_point(states[-1])}, {moved:.2f} from the start. Right, bars of "
            f"the start's share, 1 minus z, to the power t: {bars}; crosses for the whole derivative of the state "
            f"by the start, {spoken_number(whole[0], 2)} and {spoken_number(whole[1], 2)} at step 10; red squares for "
            f"the share at z = 0.5, {spoken_number(0.5 ** 10, 2)} at step 10.")


def ten_steps_try(z: float = 0.1, r: float = 1.0) -> TryPanel:
    """The ten-steps panel: how far the hidden state drifts in ten steps for a given dial.

    Returns:
        TryPanel with controls ``z`` and ``r`` (FloatSliders 0-1, step 0.05).
    """
    controls = {
        "z": widgets.FloatSlider(value=z, min=0.0, max=1.0, step=0.05, description="update z"),
        "r": widgets.FloatSlider(value=r, min=0.0, max=1.0, step=0.05, description="reset r"),
    }
    panel = TryPanel("ten steps with the same dial: a long memory or a short one?", controls,
                     lambda v: draw_ten_steps(**v))
    panel.tour = [   # chapter 10's second panel
        {"says": "The second panel runs ten steps with the same input and $z=0.1$", "moves": {},
         "expect": ["moved 1.1866 from the start", "(1 - z)^10 = 0.3487", "diag(0.5941, 0.5519)"]},
        {"says": "Drag $z$ up and the steps lengthen: at $z=0.5$ it ends 2.1104 away", "moves": {"z": 0.5},
         "expect": ["(-0.9714, 0.9472)", "moved 2.1104 from the start"]},
        {"says": "Back at $z=0.1$, set $r=0$", "moves": {"z": 0.1, "r": 0.0}, "expect": ["(1 - z)^10 = 0.3487", "diag(0.3487, 0.3487)"]},
    ]
    panel.describe = lambda v: describe_ten_steps(**v)
    return panel
