"""Translate the whole test set with the three committed models and save the results.

Usage (from the project root):
    .venv/bin/python scripts/translate_test_set.py [--out PATH]

Each test sentence is translated greedily (free running, numpy inference in
``mwm.seq2seq``) by the plain model, the attention model and the same-size control.
The file ``lib/mwm/data/translator_test_outputs.tsv`` has a header line and one row
per test pair: source, reference, plain, attention, control (words separated by
spaces; the control's column came last, so the first four kept their places). Chapter 14
computes its BLEU scores from this file so that it runs in seconds;
tests/test_seq2seq.py re-translates a sample and checks that it matches.

It also writes ``lib/mwm/data/translator_test_beam.tsv`` for chapter 13: the plain model's
greedy output and its beam-search output (width 4, :func:`mwm.decoding.beam_search`), each
with its score, the summed log-probability of its words and the end symbol. Columns:
source, reference, greedy, greedy_score, beam4, beam4_score (a score is one number in
``repr`` form, so it reads back exactly). Both decoders are deterministic, so the file is
the same on every run; tests/test_ch13_translator.py decodes a sample again and checks it.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from tqdm import tqdm

from mwm.decoding import beam_search, greedy_decode
from mwm.seq2seq import DATA, TEST_OUTPUTS_FILE, load_translator
from mwm.translation_corpus import load_pairs

MODELS = ("plain", "attention", "control")
COLUMNS = ("source", "reference") + MODELS
#: Chapter 13's greedy and beam-search outputs of the plain model (see the module docstring).
BEAM_OUTPUTS_FILE = DATA / "translator_test_beam.tsv"
BEAM_COLUMNS = ("source", "reference", "greedy", "greedy_score", "beam4", "beam4_score")
#: The beam width, and the most tokens an output may have (80 words and the end symbol, as ``translate``).
BEAM_WIDTH, MAX_LENGTH = 4, 81


def beam_lines(pairs) -> list[str]:
    """The lines of BEAM_OUTPUTS_FILE (header first) for the test ``pairs``, with the plain model."""
    model = load_translator("plain")
    lines = ["\t".join(BEAM_COLUMNS)]
    for src, ref in tqdm(pairs, desc="greedy and beam"):
        greedy = greedy_decode(model.step_model(src), max_length=MAX_LENGTH)
        beam = beam_search(model.step_model(src), BEAM_WIDTH, max_length=MAX_LENGTH).best
        cells = [" ".join(src), " ".join(ref)]
        for h in (greedy, beam):
            cells += [" ".join(model.target_vocab.words_of(h.tokens[:-1])), repr(h.log_prob)]
        lines.append("\t".join(cells))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TEST_OUTPUTS_FILE)
    parser.add_argument("--beam-out", type=Path, default=BEAM_OUTPUTS_FILE)
    args = parser.parse_args()
    models = {name: load_translator(name) for name in MODELS}
    lines = ["\t".join(COLUMNS)]
    for src, ref in tqdm(load_pairs("test"), desc="translate"):
        outs = [" ".join(models[name].translate(src)) for name in MODELS]
        lines.append("\t".join([" ".join(src), " ".join(ref)] + outs))
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(lines) - 1} test sentences")
    beam = beam_lines(load_pairs("test"))
    args.beam_out.write_text("\n".join(beam) + "\n", encoding="utf-8")
    print(f"wrote {args.beam_out}: {len(beam) - 1} test sentences, greedy and beam width {BEAM_WIDTH}")


if __name__ == "__main__":
    main()
