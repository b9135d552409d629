"""Train chapter 5's character language model and write lib/mwm/data/char_lm.npz.

The model is chapter 5's: 28 one-hot symbols, the plain tanh cell with a hidden state of 48
numbers, the read-out softmax(V h + b_V); 5,068 numbers. The recipe:

* teacher forcing on strings of eight random sentences from the course's corpus
  (lib/mwm/data/railway_sentences.txt), each string starting with the start symbol,
  a space; the loss is the mean cross-entropy of the true next character;
* backprop through time over windows of 96 characters: the hidden state flows through the
  whole string, the gradient is cut every 96 characters (truncated BPTT, τ = 96, chapter 6);
* the gradient clipped at length 5 (``torch.nn.utils.clip_grad_norm_``, chapter 8);
* W started at 0.9 times a random orthogonal matrix (chapter 8);
* 6,000 steps of Adam, a batch of 32 strings per step, the learning rate starting
  at 0.01 and falling to zero along a half cosine.

Every LOG_EVERY steps (and before the first) the script also measures the model's cross-entropy,
in nats per character, on the corpus and on the held-out sentences
(lib/mwm/data/railway_heldout.txt), each sentence read alone from the zero state after the
start symbol, as chapter 5 measures it; the measurement changes nothing in the training. The
two curves go to lib/mwm/data/char_lm_curve.json, which chapter 5 draws.

Everything is seeded (``torch.manual_seed`` for the starting weights, a numpy
Generator for the strings) and torch runs on one thread, so running the script again
rebuilds the same file byte for byte (the .npz is written with fixed zip dates).

Usage (from the project root):

    .venv/bin/python scripts/train_char_lm.py                 # the full run, a few minutes
    .venv/bin/python scripts/train_char_lm.py --steps 30 --out /tmp/quick.npz   # a quick check (and /tmp/quick_curve.json)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from mwm.charlm import ALPHABET, FILE_KEYS, HELDOUT_PATH, START, WEIGHTS_PATH, char_lm_param_count, encode, load_corpus
from mwm.npz import save_npz
from mwm_torch.charlm import CharRNN

SEED = 5
STEPS = 6000
BATCH = 32
SENTENCES_PER_STRING = 8
BPTT = 96
CLIP = 5.0
LR = 1e-2
LOG_EVERY = 100
CURVE_PATH = WEIGHTS_PATH.with_name("char_lm_curve.json")


def make_batch(sentences: list[str], rng: np.random.Generator, batch: int = BATCH,
               per_string: int = SENTENCES_PER_STRING):
    """``batch`` strings, each START + eight random sentences joined by spaces.

    Returns:
        (inputs, targets, mask): int tensors (T, B) and a bool mask (T, B) that is True
        where a real next character is to be guessed (strings differ in length).
    """
    strings = [START + " ".join(sentences[i] for i in rng.integers(len(sentences), size=per_string))
               for _ in range(batch)]
    longest = max(map(len, strings))
    ids = np.zeros((longest, batch), dtype=np.int64)
    mask = np.zeros((longest, batch), dtype=bool)
    for j, s in enumerate(strings):
        ids[:len(s), j] = encode(s)
        mask[:len(s), j] = True
    ids, mask = torch.from_numpy(ids), torch.from_numpy(mask)
    return ids[:-1], ids[1:], mask[1:]


def cross_entropy_per_char(model: CharRNN, sentences: list[str]) -> float:
    """Cross-entropy in nats per character on ``sentences``, each read alone from the zero state after START (chapter 5's measure).

    Args:
        model: the model (float64).
        sentences: a non-empty list of sentences over the model's alphabet.
    Returns:
        the summed cross-entropy of every character of every sentence (its last included) over their number.
    Raises:
        ValueError: if ``sentences`` is empty.
    """
    if not sentences:
        raise ValueError("sentences must not be empty")
    lengths = [len(s) for s in sentences]
    ids = np.zeros((max(lengths) + 1, len(sentences)), dtype=np.int64)
    mask = np.zeros((max(lengths), len(sentences)), dtype=bool)
    for j, s in enumerate(sentences):
        ids[:len(s) + 1, j] = encode(START + s)
        mask[:len(s), j] = True
    ids, mask = torch.from_numpy(ids), torch.from_numpy(mask)
    with torch.no_grad():
        logits = model(ids[:-1])
        nats = torch.nn.functional.cross_entropy(logits[mask], ids[1:][mask], reduction="sum")
    return float(nats) / sum(lengths)


def train(steps: int = STEPS, seed: int = SEED, batch: int = BATCH, lr: float = LR, progress: bool = True):
    """Run the training; return (model, per-step losses, curve) (teacher forcing, chapter 5).

    ``curve`` lists, before the first step and after every LOG_EVERY steps (and the last),
    ``{"step", "corpus", "heldout"}``: :func:`cross_entropy_per_char` on the corpus and on the
    held-out sentences.
    """
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = CharRNN().double()
    learned = [p for p in model.parameters() if p.requires_grad]
    assert sum(p.numel() for p in learned) == char_lm_param_count() == 5068
    sentences = load_corpus()
    heldout = load_corpus(HELDOUT_PATH)
    rng = np.random.default_rng(seed)
    optimiser = torch.optim.Adam(learned, lr=lr)
    # lr * 0.5 (1 + cos(pi n / steps)): from lr at the first step down to 0 at the last
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda n: 0.5 * (1 + math.cos(math.pi * n / steps)))
    losses = np.empty(steps)

    def measure(done):
        return {"step": done, "corpus": round(cross_entropy_per_char(model, sentences), 6),
                "heldout": round(cross_entropy_per_char(model, heldout), 6)}
    curve = [measure(0)]
    for step in tqdm(range(steps), desc="training", disable=not progress):
        inputs, targets, mask = make_batch(sentences, rng, batch)
        logits = model(inputs, tau=BPTT)
        loss = torch.nn.functional.cross_entropy(logits[mask], targets[mask])
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(learned, CLIP)
        optimiser.step()
        schedule.step()
        losses[step] = loss.item()
        if (step + 1) % LOG_EVERY == 0 or step + 1 == steps:
            curve.append(measure(step + 1))
    return model, losses, curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=STEPS, help=f"Adam steps (default {STEPS})")
    parser.add_argument("--quick", action="store_true", help="a 30-step run, to check the script")
    parser.add_argument("--out", type=Path, default=WEIGHTS_PATH, help="where to write the weights")
    parser.add_argument("--curve-out", type=Path, default=None,
                        help="where to write the two cross-entropy curves (default: beside --out, NAME_curve.json)")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    steps = 30 if args.quick else args.steps
    start, cpu_start = time.perf_counter(), time.process_time()
    model, losses, curve = train(steps, args.seed)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    arrays = {FILE_KEYS[name]: value for name, value in model.trained().items()}   # the file keeps the key "c" for b_V
    # the loss curve, averaged over blocks of LOG_EVERY steps (the last block may be shorter)
    blocks = [losses[i:i + LOG_EVERY].mean() for i in range(0, steps, LOG_EVERY)]
    arrays.update(loss_curve=np.array(blocks), steps=np.array(steps), seed=np.array(args.seed),
                  batch=np.array(BATCH), bptt=np.array(BPTT), clip=np.array(CLIP), lr=np.array(LR),
                  alphabet=np.array(ALPHABET))
    save_npz(args.out, arrays, compress=False, sort=False)  # the committed file's format
    curve_out = args.curve_out or args.out.with_name(args.out.stem + "_curve.json")
    curve_out.write_text(json.dumps({"log_every": LOG_EVERY, "strings_per_step": BATCH, "curve": curve}, indent=1)
                              + "\n", encoding="utf-8")
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    print(f"{steps} steps in {seconds:.1f} s ({cpu:.1f} s of CPU); last {min(LOG_EVERY, steps)} steps' mean loss {blocks[-1]:.4f} "
          f"nats per character; wrote {args.out} ({args.out.stat().st_size} bytes), sha256 {digest}")


if __name__ == "__main__":
    main()
