"""Chapter 14's "Try" panels: test-set BLEU by source length for the three models, and the
trained attention decoder allowed to read only some of the encoder's states."""
from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..bleu import sentence_bleu
from ..seq2seq import READS, attention_weights, bleu_by_length, length_buckets, load_test_outputs, load_translator
from .drawing import layout
from .panel import TryPanel

MODELS = ("plain", "attention", "control")
COLOURS = {"plain": "tab:red", "attention": "tab:blue", "control": "tab:orange"}
LABELS = {"plain": "one summary (plain)", "attention": "with attention", "control": "same-size control"}
WIDTHS = (5, 10, 20)


def bleu_table(rows, width: int):
    """Corpus BLEU-4 of the three models per length bucket: {model: [(low, high, count, bleu), ...]}."""
    lengths = [len(r["source"]) for r in rows]
    buckets = length_buckets(width, min(lengths), max(lengths))
    refs = [r["reference"] for r in rows]
    return {m: bleu_by_length([r[m] for r in rows], refs, lengths, buckets) for m in MODELS}


def draw_bleu_by_length(width: int = 10, example_length: int = 30, rows=None, table=None):
    """Figure: corpus BLEU-4 of the three models in each source-length bucket, with an example sentence.

    Args:
        width: words per bucket (after the first bucket, 3-9 words).
        example_length: the readings show the first test sentence of this many English words (3..48).
        rows: the committed test-set translations (``load_test_outputs()`` if None).
        table: ``bleu_table(rows, width)`` if already computed (the panel keeps them).

    Returns:
        (Figure, readings): the readings give each model's BLEU in the example's bucket
        and the example's reference and three translations.

    Raises:
        ValueError: for a width below 1, or a length no test sentence has.
    """
    rows = load_test_outputs() if rows is None else rows
    table = bleu_table(rows, width) if table is None else table
    readings = bleu_by_length_readings(example_length, rows, table)   # raises for a length no sentence has
    which = example_bucket(example_length, table)

    fig = Figure(figsize=(7.2, 3.8))
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(table["plain"]))
    for j, m in enumerate(MODELS):
        vals = [s[3] for s in table[m]]
        ax.bar(x + (j - 1) * 0.28, vals, width=0.28, color=COLOURS[m], alpha=0.85, label=LABELS[m])
    ax.axvspan(which - 0.5, which + 0.5, color="0.9", zorder=0)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{lo}-{hi}\n({n})" for lo, hi, n, _ in table["plain"]], fontsize=10)
    ax.set_xlabel("English length in words (number of test sentences)")
    ax.set_ylabel("corpus BLEU-4")
    ax.set_ylim(0, 1.3)
    ax.set_yticks(np.arange(0, 1.01, 0.2))
    ax.legend(fontsize=10, loc="upper center", ncol=3)
    ax.set_title("test-set BLEU by length (shaded: the example's bucket)", fontsize=11)
    layout(fig)
    return fig, readings


def example_bucket(example_length: int, table) -> int:
    """Index of the bucket of ``table`` (a :func:`bleu_table`) that holds ``example_length`` words (0-based).

    Raises:
        ValueError: if no bucket holds that length.
    """
    for i, (lo, hi, _, _) in enumerate(table["plain"]):
        if lo <= example_length <= hi:
            return i
    raise ValueError(f"example_length: {example_length} words lies in no bucket of the table")


def describe_bleu_by_length(width: int = 10, example_length: int = 30, rows=None, table=None) -> str:
    """What :func:`draw_bleu_by_length`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_bleu_by_length`. Returns one sentence: the buckets, each
    model's BLEU in the shortest and the longest bucket, in how many buckets attention is
    highest, and the shaded bucket of the example with its three scores.
    """
    rows = load_test_outputs() if rows is None else rows
    table = bleu_table(rows, width) if table is None else table
    which = example_bucket(example_length, table)
    buckets = table["plain"]
    shown = {"plain": "one summary (red)", "attention": "attention (blue)", "control": "the same-size control (orange)"}

    def span(m):
        return f"{shown[m]} from {table[m][0][3]:.2f} to {table[m][-1][3]:.2f}"

    best = sum(1 for k in range(len(buckets)) if table["attention"][k][3] >= max(table[m][k][3] for m in MODELS))
    lo, hi = buckets[which][:2]
    return (f"Bars of test-set BLEU-4 in {len(buckets)} buckets of English length, {buckets[0][0]}-{buckets[0][1]} "
            f"to {buckets[-1][0]}-{buckets[-1][1]} words, from the shortest bucket to the longest: "
            + ", ".join(span(m) for m in MODELS)
            + f"; attention is highest in {best} of {len(buckets)} buckets; the example's bucket, {lo}-{hi} words, "
            f"is shaded (plain {table['plain'][which][3]:.2f}, attention {table['attention'][which][3]:.2f}, "
            f"control {table['control'][which][3]:.2f}).")


def bleu_by_length_readings(example_length: int, rows, table) -> str:
    """The readings of :func:`draw_bleu_by_length` alone (HTML): the example's bucket and its four sentences.

    Args:
        example_length: English words of the example (the first test sentence of that length).
        rows: the committed test-set translations; table: ``bleu_table(rows, width)``.

    Raises:
        ValueError: for a length no test sentence has.
    """
    example = next((r for r in rows if len(r["source"]) == example_length), None)
    if example is None:
        raise ValueError(f"example_length: no test sentence has {example_length} words")
    which = example_bucket(example_length, table)
    lo, hi = table["plain"][which][:2]
    parts = [f"<b>bucket {lo}-{hi} words:</b> plain {table['plain'][which][3]:.3f}, "
             f"attention {table['attention'][which][3]:.3f}, control {table['control'][which][3]:.3f}",
             f"<b>English ({example_length} words):</b> {' '.join(example['source'])}",
             f"<b>reference:</b> {' '.join(example['reference'])}"]
    for m in MODELS:
        parts.append(f"<b>{m}:</b> {' '.join(example[m])} (sentence BLEU {sentence_bleu(example[m], [example['reference']]):.3f})")
    return "<br>".join(parts)


def bottleneck_bleu_try(width: int = 10, example_length: int = 30) -> TryPanel:
    """The measured-bottleneck panel.

    Returns:
        TryPanel with controls ``width`` (ToggleButtons "5" / "10" / "20" words per bucket) and
        ``example_length`` (IntSlider over the test set's lengths, 3-48).
    """
    rows = load_test_outputs()
    lengths = [len(r["source"]) for r in rows]
    tables = {}  # width -> BLEU table, computed once per width for this panel

    def table_of(v):
        w = int(v["width"])
        if w not in tables:
            tables[w] = bleu_table(rows, w)
        return tables[w]

    def draw(v):
        return draw_bleu_by_length(int(v["width"]), v["example_length"], rows=rows, table=table_of(v))

    controls = {"width": widgets.ToggleButtons(options=[str(w) for w in WIDTHS], value=str(width),
                                              description="bucket width"),
                "example_length": widgets.IntSlider(value=example_length, min=min(lengths), max=max(lengths),
                                                    step=1, description="example")}
    panel = TryPanel("BLEU by sentence length: one summary, attention, same-size control", controls, draw)
    panel.combined = [("width", "example_length")]   # every example at every bucket width
    # the example changes the picture only when it moves to another bucket (the shading)
    panel.picture_key = lambda v: (v["width"], example_bucket(v["example_length"], table_of(v)))
    panel.readings_of = lambda v: bleu_by_length_readings(v["example_length"], rows, table_of(v))
    panel.describe = lambda v: describe_bleu_by_length(int(v["width"]), v["example_length"], rows, table_of(v))
    panel.tour = [   # chapter 14's "Try it": a narrower bucket, then another example in it (same shading: same_picture)
        {"says": "The bucket width regroups the same sentences", "moves": {"width": "5"},
         "expect": ["bucket 30-34 words: plain 0.284, attention 0.994, control 0.285"]},
        {"says": "*example* shows one test sentence of that length", "moves": {"example_length": 31},
         "expect": ["bucket 30-34 words", "English (31 words)"], "same_picture": True},
    ]
    return panel


#: The most Hindi words a translation writes before ``<end>`` is forced (``Translator.translate``'s default).
MAX_WORDS = 80
#: The attention-read panel's example sentences: the first test sentence of each of these lengths.
READ_EXAMPLE_LENGTHS = (10, 20, 30, 40)
READ_COLOURS = {"all": "tab:blue", "last": "tab:orange", "first half": "tab:green", "second half": "tab:purple",
                "equal weights": "tab:brown"}


def read_example(rows, length: int) -> dict:
    """The first committed test-set row whose English sentence has ``length`` words.

    Raises:
        ValueError: if no test sentence has that many words.
    """
    found = next((r for r in rows if len(r["source"]) == length), None)
    if found is None:
        raise ValueError(f"example_length: no test sentence has {length} words")
    return found


def read_translations(model, example) -> dict:
    """{read: (Hindi words, attention weights (words + 1, T), sentence BLEU-4)} for every read of :data:`READS`."""
    out = {}
    for read in READS:
        words, weights = model.translate(example["source"], max_words=MAX_WORDS, return_weights=True, read=read)
        out[read] = (words, weights, sentence_bleu(words, [example["reference"]]))
    return out


def _read_example(read, example_length, model, rows, translations):
    """(the example row, :func:`read_translations` of it), loading what is None; see :func:`draw_attention_read`.

    Raises:
        ValueError: for a read not in :data:`READS` or a length no test sentence has.
    """
    if read not in READS:
        raise ValueError(f"read must be one of {READS}, got {read!r}")
    model = load_translator("attention") if model is None else model
    rows = load_test_outputs() if rows is None else rows
    example = read_example(rows, example_length)
    return example, read_translations(model, example) if translations is None else translations


def draw_attention_read(read: str = "all", example_length: int = 40, model=None, rows=None, translations=None):
    """Figure: where the attention decoder looks when it may read only some encoder states, and what it writes.

    Left, the attention weights of every decoder step (rows: the Hindi words written, then
    ``<end>``; columns: the English words), with the states it may read marked under them;
    right, the example's sentence BLEU-4 for each read, this one outlined. The model is the
    one trained to read every state; the other reads change it only at test time (chapter 14).

    Args:
        read: one of :data:`mwm.seq2seq.READS`.
        example_length: the example is the first test sentence of this many English words.
        model: the attention translator (``load_translator("attention")`` if None).
        rows: the committed test-set rows (``load_test_outputs()`` if None).
        translations: :func:`read_translations` of the example, if already computed.

    Returns:
        (Figure, readings): the readings give the read, the example's English, its reference,
        this read's translation and its sentence BLEU next to the trained read's.

    Raises:
        ValueError: for a read not in :data:`READS` or a length no test sentence has.
    """
    example, translations = _read_example(read, example_length, model, rows, translations)
    words, weights, bleu = translations[read]
    T = len(example["source"])
    allowed = attention_weights(np.zeros(T), read) > 0

    fig = Figure(figsize=(7.2, 3.9))
    grid = fig.add_gridspec(1, 2, width_ratios=(1.6, 1.0))
    ax_w, ax_b = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
    image = ax_w.imshow(weights, cmap="Greys", vmin=0, vmax=1, aspect="auto",
                        extent=(0.5, T + 0.5, len(weights) + 0.5, 0.5))
    fig.colorbar(image, ax=ax_w, fraction=0.05, pad=0.02, ticks=[0, 0.5, 1]).set_label("weight", fontsize=10)
    for j in np.flatnonzero(~allowed):   # the states this read may not look at, tinted
        ax_w.axvspan(j + 0.5, j + 1.5, color="tab:red", alpha=0.15, lw=0)
    ax_w.set_xlabel(f"English word (may read {int(allowed.sum())} of {T}; tinted: not)")
    ax_w.set_ylabel("Hindi word written (last row: <end>)")
    ax_w.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_w.yaxis.set_major_locator(MaxNLocator(integer=True))   # whole words, also for a three-word output
    ax_w.set_title(f"weights when reading: {read}" + (f" (each 1/{T})" if read == "equal weights" else ""),
                   fontsize=11)
    x = np.arange(len(READS))
    scores = [translations[r][2] for r in READS]
    bars = ax_b.bar(x, scores, color=[READ_COLOURS[r] for r in READS], alpha=0.85)
    bars[READS.index(read)].set(edgecolor="black", linewidth=2, alpha=1.0)
    ax_b.set_xticks(x)
    ax_b.set_xticklabels(["all", "last", "1st half", "2nd half", "equal"], rotation=45, ha="right", fontsize=10)
    ax_b.set_ylim(0, 1.05)
    ax_b.set_ylabel("sentence BLEU-4")
    ax_b.set_title(f"this sentence ({T} words)", fontsize=11)
    layout(fig)

    esc = html.escape
    limit = " (stopped at the 80-word limit)" if len(words) >= MAX_WORDS else ""
    parts = [f"<b>reads:</b> {esc(read)}: sentence BLEU {bleu:.3f} (reading every state, as trained: "
             f"{translations['all'][2]:.3f}); output: {len(words)} Hindi words{limit}",
             f"<b>English ({T} words):</b> {esc(' '.join(example['source']))}",
             f"<b>reference:</b> {esc(' '.join(example['reference']))}",
             f"<b>translation:</b> {esc(' '.join(words))}"]
    return fig, "<br>".join(parts)


def describe_attention_read(read: str = "all", example_length: int = 40, model=None, rows=None, translations=None) -> str:
    """What :func:`draw_attention_read`'s picture shows, in words (the website's alt text).

    Args and errors as :func:`draw_attention_read`. Returns one sentence: the weights' map (rows,
    columns, which states may be read, where each row's weight sits), then the five reads' BLEU bars.
    """
    example, translations = _read_example(read, example_length, model, rows, translations)
    words, weights, bleu = translations[read]
    T = len(example["source"])
    allowed = int((attention_weights(np.zeros(T), read) > 0).sum())
    heaviest = np.argmax(weights, axis=1)
    if read == "equal weights":
        where = f"every row spreads its weight evenly, 1/{T} on each word"
    elif allowed == 1:
        where = "every row puts all its weight on that one state"
    elif np.mean(np.diff(heaviest) >= 0) >= 0.8:
        where = "each row's heaviest word moves along the sentence from left to right, a diagonal"
    else:
        where = "the rows' heaviest words do not follow the English order"
    may = "all of them" if allowed == T else f"{allowed} of them, the others tinted red"
    bars = ", ".join(f"{r} {translations[r][2]:.2f}" for r in READS)
    return (f"Left, a grey map of the attention weights: one row for each of the {len(weights) - 1} Hindi words written "
            f"and the end symbol, one column for each of the {T} English words; set to read {read}, the decoder may "
            f"read {may}; {where}. Right, this sentence's BLEU-4 for each read, this one outlined: {bars}.")


def attention_read_try(read: str = "all", example_length: int = 40) -> TryPanel:
    """The attention-read panel (chapter 14): which encoder states the trained decoder may read, on an example.

    Returns:
        TryPanel with controls ``read`` (ToggleButtons over :data:`mwm.seq2seq.READS`) and
        ``example_length`` (ToggleButtons "10" / "20" / "30" / "40" English words).

    Raises:
        ValueError: for a read not in :data:`READS` or a length not in :data:`READ_EXAMPLE_LENGTHS`.
    """
    if read not in READS:
        raise ValueError(f"read must be one of {READS}, got {read!r}")
    if example_length not in READ_EXAMPLE_LENGTHS:
        raise ValueError(f"example_length must be one of {READ_EXAMPLE_LENGTHS}, got {example_length!r}")
    model, rows = load_translator("attention"), load_test_outputs()
    done = {}   # example length -> read_translations, computed once per example for this panel

    def draw(v):
        n = int(v["example_length"])
        if n not in done:
            done[n] = read_translations(model, read_example(rows, n))
        return draw_attention_read(v["read"], n, model=model, rows=rows, translations=done[n])

    controls = {"read": widgets.ToggleButtons(options=list(READS), value=read, description="may read"),
                "example_length": widgets.ToggleButtons(options=[str(n) for n in READ_EXAMPLE_LENGTHS],
                                                        value=str(example_length), description="words")}
    panel = TryPanel("the trained attention decoder, allowed to read only some encoder states", controls, draw)
    panel.tour = [   # chapter 14: "In the panel, *first half* on 20 words repeats the first clause four times"
        {"says": "In the panel, *first half* on 20 words repeats the first clause four times",
         "moves": {"read": "first half", "example_length": "20"},
         "expect": ["first half: sentence BLEU 0.227", " aur ".join(["maa mandir par garam dal bana rahi hai"] * 4)]},
    ]

    def describe(v):
        n = int(v["example_length"])
        if n not in done:
            done[n] = read_translations(model, read_example(rows, n))
        return describe_attention_read(v["read"], n, model=model, rows=rows, translations=done[n])

    panel.describe = describe
    return panel
