"""Chapter 5's character language model in PyTorch: what ``scripts/train_char_lm.py`` trains.

The numpy model that the chapter runs is :class:`mwm.charlm.CharLM`; ``tests/test_charlm.py``
checks that the two agree.
"""
from __future__ import annotations

import numpy as np
import torch

from mwm.charlm import ALPHABET, HIDDEN_SIZE


class CharRNN(torch.nn.Module):
    """The course's character model in torch: h_t = tanh(W h_{t-1} + U x_t + b), p_t = softmax(V h_t + b_V).

    The cell is ``torch.nn.RNN``: its ``weight_hh_l0`` is W, ``weight_ih_l0`` is U and
    ``bias_ih_l0`` is b. torch keeps a second bias, ``bias_hh_l0``; it is fixed at zero
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
        self.b_V = torch.nn.Parameter(torch.zeros(symbols))

    def trained(self) -> dict:
        """The learned numbers under the course's names: W, U, b, V, b_V (numpy arrays).

        The weight files store ``b_V`` under the key ``c`` (:data:`mwm.charlm.FILE_KEYS`).
        """
        pairs = {"W": self.rnn.weight_hh_l0, "U": self.rnn.weight_ih_l0, "b": self.rnn.bias_ih_l0,
                 "V": self.V, "b_V": self.b_V}
        return {name: p.detach().numpy().copy() for name, p in pairs.items()}

    def load(self, W, U, b, V, b_V) -> "CharRNN":
        """Set the learned numbers from arrays (the inverse of :meth:`trained`)."""
        with torch.no_grad():
            for p, value in ((self.rnn.weight_hh_l0, W), (self.rnn.weight_ih_l0, U), (self.rnn.bias_ih_l0, b),
                             (self.V, V), (self.b_V, b_V)):
                p.copy_(torch.tensor(np.asarray(value), dtype=p.dtype))
        return self

    def forward(self, ids: torch.Tensor, tau: int | None = None) -> torch.Tensor:
        """Read ``ids`` (T, B) from the zero state; return the logits V h_t + b_V, shape (T, B, 28).

        With ``tau`` (the truncation length τ) set, the hidden state keeps flowing but the
        gradient is cut every ``tau`` steps.
        """
        return _logits(self, ids, tau)


class StackedCharRNN(torch.nn.Module):
    """Chapter 11's stacked layers on chapter 5's task: ``num_layers`` tanh layers, layer l + 1 reading layer l's hidden states.

    The same start as :class:`CharRNN` in every layer (W = 0.9 times an orthogonal matrix, the
    second bias held at zero) and the same read-out of the top layer's hidden state. Used by
    ``scripts/train_layers.py`` to compare one layer with two of the same total size.
    """

    def __init__(self, hidden_size: int, num_layers: int, symbols: int = len(ALPHABET)):
        super().__init__()
        if num_layers < 1 or hidden_size < 1:
            raise ValueError(f"num_layers and hidden_size must be >= 1, got {num_layers} and {hidden_size}")
        self.symbols = symbols
        self.rnn = torch.nn.RNN(symbols, hidden_size, num_layers=num_layers, nonlinearity="tanh")
        with torch.no_grad():
            for k in range(num_layers):
                getattr(self.rnn, f"weight_hh_l{k}").copy_(
                    0.9 * torch.nn.init.orthogonal_(torch.empty(hidden_size, hidden_size)))
                getattr(self.rnn, f"bias_hh_l{k}").zero_()
        for k in range(num_layers):
            getattr(self.rnn, f"bias_hh_l{k}").requires_grad_(False)
        self.V = torch.nn.Parameter(torch.randn(symbols, hidden_size) / hidden_size ** 0.5)
        self.b_V = torch.nn.Parameter(torch.zeros(symbols))

    def learned(self) -> int:
        """How many numbers the model learns (the held-at-zero biases not counted)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def forward(self, ids: torch.Tensor, tau: int | None = None) -> torch.Tensor:
        """Read ``ids`` (T, B) from zero states; the logits V h_t + b_V of the top layer, (T, B, symbols)."""
        return _logits(self, ids, tau)


def _logits(model, ids: torch.Tensor, tau: int | None) -> torch.Tensor:
    """The read-out logits of ``model`` (a :class:`CharRNN` or :class:`StackedCharRNN`) over ``ids`` (T, B).

    Every layer starts from a zero state; with ``tau`` set the hidden states keep flowing but the
    gradient is cut every ``tau`` steps (truncated backprop through time, chapter 6).
    """
    x = torch.nn.functional.one_hot(ids, model.symbols).to(model.V.dtype)
    h = torch.zeros(model.rnn.num_layers, ids.shape[1], model.rnn.hidden_size, dtype=model.V.dtype)
    window = tau or ids.shape[0]
    states = []
    for start in range(0, ids.shape[0], window):
        out, h = model.rnn(x[start:start + window], h.detach())
        states.append(out)
    return torch.cat(states) @ model.V.T + model.b_V
