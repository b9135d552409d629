"""Problem 2, one step with matrices (the vector cell, chapter 2), two steps of a two-number hidden state."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, fmt_list, lit, num, tex_matrix, tex_vec


def build(n) -> Problem:
    """Problem 2, one step with matrices (the vector cell, chapter 2), two steps of a two-number hidden state.

    Args:
        n: ``dict(W, U, b, h0, xs)``: W 2x2, U 2x1, b and h0 two floats, xs two floats (lists).

    Returns:
        Problem with answers ``h1``, ``h2`` (two numbers each, four decimals).

    Raises:
        KeyError: if a number is missing; ValueError (from mwm): if a shape is wrong.
    """
    from mwm import rnn_forward

    W, U, b, h0, xs = (np.array(n[k], dtype=float) for k in ("W", "U", "b", "h0", "xs"))
    hs = rnn_forward(xs.reshape(-1, 1), dict(W=W, U=U, b=b), h0=h0)[0]
    pieces = []
    prev = h0
    for t in range(2):
        Wh, Ux = W @ prev, U @ xs[t:t + 1]
        pieces.append((Wh, Ux, Wh + Ux + b))
        prev = hs[t]
    steps = []
    for t, (Wh, Ux, total) in enumerate(pieces):
        hp = "\\boldsymbol h_0" if t == 0 else "\\boldsymbol h_1"
        steps.append(
            f"**({'ab'[t]}) The three pieces.** $W{hp}={fmt_list(Wh)}$, $U x_{t + 1}={fmt_list(Ux)}$ and "
            f"$\\boldsymbol b={tex_vec(b)}$. Added up: ${fmt_list(total)}$.")
        steps.append(
            f"**({'ab'[t]}) Squash each entry.** $\\boldsymbol h_{t + 1}=\\tanh{fmt_list(total)}"
            f"\\approx {fmt_list(hs[t])}$.")
    return Problem(
        2, "One step with matrices", "easy", "the vector cell, entry by entry",
        statement=(
            "A cell keeps a hidden state of two numbers and reads inputs of one number. Its weights, bias and "
            "starting state are\n\n"
            f"$$W={tex_matrix(W)},\\quad U={tex_matrix(U)},\\quad \\boldsymbol b={tex_matrix(b.reshape(-1, 1))},"
            f"\\quad \\boldsymbol h_0={tex_matrix(h0.reshape(-1, 1))},$$\n\n"
            "and each step computes $\\boldsymbol h_t=\\tanh(W\\boldsymbol h_{t-1}+U x_t+\\boldsymbol b)$, "
            "with $\\tanh$ taken entry by entry. Give each hidden state as a list of two numbers, to four decimals."),
        given=f"W = np.array({lit(W)})\nU = np.array({lit(U)})\nb = np.array({lit(b)})\n"
              f"h0 = np.array({lit(h0)})\nxs = {lit(xs)}",
        parts=[
            Part("a", f"The hidden state $\\boldsymbol h_1$ after the input $x_1={num(xs[0])}$. Store it in `h1`.",
                 [Answer("h1", "vector", hs[0].tolist(), what="two numbers")],
                 "# Three pieces: the old state through W, the input through U, the bias; add, squash.\n"
                 "h1 = np.tanh(W @ h0 + U @ [xs[0]] + b)\nprint(\"h1 =\", h1.round(4))"),
            Part("b", f"The hidden state $\\boldsymbol h_2$ after the input $x_2={num(xs[1])}$. Store it in `h2`.",
                 [Answer("h2", "vector", hs[1].tolist(), what="two numbers")],
                 "# The same three pieces, now starting from h1.\n"
                 "h2 = np.tanh(W @ h1 + U @ [xs[1]] + b)\nprint(\"h2 =\", h2.round(4))"),
        ],
        steps=steps,
        remember=("The bias $\\boldsymbol b$ is added at every step, whatever the input: with an input "
                  "of zero, the old state and the bias alone decide the new state."),
        numbers=n)
