"""Train chapter 5's character language model and write lib/mwm/data/char_lm.npz (seed §5).

The model is the unit's: 28 one-hot symbols, the plain tanh cell with a note of 48
numbers, the read-out softmax(V h + c); 5,068 numbers. The recipe is the unit's too:

* teacher forcing on strings of eight random sentences from the course's corpus
  (lib/mwm/data/railway_sentences.txt), each string starting with the start symbol,
  a space; the loss is the average surprise of the true next character;
* backprop through time over windows of 96 characters: the note flows through the
  whole string, the blame is cut every 96 characters (truncated BPTT, chapter 6);
* the gradient clipped at length 5 (``torch.nn.utils.clip_grad_norm_``, chapter 8);
* W started at 0.9 times a random orthogonal matrix (chapter 8);
* 6,000 steps of Adam, a batch of 32 strings per step, the learning rate starting
  at 0.01 and falling to zero along a half cosine.

Everything is seeded (``torch.manual_seed`` for the starting weights, a numpy
Generator for the strings) and torch runs on one thread, so running the script again
rebuilds the same file byte for byte (the .npz is written with fixed zip dates).

Usage (from the project root):

    .venv/bin/python scripts/train_char_lm.py                 # the full run, a few minutes
    .venv/bin/python scripts/train_char_lm.py --steps 30 --out /tmp/quick.npz   # a quick check
"""
from __future__ import annotations

import argparse
import hashlib
import io
import math
import time
import zipfile
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from mwm.charlm import ALPHABET, HIDDEN_SIZE, START, WEIGHTS_PATH, char_lm_param_count, encode, load_corpus

SEED = 5
STEPS = 6000
BATCH = 32
SENTENCES_PER_STRING = 8
BPTT = 96
CLIP = 5.0
LR = 1e-2
LOG_EVERY = 100


class CharRNN(torch.nn.Module):
    """The unit's character model in torch: h_t = tanh(W h_{t-1} + U x_t + b), p_t = softmax(V h_t + c).

    The cell is ``torch.nn.RNN``: its ``weight_hh_l0`` is W, ``weight_ih_l0`` is U and
    ``bias_ih_l0`` is b. torch keeps a second shift, ``bias_hh_l0``; it is fixed at zero
    and never trained, so the model learns exactly the unit's 5,068 numbers.
    """

    def __init__(self, hidden_size: int = HIDDEN_SIZE, symbols: int = len(ALPHABET)):
        super().__init__()
        self.symbols = symbols
        self.rnn = torch.nn.RNN(symbols, hidden_size, nonlinearity="tanh")
        with torch.no_grad():
            self.rnn.weight_hh_l0.copy_(0.9 * torch.nn.init.orthogonal_(torch.empty(hidden_size, hidden_size)))
            self.rnn.bias_hh_l0.zero_()
        self.rnn.bias_hh_l0.requires_grad_(False)
        self.V = torch.nn.Parameter(torch.randn(symbols, hidden_size) / hidden_size ** 0.5)
        self.c = torch.nn.Parameter(torch.zeros(symbols))

    def trained(self) -> dict:
        """The learned numbers under the unit's names: W, U, b, V, c (numpy arrays)."""
        pairs = {"W": self.rnn.weight_hh_l0, "U": self.rnn.weight_ih_l0, "b": self.rnn.bias_ih_l0,
                 "V": self.V, "c": self.c}
        return {name: p.detach().numpy().copy() for name, p in pairs.items()}

    def load(self, W, U, b, V, c) -> "CharRNN":
        """Set the learned numbers from arrays (the inverse of :meth:`trained`)."""
        with torch.no_grad():
            for p, value in ((self.rnn.weight_hh_l0, W), (self.rnn.weight_ih_l0, U), (self.rnn.bias_ih_l0, b),
                             (self.V, V), (self.c, c)):
                p.copy_(torch.tensor(np.asarray(value), dtype=p.dtype))
        return self

    def forward(self, ids: torch.Tensor, bptt: int | None = None) -> torch.Tensor:
        """Read ``ids`` (T, B) from the zero note; return the scores V h_t + c, shape (T, B, 28).

        With ``bptt`` set, the note keeps flowing but the blame is cut every ``bptt`` steps.
        """
        x = torch.nn.functional.one_hot(ids, self.symbols).to(self.V.dtype)
        h = torch.zeros(1, ids.shape[1], self.rnn.hidden_size, dtype=self.V.dtype)
        window = bptt or ids.shape[0]
        notes = []
        for start in range(0, ids.shape[0], window):
            out, h = self.rnn(x[start:start + window], h.detach())
            notes.append(out)
        return torch.cat(notes) @ self.V.T + self.c


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


def train(steps: int = STEPS, seed: int = SEED, batch: int = BATCH, lr: float = LR, progress: bool = True):
    """Run the training; return (model, per-step losses) (teacher forcing, seed §5)."""
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = CharRNN().double()
    learned = [p for p in model.parameters() if p.requires_grad]
    assert sum(p.numel() for p in learned) == char_lm_param_count() == 5068
    sentences = load_corpus()
    rng = np.random.default_rng(seed)
    optimiser = torch.optim.Adam(learned, lr=lr)
    # lr * 0.5 (1 + cos(pi n / steps)): from lr at the first step down to 0 at the last
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda n: 0.5 * (1 + math.cos(math.pi * n / steps)))
    losses = np.empty(steps)
    for step in tqdm(range(steps), desc="training", disable=not progress):
        inputs, targets, mask = make_batch(sentences, rng, batch)
        scores = model(inputs, bptt=BPTT)
        loss = torch.nn.functional.cross_entropy(scores[mask], targets[mask])
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(learned, CLIP)
        optimiser.step()
        schedule.step()
        losses[step] = loss.item()
    return model, losses


def write_npz(path: Path, arrays: dict) -> None:
    """Write arrays as an .npz with fixed zip dates, so equal arrays give equal bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, value in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(value), allow_pickle=False)  # keeps 0-d scalars 0-d
            zf.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), buf.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=STEPS, help=f"Adam steps (default {STEPS})")
    parser.add_argument("--quick", action="store_true", help="a 30-step run, to check the script")
    parser.add_argument("--out", type=Path, default=WEIGHTS_PATH, help="where to write the weights")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    steps = 30 if args.quick else args.steps
    start, cpu_start = time.perf_counter(), time.process_time()
    model, losses = train(steps, args.seed)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    arrays = model.trained()
    # the loss curve, averaged over blocks of LOG_EVERY steps (the last block may be shorter)
    blocks = [losses[i:i + LOG_EVERY].mean() for i in range(0, steps, LOG_EVERY)]
    arrays.update(loss_curve=np.array(blocks), steps=np.array(steps), seed=np.array(args.seed),
                  batch=np.array(BATCH), bptt=np.array(BPTT), clip=np.array(CLIP), lr=np.array(LR),
                  alphabet=np.array(ALPHABET))
    write_npz(args.out, arrays)
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    print(f"{steps} steps in {seconds:.1f} s ({cpu:.1f} s of CPU); last {min(LOG_EVERY, steps)} steps' mean loss {blocks[-1]:.4f} "
          f"nats per character; wrote {args.out} ({args.out.stat().st_size} bytes), sha256 {digest}")


if __name__ == "__main__":
    main()
