"""Chapter 15's "Try" panel: the model you own writes, from a prompt, at a temperature.

Choose a prompt, a temperature θ and a random seed; the panel shows what the committed model
(``mwm/data/tiny_model.npz``, trained on the course's own prose) writes after the prompt, and its
twelve likeliest next characters right after the prompt.
"""
from __future__ import annotations

import textwrap
from importlib.resources import files

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .. import tiny
from .drawing import OUTPUT_COLOUR, layout
from .panel import TryPanel

#: The prompts offered: words the course uses often.
PROMPTS = ("The hidden state", "The gradient", "A language model")
#: The temperatures θ offered, as the panel's labels.
TEMPERATURES = ("0.5", "1", "1.5")
#: Characters written after the prompt.
LENGTH = 150
#: How many of the likeliest next characters the bars show.
TOP = 12


def _label(ch: str) -> str:
    return {" ": "\u2423", "\n": "\u23ce"}.get(ch, ch)


def draw_tiny(prompt: str = PROMPTS[0], temperature="1", seed: int = 1, model: tiny.TinyModel | None = None):
    """Figure: what the model writes after ``prompt`` at θ with ``seed``, and its likeliest next characters.

    Args:
        prompt: the text the model starts from (characters of the course's prose).
        temperature: θ > 0, a number or its label ("0.5", "1", "1.5").
        seed: the random seed of the sampler (numpy).
        model: the weights; the committed model if None.

    Returns:
        (Figure, readings): the readings give the top guess after the prompt with its probability
        at this temperature, and what was written.

    Raises:
        ValueError: for a prompt the model cannot read, or θ <= 0.
    """
    model = model or load_model()
    theta = float(temperature)
    probs = tiny.next_char_probs(model, prompt, theta)
    written = tiny.sample(model, prompt, LENGTH, temperature=theta, seed=seed)

    fig = Figure(figsize=(7.2, 4.2))
    ax_text, ax_bars = fig.subplots(2, 1, gridspec_kw={"height_ratios": [0.55, 1.0]})
    ax_text.axis("off")
    ax_text.text(0.0, 1.0, f'prompt "{prompt}"; the model\u2019s characters in [ ], sampled at ' + r"$\theta$"
                 + f" = {theta:g}, seed {seed}:", fontsize=10, va="top", transform=ax_text.transAxes)
    shown = f"{prompt}[{written}]".replace("\n", " / ").replace("$", r"\$")   # "/" marks a line break, as in chapter 15
    ax_text.text(0.0, 0.7, "\n".join(textwrap.wrap(shown, 64)[:6]), family="monospace", fontsize=10, va="top",
                 transform=ax_text.transAxes, color="0.1")

    order = np.argsort(probs)[::-1][:TOP]
    colours = [OUTPUT_COLOUR] * TOP
    colours[0] = "tab:red"
    ax_bars.bar(range(TOP), probs[order], color=colours, alpha=0.85)
    for i, k in enumerate(order[:3]):
        ax_bars.text(i, probs[k] + 0.01, f"{probs[k]:.2f}", ha="center", va="bottom", fontsize=10)
    ax_bars.set_xticks(range(TOP))
    ax_bars.set_xticklabels([_label(model.chars[k]).replace("$", r"\$") for k in order], fontsize=10)
    ax_bars.set_ylim(0, min(1.0, probs[order[0]] * 1.25 + 0.02))
    ax_bars.set_ylabel("probability")
    ax_bars.set_title(rf'the {TOP} likeliest characters after "{prompt}", $\theta$ = {theta:g} (red = top)',
                      fontsize=11)
    layout(fig)
    top = model.chars[order[0]]
    readings = (f'top guess after "{prompt}": "{_label(top)}" with p = {probs[order[0]]:.3f} (θ = {theta:g}); '
                f'the model wrote "{written.replace(chr(10), " / ")}"')   # "/" marks a line break, as in chapter 15
    return fig, readings


def load_model() -> tiny.TinyModel:
    """The committed model of chapter 15 (``scripts/train_tiny.py`` writes it)."""
    return tiny.load(files("mwm") / "data" / "tiny_model.npz")


def describe_tiny(prompt: str = PROMPTS[0], temperature="1", seed: int = 1, model: tiny.TinyModel | None = None) -> str:
    """What :func:`draw_tiny`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_tiny`. Returns one sentence: what the model wrote after the
    prompt, then the bars of the likeliest next characters, the three tallest named.
    """
    model = model or load_model()
    theta = float(temperature)
    probs = tiny.next_char_probs(model, prompt, theta)
    written = tiny.sample(model, prompt, LENGTH, temperature=theta, seed=seed)
    named = {" ": "space", "\n": "a new line", ",": "comma", ".": "full stop", "'": "apostrophe", '"': "quote"}
    order = np.argsort(probs)[::-1][:3]
    tallest = ", ".join(f'{named.get(model.chars[k], chr(34) + model.chars[k] + chr(34))} {probs[k]:.2f}' for k in order)
    return (f'Above, what the model wrote after "{prompt}", sampled at θ = {theta:g} with seed {seed}: '
            f'"{" ".join(written.split())}". Below, bars of its {TOP} likeliest next characters after the prompt, the '
            f"tallest {tallest}.")


def tiny_try(prompt: str = PROMPTS[0], temperature: str = "1", seed: int = 1) -> TryPanel:
    """The writing panel: prompt, temperature, random seed.

    Returns:
        TryPanel with controls ``prompt`` (Dropdown of :data:`PROMPTS`), ``temperature``
        (ToggleButtons θ = 0.5, 1, 1.5) and ``seed`` (IntSlider 1-3).
    """
    model = load_model()
    controls = {
        "prompt": widgets.Dropdown(options=list(PROMPTS), value=prompt, description="prompt"),
        "temperature": widgets.ToggleButtons(options=list(TEMPERATURES), value=temperature, description="θ"),
        "seed": widgets.IntSlider(value=seed, min=1, max=3, description="seed"),
    }
    panel = TryPanel("the model you own writes: which prompt, how hot?", controls,
                     lambda v: draw_tiny(**v, model=model))
    panel.tour = _TOUR
    panel.describe = lambda v: describe_tiny(**v, model=model)
    return panel


#: Chapter 15's "Try it": choosing the settings, then its things to look for (each temperature from the first
#: prompt with seed 1, the repeats at θ = 0.5, the punctuation at θ = 1.5, another seed at θ = 1).
_EACH = '"The hidden state" with seed 1 at each temperature'
_TOUR = [
    {"says": "Choose the *prompt*, the temperature $\\theta$ and the *seed*",
     "moves": {"prompt": "The gradient", "temperature": "1.5", "seed": 3}, "expect": ['after "The gradient"', "(θ = 1.5)"]},
    {"says": _EACH, "moves": {"prompt": "The hidden state", "seed": 1, "temperature": "0.5"},
     "expect": ['"␣" with p = 0.891 (θ = 0.5)']},
    {"says": _EACH, "moves": {"temperature": "1"}, "expect": ['"␣" with p = 0.556 (θ = 1)']},
    {"says": _EACH, "moves": {"temperature": "1.5"}, "expect": ['"␣" with p = 0.345 (θ = 1.5)']},
    {"says": "at $\\theta=0.5$, the same few words over and over", "moves": {"temperature": "0.5"},
     "expect": ["the loss on the long its one step the coun the cont on"]},
    {"says": "at $\\theta=1.5$, few real words, with capitals and punctuation in odd places", "moves": {"temperature": "1.5"},
     "expect": [",: / Whet. 0Mchodd"]},
    {"says": "another seed at $\\theta=1$: a different text from the same model", "moves": {"temperature": "1", "seed": 2},
     "expect": ["(θ = 1)", "colle a so lomes"]},
]
