"""Write the toy English -> Hindi corpus of chapters 12 and 14 into lib/mwm/data/.

Usage (from the project root):
    .venv/bin/python scripts/make_parallel_corpus.py [--out-dir DIR]

It draws N_TRAIN + N_TEST distinct pairs from the grammar in
``mwm.translation_corpus`` with the fixed seed CORPUS_SEED, keeps the first N_TRAIN
for training and the rest for testing, and writes them as tab-separated text
(``translation_train.tsv``, ``translation_test.tsv``). Running it again rewrites
the same bytes (tests/test_translation_corpus.py checks this).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from mwm import translation_corpus as tc


def write_corpus(out_dir: Path) -> tuple[Path, Path]:
    """Generate the pairs and write the two files into ``out_dir``; return their paths."""
    pairs = tc.generate_pairs(tc.N_TRAIN + tc.N_TEST, seed=tc.CORPUS_SEED)
    out_dir.mkdir(parents=True, exist_ok=True)
    train, test = out_dir / tc.TRAIN_FILE.name, out_dir / tc.TEST_FILE.name
    train.write_text(tc.corpus_text(pairs[:tc.N_TRAIN]), encoding="utf-8")
    test.write_text(tc.corpus_text(pairs[tc.N_TRAIN:]), encoding="utf-8")
    return train, test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=tc.DATA, help="folder to write into (default: lib/mwm/data)")
    args = parser.parse_args()
    for path in write_corpus(args.out_dir):
        lines = path.read_text(encoding="utf-8").splitlines()
        print(f"{path}: {len(lines)} pairs")


if __name__ == "__main__":
    main()
