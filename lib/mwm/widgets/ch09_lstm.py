"""Chapter 9's "Try" panels: the LSTM's tank, and the memory lab.

The tank is one number of cell state. Each step keeps ``f * c_{t-1}`` of the old level
(the forget gate is the drain, left open by ``1 - f``), pours in ``i * c_tilde`` (the input
gate is the inlet, the candidate c~_t what it pours) and shows ``h_t = o * tanh(c_t)``
through the window ``o``. The gates are set by hand, or computed from four pre-activations as
in the full step of chapter 9: ``f = sigmoid(a_f)``, ``i = sigmoid(a_i)``, ``c_tilde = tanh(a_c)``,
``o = sigmoid(a_o)``; that step runs through :func:`mwm.lstm.lstm_step` with a
one-unit LSTM whose biases are the pre-activations (``mwm.lstm`` keys the candidate's block "c").

The candidate is written c~ (the course's tilde-c) in the panel's labels and readings.

The memory lab draws :mod:`mwm.memory_lab`: accuracy against sentence length for the
three hand-set cells, and the gradient that reaches the first word.
"""
from __future__ import annotations

import functools

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .._validate import as_scalar, positive_int
from ..gates import sigmoid
from ..lstm import gates_from_preactivations, tank_run  # noqa: F401  (the panel's model: chapter 9's one-number cell)
from ..memory_lab import LAB_CELLS, LAB_DEFAULTS, lab_run, lab_sentences
from .drawing import kept_figure, layout, spoken_number
from .panel import TryPanel

#: The chapter's tiny example (by hand) and full step (from pre-activations).
TANK_DEFAULTS = {"c_prev": 1.0, "f": 0.9, "i": 0.2, "c_tilde": 0.5, "o": 1.0,
                 "a_f": 2.0, "a_i": 0.0, "a_c": 1.0, "a_o": 1.0}
#: The candidate's name in labels and readings: c with a tilde (the course's notation).
C_TILDE = "c\u0303"
GATE_MODES = ("by hand", "from pre-activations")

KEEP_COLOUR, WRITE_COLOUR, LEVEL_COLOUR, STATE_COLOUR = "tab:blue", "tab:green", "tab:blue", "tab:purple"
CELL_COLOURS = {"plain": "tab:red", "LSTM": "tab:blue", "GRU": "tab:green"}
CELL_STYLES = {"plain": "-", "LSTM": "--", "GRU": ":"}  # the gated cells often overlap at 100%


def _tank_step(c_prev, f, i, c_tilde, o, steps, a_f, a_i, a_c, a_o, gates):
    """The tank's numbers (see :func:`draw_tank`): (gates from the pre-activations, the gates used, the levels,
    the hidden states, what the forget gate keeps, what the input gate writes).

    Raises:
        ValueError: for an unknown ``gates`` mode or a value out of range.
    """
    if gates not in GATE_MODES:
        raise ValueError(f"gates must be one of {GATE_MODES}, got {gates!r}")
    from_pre = gates_from_preactivations(a_f, a_i, a_c, a_o)
    gate = from_pre if gates == "from pre-activations" else {"f": f, "i": i, "c_tilde": c_tilde, "o": o}
    levels, states = tank_run(c_prev, gate["f"], gate["i"], gate["c_tilde"], gate["o"], steps)
    return from_pre, gate, levels, states, gate["f"] * levels[0], gate["i"] * gate["c_tilde"]


def draw_tank(c_prev=1.0, f=0.9, i=0.2, c_tilde=0.5, o=1.0, steps=1, a_f=2.0, a_i=0.0, a_c=1.0, a_o=1.0,
              gates="by hand"):
    """Figure: one LSTM step as a tank, the level over ``steps`` steps, and the squeeze of the pre-activations.

    Args:
        c_prev, f, i, c_tilde, o, steps: as in :func:`tank_run` (used when ``gates="by hand"``).
        a_f, a_i, a_c, a_o: the four pre-activations (used when ``gates="from pre-activations"``).
        gates: "by hand" or "from pre-activations".

    Returns:
        (Figure, readings): the readings give the gates, ``c_t = kept + written`` and h_t
        for the first step (four decimals) and, for several steps, the last level and hidden state.

    Raises:
        ValueError: for an unknown ``gates`` mode or a value out of range.
    """
    from_pre, gate, levels, states, kept, written = _tank_step(c_prev, f, i, c_tilde, o, steps, a_f, a_i, a_c, a_o, gates)
    tank = kept_figure("chapter 9's tank", _TankFigure)
    tank.show(levels, states, gate, kept, written, steps, (a_f, a_i, a_c, a_o), from_pre,
              gates == "from pre-activations")
    fig = tank.fig

    text = (f"f = {gate['f']:.4f}, i = {gate['i']:.4f}, {C_TILDE} = {gate['c_tilde']:.4f}, o = {gate['o']:.4f}: "
            f"c_t = {kept:.4f} {'-' if written < 0 else '+'} {abs(written):.4f} = {levels[1]:.4f}, "
            f"h_t = {gate['o']:.4f} * tanh({levels[1]:.4f}) = {gate['o']:.4f} * {np.tanh(levels[1]):.4f} = {states[0]:.4f}")
    if steps > 1:
        text += f"; after {steps} steps c = {levels[-1]:.4f}, h = {states[-1]:.4f}"
    return fig, text


#: The colour of the pre-activation labels when the gate mode does not read them: a grey
#: with 5.7:1 contrast on white (WCAG AA asks 4.5:1 of text; the faded curves beside it are no text).
UNUSED_TEXT = "0.4"


class _TankFigure:
    """The tank panel's figure, built once; :meth:`show` sets every artist for one setting.

    Drawing a setting changes only data, texts, limits and transparency, so a static twin
    drawing two hundred settings (inside :func:`mwm.widgets.drawing.same_layout`) keeps one
    figure (:func:`mwm.widgets.drawing.kept_figure`); each picture is the one a new figure draws.
    """

    PRE = (("f", "$f$", (4, 4)), ("i", "$i$", (5, -12)), ("c_tilde", r"$\tilde{c}$", (-48, 2)), ("o", "$o$", (5, -12)))

    def __init__(self):
        self.fig = fig = Figure(figsize=(6.8, 6.2))
        grid = fig.add_gridspec(2, 2)
        ax_tank, ax_time, ax_pre = fig.add_subplot(grid[0, :]), fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1])
        self.ax_tank, self.ax_time, self.ax_pre = ax_tank, ax_time, ax_pre

        # one step as a waterfall: old level, what the drain keeps, what the inlet adds, new level, hidden state
        self.bars = [ax_tank.bar(x, 0.0, color=colour, alpha=alpha, width=0.6)[0]
                     for x, colour, alpha in ((0, "0.7", None), (1, KEEP_COLOUR, 0.5), (2, WRITE_COLOUR, 0.7),
                                              (3, LEVEL_COLOUR, None), (4, STATE_COLOUR, None))]
        self.bar_texts = [ax_tank.text(x, 0.0, "", ha="center", va="bottom", fontsize=10) for x in range(5)]
        self.walls = [ax_tank.plot([x, x, x + 0.8, x + 0.8], [0, 0, 0, 0], color="0.4", lw=1)[0] for x in (-0.4, 2.6)]
        ax_tank.axhline(0, color="0.6", lw=0.8)
        self.old_level = ax_tank.axhline(0, color="0.5", lw=0.8, ls=":")
        ax_tank.set_xticks(np.arange(5))
        ax_tank.set_title(r"$c_t = f\,c_{t-1} + i\,\tilde{c}_t$,  $h_t = o\,\tanh(c_t)$", fontsize=11)

        # the level and the hidden state over several steps with the same gates
        (self.level_line,) = ax_time.plot([0], [0], "o-", color=LEVEL_COLOUR, label="tank $c_t$")
        (self.state_line,) = ax_time.plot([0], [0], "s--", color=STATE_COLOUR, label="hidden state $h_t$", ms=4)
        ax_time.axhline(0, color="0.6", lw=0.8)
        ax_time.set_xlim(-0.3, 10.3)
        ax_time.set_xlabel("step $t$")
        ax_time.legend(fontsize=10, loc="lower left")

        # the pre-activations squeezed into gates
        z = np.linspace(-5, 5, 201)
        self.curves = [ax_pre.plot(z, sigmoid(z), color="0.3", lw=1, label=r"$\sigma$ ($f, i, o$)")[0],
                       ax_pre.plot(z, np.tanh(z), color="0.3", lw=1, ls="--", label=r"$\tanh$ ($\tilde{c}$)")[0]]
        self.dots, self.notes = [], []
        for name, _, offset in self.PRE:
            # the candidate a square a size up: at equal pre-activations it and o sit on one spot, both seen
            self.dots.append(ax_pre.plot([0.0], [0.0], "s" if name == "c_tilde" else "o", ms=9 if name == "c_tilde" else 7,
                                         zorder=2 if name == "c_tilde" else 3)[0])
            # on a white ground: the curves pass behind a label, not through it
            self.notes.append(ax_pre.annotate("", (0.0, 0.0), textcoords="offset points", xytext=offset, fontsize=10,
                                              bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.85),
                                              zorder=4))
        ax_pre.axhline(0, color="0.85", lw=0.8)
        ax_pre.set_xlim(-5, 5)
        ax_pre.set_ylim(-1.05, 1.05)
        ax_pre.set_xlabel("pre-activation $a$")
        self.laid_out = False

    def show(self, levels, states, gate, kept, written, steps, pre, from_pre, used):
        """Set the figure to one setting (the values :func:`draw_tank` computed)."""
        lim = max(2.2, 1.15 * np.max(np.abs(levels)))
        for bar, bottom, height in zip(self.bars, (0, 0, kept, 0, 0), (levels[0], kept, written, levels[1], states[0])):
            bar.set_y(bottom)
            bar.set_height(height)
        for note, top, text in zip(self.bar_texts, (levels[0], kept, kept + written, levels[1], states[0]),
                                   (f"{levels[0]:.4f}", f"{kept:.4f}", f"{written:+.4f}", f"{levels[1]:.4f}",
                                    f"{states[0]:.4f}")):
            note.set_y(top + (0.06 if top >= 0 else -0.06) * lim)
            note.set_verticalalignment("bottom" if top >= 0 else "top")
            note.set_text(text)
        for wall in self.walls:
            wall.set_ydata([lim * 0.95, -lim * 0.95, -lim * 0.95, lim * 0.95])
        self.old_level.set_ydata([levels[0], levels[0]])
        self.ax_tank.set_xticklabels([r"old $c_{t-1}$", f"keep\n$f$ = {gate['f']:.2f}", "write\n" + r"$i\,\tilde{c}$",
                                      r"new $c_t$", f"state $h_t$\n$o$ = {gate['o']:.2f}"], fontsize=10)
        self.ax_tank.set_ylim(-lim, lim)

        t = np.arange(len(levels))
        self.level_line.set_data(t, levels)
        self.state_line.set_data(t[1:], states)
        self.ax_time.set_ylim(-lim, lim)
        self.ax_time.set_title(f"{steps} step(s): $c$ = {levels[-1]:.4f}", fontsize=11)

        alpha = 1.0 if used else 0.3
        for curve in self.curves:
            curve.set_alpha(alpha)
        for dot, note, (name, label, _), a in zip(self.dots, self.notes, self.PRE, pre):
            value = from_pre[name]
            dot.set_data([a], [value])
            dot.set_alpha(alpha)
            dot.set_markerfacecolor(None if used else "white")
            note.xy = (a, value)
            note.set_text(f"{label}={value:.2f}")
            note.set_color("black" if used else UNUSED_TEXT)   # text stays readable: grey, not transparent
        self.ax_pre.legend(fontsize=10, loc="lower right")  # its line samples copy the curves' transparency
        self.ax_pre.set_title("from pre-activations" + ("" if used else " (unused)"), fontsize=11)
        if not self.laid_out:
            layout(self.fig)
            self.laid_out = True


def _minus(x: float, digits: int = 2) -> str:
    """A number as a reader hears it: "0.90", "minus 0.25"."""
    return f"{x:.{digits}f}".replace("-", "minus ")


def describe_tank(c_prev=1.0, f=0.9, i=0.2, c_tilde=0.5, o=1.0, steps=1, a_f=2.0, a_i=0.0, a_c=1.0, a_o=1.0,
                  gates="by hand") -> str:
    """What :func:`draw_tank`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_tank`. Returns one sentence: the step's five bars (old level, what the
    forget gate keeps, what the input gate writes, the new level, the hidden state), the level
    over the steps, and whether the pre-activations set the gates.
    """
    from_pre, gate, levels, states, kept, written = _tank_step(c_prev, f, i, c_tilde, o, steps, a_f, a_i, a_c, a_o, gates)
    said = (f"Top, one LSTM step as five bars: the old level {_minus(levels[0])}, the forget gate at {gate['f']:.2f} "
            f"keeps {_minus(kept)}, the input gate at {gate['i']:.2f} writes {_minus(written)} of the candidate "
            f"{_minus(gate['c_tilde'])}, the new level is {_minus(levels[1])}, and the output gate at {gate['o']:.2f} "
            f"shows the hidden state {_minus(states[0])}")
    if steps > 1:
        way = (f"stays at {_minus(levels[0])}" if abs(levels[-1] - levels[0]) < 0.005
               else f"goes from {_minus(levels[0])} to {_minus(levels[-1])}")
        said += f". Bottom left, {steps} steps with the same gates: the level {way}, the hidden state ends at {_minus(states[-1])}"
    else:
        said += ". Bottom left, the level and the hidden state over one step"
    if gates == "from pre-activations":
        said += (f". Bottom right, the gates read from the pre-activations {_minus(a_f, 1)}, {_minus(a_i, 1)}, "
                 f"{_minus(a_c, 1)} and {_minus(a_o, 1)} on the sigmoid and tanh curves")
    else:
        said += ". Bottom right, the pre-activation curves, greyed: by hand, the gates do not read them"
    return said + "."


#: The tank panel's sliders each gate mode reads (the old level and the steps count in both).
BY_HAND_CONTROLS = ("f", "i", "c_tilde", "o")
PRE_CONTROLS = ("a_f", "a_i", "a_c", "a_o")


def tank_try(gates: str = "by hand", steps: int = 1, **values) -> TryPanel:
    """The tank panel: old level, the four gates (or four pre-activations), and how many steps to run.

    Args:
        gates: "by hand" or "from pre-activations"; steps: 1-10; values: starting values of the
            controls named in :data:`TANK_DEFAULTS`.

    Returns:
        TryPanel with sliders ``c_prev``, ``f``, ``i``, ``c_tilde``, ``o``, ``steps``, ``a_f``,
        ``a_i``, ``a_c``, ``a_o`` and the toggle ``gates``; the four sliders the current mode
        does not read (:data:`BY_HAND_CONTROLS` or :data:`PRE_CONTROLS`) are disabled.

    Raises:
        ValueError: for an unknown control name or ``gates`` mode, or a value out of range.
    """
    unknown = set(values) - set(TANK_DEFAULTS)
    if unknown:
        raise ValueError(f"values has unknown control(s) {sorted(unknown)}; known: {sorted(TANK_DEFAULTS)}")
    if gates not in GATE_MODES:
        raise ValueError(f"gates must be one of {GATE_MODES}, got {gates!r}")
    v = dict(TANK_DEFAULTS, **values)
    controls = {
        "c_prev": widgets.FloatSlider(value=v["c_prev"], min=-2.0, max=2.0, step=0.1, description="old c"),
        "f": widgets.FloatSlider(value=v["f"], min=0.0, max=1.0, step=0.05, description="forget f"),
        "i": widgets.FloatSlider(value=v["i"], min=0.0, max=1.0, step=0.05, description="input i"),
        "c_tilde": widgets.FloatSlider(value=v["c_tilde"], min=-1.0, max=1.0, step=0.1,
                                       description=f"candidate {C_TILDE}"),
        "o": widgets.FloatSlider(value=v["o"], min=0.0, max=1.0, step=0.05, description="output o"),
        "steps": widgets.IntSlider(value=steps, min=1, max=10, description="steps"),
        "a_f": widgets.FloatSlider(value=v["a_f"], min=-4.0, max=4.0, step=0.5, description="pre-act. a_f"),
        "a_i": widgets.FloatSlider(value=v["a_i"], min=-4.0, max=4.0, step=0.5, description="pre-act. a_i"),
        "a_c": widgets.FloatSlider(value=v["a_c"], min=-4.0, max=4.0, step=0.5, description=f"pre-act. a_{C_TILDE}"),
        "a_o": widgets.FloatSlider(value=v["a_o"], min=-4.0, max=4.0, step=0.5, description="pre-act. a_o"),
        "gates": widgets.ToggleButtons(options=list(GATE_MODES), value=gates, description="gates"),
    }
    # Each mode reads only its own four sliders: the other mode's are shown disabled.
    def set_active(mode):
        for name in BY_HAND_CONTROLS:
            controls[name].disabled = mode != "by hand"
        for name in PRE_CONTROLS:
            controls[name].disabled = mode != "from pre-activations"

    set_active(gates)
    controls["gates"].observe(lambda change: set_active(change["new"]), names="value")
    panel = TryPanel("the LSTM's tank: keep, write, show", controls, lambda c: draw_tank(**c))
    panel.tour = [   # chapter 9's "Try it", in its order
        {"says": "From the worked example ($c_t=1.0000$)", "moves": {}, "expect": ["c_t = 0.9000 + 0.1000 = 1.0000"]},
        {"says": "set $f=1$, $i=0$ and *steps* to 10: the level never moves", "moves": {"f": 1.0, "i": 0.0, "steps": 10},
         "expect": ["after 10 steps c = 1.0000, h = 0.7616"]},
        {"says": "Shut the output gate ($o=0$)", "moves": {"o": 0.0}, "expect": ["after 10 steps c = 1.0000, h = 0.0000"]},
        {"says": "Then set *steps* to 1 and switch *gates* to computing them from pre-activations",
         "moves": {"steps": 1, "gates": "from pre-activations"}, "expect": ["c_t = 0.8808 + 0.3808 = 1.2616"]},
    ]
    panel.describe = lambda c: describe_tank(**c)
    # Gates from the pre-activations: every pre-activation, the old level and the steps are drawn in that mode
    # too (before, the mode was drawn at one setting, and any move there put the gates back to "by hand"), and so
    # are the hand sliders, which that mode does not read: one picture for all of them (picture_key), so the
    # page can say they have no effect there.
    panel.combined = [("gates", name) for name in (*PRE_CONTROLS, "c_prev", "steps", *BY_HAND_CONTROLS)]
    panel.picture_key = lambda c: tuple(sorted((k, v) for k, v in c.items()
                                               if not (c["gates"] == "from pre-activations" and k in BY_HAND_CONTROLS)))
    return panel


#: The memory lab panel's lengths (x axis) and choices.
LAB_LENGTHS = np.arange(5, 51)
LAB_W_CHOICES = (0.5, 0.7, 0.9, 1.0, 1.5, 2.0, 3.0)
LAB_F_CHOICES = (0.5, 0.8, 0.9, 0.95, 0.99, 1.0)
#: Sentences per setting in the panel (binomial standard error at most 0.25 points).
LAB_TRIALS = 40_000


def lab_curves(noise=LAB_DEFAULTS["noise"], w=LAB_DEFAULTS["w"], f=LAB_DEFAULTS["f"],
               n_trials=LAB_TRIALS, seed=0, lengths=LAB_LENGTHS):
    """Accuracy, its standard error and the gradient factor reaching word 1, for each lab cell at each length.

    One batch of sentences (``seed``) is shared by the three cells. The factor (Jacobian) of the
    plain cell depends on the sentence; the median over the sentences is reported.

    Args:
        noise: filler noise A >= 0; w: the plain cell's weight; f: the LSTM's forget gate in
            [0, 1]; n_trials: sentences (>= 1); seed: their seed; lengths: whole numbers >= 1.

    Returns:
        dict cell -> {"accuracy", "std_error", "jacobian"}: arrays (len(lengths),).

    Raises:
        ValueError: for a negative noise, f outside [0, 1] or a bad count (from :mod:`mwm.memory_lab`).
    """
    noise, w, f = as_scalar(noise, "noise"), as_scalar(w, "w"), as_scalar(f, "f")
    n_trials = positive_int(n_trials, "n_trials")
    if isinstance(seed, bool) or int(seed) != seed:
        raise ValueError(f"seed must be a whole number, got {seed!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or not np.all(lengths == np.round(lengths)) or lengths.min() < 1:
        raise ValueError(f"lengths must be a non-empty list of whole numbers >= 1, got {lengths.tolist()}")
    curves = _lab_curves(noise, w, f, n_trials, int(seed), tuple(int(n) for n in lengths))
    return {cell: {k: v.copy() for k, v in c.items()} for cell, c in curves.items()}


def _lab_curves(noise, w, f, n_trials, seed, lengths):
    """:func:`lab_curves` without its checks: each cell's curves from :func:`_lab_cell_curves`."""
    return {cell: _lab_cell_curves(cell, noise, {"plain": w, "LSTM": f}.get(cell), n_trials, seed, lengths)
            for cell in LAB_CELLS}


@functools.lru_cache(maxsize=4)
def _lab_words(n_trials, longest, noise, seed):
    """The words x_1..x_T of each sentence (:func:`mwm.memory_lab.lab_sentences`), remembered and read-only."""
    words = lab_sentences(n_trials, longest, noise, seed)
    words.setflags(write=False)
    return words


@functools.lru_cache(maxsize=64)
def _lab_cell_curves(cell, noise, knob, n_trials, seed, lengths):
    """One cell's curves, remembered: a setting that changes only the length, or only another cell's
    knob (the plain cell's w, the LSTM's f; the GRU has none), re-uses the run."""
    lengths = np.asarray(lengths)
    words = _lab_words(n_trials, int(lengths.max()), noise, seed)
    memory, jacobian = lab_run(cell, words, **({"w": knob} if cell == "plain" else {"f": knob} if cell == "LSTM" else {}))
    right = np.sign(memory[:, lengths - 1]) == np.sign(words[:, :1])
    acc = right.mean(axis=0)
    return {"accuracy": acc, "std_error": np.sqrt(acc * (1 - acc) / n_trials),
            "jacobian": np.median(jacobian[:, lengths - 1], axis=0)}


def draw_memory_lab(length=LAB_DEFAULTS["length"], noise=LAB_DEFAULTS["noise"], w=LAB_DEFAULTS["w"],
                    f=LAB_DEFAULTS["f"], n_trials=LAB_TRIALS):
    """Figure: accuracy against sentence length (5-50) and the gradient reaching the first word, for the three cells.

    Args:
        length: the sentence length marked on the charts, one of 5..50.
        noise, w, f, n_trials: as in :func:`lab_curves`.

    Returns:
        (Figure, readings): the readings give each cell's accuracy at ``length`` words in
        percent with one binomial standard error, and the Jacobian from word 1 to the end.

    Raises:
        ValueError: for a length outside 5..50, or a bad noise, f or n_trials.
    """
    if isinstance(length, bool) or int(length) != length or not LAB_LENGTHS[0] <= length <= LAB_LENGTHS[-1]:
        raise ValueError(f"length must be a whole number from 5 to 50, got {length}")
    length = int(length)
    curves = lab_curves(noise, w, f, n_trials)
    k = int(np.searchsorted(LAB_LENGTHS, length))
    fig = Figure(figsize=(7.4, 3.8))
    ax_acc, ax_grad = fig.subplots(1, 2)
    labels = {"plain": f"plain, $w$ = {w:g}", "LSTM": f"LSTM, $f$ = {f:g}", "GRU": "GRU"}
    grad_labels = {"plain": r"$\prod w(1-h_t^2)$, median", "LSTM": r"$\prod f$", "GRU": r"$\prod (1-z)$"}
    for cell in LAB_CELLS:
        c = curves[cell]
        ax_acc.plot(LAB_LENGTHS, 100 * c["accuracy"], CELL_STYLES[cell], color=CELL_COLOURS[cell], lw=2,
                    label=labels[cell])
        ax_acc.fill_between(LAB_LENGTHS, 100 * (c["accuracy"] - 1.96 * c["std_error"]),
                            100 * (c["accuracy"] + 1.96 * c["std_error"]), color=CELL_COLOURS[cell], alpha=0.2)
        ax_acc.plot([length], [100 * c["accuracy"][k]], "o", color=CELL_COLOURS[cell])
        ax_grad.semilogy(LAB_LENGTHS, np.maximum(c["jacobian"], 1e-300), CELL_STYLES[cell], color=CELL_COLOURS[cell],
                          lw=2, label=grad_labels[cell])
        if c["jacobian"][k] >= 1e-12:
            ax_grad.plot([length], [c["jacobian"][k]], "o", color=CELL_COLOURS[cell])
        else:   # under the chart's floor: a mark on the floor, in the cell's colour
            ax_grad.plot([length], [2e-12], "v", color=CELL_COLOURS[cell], ms=8)
    ax_acc.axvline(length, color="0.7", lw=0.8)
    ax_acc.axhline(50, color="0.7", lw=0.8, ls=":")
    ax_acc.set_ylim(40, 102)
    ax_acc.set_xlabel("sentence length (words)")
    ax_acc.set_ylabel("right answers (%)")
    ax_acc.set_title(f"chai or coffee? noise {noise:g}", fontsize=11)
    ax_acc.legend(fontsize=9, loc="best")   # where it hides least of the curves at this setting
    ax_grad.axvline(length, color="0.7", lw=0.8)
    ax_grad.set_ylim(1e-12, 2)
    below = any(curves[cell]["jacobian"][k] < 1e-12 for cell in LAB_CELLS)
    ax_grad.set_xlabel("sentence length (words)" + (" (\u25bc: below 1e-12)" if below else ""))
    ax_grad.set_title("Jacobian to word 1", fontsize=11)
    ax_grad.legend(fontsize=9, loc="best")
    layout(fig)
    parts = [f"{cell} {100 * curves[cell]['accuracy'][k]:.1f}% ± {100 * curves[cell]['std_error'][k]:.1f}"
             for cell in LAB_CELLS]
    grads = [f"{cell} {curves[cell]['jacobian'][k]:.3g}" for cell in LAB_CELLS]
    text = (f"at {length} words: " + ", ".join(parts) + f" (± one standard error, {n_trials} sentences); "
            "Jacobian to word 1: " + ", ".join(grads))
    return fig, text


def describe_memory_lab(length=LAB_DEFAULTS["length"], noise=LAB_DEFAULTS["noise"], w=LAB_DEFAULTS["w"],
                        f=LAB_DEFAULTS["f"], n_trials=LAB_TRIALS) -> str:
    """What :func:`draw_memory_lab`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_memory_lab`. Returns one sentence: each cell's right answers
    from the shortest to the longest sentence and at the marked length, then its Jacobian to word
    1 at the marked length.
    """
    if isinstance(length, bool) or int(length) != length or not LAB_LENGTHS[0] <= length <= LAB_LENGTHS[-1]:
        raise ValueError(f"length must be a whole number from 5 to 50, got {length}")
    curves = lab_curves(noise, w, f, n_trials)
    k = int(np.searchsorted(LAB_LENGTHS, int(length)))
    names = {"plain": f"the plain cell with w = {w:g} (red)", "LSTM": f"the LSTM with f = {f:g} (blue, dashed)",
             "GRU": "the GRU (green, dotted)"}
    lines = [f"{names[c]} from {100 * curves[c]['accuracy'][0]:.0f}% at {LAB_LENGTHS[0]} words to "
             f"{100 * curves[c]['accuracy'][-1]:.0f}% at {LAB_LENGTHS[-1]}" for c in LAB_CELLS]
    marked = ", ".join(f"{c} {100 * curves[c]['accuracy'][k]:.0f}%" for c in LAB_CELLS)
    grads = ", ".join(f"{c} {spoken_number(curves[c]['jacobian'][k])}" for c in LAB_CELLS)
    return (f"Left, right answers against sentence length with filler noise {noise:g}, 50% being a guess: "
            + "; ".join(lines) + f"; at the marked {int(length)} words, {marked}. Right, on a log scale, the "
            f"Jacobian from word 1 to the end, at {int(length)} words {grads}.")


def memory_lab_try(length=LAB_DEFAULTS["length"], noise=LAB_DEFAULTS["noise"], w=LAB_DEFAULTS["w"],
                   f=LAB_DEFAULTS["f"]) -> TryPanel:
    """The memory lab panel (chapter 9): sentence length, filler noise, the plain cell's w, the LSTM's f.

    Set f = 0.9 for the chapter's LSTM with its forget gate fixed at 0.9.

    Returns:
        TryPanel with controls ``length`` (5-50, step 5), ``noise`` (0-1, step 0.1),
        ``w`` (a selection slider over :data:`LAB_W_CHOICES`) and ``f`` (toggle buttons of
        :data:`LAB_F_CHOICES`), the choices shown as text.

    Raises:
        ValueError: if w or f is not one of the choices.
    """
    if w not in LAB_W_CHOICES or f not in LAB_F_CHOICES:
        raise ValueError(f"w must be one of {LAB_W_CHOICES} and f one of {LAB_F_CHOICES}, got w={w}, f={f}")
    controls = {
        "length": widgets.IntSlider(value=length, min=5, max=50, step=5, description="length"),
        "noise": widgets.FloatSlider(value=noise, min=0.0, max=1.0, step=0.1, description="filler noise"),
        "w": widgets.SelectionSlider(options=[f"{x:g}" for x in LAB_W_CHOICES], value=f"{w:g}", description="plain w"),
        # buttons, not a slider: the text's move from 0.99 to 0.9 must not pass 0.95, question 3's surprise
        "f": widgets.ToggleButtons(options=[f"{x:g}" for x in LAB_F_CHOICES], value=f"{f:g}", description="LSTM f"),
    }

    def draw(c):
        return draw_memory_lab(c["length"], round(c["noise"], 1), float(c["w"]), float(c["f"]))

    panel = TryPanel("the memory lab: chai or coffee, many words later?", controls, draw)
    panel.tour = [   # chapter 9's lab: the length slid to 50, then f = 0.9, then (in a fold) the latching plain cell
        {"says": "Slide the length to 50", "moves": {"length": 50}, "expect": ["plain 49.9%", "LSTM 100.0%", "GRU 100.0%"]},
        {"says": "Then set $f=0.9$", "moves": {"f": "0.9"}, "expect": ["LSTM 84.6%"]},
        # the reader comes from f = 0.9 and keeps it (f moves only the LSTM's line)
        {"says": "At 50 words, push *plain w* up to 3", "moves": {"w": "3"}, "expect": ["plain 100.0%", "e-74", "LSTM 84.6%"]},
        {"says": "at $w=1.5$ it already gets 96.7% right", "moves": {"w": "1.5"}, "expect": ["plain 96.7%", "e-18", "LSTM 84.6%"]},
        # question 3 (its answer folded away): from f = 0.9 to 0.95, a cliff, not a few points
        {"says": "Switch it to $f=0.95$", "moves": {"f": "0.95"}, "expect": ["LSTM 100.0%"]},
    ]
    panel.describe = lambda c: describe_memory_lab(c["length"], round(c["noise"], 1), float(c["w"]), float(c["f"]))
    return panel
