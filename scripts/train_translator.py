"""Train the toy English -> Hindi encoder-decoder of chapters 12 and 14.

Usage (from the project root):
    .venv/bin/python scripts/train_translator.py --model plain        # chapter 12's model
    .venv/bin/python scripts/train_translator.py --model attention    # chapter 14's model
    .venv/bin/python scripts/train_translator.py --model plain --quick --out /tmp/q.npz

Both models: an LSTM encoder (one-way) reads the English words; its last note and
cell state start an LSTM decoder, which is trained with teacher forcing (it reads the
true previous Hindi word) and the summed cross-entropy of its next-word guesses. The
attention model adds a dot-product attention read-out over the encoder's notes
(see ``mwm.seq2seq``). Adam, gradient-norm clipping at 1 (chapter 8), fixed seeds and
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
from mwm.translation_corpus import load_pairs

#: The full run's settings.
EMBED, HIDDEN = 64, 128
EPOCHS, BATCH, LR, CLIP = 30, 64, 3e-3, 1.0
SEED = 2014


class Seq2Seq(nn.Module):
    """LSTM encoder -> summary -> LSTM decoder, with an optional dot-product attention read-out."""

    def __init__(self, n_src: int, n_tgt: int, embed: int, hidden: int, attention: bool):
        super().__init__()
        self.attention = attention
        self.src_embedding = nn.Embedding(n_src, embed, padding_idx=0)
        self.tgt_embedding = nn.Embedding(n_tgt, embed, padding_idx=0)
        self.encoder = nn.LSTM(embed, hidden, batch_first=True)
        self.decoder = nn.LSTM(embed, hidden, batch_first=True)
        if attention:
            self.combine = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, n_tgt)

    def forward(self, src, src_len, tgt_in):
        """Scores for every next target word, teacher forced: (B, L, V)."""
        packed = nn.utils.rnn.pack_padded_sequence(self.src_embedding(src), src_len, batch_first=True,
                                                   enforce_sorted=False)
        notes, (h, c) = self.encoder(packed)
        notes, _ = nn.utils.rnn.pad_packed_sequence(notes, batch_first=True)     # (B, T, H)
        dec, _ = self.decoder(self.tgt_embedding(tgt_in), (h, c))                # the summary starts it
        if self.attention:
            scores = dec @ notes.transpose(1, 2)                                  # (B, L, T)
            mask = torch.arange(notes.shape[1])[None, None, :] >= src_len[:, None, None]
            weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
            dec = torch.tanh(self.combine(torch.cat([dec, weights @ notes], dim=-1)))
        return self.out(dec)

    def to_numpy(self, src_vocab: Vocab, tgt_vocab: Vocab) -> dict:
        """The weights in the layout of ``mwm.seq2seq.Translator`` (float32; the two LSTM biases added)."""
        def f(t):
            return t.detach().numpy().astype(np.float32)
        w = {"src_words": np.array(src_vocab.words), "tgt_words": np.array(tgt_vocab.words),
             "src_embedding": f(self.src_embedding.weight), "tgt_embedding": f(self.tgt_embedding.weight),
             "out_W": f(self.out.weight), "out_b": f(self.out.bias)}
        for name, lstm in (("enc", self.encoder), ("dec", self.decoder)):
            w[f"{name}_W_ih"], w[f"{name}_W_hh"] = f(lstm.weight_ih_l0), f(lstm.weight_hh_l0)
            w[f"{name}_b"] = f(lstm.bias_ih_l0 + lstm.bias_hh_l0)
        if self.attention:
            w["combine_W"], w["combine_b"] = f(self.combine.weight), f(self.combine.bias)
        return w

    @classmethod
    def from_numpy(cls, w: dict) -> "Seq2Seq":
        """Rebuild a torch model from a weight file's arrays (the biases go into ``bias_ih``)."""
        H, E = w["enc_W_hh"].shape[1], w["src_embedding"].shape[1]
        model = cls(len(w["src_words"]), len(w["tgt_words"]), E, H, "combine_W" in w)
        t = {k: torch.from_numpy(np.asarray(v)) for k, v in w.items() if k not in ("src_words", "tgt_words")}
        with torch.no_grad():
            model.src_embedding.weight.copy_(t["src_embedding"])
            model.tgt_embedding.weight.copy_(t["tgt_embedding"])
            model.out.weight.copy_(t["out_W"])
            model.out.bias.copy_(t["out_b"])
            for name, lstm in (("enc", model.encoder), ("dec", model.decoder)):
                lstm.weight_ih_l0.copy_(t[f"{name}_W_ih"])
                lstm.weight_hh_l0.copy_(t[f"{name}_W_hh"])
                lstm.bias_ih_l0.copy_(t[f"{name}_b"])
                lstm.bias_hh_l0.zero_()
            if model.attention:
                model.combine.weight.copy_(t["combine_W"])
                model.combine.bias.copy_(t["combine_b"])
        return model


def _pad(rows, width=None):
    width = width or max(len(r) for r in rows)
    return torch.tensor([r + [0] * (width - len(r)) for r in rows], dtype=torch.long)


def batches(pairs, src_vocab, tgt_vocab, batch_size, generator):
    """Shuffled batches of similar source length: (src, src_len, tgt_in, tgt_out) tensors."""
    order = torch.randperm(len(pairs), generator=generator).tolist()
    chunk = batch_size * 20
    groups = []
    for start in range(0, len(order), chunk):  # sort inside chunks of 20 batches: less padding
        part = sorted(order[start:start + chunk], key=lambda i: len(pairs[i][0]))
        groups += [part[k:k + batch_size] for k in range(0, len(part), batch_size)]
    for g in torch.randperm(len(groups), generator=generator).tolist():
        idx = groups[g]
        src = [src_vocab.ids_of(pairs[i][0]) for i in idx]
        tgt = [tgt_vocab.ids_of(pairs[i][1]) for i in idx]
        yield (_pad(src), torch.tensor([len(s) for s in src]),
               _pad([[tgt_vocab.bos_id] + t for t in tgt]), _pad([t + [tgt_vocab.eos_id] for t in tgt]))


def train(model_name: str, epochs: int = EPOCHS, n_pairs: int | None = None, seed: int = SEED,
          progress: bool = True) -> tuple[dict, list[float]]:
    """Train one model; return (numpy weights, mean loss per epoch in nats per target word)."""
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    pairs = load_pairs("train")[:n_pairs]
    src_vocab = Vocab.from_sentences(e for e, _ in load_pairs("train"))
    tgt_vocab = Vocab.from_sentences(h for _, h in load_pairs("train"))
    model = Seq2Seq(len(src_vocab), len(tgt_vocab), EMBED, HIDDEN, attention=(model_name == "attention"))
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, epochs))
    loss_fn = nn.CrossEntropyLoss(ignore_index=0, reduction="sum")
    gen = torch.Generator().manual_seed(seed)
    history = []
    n_batches = -(-len(pairs) // BATCH)
    bar = tqdm(total=epochs * n_batches, desc=f"train {model_name}", disable=not progress)
    for _ in range(epochs):
        total, words = 0.0, 0
        for src, src_len, tgt_in, tgt_out in batches(pairs, src_vocab, tgt_vocab, BATCH, gen):
            scores = model(src, src_len, tgt_in)
            n = int((tgt_out != 0).sum())
            loss = loss_fn(scores.reshape(-1, scores.shape[-1]), tgt_out.reshape(-1))
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
