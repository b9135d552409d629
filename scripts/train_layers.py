"""Chapter 11's stacked layers on a trained model: one layer against two of the same size, on chapter 5's task.

Usage (from the project root):
    .venv/bin/python -m scripts.train_layers [--workers N] [--out PATH]

Each run trains a character model on chapter 5's corpus with chapter 5's recipe
(``scripts/train_char_lm.py``: strings of eight sentences, truncated backprop every 96 characters,
the gradient clipped at 5, W started at 0.9 times an orthogonal matrix, Adam with a half-cosine
learning rate), but for :data:`STEPS` steps only. The two arms (:data:`ARMS`,
``mwm_torch.charlm.StackedCharRNN``) differ only in how the tanh cells are arranged: one layer of
48 units (5,068 numbers to learn) or two layers of 32 (4,956), layer 2 reading layer 1's hidden states.
Each arm is trained from each seed of :data:`SEEDS` at each peak learning rate of :data:`RATES`,
and scored at the end by chapter 5's measure, the cross-entropy in nats per character of each sentence
read alone, on the corpus and on the held-out sentences.

Writes ``lib/mwm/data/layers_results.json``. Seeded, float64, one thread per process: the file
is the same on every run on one machine. About 12 CPU-minutes.
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]

from mwm.charlm import HELDOUT_PATH, load_corpus  # noqa: E402
from mwm_torch.charlm import StackedCharRNN  # noqa: E402
try:  # run as a module from the project root, so that it finds the recipe it shares
    from scripts.train_char_lm import BATCH, BPTT, CLIP, make_batch, cross_entropy_per_char  # noqa: E402
except ModuleNotFoundError as missing:
    if missing.name != "scripts":
        raise
    sys.exit("run it from the project root as a module: .venv/bin/python -m scripts.train_layers ...")

OUT = ROOT / "lib" / "mwm" / "data" / "layers_results.json"
ARMS = {"one layer, 48 units": (48, 1), "two layers, 32 units each": (32, 2)}
RATES = (0.003, 0.01)
SEEDS = (0, 1, 2)
STEPS = 1500


def train_one(job, steps: int = STEPS) -> dict:
    """Train one (arm, rate, seed); return its cross-entropy on the corpus and the held-out sentences at the end."""
    arm, rate, seed = job
    hidden, layers = ARMS[arm]
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = StackedCharRNN(hidden, layers).double()
    learned = [p for p in model.parameters() if p.requires_grad]
    sentences, heldout = load_corpus(), load_corpus(HELDOUT_PATH)
    rng = np.random.default_rng(seed)
    optimiser = torch.optim.Adam(learned, lr=rate)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda n: 0.5 * (1 + math.cos(math.pi * n / steps)))
    for _ in range(steps):
        inputs, targets, mask = make_batch(sentences, rng, BATCH)
        loss = torch.nn.functional.cross_entropy(model(inputs, tau=BPTT)[mask], targets[mask])
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(learned, CLIP)
        optimiser.step()
        schedule.step()
    return {"arm": arm, "learning_rate": rate, "seed": seed, "numbers": model.learned(),
            "corpus": round(cross_entropy_per_char(model, sentences), 6), "heldout": round(cross_entropy_per_char(model, heldout), 6)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    jobs = [(arm, rate, seed) for arm in ARMS for rate in RATES for seed in SEEDS]
    with mp.get_context("spawn").Pool(args.workers) as pool:
        runs = pool.map(train_one, jobs, chunksize=1)
    data = {"setup": {"arms": {a: {"hidden_size": h, "layers": f} for a, (h, f) in ARMS.items()},
                      "learning_rates": list(RATES), "seeds": list(SEEDS), "steps": STEPS, "batch": BATCH},
            "runs": runs}
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for r in runs:
        print(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
