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
"""
from __future__ import annotations

import argparse
from pathlib import Path

from tqdm import tqdm

from mwm.seq2seq import TEST_OUTPUTS_FILE, load_translator
from mwm.translation_corpus import load_pairs

MODELS = ("plain", "attention", "control")
COLUMNS = ("source", "reference") + MODELS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TEST_OUTPUTS_FILE)
    args = parser.parse_args()
    models = {name: load_translator(name) for name in MODELS}
    lines = ["\t".join(COLUMNS)]
    for src, ref in tqdm(load_pairs("test"), desc="translate"):
        outs = [" ".join(models[name].translate(src)) for name in MODELS]
        lines.append("\t".join([" ".join(src), " ".join(ref)] + outs))
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(lines) - 1} test sentences")


if __name__ == "__main__":
    main()
