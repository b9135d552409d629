"""Chapter 9's memory task as PyTorch models: what ``scripts/train_memory_task.py`` trains.

(Moved from ``mwm.memory_task``: the numpy package ``mwm`` imports no torch.)

The task is the memory lab's (chapter 9, :mod:`mwm.memory_lab`) with nothing wired by
hand: each word is the pair (x_t, m_t) — the drink (+1 chai, -1 coffee) or a filler
uniform in [-noise, noise], and a marker that is 1 on the first word only — and one
recurrent layer (plain tanh cell, GRU or LSTM) with a linear read-out of its last hidden state
must learn to say which drink came first.

The training script and chapter 9 both build their models from here, so the chapter's
measurements of untrained models (:func:`starting_gradient_ratio`) are of exactly the models the
script trained.
"""
from __future__ import annotations

import numpy as np
import torch

#: The models trained: name -> (cell, lane bias). The lane bias is the LSTM's forget-gate
#: bias b_f, or the GRU's keep bias (minus the course's update-gate bias b_z: torch's
#: update gate multiplies the previous hidden state, so it is the course's 1 - z); 0 is torch's default.
MODELS = {"plain": ("plain", 0.0), "GRU": ("GRU", 0.0), "GRU, lane open": ("GRU", 2.0),
          "LSTM": ("LSTM", 0.0), "LSTM, lane open": ("LSTM", 2.0)}
FULL = {"lengths": [5, 10, 20, 30, 40, 50], "seeds": [0, 1, 2, 3, 4], "steps": 1500}
QUICK = {"lengths": [5, 10], "seeds": [0], "steps": 40}
SETUP = {"hidden_size": 8, "batch_size": 64, "learning_rate": 0.01, "noise": 0.5,
         "eval_sentences": 4000, "eval_seed": 12345, "stop_loss": 0.01, "stop_window": 50, "dtype": "float32"}


def sentences(generator: torch.Generator, n: int, length: int, noise: float):
    """A batch of lab sentences: inputs (n, length, 2) = (word x_t, marker m_t) and targets (n,) in {0, 1}."""
    first = torch.randint(0, 2, (n,), generator=generator).float() * 2 - 1
    s = (torch.rand(n, length, generator=generator) * 2 - 1) * noise
    s[:, 0] = first
    m = torch.zeros(n, length)
    m[:, 0] = 1.0
    return torch.stack([s, m], dim=-1), (first > 0).float()


class Reader(torch.nn.Module):
    """One recurrent layer (plain tanh cell, GRU or LSTM) and a linear read-out of its last hidden state."""

    def __init__(self, cell: str, hidden_size: int, lane_shift: float = 0.0):
        super().__init__()
        layer = {"plain": torch.nn.RNN, "GRU": torch.nn.GRU, "LSTM": torch.nn.LSTM}[cell]
        self.rnn = layer(input_size=2, hidden_size=hidden_size, batch_first=True)
        # torch stacks the LSTM's blocks i, f, g, o and the GRU's r, z, n: block 1 is the lane's gate
        # (forget gate; keep gate z' = 1 - z). Its bias is bias_ih + bias_hh.
        if cell != "plain" and lane_shift != 0.0:
            with torch.no_grad():
                self.rnn.bias_ih_l0[hidden_size:2 * hidden_size] = lane_shift
                self.rnn.bias_hh_l0[hidden_size:2 * hidden_size] = 0.0
        self.out = torch.nn.Linear(hidden_size, 1)

    def forward(self, x):
        states, _ = self.rnn(x)
        return self.out(states[:, -1]).squeeze(-1)


def untrained_reader(model: str, seed: int, length: int, hidden_size: int = 8) -> Reader:
    """The model ``scripts/train_memory_task.py`` builds for one run, before any training (chapter 9).

    The script seeds torch with ``1000 * seed + length`` and then builds its :class:`Reader`;
    this does the same, so the returned weights are exactly that run's starting weights.

    Args:
        model: a key of :data:`MODELS`.
        seed: the run's seed; length: the sentence length T it trains on; hidden_size: units.

    Returns:
        Reader (float32), untrained.

    Raises:
        ValueError: for an unknown model.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {list(MODELS)}, got {model!r}")
    cell, lane_shift = MODELS[model]
    torch.manual_seed(1000 * seed + length)
    return Reader(cell, hidden_size, lane_shift)


def starting_gradient_ratio(model: str, seed: int, word_signs, length: int = 20, hidden_size: int = 8) -> float:
    """The gradient reaching word 1 over the gradient reaching the last word, for one untrained run (chapters 7 and 9).

    Builds the model the training script builds for (``model``, ``length``, ``seed``)
    before any training (same seeding), runs it in float64 on the given sentences and
    returns mean |d y / d x_1| / mean |d y / d x_length| (y: the read-out's output).

    Args:
        model: a key of :data:`MODELS`.
        seed: the run's seed (the script seeds it with ``1000 * seed + length``).
        word_signs: array (n, length) of the words x_t (e.g. ``memory_lab.lab_sentences``).
        length: sentence length T (>= 2); hidden_size: units in the layer.

    Returns:
        float > 0.

    Raises:
        ValueError: for an unknown model or sentences of the wrong length.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {list(MODELS)}, got {model!r}")
    s = np.asarray(word_signs, dtype=float)
    if s.ndim != 2 or s.shape[1] != length:
        raise ValueError(f"word_signs must have shape (n, {length}), got {s.shape}")
    reader = untrained_reader(model, seed, length, hidden_size).double()
    marker = np.broadcast_to(np.arange(length) == 0, s.shape)
    x = torch.tensor(np.stack([s, marker], axis=-1), requires_grad=True)
    reader(x).sum().backward()
    grad = x.grad[:, :, 0].abs().mean(dim=0)
    return float(grad[0] / grad[-1])


