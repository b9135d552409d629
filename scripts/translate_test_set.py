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

For chapter 14 it writes two more files. ``lib/mwm/data/translator_train_outputs.tsv``:
the three models' greedy translations of a seeded sample of training pairs, 200 from each
English-length bucket (:func:`mwm.seq2seq.sample_by_bucket`, seed 14), so the chapter can
compare BLEU on sentences the models were trained on with BLEU on new ones. Columns: row
(the pair's index in the training corpus), plain, attention, control.
``lib/mwm/data/translator_teacher_forced.tsv``: for every test sentence of 30 or more
English words, which of the first 40 Hindi words each model guesses right when fed the
true history (:func:`mwm.seq2seq.hits_by_position`), plus a no-information run: the plain
model given the English of the next such sentence (cyclically) instead of its own.
Columns: row, other, plain, attention, control, plain_other_source.
tests/test_seq2seq.py checks a sample of both.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from tqdm import tqdm

from mwm.decoding import beam_search, greedy_decode
from mwm.seq2seq import (DATA, TEACHER_FORCED_FILE, TEST_OUTPUTS_FILE, TRAIN_OUTPUTS_FILE, hits_by_position,
                         length_buckets, load_translator, sample_by_bucket)
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


#: Chapter 14's training sample: how many pairs per length bucket, and the seed.
TRAIN_PER_BUCKET, TRAIN_SEED = 200, 14
#: Chapter 14's teacher-forced test: the shortest English sentence used, and the positions scored.
TF_MIN_LENGTH, TF_POSITIONS = 30, 40


def train_sample() -> list[int]:
    """The indices of the training pairs in TRAIN_OUTPUTS_FILE."""
    lengths = [len(src) for src, _ in load_pairs("train")]
    return sample_by_bucket(lengths, length_buckets(10, min(lengths), max(lengths)), TRAIN_PER_BUCKET, TRAIN_SEED)


def train_lines(indices=None) -> list[str]:
    """The lines of TRAIN_OUTPUTS_FILE (header first), for the training pairs ``indices`` (default the sample)."""
    pairs = load_pairs("train")
    models = {name: load_translator(name) for name in MODELS}
    lines = ["\t".join(("row",) + MODELS)]
    for i in tqdm(train_sample() if indices is None else indices, desc="training sample"):
        lines.append("\t".join([str(i)] + [" ".join(models[name].translate(pairs[i][0])) for name in MODELS]))
    return lines


def teacher_forced_rows() -> list[tuple[int, int]]:
    """(row, other) for the teacher-forced file: each long test sentence and the one whose English it borrows."""
    long_rows = [i for i, (src, _) in enumerate(load_pairs("test")) if len(src) >= TF_MIN_LENGTH]
    return list(zip(long_rows, long_rows[1:] + long_rows[:1]))


def teacher_forced_lines(rows=None) -> list[str]:
    """The lines of TEACHER_FORCED_FILE (header first), for the (row, other) pairs ``rows`` (default all)."""
    pairs = load_pairs("test")
    models = {name: load_translator(name) for name in MODELS}
    lines = ["\t".join(("row", "other") + MODELS + ("plain_other_source",))]
    for i, j in tqdm(teacher_forced_rows() if rows is None else rows, desc="teacher forced"):
        ref = pairs[i][1]
        runs = [hits_by_position(models[name], pairs[i][0], ref, TF_POSITIONS) for name in MODELS]
        runs.append(hits_by_position(models["plain"], pairs[j][0], ref, TF_POSITIONS))
        lines.append("\t".join([str(i), str(j)] + runs))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TEST_OUTPUTS_FILE)
    parser.add_argument("--beam-out", type=Path, default=BEAM_OUTPUTS_FILE)
    parser.add_argument("--train-out", type=Path, default=TRAIN_OUTPUTS_FILE)
    parser.add_argument("--teacher-forced-out", type=Path, default=TEACHER_FORCED_FILE)
    parser.add_argument("--only-chapter-14-extras", action="store_true",
                        help="write only the training-sample and teacher-forced files")
    args = parser.parse_args()
    for path, lines in ((args.train_out, train_lines()), (args.teacher_forced_out, teacher_forced_lines())):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {path}: {len(lines) - 1} rows")
    if args.only_chapter_14_extras:
        return
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
