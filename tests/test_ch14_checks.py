"""Chapter 14's checks kept out of the reader's path: the bootstrap's shortcut, the proof's numbers, the Try's groups.

The chapter used to print these; they only prove its numbers right, so they run here. Most of the
chapter's numbers are asserted in tests/test_seq2seq.py and tests/test_bottleneck_sweep.py; this
file holds what the chapter no longer shows, and the chapter's notation (issue 26).
"""
import json
import re

import numpy as np
import pytest

from mwm.bleu import bleu_details
from mwm.dynamics import matrix_powers, spectral_radius
from mwm.seq2seq import bleu_by_length, length_buckets, load_test_outputs
from tests.chapter_cells import chapter_path

MODELS = ("plain", "attention", "control")


@pytest.fixture(scope="module")
def rows():
    return load_test_outputs()


def _markdown():
    cells = json.loads(chapter_path(14).read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _code():
    cells = json.loads(chapter_path(14).read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_the_bootstraps_shortcut_is_corpus_bleu_of_every_group(rows):
    """The trap's bleu_of (sum the per-sentence counts, then combine) gives bleu_by_length exactly, in every group."""
    refs, lengths = [r["reference"] for r in rows], [len(r["source"]) for r in rows]
    buckets = length_buckets(10, min(lengths), max(lengths))
    fields = ("matches", "totals", "candidate_length", "reference_length")
    for name in MODELS:
        details = [bleu_details(r[name], [r["reference"]]) for r in rows]
        counts = [np.array([getattr(d, f) for d in details]) for f in fields]
        by_len = bleu_by_length([r[name] for r in rows], refs, lengths, buckets)
        for low, high, count, bleu in by_len:
            idx = np.flatnonzero([low <= n <= high for n in lengths])
            m, tot, c, r = (a[idx].sum(axis=0) for a in counts)
            shortcut = min(1.0, np.exp(1 - r / c)) * np.exp(np.log(m / tot).mean())
            assert len(idx) == count and shortcut == pytest.approx(bleu, abs=1e-12), (name, low, high)
    assert [n for *_, n, _ in by_len] == [156, 233, 234, 241, 136]


def test_proof_1_on_a_linear_cell():
    """A nudge to h_0 of a linear cell comes out after 6 steps as W^6 times it: (0.4245, -0.4493, -0.1719) for the
    first unit; this W's largest |eigenvalue| is 0.9975, below 1, so its powers shrink, slowly."""
    rng = np.random.default_rng(14)
    W = rng.normal(0, 0.4, (3, 3))
    h0 = rng.normal(size=3)
    nudge = np.array([1e-6, 0, 0])
    moved = (matrix_powers(W, h0 + nudge, 6)[6] - matrix_powers(W, h0, 6)[6]) / 1e-6
    np.testing.assert_allclose(moved, np.linalg.matrix_power(W, 6)[:, 0], atol=1e-8)
    assert moved.round(4).tolist() == [0.4245, -0.4493, -0.1719]
    rho = spectral_radius(W)
    assert round(rho, 4) == 0.9975 and 0.9 < rho < 1
    assert (round(0.5 ** 10, 3), round(1.5 ** 10)) == (0.001, 58)      # the proof's two examples


def test_the_try_panels_groups(rows):
    """The panel's first group is 3-9 words at every width; its smallest group, 45-48 words at width 5, holds 39."""
    lengths = [len(r["source"]) for r in rows]
    smallest = {}
    for width in (5, 10, 20):
        groups = length_buckets(width, min(lengths), max(lengths))
        counts = [sum(lo <= n <= hi for n in lengths) for lo, hi in groups]
        assert groups[0] == (3, 9) and sum(counts) == len(rows) == 1000
        smallest[width] = (min(counts), groups[counts.index(min(counts))])
    assert smallest == {5: (39, (45, 48)), 10: (136, (40, 48)), 20: (156, (3, 9))}


def test_chapter_14_notation():
    """One meaning per letter: the context vector is m_t (not s_t, which would clash with chapter 12's summary s),
    the attention score e_{t,j} runs over encoder positions j (k is an earlier step), the combine layer is W_comb;
    "score" is only the attention score, and the course's private words are gone."""
    text, code = _markdown(), _code()
    assert r"\boldsymbol m_t=\sum_j\alpha_{t,j}" in text and "**context vector**" in text
    assert "e_{t,j}" in text and r"\alpha_{t,j}" in text and "W_{\\text{comb}}" in text
    for old in (r"\boldsymbol s_t", "W_s", r"\boldsymbol b_s", r"\alpha_{t,k}", "e_{t,k}", "h^{\\text{enc}}_k"):
        assert old not in text, old
    for word in ("note", "blame", "surprise", "vote", "stretch", "whisper"):
        assert not re.search(rf"\b{word}", text, re.I), word
        assert not re.search(rf"\b{word}", code, re.I), word
    assert not re.search(r"BLEU score|\bscores? (?:at least|of )?\d|\bit scores\b", text)
    assert "enc_notes" not in code and "m_t = alpha_t @ enc_states" in code
