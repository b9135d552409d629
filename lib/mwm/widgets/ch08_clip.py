"""Chapter 8's "Try" panel: a ball rolling towards a cliff, with and without clipping.

The map's two weights are written w_1 (across) and w_2 (up), the clipping threshold gamma."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..clipping import CLIFF_LR, CLIFF_START, CLIFF_STEPS, MAP_X, MAP_Y, cliff_loss, descend, on_map
from .panel import TryPanel

#: The panel's clipping choices: off, or on with one of a few thresholds gamma.
CLIPPING = ("off", "γ = 0.5", "γ = 1", "γ = 5", "γ = 10")
#: The step counts the panel offers (multiples of 5, so the website can draw all 60 settings).
STEP_CHOICES = tuple(range(5, CLIFF_STEPS + 1, 5))


def _limit(clipping: str):
    """The threshold gamma of a :data:`CLIPPING` choice, or None for "off"; ValueError for anything else."""
    if clipping not in CLIPPING:
        raise ValueError(f"clipping must be one of {list(CLIPPING)}, got {clipping!r}")
    return None if clipping == "off" else float(clipping.split("=")[1])


def map_exit(inside, outside) -> np.ndarray:
    """The point where the straight step from ``inside`` (on the map) to ``outside`` (off it) leaves the map.

    Args:
        inside: shape (2,), a point (w_1, w_2) with |w_1| <= MAP_X and |w_2| <= MAP_Y.
        outside: shape (2,), a point off the map.

    Returns:
        array (2,) on the map's edge, on the segment between the two points.

    Raises:
        ValueError: if ``inside`` is off the map or ``outside`` is on it.
    """
    a, b = np.asarray(inside, dtype=float), np.asarray(outside, dtype=float)
    if not on_map(a) or on_map(b):
        raise ValueError("inside must be on the map and outside off it")
    d = b - a
    fractions = [(np.sign(d[i]) * limit - a[i]) / d[i] for i, limit in ((0, MAP_X), (1, MAP_Y)) if d[i] != 0]
    return a + min(f for f in fractions if f >= 0) * d


def draw_cliff(clipping: str = "off", steps: int = CLIFF_STEPS):
    """Figure: gradient descent on the cliff landscape from :data:`mwm.clipping.CLIFF_START`.

    Left: the map seen from above (loss contours, the wall as a dense band of lines)
    with the ball's path. Right: the gradient's length at each step, with the threshold gamma.

    Args:
        clipping: "off", or "γ = X" to clip the gradient to length X before each step
            (one of :data:`CLIPPING`).
        steps: how many steps to run, 1..CLIFF_STEPS.

    Returns:
        (Figure, readings): the readings give where the ball is and its loss, or the step
        at which it left the map and the gradient length that threw it.

    Raises:
        ValueError: for a clipping choice not in :data:`CLIPPING`.
    """
    gamma = _limit(clipping)
    clip = gamma is not None
    run = descend(CLIFF_START, CLIFF_LR, steps, max_norm=gamma)
    path, norms, left = run["path"], run["grad_norms"], run["left_map_at"]
    fig = Figure(figsize=(7.4, 3.8))
    ax = fig.add_subplot(1, 2, 1)
    xs, ys = np.linspace(-MAP_X, MAP_X, 161), np.linspace(-MAP_Y, MAP_Y, 121)
    grid = cliff_loss(np.stack(np.meshgrid(xs, ys), axis=-1))
    ax.imshow(grid, origin="lower", extent=(-MAP_X, MAP_X, -MAP_Y, MAP_Y), cmap="Greens_r", vmin=0, vmax=11,
              alpha=0.85, interpolation="bilinear")
    ax.contour(xs, ys, grid, levels=np.linspace(0.5, 10.5, 11), colors="0.3", linewidths=0.5)
    ax.plot(2.0, 0.0, "*", color="gold", ms=12, mec="k", label="valley floor, near (2, 0)")
    shown = path if left is None else path[:-1]
    colour = "tab:blue" if clip else "tab:red"
    ax.plot(shown[:, 0], shown[:, 1], "o-", color=colour, ms=3, lw=1)
    ax.plot(*path[0], "ks", ms=6, label=f"start {CLIFF_START}")
    if left is not None:
        last, landing = path[-2], path[-1]
        edge = map_exit(last, landing)
        ax.annotate("", xy=edge, xytext=last, arrowprops={"arrowstyle": "-|>", "color": "tab:red", "lw": 2})
        ax.text(*(edge - 0.15 * np.sign(edge)), f"→ ({landing[0]:.2f}, {landing[1]:.2f})", color="tab:red",
                fontsize=10, ha="right" if edge[0] > 0 else "left", va="bottom" if edge[1] < 0 else "top",
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})
        ax.text(0, -MAP_Y * 0.85, f"flung off the map at step {left}", ha="center", color="tab:red", fontsize=10,
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})
    ax.set_xlim(-MAP_X, MAP_X)
    ax.set_ylim(-MAP_Y, MAP_Y)
    ax.set_aspect("equal")
    ax.legend(fontsize=9, loc="upper right")
    ax.set_title(r"plateau, wall at $w_1 = 0$, valley", fontsize=11)
    ax.set_xlabel(r"$w_1$", fontsize=11)
    ax.set_ylabel(r"$w_2$", fontsize=11)
    ax2 = fig.add_subplot(1, 2, 2)
    t = np.arange(1, len(norms) + 1)
    ax2.bar(t, norms, color=colour, alpha=0.75, label=r"$\|\mathbf{g}\|$ before clipping")
    if clip:
        ax2.bar(t, np.minimum(norms, gamma), color="tab:cyan", alpha=0.9,
                label=r"step uses $\min(\|\mathbf{g}\|, \gamma)$, $\gamma$ = " + f"{gamma:g}")
        ax2.axhline(gamma, color="k", ls="--", lw=1)
    ax2.set_xlim(0, CLIFF_STEPS + 1)
    ax2.set_ylim(0, 16)
    ax2.set_xlabel("step")
    ax2.set_title("the gradient's length at each step", fontsize=11)
    ax2.legend(fontsize=9, loc="upper right")
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.12, top=0.93, wspace=0.18)  # fixed: no extra layout pass
    mode = f"clipped at γ = {gamma:g}" if clip else "no clipping"
    if left is not None:
        text = (f"{mode}: at step {left} the ball felt a gradient of length {norms[-1]:.2f} on the wall, "
                f"took a step of {CLIFF_LR * norms[-1] if not clip else CLIFF_LR * min(norms[-1], gamma):.2f} and left "
                f"the map at ({path[-1, 0]:.2f}, {path[-1, 1]:.2f})")
    else:
        text = (f"{mode}: after {steps} steps the ball is at ({path[-1, 0]:.3f}, {path[-1, 1]:.3f}), "
                f"loss {run['losses'][-1]:.4f} (it started at {run['losses'][0]:.4f}); "
                f"longest gradient felt {norms.max():.2f}")
    return fig, text


def describe_cliff(clipping: str = "off", steps: int = CLIFF_STEPS) -> str:
    """What :func:`draw_cliff`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_cliff`. Returns one sentence: the landscape and the ball's
    path (flung off the map, or where it ends beside the valley floor), then the gradient's
    length at each step against the threshold.
    """
    gamma = _limit(clipping)
    run = descend(CLIFF_START, CLIFF_LR, steps, max_norm=gamma)
    path, norms, left = run["path"], run["grad_norms"], run["left_map_at"]
    start = f"({CLIFF_START[0]:g}, {CLIFF_START[1]:g})".replace("-", "minus ")
    if left is not None:
        where = f"at step {left} one gradient of length {norms[-1]:.1f} on the wall flings it off the map"
    else:
        end = f"({path[-1, 0]:.2f}, {path[-1, 1]:.2f})".replace("-", "minus ")
        where = f"after {steps} steps it is at {end}, its loss down from {run['losses'][0]:.2f} to {run['losses'][-1]:.2g}"
    cut = (f", each step using at most {gamma:g}, the dashed line" if gamma is not None
           else ", nothing clipped")
    return (f"Left, a map of the loss from above: a plateau, a steep wall at w1 = 0 drawn as a dense band of lines, "
            f"and a valley whose floor near (2, 0) is a gold star; the ball starts at {start} and {where}. "
            f"Right, bars of the gradient's length at each step, the longest {norms.max():.1f}{cut}.")


def cliff_try(clipping: str = "off", steps: int = CLIFF_STEPS) -> TryPanel:
    """The cliff panel: roll the ball with clipping off, or on with a threshold gamma.

    Returns:
        TryPanel with controls ``clipping`` (ToggleButtons over :data:`CLIPPING`: off, or
        on with gamma = 0.5, 1, 5 or 10) and ``steps`` (IntSlider 5..CLIFF_STEPS, step 5):
        60 settings, all drawn for the website.
    """
    controls = {
        "clipping": widgets.ToggleButtons(options=list(CLIPPING), value=clipping, description="clipping"),
        "steps": widgets.IntSlider(value=steps, min=STEP_CHOICES[0], max=STEP_CHOICES[-1], step=5,
                                   description="steps"),
    }
    panel = TryPanel("a ball rolling towards a cliff: does one huge gradient throw it away?", controls,
                     lambda v: draw_cliff(**v))
    back_to_10 = "move *steps* back to 10 to see it still creeping, then to 60 again"
    safely = "*γ = 0.5* and *γ = 5* also get down safely"
    panel.tour = [   # chapter 8's "Try it"
        {"says": "The panel opens with clipping *off* and all 60 steps", "moves": {},
         "expect": ["gradient of length 14.29", "(7.23, 0.93)"]},
        {"says": back_to_10, "moves": {"steps": 10}, "expect": ["after 10 steps the ball is at (-1.286, 1.197)"]},
        {"says": back_to_10, "moves": {"steps": 60}, "expect": ["left the map at (7.23, 0.93)"]},
        {"says": "Choose *γ = 1*", "moves": {"clipping": "γ = 1"}, "expect": ["after 60 steps the ball is at (1.927, 0.103), loss 0.0009"]},
        {"says": safely, "moves": {"clipping": "γ = 0.5"}, "expect": ["after 60 steps the ball is at (1.910, 0.124)"]},
        {"says": safely, "moves": {"clipping": "γ = 5"}, "expect": ["after 60 steps the ball is at (2.060, 0.095)"]},
        {"says": "With *γ = 10* the governor is set too high", "moves": {"clipping": "γ = 10"},
         "expect": ["at step 15 the ball felt a gradient of length 14.29"]},
    ]
    panel.describe = lambda v: describe_cliff(**v)
    # once the ball has left the map the run stops: more steps show the same picture and readings
    flung = {c: descend(CLIFF_START, CLIFF_LR, CLIFF_STEPS, max_norm=_limit(c))["left_map_at"] for c in CLIPPING}
    panel.picture_key = lambda v: (v["clipping"], min(v["steps"], flung[v["clipping"]] or v["steps"]))
    return panel
