"""Chapter 11's "Try" panel: one-way, two-way and two-layer readers on the toy and the Teddy sentences.

Two sentences of inputs:

* the toy: one-number words x = (0, 0, 1) read by one-number plain cells with w = 0.5,
  u = 1, b = 0 (every cell, every direction, every layer);
* the Teddy sentences of chapter 11, read by a small made-up model: word vectors of 4
  numbers from :func:`mwm.readers.toy_word_vectors` (seed 11), plain cells with hidden states of
  3 numbers from ``init_reader("rnn", 3, 4, bidirectional=True, seed=5)`` and, for the
  second layer, ``init_rnn(3, 3, seed=6)``. The weights are random: the point is only
  which words can reach which state.

Which words reach word t's state is measured, not assumed: word k reaches it when the
state moves if x_k moves, i.e. when ``dh_t / dx_k`` (from :func:`mwm.readers.reader_backward`)
is not zero. The gold's depth is that size (summed over the state's and the word's
numbers): how far the state would move per small nudge to the word, *at the current
inputs*. It is a local slope, not the share of the state the word wrote: on the toy with
two layers, word 3 (the only non-zero word) is the palest at word 3, because its tanh
is already bent at 0.7616.

The word slider runs 1-7, the longest sentence's length, for every sentence: the
website's static twin lists a slider's values once, whichever sentence is chosen. On
the 3-word toy, positions past 3 show word 3, and the readings say so.
"""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..readers import TEDDY_SENTENCES, init_reader, init_rnn, reader_backward, reader_forward, toy_word_vectors
from .drawing import box, layout
from .panel import TryPanel

TOY = "toy: x = (0, 0, 1)"
#: The panel's sentences: the toy, then the two Teddy sentences.
SENTENCES = (TOY,) + TEDDY_SENTENCES
#: The three readers.
MODES = ("one-way", "two-way", "two layers")
#: The toy cell of chapter 11: w = 0.5, u = 1, b = 0.
TOY_CELL = {"W": np.array([[0.5]]), "U": np.array([[1.0]]), "b": np.array([0.0])}
MAX_WORDS = max(len(s.split()) for s in TEDDY_SENTENCES)


def teddy_model():
    """The made-up Teddy model: (word vectors, forward cell, backward cell, layer-2 cell)."""
    vectors = toy_word_vectors(TEDDY_SENTENCES, size=4, seed=11)
    fwd, bwd = init_reader("rnn", 3, 4, bidirectional=True, seed=5)[0]
    return vectors, fwd, bwd, init_rnn(3, 3, seed=6)


def sentence_inputs(sentence: str):
    """(words, xs): the words shown and the input array (T, d) of one of :data:`SENTENCES`.

    Raises:
        ValueError: for a sentence not in :data:`SENTENCES`.
    """
    if sentence == TOY:
        return ["x1 = 0", "x2 = 0", "x3 = 1"], np.array([[0.0], [0.0], [1.0]])
    if sentence not in TEDDY_SENTENCES:
        raise ValueError(f"sentence must be one of {list(SENTENCES)}, got {sentence!r}")
    vectors = teddy_model()[0]
    words = sentence.split()
    return words, np.array([vectors[w.lower()] for w in words])


def reader_layers(sentence: str, mode: str):
    """The layers (as :func:`mwm.readers.reader_forward` takes them) of one reader on one sentence.

    Raises:
        ValueError: for an unknown mode or sentence.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    if sentence == TOY:
        fwd = bwd = layer2 = TOY_CELL
    elif sentence in TEDDY_SENTENCES:
        _, fwd, bwd, layer2 = teddy_model()
    else:
        raise ValueError(f"sentence must be one of {list(SENTENCES)}, got {sentence!r}")
    return {"one-way": [(fwd,)], "two-way": [(fwd, bwd)], "two layers": [(fwd,), (layer2,)]}[mode]


def states_and_reach(sentence: str, mode: str, word: int):
    """Every layer's states, and how strongly each word reaches word ``word``'s top state.

    Args:
        sentence: one of :data:`SENTENCES`; mode: one of :data:`MODES`;
        word: 1-based position (clamped to the sentence's length).

    Returns:
        (words, states, reach, t): states is a list with one array (T, n) per layer (two-way:
        forward numbers first); reach is an array (T,), the summed size of
        ``dh_t / dx_k`` over the state's numbers and the input's numbers; t is the
        0-based position used.
    """
    words, xs = sentence_inputs(sentence)
    layers = reader_layers(sentence, mode)
    t = min(max(int(word), 1), len(words)) - 1
    states = [reader_forward(xs, layers[: n + 1], "rnn")[0] for n in range(len(layers))]
    top, cache = reader_forward(xs, layers, "rnn")
    reach = np.zeros(len(words))
    for j in range(top.shape[1]):
        dstates = np.zeros_like(top)
        dstates[t, j] = 1.0
        reach += np.abs(reader_backward(dstates, cache)[1]).sum(axis=1)
    return words, states, reach, t


def _fmt(v) -> str:
    return "(" + ", ".join(f"{x:.4f}" for x in np.round(np.asarray(v, dtype=float), 4) + 0.0) + ")"


def _row_labels(mode, n):
    if mode == "two-way":
        return [f"fwd {i + 1}" for i in range(n // 2)] + [f"bwd {i + 1}" for i in range(n // 2)]
    return [f"{i + 1}" for i in range(n)]


def draw_both_ways(sentence: str = TOY, mode: str = "one-way", word: int = 1):
    """Figure: the words (gold = reaches the chosen word's state) above every layer's states.

    Returns:
        (Figure, readings): the chosen word's state to four decimals, the words that reach
        it, and for a Teddy sentence whether the other sentence gives the same state there.
    """
    words, states, reach, t = states_and_reach(sentence, mode, word)
    T = len(words)
    fig = Figure(figsize=(7.2, 2.0 + 1.3 * sum(1 + n.shape[1] / 3 for n in states)))
    heights = [1.3] + [0.6 + 0.35 * n.shape[1] for n in states]
    grid = fig.add_gridspec(len(heights), 1, height_ratios=heights)
    ax = fig.add_subplot(grid[0])
    strongest = reach.max() if reach.max() > 0 else 1.0
    for k, w in enumerate(words):
        shade = reach[k] / strongest
        fc = (1.0, 0.85 - 0.25 * shade, 0.3 * (1 - shade)) if reach[k] > 0 else "white"
        box(ax, k + 0.05, 0.1, 0.9, 0.8, w, fc=fc, ec="tab:red" if k == t else "0.4",
            lw=3 if k == t else 1, fontsize=10)
        if reach[k] > 0:
            ax.text(k + 0.5, 0.22, f"{reach[k]:.2f}", ha="center", va="center", fontsize=9, color="0.15")
    ax.set_xlim(0, max(T, 3))
    ax.set_ylim(0, 1)
    ax.axis("off")
    ax.set_title(f"{mode}: gold words reach word {t + 1}'s state (red frame)\n"
                 "deeper gold (and the number): the state moves more per nudge", fontsize=11)
    heat_axes = []
    for n, layer_states in enumerate(states):
        hax = fig.add_subplot(grid[n + 1])
        heat_axes.append(hax)
        image = hax.imshow(layer_states.T, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto",
                           extent=(0, T, layer_states.shape[1], 0))
        for k in range(T):
            for i in range(layer_states.shape[1]):
                value = layer_states[k, i]
                hax.text(k + 0.5, i + 0.5, f"{value:.2f}", ha="center", va="center", fontsize=9,
                         color="white" if abs(value) > 0.6 else "black")
        hax.set_xlim(0, max(T, 3))
        hax.set_xticks([])
        hax.set_yticks(np.arange(layer_states.shape[1]) + 0.5)
        hax.set_yticklabels(_row_labels(mode, layer_states.shape[1]), fontsize=9)
        name = f"layer {n + 1} states" if mode == "two layers" else "states"
        hax.set_ylabel(name, fontsize=10)
    layout(fig)
    # the colour key, to the right of the heat-maps (all rows shrink alike, so words and states stay aligned)
    fig.subplots_adjust(right=0.88)
    low, high = heat_axes[-1].get_position().y0, heat_axes[0].get_position().y1
    key = fig.add_axes((0.905, low, 0.018, high - low))
    fig.colorbar(image, cax=key, ticks=[-1, 0, 1])
    key.set_ylabel("red > 0, blue < 0", fontsize=9)
    key.tick_params(labelsize=9)
    return fig, both_ways_readings(sentence, mode, word, (words, states, reach, t))


def both_ways_readings(sentence: str = TOY, mode: str = "one-way", word: int = 1, computed=None) -> str:
    """The readings of :func:`draw_both_ways` alone (HTML): the chosen word's state, the words that reach it,
    each word's reach, and for a Teddy sentence whether the other sentence gives the same state there.

    ``computed``: :func:`states_and_reach` of these arguments, if already computed.
    """
    words, states, reach, t = computed or states_and_reach(sentence, mode, word)
    T = len(words)
    reached = [k + 1 for k in range(T) if reach[k] > 0]
    top_state = states[-1][t]
    text = f'word {t + 1} ("{words[t]}"): state {_fmt(top_state)}; reached by words {reached}'
    text += "; reach per word " + ", ".join(f"{r:.4f}" for r in reach)
    if int(word) > T:
        text += f" (this sentence has {T} words, so word {int(word)} shows word {T})"
    if sentence in TEDDY_SENTENCES:
        other = TEDDY_SENTENCES[1 - TEDDY_SENTENCES.index(sentence)]
        _, other_states, _, _ = states_and_reach(other, mode, word)
        same = np.array_equal(other_states[-1][t], top_state)
        text += (f'; the other sentence gives {_fmt(other_states[-1][t])} there: '
                 f"<b>{'the same state' if same else 'a different state'}</b>")
    return text


def describe_both_ways(sentence: str = TOY, mode: str = "one-way", word: int = 1) -> str:
    """What :func:`draw_both_ways`'s picture shows, in words (the website's alt text).

    Args as :func:`draw_both_ways`. Returns one sentence: the words in boxes, the chosen one
    framed in red, the gold ones that reach its state (the strongest named), and the heat maps
    of every layer's states below.
    """
    words, states, reach, t = states_and_reach(sentence, mode, word)
    gold = [f'"{w}"' for w, r in zip(words, reach) if r > 0]
    strongest = int(np.argmax(reach))
    maps = (f"{len(states)} heat maps, one per layer, of" if len(states) > 1 else "a heat map of") + \
        " every word's state, red above 0 and blue below"
    return (f"Above, the {len(words)} words in boxes, word {t + 1}, \"{words[t]}\", framed in red; read {mode}, "
            f"{len(gold)} of them, in gold, reach its state: {', '.join(gold)}, the strongest \"{words[strongest]}\" "
            f"({reach[strongest]:.2f}). Below, {maps}.")


def both_ways_try(sentence: str = TOY, mode: str = "one-way", word: int = 1) -> TryPanel:
    """The reading-both-ways panel.

    Returns:
        TryPanel with controls ``sentence`` (Dropdown of :data:`SENTENCES`), ``mode``
        (ToggleButtons of :data:`MODES`) and ``word`` (IntSlider 1-7 for every sentence, so
        that the website's static twin lists each position once; the toy has 3 words, so
        larger values show its last word and the readings say so).
    """
    controls = {
        "sentence": widgets.Dropdown(options=list(SENTENCES), value=sentence, description="sentence"),
        "mode": widgets.ToggleButtons(options=list(MODES), value=mode, description="reader"),
        "word": widgets.IntSlider(value=word, min=1, max=MAX_WORDS, description="word"),
    }
    panel = TryPanel("which words can reach a word's hidden state?", controls, lambda v: draw_both_ways(**v))
    panel.describe = lambda v: describe_both_ways(**v)
    same_or_not = "One-way and two layers say *the same state*; two-way says *a different state*"
    panel.tour = [   # chapter 11's "Try it"
        {"says": "Start on the toy with word 1: one-way, its state is $(0)$", "moves": {},
         "expect": ["state (0.0000); reached by words [1];"]},
        {"says": "Switch to two-way", "moves": {"mode": "two-way"}, "expect": ["state (0.0000, 0.1797); reached by words [1, 2, 3]"]},
        {"says": 'Move to word 3 in "two layers"', "moves": {"word": 3, "mode": "two layers"},
         "expect": ["reach per word 0.3556, 0.4173, 0.2469"]},
        {"says": 'Then load a Teddy sentence at word 3 ("Teddy")', "moves": {"sentence": TEDDY_SENTENCES[0]},
         "expect": ['word 3 ("Teddy")', "there: the same state"]},
        {"says": same_or_not, "moves": {"mode": "one-way"}, "expect": ["there: the same state"]},
        {"says": same_or_not, "moves": {"mode": "two-way"}, "expect": ["there: a different state"]},
    ]
    # a word past the sentence's end shows its last word: one picture, its own readings (which say so)
    last = {s: len(states_and_reach(s, MODES[0], 1)[0]) for s in SENTENCES}
    panel.picture_key = lambda v: (v["sentence"], v["mode"], min(int(v["word"]), last[v["sentence"]]))
    panel.readings_of = lambda v: both_ways_readings(**v)
    return panel


