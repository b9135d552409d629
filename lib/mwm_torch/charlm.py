"""Chapter 5's character language model in PyTorch: what ``scripts/train_char_lm.py`` trains.

The numpy model that the chapter runs is :class:`mwm.charlm.CharLM`; ``tests/test_charlm.py``
checks that the two agree.
"""
from __future__ import annotations

import numpy as np
import torch

from mwm.charlm import ALPHABET, HIDDEN_SIZE


class CharRNN(torch.nn.Module):
    """The course's character model in torch: h_t = tanh(W h_{t-1} + U x_t + b), p_t = softmax(V h_t + c).

    The cell is ``torch.nn.RNN``: its ``weight_hh_l0`` is W, ``weight_ih_l0`` is U and
    ``bias_ih_l0`` is b. torch keeps a second shift, ``bias_hh_l0``; it is fixed at zero
    and never trained, so the model learns exactly the course's 5,068 numbers.
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
        """The learned numbers under the course's names: W, U, b, V, c (numpy arrays)."""
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
        return _scores(self, ids, bptt)


class FloorsCharRNN(torch.nn.Module):
    """Chapter 11's floors on chapter 5's task: ``floors`` tanh cells stacked, floor k + 1 reading floor k's notes.

    The same start as :class:`CharRNN` on every floor (W = 0.9 times an orthogonal matrix, the
    second shift held at zero) and the same read-out of the top floor's note. Used by
    ``scripts/train_floors.py`` to compare one floor with two of the same total size.
    """

    def __init__(self, hidden_size: int, floors: int, symbols: int = len(ALPHABET)):
        super().__init__()
        if floors < 1 or hidden_size < 1:
            raise ValueError(f"floors and hidden_size must be >= 1, got {floors} and {hidden_size}")
        self.symbols = symbols
        self.rnn = torch.nn.RNN(symbols, hidden_size, num_layers=floors, nonlinearity="tanh")
        with torch.no_grad():
            for k in range(floors):
                getattr(self.rnn, f"weight_hh_l{k}").copy_(
                    0.9 * torch.nn.init.orthogonal_(torch.empty(hidden_size, hidden_size)))
                getattr(self.rnn, f"bias_hh_l{k}").zero_()
        for k in range(floors):
            getattr(self.rnn, f"bias_hh_l{k}").requires_grad_(False)
        self.V = torch.nn.Parameter(torch.randn(symbols, hidden_size) / hidden_size ** 0.5)
        self.c = torch.nn.Parameter(torch.zeros(symbols))

    def learned(self) -> int:
        """How many numbers the model learns (the held-at-zero shifts not counted)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def forward(self, ids: torch.Tensor, bptt: int | None = None) -> torch.Tensor:
        """Read ``ids`` (T, B) from zero notes; the scores V h_t + c of the top floor, (T, B, symbols)."""
        return _scores(self, ids, bptt)


def _scores(model, ids: torch.Tensor, bptt: int | None) -> torch.Tensor:
    """The read-out scores of ``model`` (a :class:`CharRNN` or :class:`FloorsCharRNN`) over ``ids`` (T, B).

    Every floor starts from a zero note; with ``bptt`` set the notes keep flowing but the blame is
    cut every ``bptt`` steps (truncated backprop through time, chapter 6).
    """
    x = torch.nn.functional.one_hot(ids, model.symbols).to(model.V.dtype)
    h = torch.zeros(model.rnn.num_layers, ids.shape[1], model.rnn.hidden_size, dtype=model.V.dtype)
    window = bptt or ids.shape[0]
    notes = []
    for start in range(0, ids.shape[0], window):
        out, h = model.rnn(x[start:start + window], h.detach())
        notes.append(out)
    return torch.cat(notes) @ model.V.T + model.c
