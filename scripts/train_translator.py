"""Train the toy English -> Hindi encoder-decoder of chapters 12 and 14.

Usage (from the project root):
    .venv/bin/python scripts/train_translator.py --model plain        # chapter 12's model
    .venv/bin/python scripts/train_translator.py --model attention    # chapter 14's model
    .venv/bin/python scripts/train_translator.py --model control      # chapter 14's same-size control
    .venv/bin/python scripts/train_translator.py --model plain --quick --out /tmp/q.npz

All three models: an LSTM encoder (one-way) reads the English words; its last hidden state and
cell state start an LSTM decoder, which is trained with teacher forcing (it reads the
true previous Hindi word) and the summed cross-entropy of its next-word guesses. The
attention model adds a dot-product attention read-out over the encoder's hidden states
(see ``mwm.seq2seq``); the control has the attention model's combine layer, fed
the encoder's last hidden state h^enc_T (part of the summary that already starts the decoder) at
every step instead of the attention read, so it has exactly as many numbers to learn. Adam, gradient-norm clipping at 1 (chapter 8), fixed seeds and
``torch.set_num_threads(1)``, so a run rebuilds the committed weights bit for bit.

The weights go to ``lib/mwm/data/translator_<model>.npz`` as float32 arrays (with the
two vocabularies and the mean training loss of each epoch), written by ``mwm.seq2seq.save_weights`` so the bytes repeat.
``--quick`` trains one short epoch on 256 pairs (for the reproducibility test).
"""
from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from mwm.seq2seq import WEIGHT_FILES, Vocab, save_weights
from mwm_torch.translator import Seq2Seq
from mwm.translation_corpus import load_pairs

#: The full run's settings.
EMBED, HIDDEN = 64, 128
EPOCHS, BATCH, LR, CLIP = 30, 64, 3e-3, 1.0
SEED = 2014


def _pad(rows, width=None):
    width = width or max(len(r) for r in rows)
    return torch.tensor([r + [0] * (width - len(r)) for r in rows], dtype=torch.long)


def batches(pairs, src_vocab, tgt_vocab, batch_size, generator, reverse_source: bool = False):
    """Shuffled batches of similar source length: (src, src_len, tgt_in, tgt_out) tensors
    (with ``reverse_source``, each English sentence's ids last word first)."""
    order = torch.randperm(len(pairs), generator=generator).tolist()
    chunk = batch_size * 20
    groups = []
    for start in range(0, len(order), chunk):  # sort inside chunks of 20 batches: less padding
        part = sorted(order[start:start + chunk], key=lambda i: len(pairs[i][0]))
        groups += [part[k:k + batch_size] for k in range(0, len(part), batch_size)]
    for g in torch.randperm(len(groups), generator=generator).tolist():
        idx = groups[g]
        src = [src_vocab.ids_of(pairs[i][0])[::-1 if reverse_source else 1] for i in idx]
        tgt = [tgt_vocab.ids_of(pairs[i][1]) for i in idx]
        yield (_pad(src), torch.tensor([len(s) for s in src]),
               _pad([[tgt_vocab.bos_id] + t for t in tgt]), _pad([t + [tgt_vocab.eos_id] for t in tgt]))


def train_model(model_name: str, epochs: int = EPOCHS, n_pairs: int | None = None, seed: int = SEED,
                progress: bool = True, lr: float = LR, reverse_source: bool = False, two_way: bool = False):
    """Train one model with the recipe above; return (torch model, English vocab, Hindi vocab, mean loss
    per epoch in nats per target word). ``lr`` is Adam's starting learning rate, ``reverse_source``
    feeds every English sentence last word first, ``two_way`` gives the plain model a two-way encoder
    (``mwm_torch.translator.Seq2Seq``)."""
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    pairs = load_pairs("train")[:n_pairs]
    src_vocab = Vocab.from_sentences(e for e, _ in load_pairs("train"))
    tgt_vocab = Vocab.from_sentences(h for _, h in load_pairs("train"))
    model = Seq2Seq(len(src_vocab), len(tgt_vocab), EMBED, HIDDEN, kind=model_name, two_way=two_way)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, epochs))
    loss_fn = nn.CrossEntropyLoss(ignore_index=0, reduction="sum")
    gen = torch.Generator().manual_seed(seed)
    history = []
    n_batches = -(-len(pairs) // BATCH)
    bar = tqdm(total=epochs * n_batches, desc=f"train {model_name}", disable=not progress)
    for _ in range(epochs):
        total, words = 0.0, 0
        for src, src_len, tgt_in, tgt_out in batches(pairs, src_vocab, tgt_vocab, BATCH, gen, reverse_source):
            logits = model(src, src_len, tgt_in)
            n = int((tgt_out != 0).sum())
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
            opt.zero_grad()
            (loss / n).backward()
            nn.utils.clip_grad_norm_(model.parameters(), CLIP)
            opt.step()
            total, words = total + loss.item(), words + n
            bar.update(1)
            bar.set_postfix(loss=f"{total / words:.3f}")
        sched.step()
        history.append(total / words)
    bar.close()
    return model, src_vocab, tgt_vocab, history


def train(model_name: str, epochs: int = EPOCHS, n_pairs: int | None = None, seed: int = SEED,
          progress: bool = True) -> tuple[dict, list[float]]:
    """Train one model; return (numpy weights, mean loss per epoch in nats per target word)."""
    model, src_vocab, tgt_vocab, history = train_model(model_name, epochs, n_pairs, seed, progress)
    return model.to_numpy(src_vocab, tgt_vocab), history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(WEIGHT_FILES), default="plain")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--quick", action="store_true", help="one epoch on 256 pairs (a reproducibility check)")
    parser.add_argument("--out", type=Path, default=None, help="where to write the .npz (default: lib/mwm/data)")
    args = parser.parse_args()
    epochs, n_pairs = (1, 256) if args.quick else (args.epochs, None)
    start, cpu_start = time.perf_counter(), time.process_time()
    weights, history = train(args.model, epochs=epochs, n_pairs=n_pairs)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    weights["loss_per_epoch"] = np.array(history, dtype=np.float32)
    out = args.out or WEIGHT_FILES[args.model]
    save_weights(out, weights)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    print(f"loss per epoch: {[round(x, 4) for x in history]}")
    print(f"trained in {seconds:.0f} s wall clock, {cpu_seconds:.0f} s CPU; wrote {out} ({out.stat().st_size} bytes), sha256 {digest}")


if __name__ == "__main__":
    main()
