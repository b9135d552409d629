"""Chapter 14's controls: five translators, three seeds, three learning rates, graded on the test set.

Usage (from the project root):
    .venv/bin/python -m scripts.sweep_bottleneck [--workers N] [--out PATH]             # chapter 14's 45 runs
    .venv/bin/python -m scripts.sweep_bottleneck --scoring [--workers N] [--out PATH]   # lab 11's 9 runs

Every run uses ``scripts/train_translator.py``'s recipe (30 epochs over the 6,000 training pairs,
batches of 64, Adam with a cosine-decaying learning rate, the gradient clipped at length 1, one
thread) and differs from chapter 14's models only where its arm says (:data:`ARMS`):

- ``plain``: chapter 12's model, the decoder started by the summary [h^enc_T; c^enc_T];
- ``reversed``: the plain model fed every English sentence last word first (Sutskever et al., 2014);
- ``two-way``: the plain model whose encoder is two LSTMs of 64 units, one reading each way; their
  last states, joined, make a summary of the same 256 numbers (chapter 11);
- ``control``: chapter 14's same-size control (the combine layer reads h^enc_T at every step);
- ``attention``: chapter 14's dot-product attention.
- ``additive`` (``--scoring``, into ``lib/mwm/data/scoring_sweep.json``): the same attention model scoring
  with v^T tanh(W_q h_t + W_k h^enc_j + b) instead of h_t . h^enc_j (lab 11's question: does the way of
  scoring matter here?), paired by seed and rate with ``attention``.

Each arm is trained from each seed of :data:`SEEDS` at each starting learning rate of :data:`RATES`
(0.003 is the committed models' rate, and seed 2014 their seed: those three runs rebuild the
committed weight files, whose sha256 each run records). Each trained model then translates the
1,000 test sentences greedily (``Seq2Seq.greedy``, in float64, which matches
``mwm.seq2seq.Translator.translate``), and the run records corpus BLEU-4 over the whole test set
and per English length group of width 10 (``mwm.seq2seq.length_buckets``), the output and
reference lengths, and the last epoch's training loss.

Writes ``lib/mwm/data/bottleneck_sweep.json`` (rewritten after each finished run, so an interrupted
sweep keeps what it has). Seeded, one thread per process: the file is the same on every run on one
machine. About 3 to 5 CPU-minutes a run, 45 runs.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]

from mwm.bleu import bleu_details, corpus_bleu  # noqa: E402
from mwm.seq2seq import bleu_by_length, length_buckets, save_weights  # noqa: E402
from mwm.translation_corpus import load_pairs  # noqa: E402
try:  # run as a module from the project root, so that it finds the recipe it shares
    from scripts import train_translator as recipe  # noqa: E402
except ModuleNotFoundError as missing:
    if missing.name != "scripts":
        raise
    sys.exit("run it from the project root as a module: .venv/bin/python -m scripts.sweep_bottleneck ...")

OUT = ROOT / "lib" / "mwm" / "data" / "bottleneck_sweep.json"
#: arm -> (kind, reverse the English, two-way encoder)
ARMS = {"plain": ("plain", False, False), "reversed": ("plain", True, False), "two-way": ("plain", False, True),
        "control": ("control", False, False), "attention": ("attention", False, False),
        "additive": ("additive", False, False)}
#: Chapter 14's arms (``bottleneck_sweep.json``), and lab 11's (``scoring_sweep.json``, paired with "attention").
CHAPTER_ARMS = ("plain", "reversed", "two-way", "control", "attention")
SCORING_ARMS = ("additive",)
SCORING_OUT = ROOT / "lib" / "mwm" / "data" / "scoring_sweep.json"
RATES = (0.003, 0.001, 0.01)
SEEDS = (2014, 2015, 2016)
#: The length groups the runs are graded in (chapter 14's, width 10).
BUCKETS = length_buckets(10, 3, 48)


def translate_all(model, src_vocab, tgt_vocab, sources, reverse_source: bool, batch: int = 250) -> list[list[str]]:
    """Greedy translations (lists of Hindi words) of the English ``sources``, in float64."""
    model = model.double().eval()
    out = []
    for k in range(0, len(sources), batch):
        ids = [src_vocab.ids_of(s)[::-1 if reverse_source else 1] for s in sources[k:k + batch]]
        width = max(map(len, ids))
        src = torch.tensor([i + [0] * (width - len(i)) for i in ids])
        found = model.greedy(src, torch.tensor([len(i) for i in ids]), tgt_vocab.bos_id, tgt_vocab.eos_id)
        out += [tgt_vocab.words_of(x) for x in found]
    return out


def weights_sha256(model, src_vocab, tgt_vocab, history) -> str:
    """The sha256 of the weight file ``train_translator.py`` would write for this model."""
    weights = model.to_numpy(src_vocab, tgt_vocab)
    weights["loss_per_epoch"] = np.array(history, dtype=np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "w.npz"
        save_weights(path, weights)
        return hashlib.sha256(path.read_bytes()).hexdigest()


def learned_numbers(model) -> int:
    """Numbers to learn, counting each LSTM's two biases as the one they act as (as ``mwm.seq2seq``)."""
    return int(sum(p.numel() for name, p in model.named_parameters() if "bias_hh" not in name))


def run_one(job, epochs: int = recipe.EPOCHS, n_pairs: int | None = None, n_test: int | None = None) -> dict:
    """Train and grade one (arm, learning rate, seed); return its record (see the module docstring)."""
    arm, rate, seed = job
    kind, reverse_source, two_way = ARMS[arm]
    model, src_vocab, tgt_vocab, history = recipe.train_model(kind, epochs, n_pairs, seed, progress=False, lr=rate,
                                                              reverse_source=reverse_source, two_way=two_way)
    sha = None if two_way or kind == "additive" else weights_sha256(model, src_vocab, tgt_vocab, history)
    test = load_pairs("test")[:n_test]
    outputs = translate_all(model, src_vocab, tgt_vocab, [e for e, _ in test], reverse_source)
    refs, lengths = [h for _, h in test], [len(e) for e, _ in test]
    details = [bleu_details(o, [r]) for o, r in zip(outputs, refs)]
    return {"arm": arm, "learning_rate": rate, "seed": seed,
            "numbers": learned_numbers(model),
            "last_epoch_loss": round(history[-1], 6),
            "bleu": round(corpus_bleu(outputs, [[r] for r in refs]), 6),
            "bleu_by_length": [round(b[3], 6) for b in bleu_by_length(outputs, refs, lengths, BUCKETS)],
            "output_words": int(sum(d.candidate_length for d in details)),
            "reference_words": int(sum(d.reference_length for d in details)),
            "weights_sha256": sha}


def jobs(arms=CHAPTER_ARMS) -> list[tuple[str, float, int]]:
    """Every (arm, rate, seed) of ``arms`` (chapter 14's by default), the committed rate first."""
    return [(arm, rate, seed) for rate in RATES for seed in SEEDS for arm in ARMS if arm in arms]


def write(path: Path, runs: list[dict], arms=CHAPTER_ARMS) -> None:
    data = {"setup": {"arms": {a: {"kind": k, "reverse_source": r, "two_way": t} for a, (k, r, t) in ARMS.items()
                               if a in arms},
                      "learning_rates": list(RATES), "seeds": list(SEEDS), "epochs": recipe.EPOCHS,
                      "batch": recipe.BATCH, "clip": recipe.CLIP, "embed": recipe.EMBED, "hidden": recipe.HIDDEN,
                      "buckets": [list(b) for b in BUCKETS]},
            "runs": runs}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scoring", action="store_true",
                        help=f"lab 11's arm (additive scores) instead of chapter 14's, into {SCORING_OUT.name}")
    parser.add_argument("--out", type=Path, default=None, help=f"default {OUT.name}, or {SCORING_OUT.name}")
    args = parser.parse_args(argv)
    arms = SCORING_ARMS if args.scoring else CHAPTER_ARMS
    out = args.out or (SCORING_OUT if args.scoring else OUT)
    todo, done = jobs(arms), {}
    with mp.get_context("spawn").Pool(args.workers) as pool:
        for record in pool.imap_unordered(run_one, todo, chunksize=1):
            done[record["arm"], record["learning_rate"], record["seed"]] = record
            write(out, [done[j] for j in todo if j in done], arms)
            print(f"{len(done)}/{len(todo)}: {record['arm']} rate {record['learning_rate']} seed {record['seed']}: "
                  f"BLEU {record['bleu']:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
