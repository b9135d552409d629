"""Chapter 10's reset-gate task in PyTorch: what ``scripts/train_reset_gate.py`` trains.

The task, *the last order*: a sentence of ``length`` words, each the pair (s_t, m_t). The marker
m_t = 1 flags an *order*, whose word s_t is +1 or -1; the first word is always an order, and each
later word is one with probability ``order_rate``. Every other word is a filler uniform in
[-noise, noise] with m_t = 0. The answer is the sign of the last order. So at every order the
reader must throw its memory away and take the new sign: the job the GRU's reset gate is for
(chapter 10: with r = 0 the candidate ignores the previous hidden state).

:class:`CourseGRU` is the GRU in the course's convention (``mwm.gru``: ``z`` is the share
written, the reset gate multiplies the previous hidden state before ``W_h``), with the same weight names, so a
trained model's weights are ``mwm.gru_forward``'s dict as they are. ``reset=False`` holds the
reset gate at 1 (no ``W_r``, ``U_r``, ``b_r``): the control.
"""
from __future__ import annotations

import torch

#: The task's settings.
TASK = {"length": 20, "order_rate": 0.15, "noise": 0.5}


def orders(generator: torch.Generator, n: int, length: int = TASK["length"], order_rate: float = TASK["order_rate"],
           noise: float = TASK["noise"]):
    """A batch of the task's sentences: inputs (n, length, 2) = (word s_t, marker m_t) and targets (n,) in {0, 1}.

    Raises:
        ValueError: if ``n`` or ``length`` is below 1, or ``order_rate`` is outside [0, 1].
    """
    if n < 1 or length < 1:
        raise ValueError(f"n and length must be >= 1, got n={n}, length={length}")
    if not 0.0 <= order_rate <= 1.0:
        raise ValueError(f"order_rate must lie in [0, 1], got {order_rate}")
    marked = torch.rand(n, length, generator=generator) < order_rate
    marked[:, 0] = True
    signs = torch.randint(0, 2, (n, length), generator=generator).float() * 2 - 1
    fillers = (torch.rand(n, length, generator=generator) * 2 - 1) * noise
    s = torch.where(marked, signs, fillers)
    last = (marked * torch.arange(length)).argmax(dim=1)      # the position of the last order
    target = (signs[torch.arange(n), last] > 0).float()
    return torch.stack([s, marked.float()], dim=-1), target


class CourseGRU(torch.nn.Module):
    """A GRU layer in the course's convention, then a linear read-out of the last hidden state.

    ``h_t = (1 - z_t) h_(t-1) + z_t tanh(W_h (r_t * h_(t-1)) + U_h x_t + b_h)``, with
    ``z_t = sigmoid(W_z h_(t-1) + U_z x_t + b_z)`` and ``r_t = sigmoid(W_r h_(t-1) + U_r x_t + b_r)``
    (``r_t = 1`` when ``reset`` is False). Weights start uniform in [-1/sqrt(H), 1/sqrt(H)], as
    PyTorch's GRU starts, except ``b_z = update_shift`` (-2: the lane starts open, chapter 9).
    """

    def __init__(self, hidden_size: int = 8, input_size: int = 2, reset: bool = True, update_shift: float = -2.0):
        super().__init__()
        self.reset = reset
        bound = hidden_size ** -0.5
        blocks = ("z", "r", "h") if reset else ("z", "h")
        for k in blocks:
            self.register_parameter(f"W_{k}", torch.nn.Parameter(torch.empty(hidden_size, hidden_size).uniform_(-bound, bound)))
            self.register_parameter(f"U_{k}", torch.nn.Parameter(torch.empty(hidden_size, input_size).uniform_(-bound, bound)))
            self.register_parameter(f"b_{k}", torch.nn.Parameter(torch.empty(hidden_size).uniform_(-bound, bound)))
        with torch.no_grad():
            self.b_z.fill_(update_shift)
        self.out = torch.nn.Linear(hidden_size, 1)

    def states(self, x):
        """Every hidden state and gate: (h, z, r), each (n, length, H); r is all ones without a reset gate."""
        n, length, _ = x.shape
        h = x.new_zeros(n, self.W_z.shape[0])
        hs, zs, rs = [], [], []
        for t in range(length):
            xt = x[:, t]
            z = torch.sigmoid(h @ self.W_z.T + xt @ self.U_z.T + self.b_z)
            r = torch.sigmoid(h @ self.W_r.T + xt @ self.U_r.T + self.b_r) if self.reset else torch.ones_like(h)
            h = (1 - z) * h + z * torch.tanh((r * h) @ self.W_h.T + xt @ self.U_h.T + self.b_h)
            hs.append(h)
            zs.append(z)
            rs.append(r)
        return torch.stack(hs, 1), torch.stack(zs, 1), torch.stack(rs, 1)


    def forward(self, x):
        return self.out(self.states(x)[0][:, -1]).squeeze(-1)
