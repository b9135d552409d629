"""Chapter 14's "Try" panel: test-set BLEU by source length for the three models."""
from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..bleu import sentence_bleu
from ..seq2seq import bleu_by_length, length_buckets, load_test_outputs
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
    buckets = [(lo, hi) for lo, hi, _, _ in table["plain"]]
    example = next((r for r in rows if len(r["source"]) == example_length), None)
    if example is None:
        raise ValueError(f"example_length: no test sentence has {example_length} words")
    which = next(i for i, (lo, hi) in enumerate(buckets) if lo <= example_length <= hi)

    fig = Figure(figsize=(7.2, 3.8))
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(buckets))
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
    lo, hi = buckets[which]
    parts = [f"<b>bucket {lo}-{hi} words:</b> plain {table['plain'][which][3]:.3f}, "
             f"attention {table['attention'][which][3]:.3f}, control {table['control'][which][3]:.3f}",
             f"<b>English ({example_length} words):</b> {' '.join(example['source'])}",
             f"<b>reference:</b> {' '.join(example['reference'])}"]
    for m in MODELS:
        parts.append(f"<b>{m}:</b> {' '.join(example[m])} (sentence BLEU {sentence_bleu(example[m], [example['reference']]):.3f})")
    return fig, "<br>".join(parts)


def bottleneck_bleu_try(width: int = 10, example_length: int = 30) -> TryPanel:
    """The measured-bottleneck panel.

    Returns:
        TryPanel with controls ``width`` (ToggleButtons "5" / "10" / "20" words per bucket) and
        ``example_length`` (IntSlider over the test set's lengths, 3-48).
    """
    rows = load_test_outputs()
    lengths = [len(r["source"]) for r in rows]
    tables = {}  # width -> BLEU table, computed once per width for this panel

    def draw(v):
        w = int(v["width"])
        if w not in tables:
            tables[w] = bleu_table(rows, w)
        return draw_bleu_by_length(w, v["example_length"], rows=rows, table=tables[w])

    controls = {"width": widgets.ToggleButtons(options=[str(w) for w in WIDTHS], value=str(width),
                                              description="bucket width"),
                "example_length": widgets.IntSlider(value=example_length, min=min(lengths), max=max(lengths),
                                                    step=1, description="example")}
    return TryPanel("BLEU by sentence length: one summary, attention, same-size control", controls, draw)
