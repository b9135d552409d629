"""Chapter 5's "Try" panel: the trained character model talks.

Choose a prompt, greedy or sampled talk, a temperature θ and a random seed; the
panel shows what the model writes and its next-character bars after the prompt.
"""
from __future__ import annotations

import textwrap

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..charlm import ALPHABET, CharLM, load_char_lm, next_char_probs, talk_greedy, talk_sample
from .drawing import OUTPUT_COLOUR, layout
from .panel import TryPanel

#: The prompts offered: the chapter's prompt, its typo (exposure bias), and a few others.
PROMPTS = ("the train to ", "the trian to ", "passengers for ", "my mother ", "the chai is ", "")
#: The temperatures θ offered, as the panel's labels.
TEMPERATURES = ("0.2", "0.5", "1", "2")
#: How the model picks each character.
MODES = ("greedy", "sample")
#: Bar labels: the space is drawn as an open box.
LABELS = [("\u2423" if ch == " " else ch) for ch in ALPHABET]


def _shown(text: str) -> str:
    return f'"{text}"' if text else "(nothing: the start symbol only)"


def draw_talk(prompt: str = "the train to ", mode: str = "greedy", temperature="1", seed: int = 1,
              model: CharLM | None = None):
    """Figure: what the model writes after ``prompt``, and its next-character bars after the prompt.

    Args:
        prompt: the text the model starts from (28 symbols).
        mode: "greedy" (always the top character, stops when it loops) or "sample"
            (draw each character from softmax(y / θ), y the logits, two sentences).
        temperature: θ > 0, a number or its label ("0.2", "0.5", "1", "2"); it shapes
            the bars, and the draws when sampling.
        seed: the random seed the sampling generator (numpy) starts from; ignored when greedy.
        model: the weights; the trained model (:func:`mwm.charlm.load_char_lm`) if None.

    Returns:
        (Figure, readings): the readings give the top guess after the prompt with its
        probability at this temperature, what was written, and the loop if one was found. The
        bars' scale is the same at every temperature of :data:`TEMPERATURES` (set by the coldest).

    Raises:
        ValueError: for an unknown mode, a prompt outside the 28 symbols, or θ <= 0.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    model = model or load_char_lm()
    theta = float(temperature)
    probs = next_char_probs(model, prompt, theta)
    if mode == "greedy":
        talk = talk_greedy(model, prompt)
    else:
        talk = talk_sample(model, prompt, theta, seed)

    fig = Figure(figsize=(7.2, 5.2))
    ax_text, ax_bars = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1.0, 1.3]})
    ax_text.axis("off")
    how = "greedy" if mode == "greedy" else rf"sampled at $\theta$ = {theta:g} with seed {seed}"
    lines = textwrap.wrap(f"{prompt}[{talk.generated}]", 64, drop_whitespace=False) or [""]
    ax_text.text(0.0, 1.0, f"prompt {_shown(prompt)}; the model's words in [ ], {how}:", fontsize=10,
                 va="top", transform=ax_text.transAxes)
    ax_text.text(0.0, 0.8, "\n".join(lines[:6]), family="monospace", fontsize=10, va="top",
                 transform=ax_text.transAxes, color="0.1")
    if talk.looped:
        block = talk.text[talk.loop_start:talk.loop_start + talk.loop_period]
        ax_text.text(0.0, 0.0, f'loop: "{block.strip()}" ({talk.loop_period} characters) came twice in a row',
                     fontsize=10, color="tab:red", va="bottom", transform=ax_text.transAxes)

    top = int(np.argmax(probs))
    colours = [OUTPUT_COLOUR] * len(probs)
    colours[top] = "tab:red"
    ax_bars.bar(range(len(probs)), probs, color=colours, alpha=0.85)
    for i in np.argsort(probs)[::-1][:3]:
        ax_bars.text(i, probs[i] + 0.01, f"{probs[i]:.2f}", ha="center", va="bottom", fontsize=10)
    ax_bars.set_xticks(range(len(probs)))
    ax_bars.set_xticklabels(LABELS, fontsize=10)
    # one scale for every θ of this prompt (the coldest θ's bars are the tallest): a hotter θ is seen to flatten them
    coldest = next_char_probs(model, prompt, min(theta, *(float(t) for t in TEMPERATURES)))
    ax_bars.set_ylim(0, min(1.0, coldest.max() * 1.25 + 0.02))
    ax_bars.set_ylabel("probability")
    ax_bars.set_title(rf"next character after {_shown(prompt)}, $\theta$ = {theta:g} (red = top)", fontsize=11)
    layout(fig)

    readings = (f'top guess after {_shown(prompt)}: "{ALPHABET[top]}" with p = {probs[top]:.3f} (θ = {theta:g}); '
                f'the model wrote "{talk.generated}"')
    if talk.looped:
        readings += f"; loop found: a block of {talk.loop_period} characters written twice in a row"
    return fig, readings


def _said_symbol(ch: str) -> str:
    """A symbol of the alphabet as a reader hears it: "p", "space", "full stop", "the end symbol"."""
    return {" ": "space", ".": "full stop"}.get(ch, f'"{ch}"' if ch.strip() else "the end symbol")


def describe_talk(prompt: str = "the train to ", mode: str = "greedy", temperature="1", seed: int = 1,
                  model: CharLM | None = None) -> str:
    """What :func:`draw_talk`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_talk`. Returns one sentence: how the model talked and what it wrote (and
    the loop greedy talk fell into), then the next-character bars: the three tallest, labelled in
    the picture, at this θ, on the scale every θ of this prompt shares.
    """
    model = model or load_char_lm()
    theta = float(temperature)
    probs = next_char_probs(model, prompt, theta)
    talk = talk_greedy(model, prompt) if mode == "greedy" else talk_sample(model, prompt, theta, seed)
    how = "greedy" if mode == "greedy" else f"sampled at θ = {theta:g} with seed {seed}"
    said = f'Above, what the model wrote after {_shown(prompt)}, {how}: "{talk.generated.strip()}"'
    if talk.looped:
        said += f", with a red line naming the {talk.loop_period}-character block it wrote twice in a row"
    top = np.argsort(probs)[::-1][:3]
    bars = ", ".join(f"{_said_symbol(ALPHABET[i])} {probs[i]:.2f}" for i in top)
    return (f"{said}. Below, bars of the next character's probability after the prompt at θ = {theta:g}, the "
            f"same scale at every θ: the tallest {bars}.")


def talk_try(prompt: str = "the train to ", mode: str = "greedy", temperature: str = "1", seed: int = 1) -> TryPanel:
    """The talking panel: prompt, greedy or sampled, temperature, random seed.

    Returns:
        TryPanel with controls ``prompt`` (Dropdown of :data:`PROMPTS`), ``mode``
        (ToggleButtons greedy / sample), ``temperature`` (ToggleButtons θ = 0.2, 0.5, 1, 2)
        and ``seed`` (IntSlider 1-3, used only when sampling).
    """
    model = load_char_lm()
    controls = {
        # the empty prompt gets a label of its own: an empty menu entry reads as a blank line
        "prompt": widgets.Dropdown(options=[(p or "(nothing: the start symbol only)", p) for p in PROMPTS],
                                   value=prompt, description="prompt"),
        "mode": widgets.ToggleButtons(options=list(MODES), value=mode, description="talk"),
        "temperature": widgets.ToggleButtons(options=list(TEMPERATURES), value=temperature, description="θ"),
        "seed": widgets.IntSlider(value=seed, min=1, max=3, description="seed", disabled=mode == "greedy"),
    }

    def on_mode(change):
        controls["seed"].disabled = change["new"] == "greedy"

    controls["mode"].observe(on_mode, names="value")
    panel = TryPanel("the model talks: greedy or sampled, and how hot?", controls,
                     lambda v: draw_talk(**v, model=model))
    panel.tour = _TOUR
    panel.combined = [("prompt", "mode", "temperature", "seed")]   # any prompt, greedy or sampled, at any θ and seed
    # greedy talk ignores the seed: its three seeds share one picture and readings
    panel.picture_key = lambda v: (v["prompt"], v["mode"], v["temperature"], v["seed"] if v["mode"] == "sample" else None)
    panel.describe = lambda v: describe_talk(**v, model=model)
    return panel


#: Chapter 5's "Try it", in its order: choosing a prompt and a way to talk, then its things to look for: greedy
#: talk's loop, sampling at the four temperatures with seed 1 (the worked example's sentences), seeds 2 and 3
#: at θ = 2 (one draw readable, the other garbled), the bars at each temperature, and the typo.
_WORKED_EXAMPLE = {"0.2": "mysore is late by twenty minutes.", "0.5": "kochi is cancelled today.",
                   "1": "tickets for mysore are sold at window eight.", "2": "my grandmothhr"}
_FOUR = "*sample* with seed 1 at the four temperatures of the worked example"
_SEEDS = "then seeds 2 and 3, which write other sentences than seed 1"
_GREEDY_BARS = 'the temperature reshaping the bars even in greedy mode: at $\\theta=0.2$ "p" and "k" pull away from the rest'
_TOUR = (
    [{"says": "Choose a *prompt*, then press *greedy* or *sample*", "moves": {"prompt": "my mother ", "mode": "sample"},
      "expect": ['"m" with p = 0.294 (θ = 1)', "is going to mumbai on sunday."]},
     {"says": "With *sample*, set the temperature $\\theta$ and the *seed*", "moves": {"temperature": "0.5", "seed": 2},
      "expect": ["(θ = 0.5)", "is going to nagpur today."]},
     {"says": "the prompt “the train to ” with *greedy*: a red line names the 27-character block that came twice",
      "moves": {"prompt": "the train to ", "mode": "greedy"}, "expect": ["loop found: a block of 27 characters"]}]
    + [{"says": _FOUR, "moves": {"mode": "sample", "seed": 1, "temperature": theta} if theta == "0.2" else {"temperature": theta},
        "expect": [f"(θ = {theta})", sentence]} for theta, sentence in _WORKED_EXAMPLE.items()]
    + [{"says": _SEEDS, "moves": {"seed": 2}, "expect": ["(θ = 2)", "kochi express will arrive on platform six."]},
       {"says": _SEEDS, "moves": {"seed": 3}, "expect": ["(θ = 2)", "platform connfor"]},
       {"says": _GREEDY_BARS, "moves": {"mode": "greedy", "temperature": "0.2"}, "expect": ['"p" with p = 0.390 (θ = 0.2)']},
       {"says": "at $\\theta=2$ the bars flatten", "moves": {"temperature": "2"}, "expect": ['"p" with p = 0.113 (θ = 2)']},
       {"says": "the prompt “the trian to ” (a typo)", "moves": {"prompt": "the trian to "},
        "expect": ['top guess after "the trian to "']}]
)
