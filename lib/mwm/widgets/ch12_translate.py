"""Chapter 12's "Try" panels: translate through one summary, and the bottleneck in numbers."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..seq2seq import first_word_weight, load_translator, numbers_in
from ..translation_corpus import load_pairs
from .drawing import layout, spoken_number
from .panel import TryPanel

#: Source lengths of the test sentences offered in the dropdown (the first test sentence of each length).
EXAMPLE_LENGTHS = (3, 6, 9, 13, 18, 24, 31, 38, 48)
MODES = ("free running", "teacher forcing")


def example_sentences(lengths=EXAMPLE_LENGTHS):
    """The dropdown's test sentences: for each length, the first test pair with that many English words.

    Returns:
        list of (english_words, hindi_words).

    Raises:
        ValueError: if the test set has no sentence of one of the lengths.
    """
    pairs = load_pairs("test")
    out = []
    for n in lengths:
        match = next((p for p in pairs if len(p[0]) == n), None)
        if match is None:
            raise ValueError(f"lengths: the test set has no sentence of {n} words")
        out.append(match)
    return out


def _translation_example(sentence, mode, model, examples):
    """(the translator, (English words, Hindi reference)) of example ``sentence``, loading what is None.

    Raises:
        ValueError: for an unknown mode or an index out of range.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    model = load_translator("plain") if model is None else model
    examples = example_sentences() if examples is None else examples
    if isinstance(sentence, bool) or not isinstance(sentence, (int, np.integer)) or not 0 <= sentence < len(examples):
        raise ValueError(f"sentence must be a whole number in [0, {len(examples)}), got {sentence!r}")
    return model, examples[sentence]


def draw_translate(sentence: int = 1, mode: str = "free running", model=None, examples=None):
    """Figure: the plain model's summary of a test sentence, and which Hindi words it gets right.

    Args:
        sentence: index into :func:`example_sentences` (0..8).
        mode: "free running" (the decoder reads its own previous word: a real translation)
            or "teacher forcing" (it reads the reference's previous word, as in training).
        model: a loaded translator (loads the plain model if None).
        examples: the list from :func:`example_sentences` (computed if None).

    Returns:
        (Figure, readings): the top panel draws the summary [h_T; c_T] as a strip of bars;
        the bottom one marks each output position green (the reference's word) or red.
        The readings give the English, the reference and the model's words.

    Raises:
        ValueError: for an unknown mode or an index out of range.
    """
    model, (src, ref) = _translation_example(sentence, mode, model, examples)
    summary = model.summary(src)
    if mode == "free running":
        words = model.translate(src)
    else:
        words = model.teacher_forced(src, ref)[0][:-1]  # the last guess is the <end> position
    n = max(len(words), len(ref))
    right = [i < len(words) and i < len(ref) and words[i] == ref[i] for i in range(n)]

    fig = Figure(figsize=(7.2, 4.6))
    ax = fig.add_subplot(2, 1, 1)
    H = model.hidden_size
    # h_T = o * tanh(c_T) stays in (-1, 1); the cell state is not squashed and grows with the sentence
    ax.bar(np.arange(H), summary[:H], color="tab:green", width=1.0, label=f"hidden state $h_T$ ({H}, in $(-1, 1)$)")
    ax.bar(np.arange(H, 2 * H), summary[H:], color="goldenrod", width=1.0,
           label=f"cell state $c_T$ ({H}, not squashed)")
    ax.axhline(0, color="0.5", lw=0.6)
    ax.set_xlim(-1, 2 * H)
    ax.set_xticks([])
    ax.legend(fontsize=9, loc="lower left")   # under the hidden state, which stays near 0: no bar behind it
    ax.set_title(f"the summary of a {len(src)}-word sentence: always {2 * H} numbers", fontsize=11)
    ax2 = fig.add_subplot(2, 1, 2)
    colours = ["tab:green" if r else "tab:red" for r in right]
    ax2.bar(np.arange(1, n + 1), np.ones(n), color=colours, width=0.9)
    for i in range(n):  # the model's word, written up the bar ("-" where it wrote nothing)
        ax2.text(i + 1, 0.5, words[i] if i < len(words) else "-", rotation=90, ha="center", va="center",
                 fontsize=9, color="white")
    ax2.set_xlim(0.4, max(n, 12) + 0.6)
    ax2.set_yticks([])
    ax2.set_xlabel("position in the Hindi sentence")
    fed = "its own last word" if mode == "free running" else "the reference's last word"
    ax2.set_title(f"{mode}: fed {fed}; green = matches the reference",
                  fontsize=11)
    layout(fig)
    n_right = sum(right)
    text = (f"<b>English ({len(src)} words):</b> {' '.join(src)}<br>"
            f"<b>reference:</b> {' '.join(ref)}<br>"
            f"<b>{mode}:</b> {' '.join(words)}<br>"
            f"{n_right} of {len(ref)} reference positions right")
    return fig, text


def describe_translate(sentence: int = 1, mode: str = "free running", model=None, examples=None) -> str:
    """What :func:`draw_translate`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_translate`. Returns one sentence: the summary's bars (always
    the same number of them) and how many of the model's Hindi words match the reference's.
    """
    model, (src, ref) = _translation_example(sentence, mode, model, examples)
    words = model.translate(src) if mode == "free running" else model.teacher_forced(src, ref)[0][:-1]
    n = max(len(words), len(ref))
    right = sum(i < len(words) and i < len(ref) and words[i] == ref[i] for i in range(n))
    H = model.hidden_size
    reads = "its own previous word" if mode == "free running" else "the reference's previous word"
    return (f"Above, the summary of the {len(src)}-word English sentence as {2 * H} bars, {H} for the hidden state "
            f"(green) and {H} for the cell state (gold): always {2 * H} numbers. Below, the decoder, reading {reads}, "
            f"writes {len(words)} Hindi words: {right} of the {n} positions match the reference's word (green), "
            f"{n - right} do not (red).")


def translate_try(sentence: int = 1, mode: str = "free running") -> TryPanel:
    """The translate panel: pick a test sentence, see its summary and the plain model's Hindi.

    Returns:
        TryPanel with controls ``sentence`` (Dropdown over nine test sentences of 3 to 48
        words, labelled by length and first words) and ``mode`` (ToggleButtons: free running / teacher forcing).
    """
    model = load_translator("plain")
    examples = example_sentences()
    labels = [f"{len(e)} words: {' '.join(e[:5])} ..." for e, _ in examples]
    controls = {"sentence": widgets.Dropdown(options=labels, value=labels[sentence], description="English"),
                "mode": widgets.ToggleButtons(options=list(MODES), value=mode, description="decoder")}
    panel = TryPanel("translate through one summary", controls,
                     lambda v: draw_translate(labels.index(v["sentence"]), v["mode"], model=model, examples=examples))
    panel.describe = lambda v: describe_translate(labels.index(v["sentence"]), v["mode"], model=model, examples=examples)
    switch = "Switch between *free running* and *teacher forcing* on a long sentence"
    panel.tour = [   # chapter 12's first "Try it" panel: the longest test sentence, both ways of decoding
        {"says": "In the first panel, choose a test sentence", "moves": {"sentence": labels[-1]},
         "expect": ["English (48 words)", "free running:", "9 of 43 reference positions right"]},
        {"says": switch, "moves": {"mode": "teacher forcing"}, "expect": ["teacher forcing:", "28 of 43 reference positions right"]},
        {"says": switch, "moves": {"mode": "free running"}, "expect": ["9 of 43 reference positions right"]},
    ]
    return panel


def draw_bottleneck(n_words: int = 5, word_size: int = 8, summary_size: int = 8, keep: float = 0.9):
    """Figure: numbers poured in against the fixed summary, and how loudly each word still speaks.

    Args:
        n_words: sentence length (>= 1); word_size: numbers per word; summary_size: numbers
            in the summary; keep: the toy leak beta, the fraction of the previous state kept per step (0 < beta < 1).

    Returns:
        (Figure, readings): readings give the numbers in, the squeeze ratio and word 1's
        weight beta^(T-1), e.g. "40 numbers into 8 (5 to 1); word 1 at 0.9^4 = 0.6561". The
        figure also writes word 1's weight above its (red) bar, "word 1: 0.6561", since
        the bar itself is too short to see on long sentences.
    """
    total = numbers_in(n_words, word_size)
    w1 = first_word_weight(n_words, keep)
    fig = Figure(figsize=(7.2, 3.4))
    ax = fig.add_subplot(1, 2, 1)
    ax.bar([0, 1], [total, summary_size], color=["tab:blue", "tab:green"])
    ax.set_xticks([0, 1])
    ax.set_xticklabels([f"numbers in\n({n_words} words × {word_size})", "summary"], fontsize=10)
    for x, v in ((0, total), (1, summary_size)):
        ax.text(x, v, str(v), ha="center", va="bottom", fontsize=10)
    ax.set_ylim(0, max(numbers_in(60, word_size), summary_size) * 1.1)
    ax.set_title("in: grows; summary: fixed", fontsize=11)
    ax2 = fig.add_subplot(1, 2, 2)
    k = np.arange(1, n_words + 1)
    weights = keep ** (n_words - k)
    colours = ["tab:red"] + ["goldenrod"] * (n_words - 1)
    ax2.bar(k, weights, color=colours, width=0.8)
    # word 1's bar soon becomes too short to see on this axis, so its value is written above it
    ax2.annotate(f"word 1: {w1:.4f}", xy=(1, w1), xytext=(3, min(w1, 1.0) + 0.12), fontsize=10, color="tab:red",
                 arrowprops={"arrowstyle": "-", "color": "tab:red", "lw": 0.8})
    ax2.set_xlim(0.4, 60.6)
    ax2.set_ylim(0, 1.25)
    ax2.set_xlabel("word $k$")
    ax2.set_title(f"word $k$ speaks at ${keep}^{{T-k}}$; red = word 1", fontsize=11)
    layout(fig)
    text = (f"{n_words} words: {total} numbers into {summary_size} (a squeeze of {total / summary_size:g} to 1); "
            f"word 1 at {keep}^{n_words - 1} = {w1:.4f}")
    return fig, text


def describe_bottleneck(n_words: int = 5, word_size: int = 8, summary_size: int = 8, keep: float = 0.9) -> str:
    """What :func:`draw_bottleneck`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_bottleneck`. Returns one sentence: the two bars (numbers in against the
    fixed summary) and each word's voice, word 1's in red.
    """
    total = numbers_in(n_words, word_size)
    w1 = first_word_weight(n_words, keep)
    return (f"Left, two bars: {total} numbers in, {n_words} word{'s' if n_words != 1 else ''} of {word_size}, against "
            f"a summary of {summary_size}, "
            f"a squeeze of {total / summary_size:g} to 1. Right, one bar per word for how loudly it still speaks at the "
            f"end, {keep:g} to the power of the words after it: the last word at 1, word 1, in red, at "
            f"{spoken_number(w1)}.")


def bottleneck_try(n_words: int = 5) -> TryPanel:
    """The bottleneck panel: drag the sentence length and watch the fixed summary and word 1's fading voice.

    Returns:
        TryPanel with one control, ``n_words`` (IntSlider 1-60), words of 8 numbers, summary of 8.
    """
    controls = {"n_words": widgets.IntSlider(value=n_words, min=1, max=60, step=1, description="words")}
    panel = TryPanel("one summary for any sentence length", controls, lambda v: draw_bottleneck(v["n_words"]))
    panel.tour = [   # chapter 12's second panel: "drag the sentence length ... Find 5 words ... and 50 words"
        {"says": "In the second panel, drag the sentence length", "moves": {"n_words": 20}, "expect": ["20 words: 160 numbers into 8"]},
        {"says": "Find 5 words (40 numbers, 0.6561)", "moves": {"n_words": 5}, "expect": ["40 numbers", "0.6561"]},
        {"says": "and 50 words (400 numbers, 0.0057)", "moves": {"n_words": 50}, "expect": ["400 numbers", "0.0057"]},
    ]
    panel.describe = lambda v: describe_bottleneck(v["n_words"])
    return panel
