"""Chapter 13's sweep of the beam width and the length normalisation on the test set.

Usage (from the project root):
    .venv/bin/python scripts/sweep_beam.py [--out PATH] [--workers N]

The plain translator (``mwm.seq2seq.load_translator("plain")``) decodes every test sentence
with :func:`mwm.decoding.beam_search` at each beam width ``B`` of :data:`WIDTHS` and, for
``B`` >= 2, each length normalisation ``nu`` of :data:`NUS` (with ``B`` = 1 the search keeps
one sentence and ``nu`` changes nothing, so it is run once: greedy decoding). Outputs have at
most 81 tokens, as in ``scripts/translate_test_set.py``.

For each setting the file ``lib/mwm/data/translator_beam_sweep.json`` holds the corpus BLEU-4
(:func:`mwm.bleu.corpus_bleu`, no smoothing), its brevity penalty and n-gram precisions, the
summed output and reference lengths in words, the mean log-probability of the outputs (summed
over the words and the end symbol), and the difference of its BLEU from greedy
decoding's with a paired-bootstrap 95% interval (1,000 resamples of the test sentences, seed
13, as chapter 13's own bootstrap); and, for the pairs of settings in :data:`CONTRASTS`, the
difference of their BLEU with a paired-bootstrap interval of its own (the same resamples).
Everything is deterministic: the file is the same on every
run. tests/test_ch13_translator.py checks it against the committed greedy and width-4 outputs
(``translator_test_beam.tsv``) and decodes a sample again.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
from pathlib import Path

import numpy as np

from mwm.bleu import bleu_details, brevity_penalty
from mwm.decoding import beam_search
from mwm.seq2seq import DATA, load_translator
from mwm.translation_corpus import load_pairs

#: The beam widths and length normalisations swept, the longest output, the bootstrap's size and seed.
WIDTHS = (1, 2, 4, 8, 16)
NUS = (0.0, 0.5, 1.0)
MAX_LENGTH = 81
RESAMPLES, SEED = 1000, 13
SWEEP_FILE = DATA / "translator_beam_sweep.json"
#: Pairs of settings (first minus second) whose BLEU difference chapter 13 states.
CONTRASTS = (((16, 1.0), (16, 0.0)), ((4, 0.0), (16, 0.0)))


def settings() -> list[tuple[int, float]]:
    """Every (B, nu) of the sweep, greedy (1, 0.0) first."""
    return [(1, 0.0)] + [(b, nu) for b in WIDTHS if b > 1 for nu in NUS]


_MODEL = None


def _decode(job):
    """(words, log-probability) of one sentence's best output at one setting (run in a worker process)."""
    global _MODEL
    if _MODEL is None:
        _MODEL = load_translator("plain")
    source, width, nu = job
    best = beam_search(_MODEL.step_model(source), width, max_length=MAX_LENGTH, nu=nu).best
    return _MODEL.target_vocab.words_of(best.tokens[:-1]), best.log_prob


def decode_all(pairs, setting_list, workers: int = 1) -> dict:
    """{(B, nu): [(words, log-probability) per sentence]} for the test ``pairs``."""
    jobs = [(src, b, nu) for b, nu in setting_list for src, _ in pairs]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_decode, jobs, chunksize=25)
    else:
        results = [_decode(j) for j in jobs]
    n = len(pairs)
    return {s: results[k * n:(k + 1) * n] for k, s in enumerate(setting_list)}


def counts(outputs, references) -> np.ndarray:
    """One row per sentence: output length, reference length, clipped matches n = 1..4, n-gram totals n = 1..4."""
    return np.array([[d.candidate_length, d.reference_length, *d.matches, *d.totals]
                     for d in (bleu_details(o, [r], max_n=4) for o, r in zip(outputs, references))], dtype=float)


def bleu_of(c: np.ndarray) -> float:
    """Corpus BLEU-4 from summed counts (a row of :func:`counts`, summed over sentences)."""
    if np.any(c[2:6] == 0):
        return 0.0
    return brevity_penalty(int(c[0]), int(c[1])) * float(np.exp(np.mean(np.log(c[2:6] / c[6:10]))))


def _picks(n: int) -> np.ndarray:
    """The bootstrap's resamples of ``n`` sentences: (RESAMPLES, n) sentence numbers."""
    return np.random.default_rng(SEED).integers(0, n, (RESAMPLES, n))


def contrasts(decoded: dict, references, pairs=CONTRASTS) -> list[dict]:
    """For each (a, b) of ``pairs``: BLEU(a) - BLEU(b) and its paired-bootstrap 95% interval.

    Args:
        decoded: {(B, nu): [(words, log-probability) per sentence]}, holding every setting of ``pairs``.
        references: the reference word lists, one per sentence.
    Returns:
        [{"a": [B, nu], "b": [B, nu], "difference": float, "interval": [low, high]}].
    Raises:
        KeyError: naming a setting of ``pairs`` that ``decoded`` lacks.
    """
    per = {s: counts([w for w, _ in decoded[s]], references) for pair in pairs for s in pair}
    picks = _picks(len(references))
    out = []
    for a, b in pairs:
        diffs = np.array([bleu_of(per[a][p].sum(0)) - bleu_of(per[b][p].sum(0)) for p in picks])
        low, high = np.percentile(diffs, [2.5, 97.5])
        out.append({"a": list(a), "b": list(b), "difference": bleu_of(per[a].sum(0)) - bleu_of(per[b].sum(0)),
                    "interval": [float(low), float(high)]})
    return out


def summarise(decoded: dict, references) -> list[dict]:
    """The file's rows: one per setting (see the module docstring)."""
    per = {s: counts([w for w, _ in out], references) for s, out in decoded.items()}
    greedy = per[(1, 0.0)]
    picks = _picks(len(references))
    base = np.array([bleu_of(greedy[p].sum(0)) for p in picks])
    rows = []
    for (b, nu), c in per.items():
        total = c.sum(0)
        diffs = np.array([bleu_of(c[p].sum(0)) for p in picks]) - base
        low, high = np.percentile(diffs, [2.5, 97.5])
        rows.append({"B": b, "nu": nu, "bleu": bleu_of(total),
                     "brevity_penalty": brevity_penalty(int(total[0]), int(total[1])),
                     "precisions": [float(m / t) for m, t in zip(total[2:6], total[6:10])],
                     "output_words": int(total[0]), "reference_words": int(total[1]),
                     "mean_score": float(np.mean([s for _, s in decoded[(b, nu)]])),
                     "minus_greedy": bleu_of(total) - bleu_of(greedy.sum(0)),
                     "minus_greedy_interval": [float(low), float(high)]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SWEEP_FILE)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    pairs = load_pairs("test")
    references = [ref for _, ref in pairs]
    decoded = decode_all(pairs, settings(), args.workers)
    rows = summarise(decoded, references)
    args.out.write_text(json.dumps({"widths": list(WIDTHS), "nus": list(NUS), "max_length": MAX_LENGTH,
                                    "resamples": RESAMPLES, "seed": SEED, "settings": rows,
                                    "contrasts": contrasts(decoded, references)}, indent=1) + "\n",
                        encoding="utf-8")
    print(f"wrote {args.out}: {len(rows)} settings")
    for r in rows:
        print(f"B = {r['B']:2d}, nu = {r['nu']:.1f}: BLEU-4 {r['bleu']:.4f}, BP {r['brevity_penalty']:.4f}, "
              f"{r['output_words']} words (reference {r['reference_words']}), minus greedy {r['minus_greedy']:+.4f} "
              f"[{r['minus_greedy_interval'][0]:+.4f}, {r['minus_greedy_interval'][1]:+.4f}]")


if __name__ == "__main__":
    main()
