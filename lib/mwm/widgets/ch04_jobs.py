"""Chapter 4's "Try" panels: the five shapes of a recurrent job, and next-word read-out bars."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..readout import cross_entropy, softmax
from .drawing import INPUT_COLOUR, OUTPUT_COLOUR, arrow, box, layout, value_bars
from .panel import TryPanel

#: name -> (which steps take an input, which give a read-out, example job), for a 5-step chain.
SHAPES = {
    "many -> one": ((1, 1, 1, 1, 1), (0, 0, 0, 0, 1), "read a review, say happy or unhappy once (sentiment)"),
    "one -> many": ((1, 0, 0, 0, 0), (1, 1, 1, 1, 1), "take a photo's vector, write a caption word by word"),
    "many -> many (same length)": ((1, 1, 1, 1, 1), (1, 1, 1, 1, 1), "tag every word: noun, verb or other"),
    "many -> many (different length)": ((1, 1, 1, 0, 0, 0), (0, 0, 0, 1, 1, 1),
                                        "read English, then write Hindi: a reader and a writer (chapter 12)"),
    "language model": ((1, 1, 1, 1, 1), (1, 1, 1, 1, 1), "at every word, guess the next word"),
}


def draw_shape(shape: str = "many -> one"):
    """Figure: one job's shape: blue arrows are inputs, cyan arrows are read-outs.

    Returns:
        (Figure, readings): the readings count the inputs and read-outs and name an example.

    Raises:
        ValueError: for a shape not in :data:`SHAPES`.
    """
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {list(SHAPES)}, got {shape!r}")
    ins, outs, example = SHAPES[shape]
    two_cells = shape.endswith("(different length)")
    fig = Figure(figsize=(7.0, 3.0))
    ax = fig.add_subplot(1, 1, 1)
    for t, (i, o) in enumerate(zip(ins, outs)):
        x0 = 0.5 + 1.2 * t
        writer = two_cells and t >= 3
        box(ax, x0, 1.0, 0.8, 0.8, "writer" if writer else "cell", fc="#fff3e0" if writer else "#e8f5e9",
            fontsize=10)
        if t:
            arrow(ax, (x0 - 0.4, 1.4), (x0, 1.4), color="0.35")
        if i:
            arrow(ax, (x0 + 0.4, 0.2), (x0 + 0.4, 1.0), color=INPUT_COLOUR, lw=2)
        if o:
            arrow(ax, (x0 + 0.4, 1.8), (x0 + 0.4, 2.6), color=OUTPUT_COLOUR, lw=2)
        if shape == "language model" and o and t + 1 < len(ins):
            arrow(ax, (x0 + 0.55, 2.6), (x0 + 1.58, 0.22), color="0.6", lw=1, ls="--")   # to the next input's foot
    ax.set_xlim(0, 0.5 + 1.2 * len(ins) + 0.2)
    ax.set_ylim(0, 3.0)
    ax.axis("off")
    # two title lines for every shape: the panel's settings share one layout, laid out for the first
    extra = "; dashed: when talking, each guess is fed back in" if shape == "language model" else ""
    ax.set_title(f"{shape}: blue = input, cyan = read-out\ngrey = the hidden state passed on{extra}", fontsize=11)
    layout(fig)
    text = f"{sum(ins)} input(s), {sum(outs)} read-out(s): {example}."
    return fig, text


def describe_shape(shape: str = "many -> one") -> str:
    """What :func:`draw_shape`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_shape`. Returns one sentence: the chain of steps, at which
    ones a word comes in (blue) and an answer comes out (cyan), and the job's example.
    """
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {list(SHAPES)}, got {shape!r}")
    ins, outs, example = SHAPES[shape]

    def steps(marks):
        on = [t + 1 for t, m in enumerate(marks) if m]
        if len(on) == len(marks):
            return "at every step"
        if len(on) == 1:
            return f"at step {on[0]} only"
        return f"at steps {on[0]} to {on[-1]}"

    cells = ("a reading cell for 3 steps, then a writer for 3" if shape.endswith("(different length)")
             else f"the same cell over {len(ins)} steps")
    fed = ", and each answer is fed back as the next input (dashed)" if shape == "language model" else ""
    return (f"{shape.replace('->', 'to')}: {cells}, in a row; inputs (blue arrows) come in {steps(ins)}, answers (cyan "
            f"arrows) come out {steps(outs)}{fed}. For example: {example}.")


def shapes_try(shape: str = "many -> one") -> TryPanel:
    """The five-shapes panel. Returns a TryPanel with one control, ``shape`` (ToggleButtons)."""
    controls = {"shape": widgets.ToggleButtons(options=list(SHAPES), value=shape, description="shape")}
    panel = TryPanel("one cell, five jobs: where do inputs go in and answers come out?", controls,
                     lambda v: draw_shape(**v))
    panel.describe = lambda v: describe_shape(**v)
    panel.tour = [{"says": "In the first panel, click through the five shapes", "moves": {"shape": shape}, "expect": [said]}
                  for shape, said in (("one -> many", "1 input(s), 5 read-out(s)"),
                                      ("many -> many (same length)", "5 input(s), 5 read-out(s): tag every word"),
                                      ("many -> many (different length)", "3 input(s), 3 read-out(s)"),
                                      ("language model", "5 input(s), 5 read-out(s): at every word, guess the next word"))]
    return panel


#: The small vocabulary of the next-word panel.
VOCAB = ("the", "train", "to", "Delhi", "Mumbai", "late")
#: The sentence read, word by word.
SENTENCE = ("the", "train", "to", "Delhi")
#: The read-out's logits after each prefix. Only the third row is the chapter's (Delhi 2,
#: Mumbai 1, late 0.5, the -1); "train" and "to" get -8 there, so they take almost
#: nothing and the four bars match the worked example to three decimals. The other
#: rows are made up for the picture.
LOGITS = np.array([
    [-1.0, 2.5, -2.0, 0.5, 0.4, -1.0],   # after "the": guess "train"
    [-1.5, -3.0, 2.2, -0.5, -0.7, 1.2],  # after "the train": guess "to"
    [-1.0, -8.0, -8.0, 2.0, 1.0, 0.5],   # after "the train to": the chapter's logits
])


def draw_next_word(step: int = 3):
    """Figure: the read-out's probabilities for the next word after the first ``step`` words.

    Returns:
        (Figure, readings): the readings give the true next word's probability, its
        cross-entropy -ln p and the running total of the losses so far.
    """
    probs = softmax(LOGITS[:step])
    truth = [VOCAB.index(w) for w in SENTENCE[1:step + 1]]
    losses = cross_entropy(probs, truth)
    fig = Figure(figsize=(6.4, 3.0))
    ax = fig.add_subplot(1, 1, 1)
    value_bars(ax, probs[-1], VOCAB, color=OUTPUT_COLOUR, ylim=(0, 1.05), digits=3, highlight=truth[-1])
    prefix = " ".join(SENTENCE[:step])
    ax.set_title(f'after "{prefix}": what comes next? (red = the truth)', fontsize=11)
    layout(fig)
    text = (f'true next word "{SENTENCE[step]}": p = {probs[-1][truth[-1]]:.3f}, loss -ln p = {losses[-1]:.3f}; '
            f"loss so far (sum of {step} cross-entrop{'y' if step == 1 else 'ies'}) = {losses.sum():.3f}")
    return fig, text


def describe_next_word(step: int = 3) -> str:
    """What :func:`draw_next_word`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_next_word`. Returns one sentence: the bars over the vocabulary after the
    words read, the true next word's bar (red) and the tallest.
    """
    probs = softmax(LOGITS[:step])[-1]
    truth = VOCAB.index(SENTENCE[step])
    top = int(np.argmax(probs))
    tallest = "the tallest" if top == truth else f'the tallest is "{VOCAB[top]}" at {probs[top]:.2f}'
    return (f'Bars of the read-out\'s probability for each of the {len(VOCAB)} words of the vocabulary after '
            f'"{" ".join(SENTENCE[:step])}": the true next word, "{SENTENCE[step]}", in red at {probs[truth]:.2f}, '
            f"{tallest}.")


def next_word_try(step: int = 3) -> TryPanel:
    """The next-word read-out panel: step through "the train to Delhi" and watch the bars.

    Returns:
        TryPanel with one control, ``step`` (IntSlider 1-3: how many words have been read).
    """
    controls = {"step": widgets.IntSlider(value=step, min=1, max=len(LOGITS), description="words read")}
    panel = TryPanel("the read-out guesses the next word", controls, lambda v: draw_next_word(**v))
    step_forward = "slide *words read* back to 1 and step forward"
    panel.tour = [   # chapter 4's three cross-entropies, 0.285 + 0.419 + 0.495 = 1.199
        {"says": step_forward, "moves": {"step": 1}, "expect": ["loss -ln p = 0.285"]},
        {"says": step_forward, "moves": {"step": 2}, "expect": ["loss -ln p = 0.419"]},
        {"says": step_forward, "moves": {"step": 3}, "expect": ["loss -ln p = 0.495", "= 1.199"]},
    ]
    panel.describe = lambda v: describe_next_word(**v)
    return panel
